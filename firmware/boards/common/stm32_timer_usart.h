/* The general-purpose/advanced timer and USART register layout that the
 * STM32F1 (RM0008), STM32F4 (RM0090) and GD32F10x (GD32F10x User Manual:
 * TIMERx, USARTx; GD32F10x firmware library gd32f10x_timer.h and
 * gd32f10x_usart.h, the registers under GigaDevice's names) share: one
 * owner for the offsets and bits the boards use, with the STM32 names.
 * Bases and clock/GPIO registers differ per part and stay in each part's
 * header (stm32f4_regs.h, boards/gd32f103c8/board.c). Included by those; our
 * own minimal definitions, no vendor header. */
#ifndef RB_STM32_TIMER_USART_H
#define RB_STM32_TIMER_USART_H

#include "cm4_regs.h"

/* Timers (GD32: TIMERx_CTL0, DMAINTEN, INTF, SWEVG, CHCTL0, CHCTL2, CNT,
 * PSC, CAR, CH0CV, CCHP at the same offsets) */
#define TIM_CR1(b) RB_REG32((b) + 0x00u)
#define TIM_DIER(b) RB_REG32((b) + 0x0Cu)
#define TIM_SR(b) RB_REG32((b) + 0x10u)
#define TIM_EGR(b) RB_REG32((b) + 0x14u)
#define TIM_CCMR1(b) RB_REG32((b) + 0x18u)
#define TIM_CCER(b) RB_REG32((b) + 0x20u)
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

/* USART (F1/F4 layout; GD32: USART_STAT, DATA, BAUD, CTL0) */
#define USART_SR(b) RB_REG32((b) + 0x00u)
#define USART_DR(b) RB_REG32((b) + 0x04u)
#define USART_BRR(b) RB_REG32((b) + 0x08u)
#define USART_CR1(b) RB_REG32((b) + 0x0Cu)
#define USART_SR_TXE (1u << 7)
#define USART_SR_TC (1u << 6)
#define USART_SR_RXNE (1u << 5)
#define USART_SR_ORE (1u << 3)
#define USART_CR1_UE (1u << 13)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_RE (1u << 2)

#endif
