/* The CMSIS-Core (Cortex-M3) header TencentOS-tiny's
 * arch/arm/arm-v7m/cortex-m3/gcc/port_c.c includes. What that port uses of it
 * (SysTick, the SCB's ICSR, SHP and fault registers, NVIC priorities,
 * SysTick_Config, NVIC_SystemReset) is the ARMv7-M system control space,
 * the same registers at the same addresses on the Cortex-M3 and the
 * Cortex-M4, so it is core_cm4.h's subset (this directory). */
#ifndef RB_TOS_CORE_CM3_H
#define RB_TOS_CORE_CM3_H

#include "core_cm4.h"

#endif
