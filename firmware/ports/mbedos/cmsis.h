/* cmsis.h for the mbedos port: the device header Mbed's sources include
 * (CMSIS_device_header in cmsis/device/RTE/include/RTE_Components.h). In
 * Mbed it comes from the target (targets/TARGET_STM/.../cmsis.h ->
 * stm32f4xx.h, ...); the port needs only the board's core, which the
 * compiler names from the board's -mcpu= (the same core port.cmake picks
 * RTX's irq_*.S for):
 *   Cortex-M4F  boards/common/rb_cmsis_device.h (core_cm4.h)
 *   Cortex-M33  boards/common/rb_cmsis_cm33_device.h (core_cm33.h)
 *   Cortex-M3   the core's settings below, then core_cm3.h (boards/common
 *               has no Cortex-M3 device header; the STM32F205 and the
 *               GD32F103 the board stands for: no FPU, an MPU, the board's
 *               NVIC priority bits)
 * The CMSIS core headers are Mbed's own (cmsis/CMSIS_5/CMSIS/TARGET_CORTEX_M/
 * Include, port.cmake's include path). */
#ifndef RB_MBEDOS_CMSIS_H
#define RB_MBEDOS_CMSIS_H

#if defined(__ARM_ARCH_8M_MAIN__) && (__ARM_ARCH_8M_MAIN__ != 0)
#include "rb_cmsis_cm33_device.h"
#elif defined(__ARM_ARCH_7EM__) && (__ARM_ARCH_7EM__ != 0)
#include "rb_cmsis_device.h"
#elif defined(__ARM_ARCH_7M__) && (__ARM_ARCH_7M__ != 0)
#include <stdint.h>

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS */

typedef enum {
  NonMaskableInt_IRQn = -14,
  HardFault_IRQn = -13,
  MemoryManagement_IRQn = -12,
  BusFault_IRQn = -11,
  UsageFault_IRQn = -10,
  SVCall_IRQn = -5,
  DebugMonitor_IRQn = -4,
  PendSV_IRQn = -2,
  SysTick_IRQn = -1,
  RB_FIRST_DEVICE_IRQn = 0,
} IRQn_Type;

/* r2p0, the STM32F2's core revision (CPUID 0x412FC230); core_cm3.h reads it
 * only for SCB_VTOR's TBLBASE bit and ACTLR's bits, neither of which RTX or
 * the port use. */
#define __CM3_REV 0x0200U
#define __MPU_PRESENT 1U
#define __VTOR_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U

#include "core_cm3.h"
#else
#error "cmsis.h (mbedos port): no CMSIS device settings for this core (Cortex-M3, M4 or M33)"
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* CMSIS' core clock variable: RTX's os_systick.c programs SysTick from it. */
extern uint32_t SystemCoreClock;
#ifdef __cplusplus
}
#endif

#endif
