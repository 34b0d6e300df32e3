# QEMU netduinoplus2 (STM32F405 model): the emulated bench.
# The host reads these lines at its build (src/matrix/boards.cmake): the
# flashers a bench may name for this board, the one that emulates it (its
# serial port is made per job) and the QEMU machine.
set(RB_BOARD_FLASHERS qemu)
set(RB_BOARD_EMULATOR qemu)
set(RB_BOARD_QEMU_MACHINE netduinoplus2)
# Series this bench captures and verifies but cannot measure (one line each,
# the reason in [A-Za-z0-9_./ -]): reports show them as "not a measurement on
# this bench", never rank them; diff and regress never hold them against a
# tolerance (docs/firmware.md, "Boards").
set(RB_BOARD_NOT_MEASURED_irq_entry QEMU charges nothing for exception entry so every kernel reads the same ISR prologue)
set(RB_BOARD_NOT_MEASURED_time_slice QEMU ends every slice on the tick so every kernel reads one tick)
set(RB_BOARD_NOT_MEASURED_sleep_wake_entry QEMU charges nothing for exception entry or wake-up so every kernel reads the same ISR prologue)
set(RB_BOARD_NOT_MEASURED_zli_entry_idle QEMU charges nothing for exception entry so every kernel reads the same ISR prologue)
set(RB_BOARD_NOT_MEASURED_zli_entry_critical QEMU charges nothing for exception entry so every kernel reads the same ISR prologue)
# Series the emulator itself can move between two runs of one image (one line
# each, the reason in the same characters): repeated loads are not judged on
# them, as on the series above (docs/run.md, "Repeated loads"), and the tests
# that compare two runs leave them out (tests/board-unstable.sh). A series
# may be on both lists.
set(RB_BOARD_UNSTABLE_sleep_wake QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
set(RB_BOARD_UNSTABLE_sleep_wake_entry QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
# The CPU (STM32F4: Cortex-M4F, 4 implemented NVIC priority bits). The harness
# and the ports see the priority facts as RB_NVIC_PRIO_BITS, RB_TICK_PRIO (15,
# SysTick and PendSV) and RB_IRQ_PRIO (14, the test timer); firmware/CMakeLists.txt
# derives the levels from the bits unless RB_BOARD_TICK_PRIO/RB_BOARD_IRQ_PRIO
# are set here.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m4 -mthumb)
set(RB_BOARD_HARD_FLOAT_FLAGS -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/../common/stm32f4.ld")
# Two buffers of RB_SAMPLES words must fit next to 7 stacks of 2 KB in 128 KB.
set(RB_BOARD_MAX_SAMPLES 13000)
# QEMU's USART1 ignores the rate; the host's serial stream has none.
set(RB_BOARD_UART_BAUD 115200)
set(RB_BOARD_CONSOLE USART1 QEMU serial 0)
# A 1 kHz tick is a million emulated instructions, and a loop that reads a
# timer costs about 200 ns of host time per read: tick-paced tests take fewer
# samples here, scaled to the tick rate so they span about 0.2 s (time_slice)
# and 0.1 s (tick_overhead) of virtual time. CONFIG reports them as
# samples.<test> and warmup.<test>.
function(rb_qemu_tick_cap var per_1khz floor)
  math(EXPR n "${per_1khz} * ${RB_TICK_HZ} / 1000")
  if(n LESS floor)
    set(n ${floor})
  endif()
  set(${var} ${n} PARENT_SCOPE)
endfunction()
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_time_slice 200 20)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_time_slice 10 2)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_tick_overhead 100 10)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_tick_overhead 5 1)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_tick_drift 200 20)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_tick_drift 5 1)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_idle_occupancy 100 10)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_idle_occupancy 5 1)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_mixed_load 100 10)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_mixed_load 5 1)
