# nucleo-h5: seed 003's board as the NUCLEO-H563ZI (STM32H563ZIT6, MB1404),
# the STM32H5 part whose reference material could be had: the seed's
# NUCLEO-H5E5ZJ-Q (STM32H5E5) is not in ST's CMSIS device package for the
# family (cmsis_device_h5 v1.3.0: H503 to H573), so its addresses, interrupt
# numbers and memory sizes are not checked here (docs/firmware.md,
# "nucleo-h5"). Not run on a board here: the images build and link.
# The host reads the one-line set(RB_BOARD_...) settings at run time.
set(RB_BOARD_FLASHERS openocd pyocd)
# OpenOCD's target/stm32h5x.cfg is in OpenOCD's tree after 0.12.0 (Debian 12
# ships 0.12.0 without it: /usr/share/openocd/scripts/target has stm32h7x,
# stm32l5x, stm32u5x but no stm32h5x); pyOCD's target comes from the
# STM32H5xx_DFP pack (pyocd pack install stm32h563zitx).
set(RB_BOARD_TARGET_openocd target/stm32h5x.cfg)
set(RB_BOARD_TARGET_pyocd stm32h563zitx)
# DBGMCU_IDCODE: DEV_ID 0x484 for the STM32H56x/H57x (RM0481 section
# 18.12.4, as OpenOCD's src/flash/nor/stm32h5x.h DEVID_STM32H56_H57XX and
# Black Magic's src/target/stm32h5.c ID_STM32H5xx have it), and the
# revisions OpenOCD's stm32h5x.c decodes; not read from a part here.
set(RB_BOARD_DEV_ID 0x484)
set(RB_BOARD_DEVICE STM32H563/H573)
set(RB_BOARD_REVISION_0x1000 A)
set(RB_BOARD_REVISION_0x1001 Z)
set(RB_BOARD_REVISION_0x1007 X)
# The addresses the flashers use: flash at 0x08000000 (nucleo-h5.ld), the
# DBGMCU at 0x44024000 (stm32h563xx.h DBGMCU_BASE; IDCODE first, CR at +4),
# and RCC_RSR's RMVF (RCC 0x44020C00 + 0xF4, bit 23) cleared before the
# reset whose cause the firmware reads. No STM32F4 address applies here.
set(RB_BOARD_FLASH_BASE 0x08000000)
set(RB_BOARD_DBGMCU_BASE 0x44024000)
set(RB_BOARD_RESET_FLAGS_CLEAR 0x44020CF4 0x00800000)
set(RB_BOARD_VCP_NOTE the ST-LINK V3 VCP is USART3 on PD8 PD9 on the NUCLEO-144 H563ZI - check the H5E5 board user manual)
# Seed 003's conditions, read back by the firmware (CONFIG): the DWT as the
# ruler, 250 MHz from the ST-LINK's 8 MHz MCO (HSE digital bypass) through
# PLL1, APB1 = the core clock so TIM2 counts core cycles, 5 flash wait states
# at VOS0 (STM32CubeH5 NUCLEO-H563ZI template, ll_utils.c), the instruction
# cache and prefetch on, the interrupt levels. A board left on HSI is
# INVALID, not slow.
set(RB_BOARD_EXPECT_counter dwt)
set(RB_BOARD_EXPECT_unit cycles)
set(RB_BOARD_EXPECT_core 250000000)
set(RB_BOARD_EXPECT_core_measured 250000000)
set(RB_BOARD_EXPECT_irq_hz_measured 250000000)
set(RB_BOARD_EXPECT_hse 8000000)
set(RB_BOARD_EXPECT_flash_ws 5)
set(RB_BOARD_EXPECT_icache 1)
set(RB_BOARD_EXPECT_prefetch 1)
set(RB_BOARD_EXPECT_irq_prio 14)
set(RB_BOARD_EXPECT_tick_prio 15)
set(RB_BOARD_EXPECT_pendsv_prio 15)
# No architectural lower bounds yet (RB_BOARD_LOWER_BOUND_*): the Cortex-M33's
# exception entry and return cycles are not checked here against Arm's
# Cortex-M33 Technical Reference Manual, and the F407's Cortex-M4 figures do
# not carry over by assumption.
# The CPU: Cortex-M33 with FPv5 single precision and DSP (stm32h563xx.h:
# __FPU_PRESENT 1, __DSP_PRESENT 1), 4 NVIC priority bits (__NVIC_PRIO_BITS).
# FreeRTOS builds GCC/ARM_CM33_NTZ as on qemu-mps2-an505.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m33 -mthumb)
set(RB_BOARD_HARD_FLOAT_FLAGS -mfpu=fpv5-sp-d16 -mfloat-abi=hard)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/nucleo-h5.ld")
set(RB_BOARD_MAX_SAMPLES 13000)
# The console: USART3 (kernel clock PCLK1), 921600 8N1 through the ST-LINK V3
# VCP; the rate is not tried on a bench.
set(RB_BOARD_UART_BAUD 921600)
set(RB_BOARD_CONSOLE USART3 TX PD8 RX PD9 AF7 ST-LINK V3 VCP)
set(RB_BOARD_HSE_HZ 8000000)
set(RB_BOARD_ISR_TEST TIM2_IRQHandler)
set(RB_BOARD_ISR_EMPTY TIM3_IRQHandler)
set(RB_BOARD_IRQN_EMPTY 46)
set(RB_BOARD_ISR_ZLI TIM5_IRQHandler)
set(RB_BOARD_IRQN_ZLI 48)
# The edge variant (RB_EDGES=on; docs/firmware.md, "Edges"): the analyzer's
# three channels (board.c). EV is TIM2's channel-1 output, TIM2 CC1 being
# the event timer.
set(RB_BOARD_EDGE_MK "PD14 GPIO output")
set(RB_BOARD_EDGE_EV "PA0 TIM2_CH1 output compare")
set(RB_BOARD_EDGE_TK "PD15 GPIO output")
set(RB_BOARD_EDGE_PINS gpio)
