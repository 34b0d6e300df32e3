# GD32F103C8T6: the seed-001 bench (docs/firmware.md, "gd32f103c8"), a
# Cortex-M3 at 72 MHz without FPU, 64 KB of flash, 20 KB of SRAM. The host
# reads the one-line set(RB_BOARD_...) settings of this file at run time
# (src/catalog): the flashers a bench may name, each one's default target (a
# bench's probe.target overrides it), the chip doctor expects on the probe,
# and the CONFIG every capture on it must report.
set(RB_BOARD_FLASHERS openocd pyocd)
# OpenOCD drives it as an STM32F1 (its stm32f1x flash driver knows the
# 0x410 DEV_ID and probes 1 KB pages). pyOCD has no built-in GD32F103 target:
# gd32f103c8 comes from GigaDevice's CMSIS pack (pyocd pack install gd32f103c8).
set(RB_BOARD_TARGET_openocd target/stm32f1x.cfg)
set(RB_BOARD_TARGET_pyocd gd32f103c8)
# DBG_ID (0xE0042000, the STM32F103's DBGMCU_IDCODE): GD32F10x medium
# density parts report the STM32F103 medium-density DEV_ID 0x410 with a
# REV_ID no STM32 uses; no revision is declared here (none was read from a
# board of this bench).
set(RB_BOARD_DEV_ID 0x410)
set(RB_BOARD_DEVICE GD32F103 medium density - shares DEV_ID 0x410 with STM32F101/102/103)
# The addresses the flashers use: flash at 0x08000000 (gd32f103c8.ld), the
# DBG at 0xE0042000, and RCU_RSTSCK's RSTFC (RCU base 0x40021000, offset
# 0x24, bit 24: GD32F10x user manual, RCU) cleared before the reset whose
# cause the firmware reads. No STM32F4 address applies here.
set(RB_BOARD_FLASH_BASE 0x08000000)
set(RB_BOARD_DBGMCU_BASE 0xE0042000)
set(RB_BOARD_RESET_FLAGS_CLEAR 0x40021024 0x01000000)
# The conditions of seed 001, read back by the firmware (CONFIG): the DWT as
# the ruler, the clock tree (72 MHz from the 8 MHz crystal, the RCU read
# back), 2 FMC wait states, the interrupt levels. A board left on the 8 MHz
# IRC8M or with a failed PLL is INVALID, not slow. The GD32F103 has no
# instruction or data cache and FMC_WS no prefetch bit: icache, dcache and
# prefetch read n/a.
set(RB_BOARD_EXPECT_counter dwt)
set(RB_BOARD_EXPECT_unit cycles)
set(RB_BOARD_EXPECT_core 72000000)
set(RB_BOARD_EXPECT_core_measured 72000000)
# TIMER1, the event timer (APB1 36 MHz x2), recomputed from RCU_CFG0's
# APB1PSC: every interrupt figure is in its ticks.
set(RB_BOARD_EXPECT_irq_hz_measured 72000000)
set(RB_BOARD_EXPECT_hse 8000000)
set(RB_BOARD_EXPECT_flash_ws 2)
set(RB_BOARD_EXPECT_icache n/a)
set(RB_BOARD_EXPECT_dcache n/a)
set(RB_BOARD_EXPECT_prefetch n/a)
set(RB_BOARD_EXPECT_irq_prio 14)
set(RB_BOARD_EXPECT_tick_prio 15)
set(RB_BOARD_EXPECT_pendsv_prio 15)
# What this board cannot measure: sleep_wake's STOP phase is NA (no STOP
# wake-up in the board code, rb_board_hw.h); every other series is measured
# in core cycles on the real part. Nothing here has run on a board yet.
# Architectural lower bounds in core cycles (see the F407's board.cmake):
# the Cortex-M3 takes 12 cycles from the request to the handler's first
# instruction and 10 to return with zero-wait memory (ARM Cortex-M3 TRM,
# ARM DDI 0337, "Interrupt latency"; J. Yiu, The Definitive Guide to ARM
# Cortex-M3 and Cortex-M4 Processors, 3rd ed., chapter 8); the flash wait
# states only add to them.
set(RB_BOARD_LOWER_BOUND_irq_entry 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M3 TRM DDI 0337)
set(RB_BOARD_LOWER_BOUND_zli_entry_idle 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M3 TRM DDI 0337)
set(RB_BOARD_LOWER_BOUND_zli_entry_critical 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M3 TRM DDI 0337)
set(RB_BOARD_LOWER_BOUND_sleep_wake_entry 12 exception entry: 12 cycles from the request to the handler - ARM Cortex-M3 TRM DDI 0337 - waking from WFI adds to it)
set(RB_BOARD_LOWER_BOUND_event_to_task 22 exception entry 12 and return to thread mode 10 cycles - ARM Cortex-M3 TRM DDI 0337)
set(RB_BOARD_LOWER_BOUND_notify_event_to_task 22 exception entry 12 and return to thread mode 10 cycles - ARM Cortex-M3 TRM DDI 0337)
set(RB_BOARD_LOWER_BOUND_sleep_wake 22 exception entry 12 and return to thread mode 10 cycles - ARM Cortex-M3 TRM DDI 0337)
set(RB_BOARD_LOWER_BOUND_tick_irq_empty 22 exception entry 12 and exception return 10 cycles around the empty handler - ARM Cortex-M3 TRM DDI 0337)
# The CPU: Cortex-M3, no FPU (fpu_context=1 jobs are PORT_MISSING), 4
# implemented NVIC priority bits (GD32F10x firmware library:
# __NVIC_PRIO_BITS 4; the STM32F103's too). The levels follow from the bits
# (15 for SysTick and PendSV, 14 for the test timer). A port picks its
# kernel's Cortex-M3 port from -mcpu= (RB_CPU), as on qemu-netduino2.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m3 -mthumb)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/gd32f103c8.ld")
# Small RAM (docs/firmware.md, "Small RAM"): the split of its emulated twin
# qemu-netduino2, whose runs prove it on the same 20 KB: 224-word task
# stacks, a 2048-byte heap arena, at most 32 heap rounds and 256 samples per
# test (CONFIG samples.<test>=256 beside samples=; the warm-up is not stored).
# The twin's tick-paced caps are QEMU's (host time per read) and are not
# taken here: on the part every test keeps its 256.
set(RB_BOARD_STACK_WORDS 224)
set(RB_BOARD_HEAP_BYTES 2048)
set(RB_BOARD_SAMPLES_CAP 256)
set(RB_BOARD_MAX_SAMPLES 256)
set(RB_BOARD_HEAP_ROUNDS 32)
# The console (USART0 on PA9/PA10, through a USB-UART adapter): 921600 baud
# 8N1 (72 MHz / 921600 = 78.125: BAUD 78, +0.16 %), the divider computed
# from the APB2 clock read back from the RCU. The crystal: 8 MHz on the
# common GD32F103C8T6 boards; a board with another crystal sets it here.
set(RB_BOARD_UART_BAUD 921600)
set(RB_BOARD_CONSOLE USART0 TX PA9 RX PA10 8N1 3.3 V)
set(RB_BOARD_HSE_HZ 8000000)
# What kernels that own the vector table or the console driver need (their
# ports read these, never the board's name). The vector names are the
# shared startup's STM32 ones (IRQ 28..30 = TIMER1..3, IRQ 37 = USART0).
set(RB_BOARD_ISR_TEST TIM2_IRQHandler)
set(RB_BOARD_ISR_EMPTY TIM3_IRQHandler)
set(RB_BOARD_IRQN_EMPTY 29)
set(RB_BOARD_ISR_ZLI TIM4_IRQHandler)
set(RB_BOARD_IRQN_ZLI 30)
set(RB_BOARD_CONSOLE_USART 0x40013800u)
set(RB_BOARD_CONSOLE_IRQN 37)
set(RB_BOARD_CONSOLE_ISR USART1_IRQHandler)
# The edge variant (RB_EDGES=on; docs/firmware.md, "Edges"): the analyzer's
# three channels (board.c). EV is TIMER1's channel-0 output, TIMER1 CH0
# being the event timer.
set(RB_BOARD_EDGE_MK "PB12 GPIO output")
set(RB_BOARD_EDGE_EV "PA0 TIMER1_CH0 output compare")
set(RB_BOARD_EDGE_TK "PB13 GPIO output")
set(RB_BOARD_EDGE_PINS gpio)
