/* What the QEMU STM32 boards share (qemu-netduinoplus2, qemu-netduino2),
 * run with -icount shift=0: one guest instruction is one nanosecond of
 * virtual time. QEMU models no DWT cycle counter (reads 0) and no TIM2
 * capture/compare interrupt, so:
 * - the ruler is TIM2's counter (PSC=0, never written): it advances once per
 *   instruction, so figures are instruction counts, labelled unit=instructions;
 * - the event source is TIM3's update interrupt, configured once at boot;
 *   the event time is computed from the programmed period (board.c);
 * - QEMU models only TIM2..TIM5 of its STM32F405 and STM32F205
 *   (hw/arm/stm32f405_soc.c, stm32f205_soc.c: the same addresses and
 *   interrupts), not TIM1/TIM8 that the hardware boards use: the event timer
 *   counts virtual nanoseconds, one per instruction, like the ruler
 *   (event_clock=instructions);
 * - the empty interrupts of tick_overhead's calibration are TIM4's update.
 * The including board's rb_board_hw.h defines RB_CORE_HZ and RB_QEMU_BOARD
 * (its name) first. */
#ifndef RB_QEMU_STM32_HW_H
#define RB_QEMU_STM32_HW_H

#include <stdint.h>

#define RB_COUNTER_HZ 1000000000u
#define RB_COUNTER_NAME "tim2"
#define RB_COUNTER_UNIT "instructions"
static inline uint32_t rb_counter_now(void) {
  return *(volatile uint32_t*)0x40000024u;
}

#define RB_EVENT_HZ 1000000000u
#define RB_EVENT_NAME "tim3_update"
#define RB_EVENT_CLOCK "instructions"
#define RB_EVENT_MASK 0xFFFFFFFFu
/* 27 us of virtual time: longer than the 20 us critical section of phase
 * critical plus the wakeup, short enough to keep the QEMU run brief. */
#define RB_EVENT_PERIOD 27000u
static inline uint32_t rb_event_now(void) {
  return *(volatile uint32_t*)0x40000424u;
}
#define RB_TEST_IRQN 29u
/* Every interrupt handler of board.c (NVIC number, function), for a kernel
 * that owns the vector table (rb_board.h). */
#define RB_BOARD_IRQS(X) X(29u, TIM3_IRQHandler) X(30u, TIM4_IRQHandler) X(50u, TIM5_IRQHandler)
/* The console UART's interrupt, weak for a port whose kernel reads the
 * console by interrupt (RT-Thread's MSH; board.cmake RB_BOARD_CONSOLE_ISR):
 * the harness polls it (boards/common/startup.c). */
#define RB_BOARD_WEAK_IRQS(X) X(37u, USART1_IRQHandler)

/* zero_latency_irq: TIM5's update (TIM3's rules) every 7919 counts, well
 * below the 20000 of a critical section; TIM5 counts virtual ns like TIM3. */
#define RB_ZLI_NAME "tim5_update"
#define RB_ZLI_HZ 1000000000u
#define RB_ZLI_MASK 0xFFFFFFFFu
#define RB_ZLI_PERIOD 7919u
#define RB_ZLI_IRQN 50u
static inline uint32_t rb_zli_now(void) {
  return *(volatile uint32_t*)0x40000C24u;
}

/* No STOP mode: QEMU (7.2) treats WFI with SLEEPDEEP like a plain WFI and
 * neither its STM32F405 nor its STM32F205 model has an RTC or PWR block
 * (hw/arm/stm32f405_soc.c, stm32f205_soc.c). */
#define RB_BOARD_HAS_STOP 0
#define RB_BOARD_NO_STOP \
  "board " RB_QEMU_BOARD " has no STOP mode (QEMU models no PWR or RTC; SLEEPDEEP is a plain WFI)"

/* Empty interrupts: TIM4's update every 27 us of virtual time. */
#define RB_EMPTY_NAME "tim4_update"
#define RB_EMPTY_IRQN 30u /* TIM4 */
#define RB_EMPTY_ISR TIM4_IRQHandler
/* Vector table entries: 16 system + 82 external, boards/common/startup.c's
 * table (the STM32F405's; the STM32F205 has 81, QEMU's NVIC takes 96). */
#define RB_VECTOR_COUNT 98u
#define RB_EMPTY_PERIOD 27000u
/* Exception entry and exit cost nothing here, so an empty interrupt adds
 * only its handler's few instructions to a loop pass, less than
 * tick_overhead's gap threshold; passes are exact, so a pass longer than the
 * shortest by this much or more is one. */
#define RB_EMPTY_ABOVE_PASS 2u

#endif
