/* The Cortex-M layer (ARMv7-M): the system registers the harness, the boards
 * and every port use, the priority encoding and the SysTick set-up. Written
 * from the ARMv7-M Architecture Reference Manual; only what we use. The
 * board's facts (RB_NVIC_PRIO_BITS, RB_TICK_PRIO, RB_IRQ_PRIO) come from
 * rb_build_config.h (boards/<board>/board.cmake). */
#ifndef RB_CM4_REGS_H
#define RB_CM4_REGS_H

#include <stdint.h>

#include "rb_build_config.h"

#define RB_REG32(addr) (*(volatile uint32_t*)(addr))
#define RB_REG8(addr) (*(volatile uint8_t*)(addr))

/* System control block */
#define SCB_ICSR RB_REG32(0xE000ED04u)
#define SCB_ICSR_PENDSVSET (1u << 28)
#define SCB_VTOR RB_REG32(0xE000ED08u)
#define SCB_AIRCR RB_REG32(0xE000ED0Cu)
#define SCB_SHPR2 RB_REG32(0xE000ED1Cu) /* SVCall priority in bits 31:24 */
#define SCB_SHPR3 RB_REG32(0xE000ED20u) /* SysTick 31:24, PendSV 23:16 */
#define SCB_SHCSR RB_REG32(0xE000ED24u)
#define SCB_CFSR RB_REG32(0xE000ED28u)
#define SCB_HFSR RB_REG32(0xE000ED2Cu)
#define SCB_MMFAR RB_REG32(0xE000ED34u)
#define SCB_BFAR RB_REG32(0xE000ED38u)
#define SCB_CPACR RB_REG32(0xE000ED88u)
#define FPU_FPCCR RB_REG32(0xE000EF34u)

/* SysTick */
#define SYST_CSR RB_REG32(0xE000E010u)
#define SYST_RVR RB_REG32(0xE000E014u)
#define SYST_CVR RB_REG32(0xE000E018u)
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE (1u << 2) /* processor clock */

/* NVIC, by IRQ number */
#define NVIC_ISER(n) RB_REG32(0xE000E100u + 4u * ((n) / 32u))
#define NVIC_ICER(n) RB_REG32(0xE000E180u + 4u * ((n) / 32u))
#define NVIC_ICPR(n) RB_REG32(0xE000E280u + 4u * ((n) / 32u))
#define NVIC_IPR(n) RB_REG8(0xE000E400u + (n))
#define NVIC_BIT(n) (1u << ((n) % 32u))

/* Debug: DHCSR, DEMCR, DWT cycle counter */
#define DBG_DHCSR RB_REG32(0xE000EDF0u)
#define DBG_DEMCR RB_REG32(0xE000EDFCu)
#define DBG_DEMCR_TRCENA (1u << 24)
#define DWT_CTRL RB_REG32(0xE0001000u)
#define DWT_CYCCNT RB_REG32(0xE0001004u)
#define DWT_CTRL_CYCCNTENA (1u << 0)

/* A priority level of the RB_NVIC_PRIO_BITS implemented bits as the priority
 * byte the NVIC and the SHPR registers hold, and back. */
#define RB_PRIO_BYTE(level) ((uint8_t)((level) << (8 - RB_NVIC_PRIO_BITS)))
#define RB_PRIO_LEVEL(byte) (((byte)&0xFFu) >> (8 - RB_NVIC_PRIO_BITS))

/* SysTick and PendSV at RB_TICK_PRIO (the other handlers in SHPR3 kept). */
static inline void rb_cm_tick_prio_set(void) {
  SCB_SHPR3 = (SCB_SHPR3 & 0x0000FFFFu) | ((uint32_t)RB_PRIO_BYTE(RB_TICK_PRIO) << 24) |
              ((uint32_t)RB_PRIO_BYTE(RB_TICK_PRIO) << 16);
}

/* SysTick from the processor clock, interrupting every `ticks` core clocks
 * (2 to 2^24), counting from the next clock on. */
static inline void rb_cm_systick_start(uint32_t ticks) {
  SYST_CSR = 0;
  SYST_RVR = ticks - 1u;
  SYST_CVR = 0;
  SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
}

#endif
