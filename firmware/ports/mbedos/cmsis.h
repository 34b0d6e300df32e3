/* cmsis.h for the mbedos port: the device header Mbed's sources include
 * (CMSIS_device_header in cmsis/device/RTE/include/RTE_Components.h). In
 * Mbed it comes from the target (targets/TARGET_STM/.../cmsis.h ->
 * stm32f4xx.h); the port needs only the Cortex-M4 core of the STM32F407 the
 * boards emulate or are: CMSIS' core_cm4.h with the device's core settings. */
#ifndef RB_MBEDOS_CMSIS_H
#define RB_MBEDOS_CMSIS_H

#include <stdint.h>

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS */

typedef enum {
  NonMaskableInt_IRQn = -14,
  MemoryManagement_IRQn = -12,
  BusFault_IRQn = -11,
  UsageFault_IRQn = -10,
  SVCall_IRQn = -5,
  DebugMonitor_IRQn = -4,
  PendSV_IRQn = -2,
  SysTick_IRQn = -1,
  WWDG_IRQn = 0
} IRQn_Type;

#define __CM4_REV 0x0001U
#define __MPU_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U
#define __FPU_PRESENT 1U /* core_cm4.h sets __FPU_USED from the float ABI */

#include "core_cm4.h"

#ifdef __cplusplus
extern "C" {
#endif
/* CMSIS' core clock variable: RTX's os_systick.c programs SysTick from it. */
extern uint32_t SystemCoreClock;
#ifdef __cplusplus
}
#endif

#endif
