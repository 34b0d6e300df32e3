/* The CMSIS-Core device header LiteOS-M's Cortex-M4 port expects from the
 * target (its own targets include stm32f7xx.h or stm32f4xx.h): the device's
 * facts and exception numbers, then the CMSIS-Core header core_cm4.h that the
 * pinned kernel checkout ships (targets/cortex-m7_nucleo_f767zi_gcc/Drivers/
 * CMSIS/Include, CMSIS 5.1; port.cmake adds that directory). The rtosbench
 * boards carry no vendor BSP; the device facts come from the board
 * (rb_build_config.h). */
#ifndef RB_LOS_CMSIS_H
#define RB_LOS_CMSIS_H

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS */

/* Exceptions of the Cortex-M4 as CMSIS numbers them; the device's
 * interrupts are 0 .. LOSCFG_PLATFORM_HWI_LIMIT - 1 (HalHwiCreate casts its
 * interrupt number to this type). */
typedef enum {
  NonMaskableInt_IRQn = -14,
  MemoryManagement_IRQn = -12,
  BusFault_IRQn = -11,
  UsageFault_IRQn = -10,
  SVCall_IRQn = -5,
  DebugMonitor_IRQn = -4,
  PendSV_IRQn = -2,
  SysTick_IRQn = -1,
  RB_LOS_FIRST_DEVICE_IRQn = 0,
} IRQn_Type;

#define __CM4_REV 0x0001U
#define __MPU_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U
#define __FPU_PRESENT 1U

#include "core_cm4.h"

#endif
