/* The edge channels (rb_board.h; docs/firmware.md, "Edges") of a board with
 * an STM32-style timer whose channel-1 output compare is EV, and MK and TK on
 * two pins of one GPIO port with a set/reset register. The board's board.c
 * defines, before it includes this file (once):
 *   RB_EDGE_TIM       the event timer's base (its CC1 is the event)
 *   RB_EDGE_PIN_SET   the port's set/reset register (BSRR, GD32's BOP)
 *   RB_EDGE_MK_PIN, RB_EDGE_TK_PIN   the pin numbers
 *   TIM_OC1M_MASK     only where CCMR1's mode field is wider than OC1M[2:0]
 *                     (the H5's TIMx: OC1M[3] at bit 16), before stm32_tim.h
 * and writes rb_board_edge_init itself (clocks and pin modes differ). */
#ifndef RB_EDGE_OC1_H
#define RB_EDGE_OC1_H

#include "stm32_tim.h"

void rb_board_edge_mk(int level) {
  RB_EDGE_PIN_SET = 1u << (RB_EDGE_MK_PIN + (level ? 0u : 16u));
}

void rb_board_edge_tk(int level) {
  RB_EDGE_PIN_SET = 1u << (RB_EDGE_TK_PIN + (level ? 0u : 16u));
}

void rb_board_edge_ev_rearm(void) {
  const uint32_t ccmr = TIM_CCMR1(RB_EDGE_TIM) & ~TIM_OC1M_MASK;
  TIM_CCMR1(RB_EDGE_TIM) = ccmr | TIM_OC1M_FORCE_LOW;
  TIM_CCMR1(RB_EDGE_TIM) = ccmr | TIM_OC1M_ACTIVE_ON_MATCH; /* stays low until the match */
}

void rb_board_edge_ev_disarm(void) {
  TIM_CCMR1(RB_EDGE_TIM) = (TIM_CCMR1(RB_EDGE_TIM) & ~TIM_OC1M_MASK) | TIM_OC1M_FORCE_LOW;
}

void rb_board_edge_ev(int level) {
  TIM_CCMR1(RB_EDGE_TIM) = (TIM_CCMR1(RB_EDGE_TIM) & ~TIM_OC1M_MASK) |
                           (level ? TIM_OC1M_FORCE_HIGH : TIM_OC1M_FORCE_LOW);
}

#endif
