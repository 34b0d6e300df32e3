# QEMU netduino2 (STM32F205 model, Cortex-M3 without FPU): the emulated twin
# of the GD32F103C8 (issue 31): ARMv7-M without FP, 4 NVIC priority bits, and
# the part's 64 KB of flash and 20 KB of SRAM (netduino2-20k.ld). Its timers
# and USART are QEMU's netduinoplus2 models at the same addresses, so the
# board code is that board's board.c; what differs is here and in
# rb_board_hw.h (the core: 120 MHz SYSCLK; no FPU; the RAM split below).
# The host reads the one-line set(RB_BOARD_...) settings of this file at run
# time (src/catalog, docs/firmware.md "Boards"): the flashers a bench may name
# for this board, the one that emulates it (its serial port is made per job),
# the QEMU machine, the CONFIG every capture on it must report, and the series
# it cannot measure. Values use [A-Za-z0-9_./ :-] only.
set(RB_BOARD_FLASHERS qemu)
set(RB_BOARD_EMULATOR qemu)
set(RB_BOARD_QEMU_MACHINE netduino2)
# The ruler and its unit on this bench (CONFIG counter=, unit=): every capture
# is verified against them (RB_BOARD_EXPECT_<key>).
set(RB_BOARD_EXPECT_counter tim2)
set(RB_BOARD_EXPECT_unit instructions)
# The core clock the firmware assumes (SysTick at QEMU's 120 MHz SYSCLK).
# No FPU: an fpu_context=1 job is not built here (PORT_MISSING).
set(RB_BOARD_EXPECT_core 120000000)
set(RB_BOARD_EXPECT_irq_prio 14)
set(RB_BOARD_EXPECT_tick_prio 15)
set(RB_BOARD_EXPECT_pendsv_prio 15)
# Series this bench captures and verifies but cannot measure (one line each,
# the reason in [A-Za-z0-9_./ -]): reports show them as "not a measurement on
# this bench", never rank them; diff and regress never hold them against a
# tolerance (docs/firmware.md, "Boards").
set(RB_BOARD_NOT_MEASURED_irq_entry QEMU charges nothing for exception entry: the figure counts the instructions from the vector to the first ruler read in the handler - the dispatcher of a kernel that routes the vector through one - not the entry latency)
set(RB_BOARD_NOT_MEASURED_time_slice QEMU ends every slice on the tick so every kernel reads one tick)
set(RB_BOARD_NOT_MEASURED_sleep_wake_entry QEMU charges nothing for exception entry or wake-up: the figure counts the instructions from the vector to the first ruler read in the handler - not the wake-up latency)
set(RB_BOARD_NOT_MEASURED_zli_entry_idle QEMU charges nothing for exception entry: the figure counts the instructions from the vector to the first ruler read in the handler and the instructions a window with interrupts masked delays it by - not the entry latency)
set(RB_BOARD_NOT_MEASURED_zli_entry_critical QEMU charges nothing for exception entry: the figure counts the instructions from the vector to the first ruler read in the handler and the instructions a window with interrupts masked delays it by - not the entry latency)
set(RB_BOARD_NOT_MEASURED_tick_sleep QEMU 7.2 SysTick and TIM2 disagree by a factor of 2 across a tickless WFI sleep - the four tickless ports read 999803 to 999962 ppm - so the figure is the emulator and not the kernel drift)
# No architectural lower bounds (RB_BOARD_LOWER_BOUND_*, see the F407's
# board.cmake): under -icount the unit is instructions, not core cycles, and
# QEMU charges nothing for exception entry, tail-chaining or exit, so the
# Cortex-M4's cycle figures bound nothing here.
# Series the emulator itself can move between two runs of one image (one line
# each, the reason in the same characters): repeated loads are not judged on
# them, as on the series above (docs/run.md, "Repeated loads"), and the tests
# that compare two runs leave them out (tests/board-unstable.sh). A series
# may be on both lists.
set(RB_BOARD_UNSTABLE_sleep_wake QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
set(RB_BOARD_UNSTABLE_sleep_wake_entry QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
# The CPU (STM32F205 and GD32F103: Cortex-M3, no FPU, 4 implemented NVIC
# priority bits; QEMU 7.2 keeps all 8, the harness writes and reads the top
# 4). The levels follow from the bits as on the other boards (15 for SysTick
# and PendSV, 14 for the test timer). A port picks its kernel's CPU port from
# -mcpu= (firmware/CMakeLists.txt, RB_CPU): FreeRTOS' GCC/ARM_CM3 here; a
# port whose recipe lists no cortex-m3 in RB_PORT_CPUS is PORT_MISSING.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m3 -mthumb)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/../qemu-netduinoplus2/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/netduino2-20k.ld")
# Small RAM (docs/firmware.md, "Small RAM"): 20 KB hold the 6 harness task
# stacks, the kernel's own (idle, timer), the heap test's arena, the main
# stack (1 KB, netduino2-20k.ld) and two sample buffers. So every task stack
# is 224 words (a FreeRTOS run here with 256-word stacks left at least 124
# of them untouched: END stack_min_free_words), the heap arena 2048 bytes,
# and every test keeps at most 256 samples (CONFIG samples.<test>=256 beside samples=, so the
# report shows the smaller count; the warm-up is not stored and stays).
set(RB_BOARD_STACK_WORDS 224)
set(RB_BOARD_HEAP_BYTES 2048)
set(RB_BOARD_SAMPLES_CAP 256)
set(RB_BOARD_MAX_SAMPLES 256)
# QEMU's USART1 ignores the rate; the host's serial stream has none.
set(RB_BOARD_UART_BAUD 115200)
set(RB_BOARD_CONSOLE USART1 QEMU serial 0)
# What kernels that own the vector table or the console driver need: those
# of netduinoplus2, whose board.c this is.
set(RB_BOARD_ISR_TEST TIM3_IRQHandler)
set(RB_BOARD_ISR_EMPTY TIM4_IRQHandler)
set(RB_BOARD_IRQN_EMPTY 30)
set(RB_BOARD_ISR_ZLI TIM5_IRQHandler)
set(RB_BOARD_IRQN_ZLI 50)
set(RB_BOARD_CONSOLE_USART USART1_BASE)
set(RB_BOARD_CONSOLE_IRQN 37)
set(RB_BOARD_CONSOLE_ISR USART1_IRQHandler)
# A 1 kHz tick is a million emulated instructions: the tick-paced tests take
# fewer samples, as on netduinoplus2 (its board.cmake), then at most
# RB_BOARD_SAMPLES_CAP.
function(rb_qemu_tick_cap var per_1khz least)
  math(EXPR n "${per_1khz} * ${RB_TICK_HZ} / 1000")
  if(n LESS least)
    set(n ${least})
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
