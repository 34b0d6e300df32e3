/* GD32F103C8T6 (seed 001): Cortex-M3 at 72 MHz from an 8 MHz crystal
 * (HXTAL x9 PLL), no FPU, 64 KB flash, 20 KB SRAM.
 * Ruler: DWT CYCCNT (core cycles). Event source: TIMER1 channel 0 compare
 * (STM32's TIM2 CC1: the same address and IRQ 28). TIMER1..3 sit on APB1,
 * which runs at 36 MHz (AHB/2; APB1 may not run at 72 MHz); with an APB1
 * prescaler other than 1 the timers on it are clocked at twice APB1 (GD32F10x
 * User Manual, RCU clock tree, CK_TIMERx; RM0008 "Clock tree" for the
 * STM32F103), so TIMER1 counts at 72 MHz, the core clock: the irq series are
 * core cycles (seed 003). The GD32F10x timers are 16-bit (free-running,
 * CAR = 0xFFFF): event differences are taken modulo 65536 (910 us), far
 * above the period. */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

#include <stdint.h>

#define RB_CORE_HZ 72000000u

#define RB_COUNTER_HZ RB_CORE_HZ
#define RB_COUNTER_NAME "dwt"
#define RB_COUNTER_UNIT "cycles"
static inline uint32_t rb_counter_now(void) {
  return *(volatile uint32_t*)0xE0001004u;
}

#define RB_EVENT_HZ RB_CORE_HZ
#define RB_EVENT_NAME "timer1_ch0"
#define RB_EVENT_CLOCK "core"
#define RB_EVENT_MASK 0xFFFFu
/* 101 us: well above the 20 us critical section, not a divisor of the 1 ms
 * tick (72000 / 7272 is not whole), so the events sample every offset
 * within the tick period; far below the 65536-tick wrap. */
#define RB_EVENT_PERIOD 7272u
static inline uint32_t rb_event_now(void) {
  return *(volatile uint32_t*)0x40000024u; /* TIMER1_CNT */
}
#define RB_TEST_IRQN 28u /* TIMER1 (STM32: TIM2) */
/* Every interrupt handler of board.c (NVIC number, function), for a kernel
 * that owns the vector table (rb_board.h). The shared startup
 * (boards/common/startup.c) names the vectors as the STM32 does: IRQ 28, 29
 * and 30 are TIM2_, TIM3_ and TIM4_IRQHandler there, GD32's TIMER1, TIMER2
 * and TIMER3 (the GD32F10x and STM32F103 vector tables agree on them). */
#define RB_BOARD_IRQS(X) X(28u, TIM2_IRQHandler) X(29u, TIM3_IRQHandler) X(30u, TIM4_IRQHandler)
/* The console UART's interrupt, weak for a port whose kernel reads the
 * console by interrupt (RT-Thread's MSH; board.cmake RB_BOARD_CONSOLE_ISR):
 * the harness polls it (boards/common/startup.c). */
#define RB_BOARD_WEAK_IRQS(X) X(37u, USART1_IRQHandler)

/* zero_latency_irq: TIMER3 channel 0 compare (APB1 x2 = 72 MHz, 16-bit),
 * IRQ 30, every 563 cycles (7.8 us), well below the 1440 cycles (20 us) of
 * a critical section, so each holds at least two. */
#define RB_ZLI_NAME "timer3_ch0"
#define RB_ZLI_HZ RB_CORE_HZ
#define RB_ZLI_MASK 0xFFFFu
#define RB_ZLI_PERIOD 563u
#define RB_ZLI_IRQN 30u /* TIMER3 (STM32: TIM4) */
static inline uint32_t rb_zli_now(void) {
  return *(volatile uint32_t*)0x40000824u; /* TIMER3_CNT */
}

/* No STOP mode here (sleep_wake's phase stop is NA): the GD32F10x's
 * deep-sleep wakes from the RTC alarm on EXTI line 17, a different RTC from
 * the F407's wake-up timer, and that path is not written for this board. */
#define RB_BOARD_HAS_STOP 0
#define RB_BOARD_NO_STOP                                                                        \
  "board gd32f103c8 has no STOP-mode wake-up source in its board code (the GD32F10x RTC alarm " \
  "path is not written)"

/* Empty interrupts: TIMER2's update (overflow) every 28080 ticks (390 us at
 * 72 MHz), IRQ 29; the handler only clears the flag. */
#define RB_EMPTY_NAME "timer2_update"
#define RB_EMPTY_IRQN 29u /* TIMER2 (STM32: TIM3) */
#define RB_EMPTY_ISR TIM3_IRQHandler
#define RB_EMPTY_PERIOD 28080u
/* Vector table entries as boards/common/startup.c builds it (16 system + 82
 * external, the STM32F4's count; the GD32F103's medium-density table uses
 * the first 43 external ones, the rest are never raised). */
#define RB_VECTOR_COUNT 98u

/* Console: USART0, TX on PA9, RX on PA10, RB_UART_BAUD 8N1 (board.cmake). */

#endif
