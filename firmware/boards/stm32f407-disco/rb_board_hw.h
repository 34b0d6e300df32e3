/* STM32F407G-DISC1 (STM32F407VGT6): 8 MHz HSE -> PLL 168 MHz.
 * Ruler: DWT CYCCNT (core cycles). Event source: TIM1 channel 1 compare.
 * TIM1 sits on APB2 (84 MHz, AHB/2); with an APB prescaler other than 1 the
 * timer clock is twice the bus clock (RM0090, "Clocks" in the RCC chapter),
 * so TIM1 counts at 168 MHz, the core clock: the irq series are in core
 * cycles (seed 003). TIM1 is 16-bit (free-running, ARR = 0xFFFF): event
 * differences are taken modulo 65536 (390 us), far above the period. */
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

#define RB_EVENT_HZ RB_CORE_HZ
#define RB_EVENT_NAME "tim1_cc1"
#define RB_EVENT_CLOCK "core"
#define RB_EVENT_MASK 0xFFFFu
/* 101 us: well above the 20 us critical section, not a divisor of the 1 ms
 * tick, so the events sample every offset within the tick period; well
 * below the 65536-tick wrap. */
#define RB_EVENT_PERIOD 16968u
static inline uint32_t rb_event_now(void) {
  return *(volatile uint32_t*)0x40010024u; /* TIM1_CNT */
}
#define RB_TEST_IRQN 27u /* TIM1_CC */
/* Every interrupt handler of board.c (NVIC number, function), for a kernel
 * that owns the vector table (rb_board.h). */
#define RB_BOARD_IRQS(X)     \
  X(27u, TIM1_CC_IRQHandler) \
  X(25u, TIM1_UP_TIM10_IRQHandler) X(46u, TIM8_CC_IRQHandler) X(3u, RTC_WKUP_IRQHandler)
/* The console UART's interrupt, weak for a port whose kernel reads the
 * console by interrupt (RT-Thread's MSH; board.cmake RB_BOARD_CONSOLE_ISR):
 * the harness polls it (boards/common/startup.c). */
#define RB_BOARD_WEAK_IRQS(X) X(38u, USART2_IRQHandler)

/* zero_latency_irq: TIM8 channel 1 compare (TIM1's twin on APB2: 168 MHz,
 * 16-bit) every 1319 cycles (7.9 us), well below the 3360 cycles (20 us) of
 * a critical section. */
#define RB_ZLI_NAME "tim8_cc1"
#define RB_ZLI_HZ RB_CORE_HZ
#define RB_ZLI_MASK 0xFFFFu
#define RB_ZLI_PERIOD 1319u
#define RB_ZLI_IRQN 46u /* TIM8_CC */
static inline uint32_t rb_zli_now(void) {
  return *(volatile uint32_t*)0x40010424u; /* TIM8_CNT */
}

/* STOP mode (sleep_wake, series stop_wake): the RTC wake-up timer, clocked
 * by the LSI (about 32 kHz; the Discovery fits no LSE crystal) through
 * RTC/2, wakes the core through EXTI line 22 every RB_STOP_WUT + 1 periods
 * of 1/16 kHz (about 1 ms). RM0090 section 5.3 (low-power modes). */
#define RB_BOARD_HAS_STOP 1
#define RB_STOP_WUT 15u
#define RB_STOP_PERIOD_US 1000u

/* Empty interrupts: TIM1's update (overflow) every 65536 ticks (390 us). */
#define RB_EMPTY_NAME "tim1_update"
#define RB_EMPTY_IRQN 25u /* TIM1_UP_TIM10 */
#define RB_EMPTY_ISR TIM1_UP_TIM10_IRQHandler
/* Vector table entries: 16 system + 82 external (STM32F407). */
#define RB_VECTOR_COUNT 98u

/* Console: USART2, TX on PA2, RX on PA3 (AF7), RB_UART_BAUD 8N1 (board.cmake). */

#endif
