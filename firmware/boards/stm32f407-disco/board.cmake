# STM32F407G-DISC1: the seed-000 bench (docs/firmware.md, "Boards").
# The host reads the one-line set(RB_BOARD_...) settings of this file at run
# time (src/catalog): the flashers a bench may name for this board, each
# one's default target (a bench's probe.target overrides it), the chip doctor
# expects on the probe, and the CONFIG every capture on it must report.
set(RB_BOARD_FLASHERS openocd pyocd)
set(RB_BOARD_TARGET_openocd target/stm32f4x.cfg)
set(RB_BOARD_TARGET_pyocd stm32f407vgtx)
# DBGMCU_IDCODE: DEV_ID 0x413 and its revisions (RM0090 section 38.6.1).
set(RB_BOARD_DEV_ID 0x413)
set(RB_BOARD_DEVICE STM32F405/407/415/417)
set(RB_BOARD_REVISION_0x1000 A)
set(RB_BOARD_REVISION_0x1001 Z)
set(RB_BOARD_REVISION_0x1003 Y)
set(RB_BOARD_REVISION_0x1007 1)
set(RB_BOARD_REVISION_0x2001 3)
# The addresses the flashers use: flash at 0x08000000 (stm32f4.ld), the
# DBGMCU at 0xE0042000 (RM0090 38.6), and RCC_CSR's RMVF (bit 24, RM0090
# 6.3.21) cleared before the reset whose cause the firmware reads.
set(RB_BOARD_FLASH_BASE 0x08000000)
set(RB_BOARD_DBGMCU_BASE 0xE0042000)
set(RB_BOARD_RESET_FLAGS_CLEAR 0x40023874 0x01000000)
# The ST-LINK/V2-A's virtual COM port is not wired to the target's USART2 on
# a stock board (UM1472): doctor warns, with the fix, when a bench names it
# as the console.
set(RB_BOARD_VCP_NOTE "on a stock STM32F407G-DISC1 it is not wired to USART2 (PA2/PA3)")
set(RB_BOARD_VCP_FIX "wire the ST-LINK MCU's pin 12 (its PA2, USART TX) to PA3 and its pin 13 (PA3, USART RX) to PA2, or use a USB-UART adapter on PA2/PA3 (docs/lab.md)")
# The conditions of seed 000 section 1.3, read back by the firmware (CONFIG):
# the DWT as the ruler, the clock tree (168 MHz from the 8 MHz crystal, the
# RCC read back), 5 flash wait states, ART caches and prefetch on, the
# interrupt levels. A board left on the 16 MHz HSI or with a failed PLL is
# INVALID, not slow (seed 000 section 6.2).
set(RB_BOARD_EXPECT_counter dwt)
set(RB_BOARD_EXPECT_unit cycles)
set(RB_BOARD_EXPECT_core 168000000)
set(RB_BOARD_EXPECT_core_measured 168000000)
# TIM1, the event timer, recomputed from RCC_CFGR's PPRE2: every interrupt
# figure is in its ticks, so a kernel that owns the clocks (NuttX) and picks
# another APB2 prescaler is INVALID, not twice as fast.
set(RB_BOARD_EXPECT_irq_hz_measured 168000000)
set(RB_BOARD_EXPECT_hse 8000000)
set(RB_BOARD_EXPECT_flash_ws 5)
set(RB_BOARD_EXPECT_icache 1)
set(RB_BOARD_EXPECT_dcache 1)
set(RB_BOARD_EXPECT_prefetch 1)
set(RB_BOARD_EXPECT_irq_prio 14)
set(RB_BOARD_EXPECT_tick_prio 15)
set(RB_BOARD_EXPECT_pendsv_prio 15)
# Architectural lower bounds of series on this core, in core cycles (one line
# each: the cycles, then what sets them, in [A-Za-z0-9_./ :-]): no correct
# measurement is below one, so verify marks a capture with a sample below it
# INVALID, "ruler broken" (verdict lower_bound; docs/verify.md). The run
# records them in result.json (board.lower_bounds). The Cortex-M4 figures,
# with zero-wait-state memory, so with this board's 5 flash wait states the
# real ones are higher: exception entry 12 cycles from the request to the
# handler's first instruction, tail-chaining 6, exception return 10 (ARM
# Cortex-M4 Technical Reference Manual, ARM DDI 0439, "Exception handling";
# ARM's interrupt latency table for Cortex-M3/M4; J. Yiu, The Definitive
# Guide to ARM Cortex-M3 and Cortex-M4 Processors, 3rd ed., chapter 8). FP
# context: the ports leave FPCCR at its reset value (ASPEN and LSPEN set:
# lazy stacking), so entry stays 12 cycles with an FP frame reserved; without
# lazy stacking the 26-word frame (ARMv7-M ARM, ARM DDI 0403, "Exception
# entry behavior") makes entry and return longer, so these bounds hold for
# every fpu_context. No series measures a tail-chain alone: it has no line.
# The event timers (TIM1, TIM8) count at the core clock (irq_hz_measured),
# so these series' ticks are core cycles; verify converts where they are not.
set(RB_BOARD_LOWER_BOUND_irq_entry 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M4 TRM DDI 0439)
set(RB_BOARD_LOWER_BOUND_zli_entry_idle 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M4 TRM DDI 0439)
set(RB_BOARD_LOWER_BOUND_zli_entry_critical 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M4 TRM DDI 0439)
set(RB_BOARD_LOWER_BOUND_sleep_wake_entry 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M4 TRM DDI 0439 - waking from WFI adds to it)
set(RB_BOARD_LOWER_BOUND_event_to_task 22 exception entry 12 and return to thread mode 10 cycles - ARM Cortex-M4 TRM DDI 0439)
set(RB_BOARD_LOWER_BOUND_notify_event_to_task 22 exception entry 12 and return to thread mode 10 cycles - ARM Cortex-M4 TRM DDI 0439)
set(RB_BOARD_LOWER_BOUND_sleep_wake 22 exception entry 12 and return to thread mode 10 cycles - ARM Cortex-M4 TRM DDI 0439)
set(RB_BOARD_LOWER_BOUND_tick_irq_empty 22 exception entry 12 and exception return 10 cycles around the empty handler - ARM Cortex-M4 TRM DDI 0439)
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
set(RB_BOARD_MAX_SAMPLES 13000)
# The console (USART2 on PA2/PA3): 921600 baud 8N1, the divider computed from
# the APB1 clock read back from RCC; the host refuses a bench whose
# serial.baud differs (src/matrix/boards.cmake reads this line). The crystal:
# X2 on the Discovery is 8 MHz (UM1472); a board with another crystal sets it here.
set(RB_BOARD_UART_BAUD 921600)
set(RB_BOARD_CONSOLE USART2 TX PA2 RX PA3 8N1 3.3 V)
set(RB_BOARD_HSE_HZ 8000000)
# What kernels that own the vector table or the console driver need (their
# ports read these, never the board's name).
set(RB_BOARD_ISR_TEST TIM1_CC_IRQHandler)
set(RB_BOARD_ISR_EMPTY TIM1_UP_TIM10_IRQHandler)
set(RB_BOARD_IRQN_EMPTY 25)
set(RB_BOARD_ISR_ZLI TIM8_CC_IRQHandler)
set(RB_BOARD_IRQN_ZLI 46)
set(RB_BOARD_ISR_STOP RTC_WKUP_IRQHandler)
set(RB_BOARD_IRQN_STOP 3)
set(RB_BOARD_CONSOLE_USART USART2_BASE)
set(RB_BOARD_CONSOLE_IRQN 38)
set(RB_BOARD_CONSOLE_ISR USART2_IRQHandler)
set(RB_BOARD_ZEPHYR_BOARD stm32f4_disco)
# tick_overhead's copy of Zephyr's vector table: SRAM2, the last 16 KB.
set(RB_BOARD_ZEPHYR_RAM_VECTORS 0x2001C000u)
set(RB_BOARD_NUTTX_CUSTOM_CLOCKS OFF)
# The edge variant (RB_EDGES=on; docs/firmware.md, "Edges"): the analyzer's
# three channels, pins of the extension headers (board.c). EV is TIM1's
# channel-1 output, TIM1 CC1 being the event timer.
set(RB_BOARD_EDGE_MK "PE11 GPIO output")
set(RB_BOARD_EDGE_EV "PE9 TIM1_CH1 output compare")
set(RB_BOARD_EDGE_TK "PE13 GPIO output")
set(RB_BOARD_EDGE_PINS gpio)
