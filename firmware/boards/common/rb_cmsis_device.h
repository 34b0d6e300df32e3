/* The CMSIS-Core device header of the boards, for the kernels whose CPU port
 * includes CMSIS (LiteOS-M, Mbed OS' RTX, ChibiOS): the core's exception
 * numbers and settings, then the CMSIS core header of the core the compiler
 * builds for (the board's -mcpu=), from the include path the port gives (each
 * kernel ships its own CMSIS). The boards carry no vendor BSP; the NVIC
 * priority bits come from the board (rb_build_config.h). Device interrupts
 * are numbered from 0, as CMSIS does.
 *   Cortex-M33 (qemu-mps2-an505, nucleo-h5): core_cm33.h; FPv5 single
 *     precision and the DSP extension (GCC's -mcpu=cortex-m33 emits DSP
 *     instructions, which core_cm33.h refuses without __DSP_PRESENT), an MPU
 *     (never enabled here), no SAU regions used (the firmware runs
 *     Secure-only).
 *   Cortex-M4F (the STM32F4 boards): core_cm4.h.
 *   Cortex-M3 (qemu-netduino2's STM32F205, gd32f103c8): core_cm3.h, no FPU,
 *     an MPU; r2p0, the STM32F2's core revision (CPUID 0x412FC230), which
 *     core_cm3.h reads only for SCB_VTOR's TBLBASE bit and ACTLR's bits. */
#ifndef RB_CMSIS_DEVICE_H
#define RB_CMSIS_DEVICE_H

#include <stdint.h>

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS */

typedef enum {
  NonMaskableInt_IRQn = -14,
  HardFault_IRQn = -13,
  MemoryManagement_IRQn = -12,
  BusFault_IRQn = -11,
  UsageFault_IRQn = -10,
#if defined(__ARM_ARCH_8M_MAIN__)
  SecureFault_IRQn = -9,
#endif
  SVCall_IRQn = -5,
  DebugMonitor_IRQn = -4,
  PendSV_IRQn = -2,
  SysTick_IRQn = -1,
  RB_FIRST_DEVICE_IRQn = 0,
} IRQn_Type;

#define __MPU_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U

#if defined(__ARM_ARCH_8M_MAIN__)
#define __CM33_REV 0x0000U
#define __SAUREGION_PRESENT 0U
#define __FPU_PRESENT 1U /* core_cm33.h sets __FPU_USED from the float ABI */
#define __DSP_PRESENT 1U
#define __VTOR_PRESENT 1U
#include "core_cm33.h"
#elif defined(__ARM_ARCH_7EM__)
#define __CM4_REV 0x0001U
#define __FPU_PRESENT 1U /* core_cm4.h sets __FPU_USED from the float ABI */
#include "core_cm4.h"
#elif defined(__ARM_ARCH_7M__)
#define __CM3_REV 0x0200U
#define __VTOR_PRESENT 1U
#include "core_cm3.h"
#else
#error "rb_cmsis_device.h: no CMSIS device settings for this core (Cortex-M3, M4 or M33)"
#endif

#endif
