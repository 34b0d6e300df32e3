# QEMU mps2-an505 (Arm AN505 FPGA image: IoT Kit subsystem, Cortex-M33,
# ARMv8-M Mainline with the Security Extension, FPU and DSP): the emulated
# twin of the Cortex-M33 boards (issue 31; seed 003's NUCLEO-H5). QEMU 7.2
# starts the core in the Secure state; the firmware stays there as a plain
# build without TrustZone (SAU off, every address Secure; FreeRTOS'
# ARM_CM33_NTZ port with configRUN_FREERTOS_SECURE_ONLY). The host reads the
# one-line set(RB_BOARD_...) settings of this file at run time (src/catalog,
# docs/firmware.md "Boards"). Values use [A-Za-z0-9_./ :-] only.
set(RB_BOARD_FLASHERS qemu)
set(RB_BOARD_EMULATOR qemu)
set(RB_BOARD_QEMU_MACHINE mps2-an505)
# The -icount shift this board runs under: one instruction is 2^6 = 64 ns of
# virtual time, so a tick of the 20 MHz ruler is 0.78125 instructions (at
# shift=0 it was 50). Built into the image (RB_QEMU_ICOUNT_SHIFT; rb_board_init
# stops with a `!!` line when the ruler's ticks per instruction say QEMU runs
# another) and named in CONFIG counter=. The host's qemu flasher starts QEMU
# with it; scripts/run-qemu.sh takes it as RB_QEMU_ICOUNT_SHIFT
# (docs/firmware.md, "qemu-mps2-an505").
set(RB_BOARD_QEMU_ICOUNT_SHIFT 6)
# Code at 0x10000000 (an505.ld, the Secure alias of the SSRAM): the flasher
# verifies the image there.
set(RB_BOARD_FLASH_BASE 0x10000000)
add_compile_definitions(RB_QEMU_ICOUNT_SHIFT=${RB_BOARD_QEMU_ICOUNT_SHIFT})
# The ruler and its unit (CONFIG counter=, unit=): QEMU models no DWT cycle
# counter, and every device of this machine counts at the 20 MHz MAINCLK, so
# the ruler is the dual timer's first counter, a substitute named as such:
# 1.28 ticks per instruction under -icount shift=6 (rb_board_hw.h). Figures
# are counts of those ticks.
set(RB_BOARD_EXPECT_counter dualtimer1_20mhz_icount6)
set(RB_BOARD_EXPECT_unit ticks)
set(RB_BOARD_EXPECT_event_clock sysclk)
set(RB_BOARD_EXPECT_core 20000000)
set(RB_BOARD_EXPECT_irq_prio 14)
set(RB_BOARD_EXPECT_tick_prio 15)
set(RB_BOARD_EXPECT_pendsv_prio 15)
# Series this bench captures and verifies but cannot measure (one line each,
# the reason in [A-Za-z0-9_./ -]): reports show them as "not a measurement on
# this bench", never rank them; diff and regress never hold them against a
# tolerance (docs/firmware.md, "Boards"). What QEMU cannot show on any
# machine (free exception entry, slices ended on the tick, SysTick across a
# WFI) holds here too.
set(RB_BOARD_NOT_MEASURED_irq_entry QEMU charges nothing for exception entry: the figure counts the 20 MHz ticks - 1.28 per instruction - from the event to the first ruler read in the handler and not the entry latency)
set(RB_BOARD_NOT_MEASURED_time_slice QEMU ends every slice on the tick so every kernel reads one tick)
set(RB_BOARD_NOT_MEASURED_sleep_wake_entry QEMU charges nothing for exception entry or wake-up: the figure counts 20 MHz ticks from the event to the first ruler read in the handler - not the wake-up latency)
set(RB_BOARD_NOT_MEASURED_zli_entry_idle QEMU charges nothing for exception entry: the figure counts 20 MHz ticks from the event to the first ruler read in the handler - not the entry latency)
set(RB_BOARD_NOT_MEASURED_zli_entry_critical QEMU charges nothing for exception entry: the figure counts 20 MHz ticks from the event to the first ruler read in the handler and the ticks a window with interrupts masked delays it by - not the entry latency)
set(RB_BOARD_NOT_MEASURED_tick_sleep QEMU 7.2 SysTick and its timers disagree across a tickless WFI sleep on the STM32 QEMU boards - 999803 to 999962 ppm - and nothing here shows this machine differs: the figure is taken as the emulator and not the kernel drift)
# No architectural lower bounds (RB_BOARD_LOWER_BOUND_*): the unit is a
# 20 MHz tick of 0.78125 emulated instructions, not a core cycle.
# Series the emulator itself can move between two runs of one image.
set(RB_BOARD_UNSTABLE_sleep_wake QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
set(RB_BOARD_UNSTABLE_sleep_wake_entry QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
# QEMU's CMSDK UART ignores the rate; the host's serial stream has none.
set(RB_BOARD_UART_BAUD 115200)
set(RB_BOARD_CONSOLE UART0 QEMU serial 0)
# The console UART for a port that reads it by interrupt (RT-Thread's shell):
# UART0, a CMSDK APB UART (rb_board_hw.h AN505_UART0_BASE), its receive
# interrupt NVIC 32 and the weak handler the board leaves to such a port.
set(RB_BOARD_CONSOLE_USART AN505_UART0_BASE)
set(RB_BOARD_CONSOLE_IRQN 32)
set(RB_BOARD_CONSOLE_ISR UART0RX_IRQHandler)
set(RB_BOARD_CONSOLE_UART_KIND cmsdk)
# The CPU: Cortex-M33 with FPv5 single precision (QEMU 7.2 models the FPU
# and DSP on this machine) and 4 NVIC priority bits, the NUCLEO-H5's (QEMU
# keeps all 8; the harness writes and reads the top 4). A port picks its
# kernel's CPU port from -mcpu= (firmware/CMakeLists.txt, RB_CPU): FreeRTOS'
# GCC/ARM_CM33_NTZ here; a port whose recipe lists no cortex-m33 in
# RB_PORT_CPUS is PORT_MISSING.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m33 -mthumb)
set(RB_BOARD_HARD_FLOAT_FLAGS -mfpu=fpv5-sp-d16 -mfloat-abi=hard)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
# What kernels that own the vector table need (their ports read these).
# Out of tree: firmware/ports/zephyr/app/boards/arm/rb_mps2_an505 (Zephyr's
# MPS2 AN521 CPU0 SoC, built Secure without TrustZone or MPU), whose RAM
# ends below RB_BOARD_ZEPHYR_RAM_VECTORS, the last 16 KB of an505.ld's
# 256 KB: tick_overhead's copy of Zephyr's vector table.
set(RB_BOARD_ZEPHYR_BOARD rb_mps2_an505)
set(RB_BOARD_ZEPHYR_RAM_VECTORS 0x3803C000u)
set(RB_BOARD_ISR_TEST TIMER0_IRQHandler)
set(RB_BOARD_ISR_EMPTY TIMER1_IRQHandler)
set(RB_BOARD_IRQN_EMPTY 4)
set(RB_BOARD_ISR_ZLI DUALTIMER_IRQHandler)
set(RB_BOARD_IRQN_ZLI 5)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/an505.ld")
# Two buffers of RB_SAMPLES words next to 7 stacks of 2 KB in the 256 KB
# the image uses.
set(RB_BOARD_MAX_SAMPLES 13000)
# Tick-paced tests take fewer samples, as on the STM32 QEMU boards.
include("${RB_BOARD_DIR}/../common/qemu-tick-caps.cmake")
# The edge variant (RB_EDGES=on; docs/firmware.md, "Edges"): QEMU models no
# GPIO timing; the channels are stores to the DATAOUT registers of the CMSDK
# GPIO ports QEMU maps as unimplemented devices (board.c).
set(RB_BOARD_EDGE_MK "GPIO0 DATAOUT store - no pin")
set(RB_BOARD_EDGE_EV "GPIO1 DATAOUT store - no pin")
set(RB_BOARD_EDGE_TK "GPIO2 DATAOUT store - no pin")
set(RB_BOARD_EDGE_PINS emulated)
# NuttX (ports/nuttx/image.cmake): NuttX 12.4 has no chip or board for this
# machine, so the port brings its own on NuttX's ARMv8-M CPU port:
# ports/nuttx/chips/rb_an505 (NVIC, SysTick at the 20 MHz MAINCLK, the
# memory map, UART0 for NuttX's own output) and ports/nuttx/boards/
# rb_mps2_an505 (its configuration lines and a linker script for an505.ld's
# memory). The image gets an505.ld's 4 MB of code and 256 KB of RAM less
# the top 512 bytes, which hold tick_overhead's copy of NuttX's vector table
# (64 words).
set(RB_BOARD_NUTTX_CUSTOM_CHIP rb_an505)
set(RB_BOARD_NUTTX_CUSTOM_BOARD rb_mps2_an505)
set(RB_BOARD_NUTTX_FLASH_SIZE 4194304)
set(RB_BOARD_NUTTX_RAM_SIZE 261632)
set(RB_BOARD_NUTTX_RAM_VECTORS 0x3803FE00)
