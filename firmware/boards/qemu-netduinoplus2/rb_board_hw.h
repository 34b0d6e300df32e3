/* QEMU netduinoplus2 (STM32F405 model), run with -icount shift=0: one guest
 * instruction is one nanosecond of virtual time. QEMU models no DWT cycle
 * counter (reads 0) and no TIM2 capture/compare interrupt, so:
 * - the ruler is TIM2's counter (PSC=0, never written): it advances once per
 *   instruction, so figures are instruction counts, labelled unit=instructions;
 * - the event source is TIM3's update interrupt, configured once at boot;
 *   the event time is computed from the programmed period (board.c). */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

#include <stdint.h>

/* SysTick (CLKSOURCE=1) counts at 168 MHz of virtual time. */
#define RB_CORE_HZ 168000000u

#define RB_COUNTER_HZ 1000000000u
#define RB_COUNTER_NAME "tim2"
#define RB_COUNTER_UNIT "instructions"
static inline uint32_t rb_counter_now(void) {
  return *(volatile uint32_t*)0x40000024u;
}

#define RB_EVENT_HZ 1000000000u
#define RB_EVENT_NAME "tim3_update"
/* 27 us of virtual time: longer than the 20 us critical section of phase
 * critical plus the wakeup, short enough to keep the QEMU run brief. */
#define RB_EVENT_PERIOD 27000u
static inline uint32_t rb_event_now(void) {
  return *(volatile uint32_t*)0x40000424u;
}
#define RB_TEST_IRQN 29u

#endif
