/* uC-CPU 1.32.01 configuration of the rtosbench ucos3 port (STM32F4). */
#ifndef CPU_CFG_MODULE_PRESENT
#define CPU_CFG_MODULE_PRESENT

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS */

#define CPU_CFG_NAME_EN DEF_DISABLED
#define CPU_CFG_NAME_SIZE 16

/* No timestamps: uC/OS-III runs with OS_CFG_TS_EN 0. */
#define CPU_CFG_TS_32_EN DEF_DISABLED
#define CPU_CFG_TS_64_EN DEF_DISABLED
#define CPU_CFG_TS_TMR_SIZE CPU_WORD_SIZE_32

/* Interrupts-disabled time measurement (CPU_CFG_INT_DIS_MEAS_EN) off.
 * Count leading zeros (OS_PrioGetHighest's ready-priority lookup): uC-CPU's
 * ARM-Cortex-M/ARMv7-M/GNU/cpu.h defines CPU_CFG_LEAD_ZEROS_ASM_PRESENT, so
 * CPU_CntLeadZeros is cpu_a.s' CLZ instruction (CONFIG lookup=clz). */
#define CPU_CFG_INT_DIS_MEAS_OVRHD_NBR 1u

#define CPU_CFG_CACHE_MGMT_EN DEF_DISABLED

/* Kernel-aware interrupt boundary: CPU_CRITICAL_ENTER sets BASEPRI to 4 << 4,
 * masking priorities 4..15, which holds the test timer (RB_IRQ_PRIO 14) and
 * SysTick/PendSV (RB_TICK_PRIO 15): both may call the kernel. 4 is the uC-CPU
 * template's value. */
#define CPU_CFG_KA_IPL_BOUNDARY 4u
#define CPU_CFG_NVIC_PRIO_BITS (RB_NVIC_PRIO_BITS + 0u) /* the board's, as 4u */

#endif
