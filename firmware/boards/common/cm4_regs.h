/* Cortex-M4 system registers used by the boards and the bare port. Written
 * from the ARMv7-M Architecture Reference Manual; only what we use. */
#ifndef RB_CM4_REGS_H
#define RB_CM4_REGS_H

#include <stdint.h>

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

/* STM32F4 priority byte for a 4-bit priority level. */
#define RB_PRIO_BYTE(level) ((uint8_t)((level) << 4))

#endif
