/* nucleo-h5: the NUCLEO-H563ZI (STM32H563ZIT6, Cortex-M33 with FPU, 2 MB
 * flash, 640 KB SRAM), standing in for seed 003's NUCLEO-H5E5ZJ-Q, whose
 * part (STM32H5E5) is not in ST's CMSIS device package for the family
 * (cmsis_device_h5 v1.3.0 covers H503 to H573): same family, same core, the
 * same 250 MHz at VOS0 and the same timer and USART blocks, but the facts
 * below are the H563's (stm32h563xx.h, RM0481, UM3115) and a run on the
 * H5E5 board must check them first (docs/firmware.md, "nucleo-h5").
 * Clock: 8 MHz from the ST-LINK V3's MCO (HSE digital bypass) -> PLL1 250 MHz,
 * AHB and APB1/2/3 undivided (APB1 = the core clock, as seed 003 requires).
 * Ruler: DWT CYCCNT (core cycles). Event source: TIM2 channel 1 compare;
 * TIM2 on APB1, undivided, counts at 250 MHz, the core clock, free-running. */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

#include <stdint.h>

#define RB_CORE_HZ 250000000u

#define RB_COUNTER_HZ RB_CORE_HZ
#define RB_COUNTER_NAME "dwt"
#define RB_COUNTER_UNIT "cycles"
static inline uint32_t rb_counter_now(void) {
  return *(volatile uint32_t*)0xE0001004u;
}

/* TIM2 (APB1 base 0x40000000, stm32h563xx.h TIM2_BASE_NS), run over 16 bits
 * (ARR 0xFFFF) so the masks hold whatever its counter width. */
#define RB_EVENT_HZ RB_CORE_HZ
#define RB_EVENT_NAME "tim2_cc1"
#define RB_EVENT_CLOCK "core"
#define RB_EVENT_MASK 0xFFFFu
/* 101 us (25253 cycles, not a divisor of the 250000-cycle tick): well above
 * the 20 us critical section, well below the 65536-cycle wrap. */
#define RB_EVENT_PERIOD 25253u
static inline uint32_t rb_event_now(void) {
  return *(volatile uint32_t*)0x40000024u; /* TIM2_CNT */
}
#define RB_TEST_IRQN 45u /* TIM2_IRQn (stm32h563xx.h) */
#define RB_BOARD_IRQS(X) X(45u, TIM2_IRQHandler) X(46u, TIM3_IRQHandler) X(48u, TIM5_IRQHandler)

/* zero_latency_irq: TIM5 channel 1 compare (APB1, 250 MHz, run over 16
 * bits) every 1979 cycles (7.9 us), well below the 5000 cycles (20 us) of a
 * critical section. */
#define RB_ZLI_NAME "tim5_cc1"
#define RB_ZLI_HZ RB_CORE_HZ
#define RB_ZLI_MASK 0xFFFFu
#define RB_ZLI_PERIOD 1979u
#define RB_ZLI_IRQN 48u /* TIM5_IRQn */
static inline uint32_t rb_zli_now(void) {
  return *(volatile uint32_t*)0x40000C24u; /* TIM5_CNT */
}

/* No STOP phase: the H5's STOP exit (back on HSI, PLL1 and VOS0 to restore)
 * is not written for this board. */
#define RB_BOARD_HAS_STOP 0
#define RB_BOARD_NO_STOP "board nucleo-h5 has no STOP phase (not written for the STM32H5)"

/* Empty interrupts: TIM3's update (16-bit, 250 MHz) every 65536 cycles
 * (262 us). */
#define RB_EMPTY_NAME "tim3_update"
#define RB_EMPTY_IRQN 46u /* TIM3_IRQn */
#define RB_EMPTY_ISR TIM3_IRQHandler
/* Vector table entries the harness may copy: 16 system + the first 112
 * external (the H563 has 131, IRQ 0 to 130; the board's sources are all
 * below 112 and a RAM copy must fit the 512-byte alignment the harness
 * uses). */
#define RB_VECTOR_COUNT 128u

/* Console: USART3, TX PD8, RX PD9 (AF7), the ST-LINK V3's VCP on the
 * NUCLEO-144 (STM32CubeH5 BSP stm32h5xx_nucleo.h COM1), RB_UART_BAUD 8N1. */

#endif
