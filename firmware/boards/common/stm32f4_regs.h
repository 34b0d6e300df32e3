/* STM32F40x/41x peripheral registers used by the boards: our own minimal
 * definitions from the reference manual (RM0090), no vendor header. */
#ifndef RB_STM32F4_REGS_H
#define RB_STM32F4_REGS_H

#include "cm4_regs.h"
#include "stm32_timer_usart.h" /* TIM_*, USART_*: the layout the F1, F4 and GD32F10x share */

/* Timers: the advanced-control TIM1 (16-bit, on APB2) and the
 * general-purpose TIM2 (32-bit), TIM3 and TIM4 (on APB1); one register
 * layout (RM0090, "TIM1&TIM8 registers" and "TIM2 to TIM5 registers"). */
#define TIM1_BASE 0x40010000u
#define TIM2_BASE 0x40000000u
#define TIM3_BASE 0x40000400u
#define TIM4_BASE 0x40000800u
#define TIM5_BASE 0x40000C00u
#define TIM8_BASE 0x40010400u
#define TIM1_UP_TIM10_IRQN 25u
#define TIM1_CC_IRQN 27u
#define TIM2_IRQN 28u
#define TIM3_IRQN 29u
#define TIM4_IRQN 30u
#define RTC_WKUP_IRQN 3u
#define TIM8_CC_IRQN 46u
#define TIM5_IRQN 50u

/* USART bases (registers: stm32_timer_usart.h) */
#define USART1_BASE 0x40011000u
#define USART2_BASE 0x40004400u

/* RCC */
#define RCC_BASE 0x40023800u
#define RCC_CR RB_REG32(RCC_BASE + 0x00u)
#define RCC_PLLCFGR RB_REG32(RCC_BASE + 0x04u)
#define RCC_CFGR RB_REG32(RCC_BASE + 0x08u)
#define RCC_AHB1ENR RB_REG32(RCC_BASE + 0x30u)
#define RCC_APB1ENR RB_REG32(RCC_BASE + 0x40u)
#define RCC_APB2ENR RB_REG32(RCC_BASE + 0x44u)
#define RCC_CSR RB_REG32(RCC_BASE + 0x74u)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_CSR_RMVF (1u << 24)

/* PWR */
#define PWR_CR RB_REG32(0x40007000u)
#define PWR_CR_VOS (1u << 14)

/* FLASH interface */
#define FLASH_ACR RB_REG32(0x40023C00u)
#define FLASH_ACR_LATENCY_MASK 0x7u
#define FLASH_ACR_PRFTEN (1u << 8)
#define FLASH_ACR_ICEN (1u << 9)
#define FLASH_ACR_DCEN (1u << 10)
#define FLASH_ACR_ICRST (1u << 11)
#define FLASH_ACR_DCRST (1u << 12)

/* GPIOA */
#define GPIOA_BASE 0x40020000u
#define GPIO_MODER(b) RB_REG32((b) + 0x00u)
#define GPIO_OSPEEDR(b) RB_REG32((b) + 0x08u)
#define GPIO_PUPDR(b) RB_REG32((b) + 0x0Cu)
#define GPIO_AFRL(b) RB_REG32((b) + 0x20u)

#endif
