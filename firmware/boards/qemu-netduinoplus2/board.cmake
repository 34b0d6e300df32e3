# QEMU netduinoplus2 (STM32F405 model): the emulated bench.
# The host reads the one-line set(RB_BOARD_...) settings of this file and of
# the file it includes (../common/qemu-stm32.cmake, what the QEMU boards share)
# at run time (src/catalog, docs/firmware.md "Boards"): the flashers a bench may name
# for this board, the one that emulates it (its serial port is made per job),
# the QEMU machine, the CONFIG every capture on it must report, and the series
# it cannot measure. Values use [A-Za-z0-9_./ :-] only.
include("${RB_BOARD_DIR}/../common/qemu-stm32.cmake")
include("${RB_BOARD_DIR}/../common/qemu-tick-caps.cmake")
set(RB_BOARD_QEMU_MACHINE netduinoplus2)
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
# Out of tree: firmware/ports/zephyr/app/boards/arm/rb_netduinoplus2.
set(RB_BOARD_ZEPHYR_BOARD rb_netduinoplus2)
# tick_overhead's copy of Zephyr's vector table: SRAM2, the last 16 KB.
set(RB_BOARD_ZEPHYR_RAM_VECTORS 0x2001C000u)
# NuttX's stm32f4discovery configuration with the port's clock set-up
# (rbp_sys_nuttx.c): QEMU starts the core on its 168 MHz model clock.
set(RB_BOARD_NUTTX_CUSTOM_CLOCKS ON)
