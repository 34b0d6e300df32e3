/* STM32F407G-DISC1 (STM32F407VGT6): 8 MHz HSE -> PLL 168 MHz.
 * Ruler: DWT CYCCNT (core cycles). Event source: TIM2 channel 1 compare,
 * TIM2 free-running at 84 MHz (APB1 42 MHz x2), so the irq series carry
 * hz=84000000 and are measured in TIM2 ticks. */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

#include <stdint.h>

#define RB_CORE_HZ 168000000u

#define RB_COUNTER_HZ RB_CORE_HZ
#define RB_COUNTER_NAME "dwt"
#define RB_COUNTER_UNIT "cycles"
static inline uint32_t rb_counter_now(void) {
  return *(volatile uint32_t*)0xE0001004u;
}

#define RB_EVENT_HZ 84000000u
#define RB_EVENT_NAME "tim2_cc1"
/* 101 us: well above the 20 us critical section, not a divisor of the 1 ms
 * tick, so the events sample every offset within the tick period. */
#define RB_EVENT_PERIOD 8484u
static inline uint32_t rb_event_now(void) {
  return *(volatile uint32_t*)0x40000024u;
}
#define RB_TEST_IRQN 28u

/* Console: USART2, TX on PA2, RX on PA3 (AF7), RB_UART_BAUD 8N1 (board.cmake). */

#endif
