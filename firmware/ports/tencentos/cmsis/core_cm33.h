/* The CMSIS-Core (Cortex-M33) header TencentOS-tiny's
 * arch/arm/arm-v8m/cortex-m33/gcc/port_c.c and arch/arm/arm-v8m/common
 * include. What they use of it (SysTick, the SCB's ICSR, SHPR and fault
 * registers, NVIC priorities, SysTick_Config, NVIC_SystemReset) sits at the
 * ARMv7-M addresses in the ARMv8-M Mainline system control space too (the
 * Secure view, where the qemu-mps2-an505 build runs without TrustZone), so
 * it is core_cm4.h's subset (this directory). */
#ifndef RB_TOS_CORE_CM33_H
#define RB_TOS_CORE_CM33_H

#include "core_cm4.h"

#endif
