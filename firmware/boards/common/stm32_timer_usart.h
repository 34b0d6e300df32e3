/* The general-purpose/advanced timer and USART register layout that the
 * STM32F1 (RM0008), STM32F4 (RM0090) and GD32F10x (GD32F10x User Manual:
 * TIMERx, USARTx; GD32F10x firmware library gd32f10x_timer.h and
 * gd32f10x_usart.h, the registers under GigaDevice's names) share: one
 * owner for the offsets and bits the boards use, with the STM32 names.
 * Bases and clock/GPIO registers differ per part and stay in each part's
 * header (stm32f4_regs.h, boards/gd32f103c8/board.c). Included by those; our
 * own minimal definitions, no vendor header. The timers are in stm32_tim.h. */
#ifndef RB_STM32_TIMER_USART_H
#define RB_STM32_TIMER_USART_H

#include "cm4_regs.h"
#include "stm32_tim.h" /* TIM_*: also the STM32H5's layout */

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

/* The console: every byte once the transmit register is empty, then until
 * the last has left the shift register (TC). */
static inline void rb_usart_write(uint32_t base, const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    while (!(USART_SR(base) & USART_SR_TXE)) {
    }
    USART_DR(base) = (uint8_t)s[i];
  }
  while (!(USART_SR(base) & USART_SR_TC)) {
  }
}

#endif
