/* The part of the CMSIS-Core (Cortex-M4) interface that TencentOS-tiny's
 * arch/arm/arm-v7m/cortex-m4/gcc/port_c.c uses, written for rtosbench from the
 * ARMv7-M Architecture Reference Manual and the CMSIS-Core documentation.
 * TencentOS expects the vendor BSP to provide core_cm4.h; the rtosbench
 * boards carry no vendor BSP. Semantics follow CMSIS: SysTick_Config sets
 * SysTick to the lowest priority, NVIC_SetPriority takes the unshifted
 * priority level. */
#ifndef RB_TOS_CORE_CM4_H
#define RB_TOS_CORE_CM4_H

#include <stdint.h>

#include "rb_build_config.h"

#define __NVIC_PRIO_BITS (RB_NVIC_PRIO_BITS + 0u) /* the board's (boards/<board>/board.cmake) */

typedef enum {
  PendSV_IRQn = -2,
  SysTick_IRQn = -1,
} IRQn_Type;

typedef struct {
  volatile uint32_t CTRL;
  volatile uint32_t LOAD;
  volatile uint32_t VAL;
  volatile const uint32_t CALIB;
} SysTick_Type;

typedef struct {
  volatile const uint32_t CPUID;
  volatile uint32_t ICSR;
  volatile uint32_t VTOR;
  volatile uint32_t AIRCR;
  volatile uint32_t SCR;
  volatile uint32_t CCR;
  volatile uint8_t SHP[12]; /* system handler priorities, handlers 4..15 */
  volatile uint32_t SHCSR;
  volatile uint32_t CFSR;
  volatile uint32_t HFSR;
  volatile uint32_t DFSR;
  volatile uint32_t MMFAR;
  volatile uint32_t BFAR;
  volatile uint32_t AFSR;
} SCB_Type;

#define SysTick ((SysTick_Type*)0xE000E010u)
#define SCB ((SCB_Type*)0xE000ED00u)
#define RB_TOS_NVIC_IP ((volatile uint8_t*)0xE000E400u)

#define SysTick_CTRL_ENABLE_Msk (1u << 0)
#define SysTick_CTRL_TICKINT_Msk (1u << 1)
#define SysTick_CTRL_CLKSOURCE_Msk (1u << 2)
#define SysTick_LOAD_RELOAD_Msk 0x00FFFFFFu
#define SCB_ICSR_PENDSTCLR_Msk (1u << 25)
#define SCB_AIRCR_VECTKEY_Pos 16u
#define SCB_AIRCR_PRIGROUP_Msk (7u << 8)
#define SCB_AIRCR_SYSRESETREQ_Msk (1u << 2)

static inline void NVIC_SetPriority(IRQn_Type irqn, uint32_t priority) {
  const uint8_t byte = (uint8_t)((priority << (8u - __NVIC_PRIO_BITS)) & 0xFFu);
  if ((int32_t)irqn < 0) {
    SCB->SHP[((uint32_t)irqn & 0xFu) - 4u] = byte;
  } else {
    RB_TOS_NVIC_IP[(uint32_t)irqn] = byte;
  }
}

/* 0 on success, 1 when `ticks` does not fit the 24-bit reload register. */
static inline uint32_t SysTick_Config(uint32_t ticks) {
  if (ticks - 1u > SysTick_LOAD_RELOAD_Msk) {
    return 1u;
  }
  SysTick->LOAD = ticks - 1u;
  NVIC_SetPriority(SysTick_IRQn, (1u << __NVIC_PRIO_BITS) - 1u);
  SysTick->VAL = 0u;
  SysTick->CTRL = SysTick_CTRL_CLKSOURCE_Msk | SysTick_CTRL_TICKINT_Msk | SysTick_CTRL_ENABLE_Msk;
  return 0u;
}

static inline void NVIC_SystemReset(void) {
  __asm volatile("dsb" ::: "memory");
  SCB->AIRCR = (0x5FAu << SCB_AIRCR_VECTKEY_Pos) | (SCB->AIRCR & SCB_AIRCR_PRIGROUP_Msk) |
               SCB_AIRCR_SYSRESETREQ_Msk;
  __asm volatile("dsb" ::: "memory");
  for (;;) {
  }
}

#endif
