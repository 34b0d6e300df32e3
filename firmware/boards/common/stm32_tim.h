/* The general-purpose/advanced timer registers the boards use, at the
 * offsets the STM32F1 (RM0008), STM32F4 (RM0090), STM32H5 (stm32h563xx.h
 * TIM_TypeDef) and GD32F10x (GD32F10x User Manual: TIMERx_CTL0, DMAINTEN,
 * INTF, SWEVG, CHCTL0, CHCTL2, CNT, PSC, CAR, CH0CV, CCHP) share, with the
 * STM32 names; and the interrupt sequences every probe-flashed board runs on
 * them: a capture/compare channel 1 whose CCR1 keeps each event's time (the
 * events and zero_latency_irq's), and the update interrupt (the empty
 * interrupts). Our own minimal definitions, no vendor header. */
#ifndef RB_STM32_TIM_H
#define RB_STM32_TIM_H

#include "cm4_regs.h"

#define TIM_CR1(b) RB_REG32((b) + 0x00u)
#define TIM_DIER(b) RB_REG32((b) + 0x0Cu)
#define TIM_SR(b) RB_REG32((b) + 0x10u)
#define TIM_EGR(b) RB_REG32((b) + 0x14u)
#define TIM_CCMR1(b) RB_REG32((b) + 0x18u)
#define TIM_CCER(b) RB_REG32((b) + 0x20u)
/* CCMR1's channel-1 output-compare mode (the edges' EV, rb_edge_oc1.h); a
 * timer whose field is wider defines TIM_OC1M_MASK before this file. */
#ifndef TIM_OC1M_MASK
#define TIM_OC1M_MASK (7u << 4)
#endif
#define TIM_OC1M_ACTIVE_ON_MATCH (1u << 4)
#define TIM_OC1M_FORCE_LOW (4u << 4)
#define TIM_OC1M_FORCE_HIGH (5u << 4)
#define TIM_CNT(b) RB_REG32((b) + 0x24u)
#define TIM_PSC(b) RB_REG32((b) + 0x28u)
#define TIM_ARR(b) RB_REG32((b) + 0x2Cu)
#define TIM_CCR1(b) RB_REG32((b) + 0x34u)
#define TIM_BDTR(b) RB_REG32((b) + 0x44u) /* TIM1/TIM8 only */
#define TIM_CR1_CEN (1u << 0)
#define TIM_DIER_UIE (1u << 0)
#define TIM_DIER_CC1IE (1u << 1)
#define TIM_SR_UIF (1u << 0)
#define TIM_SR_CC1IF (1u << 1)
#define TIM_EGR_UG (1u << 0)

/* Arms interrupt `irqn` of timer `base`, masked in the NVIC, for the source
 * `dier` (TIM_DIER_UIE, or TIM_DIER_CC1IE once CCR1 holds the first compare)
 * whose flag is `flag`: the flag and the pending bit cleared, then enabled at
 * the timer and in the NVIC. */
static inline void rb_tim_irq_arm(uint32_t base, uint32_t irqn, uint32_t dier, uint32_t flag) {
  TIM_SR(base) = ~flag;
  NVIC_ICPR(irqn) = NVIC_BIT(irqn);
  TIM_DIER(base) = dier;
  NVIC_ISER(irqn) = NVIC_BIT(irqn);
}

/* The update interrupt, masked and armed as above. */
static inline void rb_tim_up_start(uint32_t base, uint32_t irqn) {
  NVIC_ICER(irqn) = NVIC_BIT(irqn);
  rb_tim_irq_arm(base, irqn, TIM_DIER_UIE, TIM_SR_UIF);
}

/* Every interrupt of the timer off, `flag` and the pending bit cleared, and
 * nothing of it in flight when this returns. */
static inline void rb_tim_irq_stop(uint32_t base, uint32_t irqn, uint32_t flag) {
  TIM_DIER(base) = 0;
  NVIC_ICER(irqn) = NVIC_BIT(irqn);
  TIM_SR(base) = ~flag;
  NVIC_ICPR(irqn) = NVIC_BIT(irqn);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* In channel 1's handler, `now` read on entry: acknowledges the compare,
 * schedules the next one a period later (or a period after `now` when this
 * one was a period or more late: the harness counts it bad) and yields the
 * event's time, which the hardware kept in CCR1. A GNU statement expression,
 * not a function: inlined from a function, GCC selects between event and now
 * before it adds the constant period, and the handler's code (its length is
 * part of the wake latency) would differ from the sequence written out. */
#define RB_TIM_CC1_NEXT(base, now, period, mask)                                     \
  ({                                                                                 \
    const uint32_t rb_event_ = TIM_CCR1(base);                                       \
    TIM_SR(base) = ~TIM_SR_CC1IF;                                                    \
    const uint32_t rb_lat_ = ((now)-rb_event_) & (mask);                             \
    TIM_CCR1(base) = ((rb_lat_ < (period) ? rb_event_ : (now)) + (period)) & (mask); \
    rb_event_;                                                                       \
  })

#endif
