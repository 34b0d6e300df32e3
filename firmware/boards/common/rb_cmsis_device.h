/* The CMSIS-Core device header of the boards' STM32F4 (a Cortex-M4F), for the
 * kernels whose CPU port includes CMSIS (LiteOS-M, Mbed OS' RTX, ChibiOS): the core's
 * exception numbers and settings, then core_cm4.h from the include path the
 * port gives (each kernel ships its own CMSIS). The boards carry no vendor
 * BSP; the NVIC priority bits come from the board (rb_build_config.h). Device
 * interrupts are numbered from 0, as CMSIS does. */
#ifndef RB_CMSIS_DEVICE_H
#define RB_CMSIS_DEVICE_H

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
  RB_FIRST_DEVICE_IRQn = 0,
} IRQn_Type;

#define __CM4_REV 0x0001U
#define __MPU_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U
#define __FPU_PRESENT 1U /* core_cm4.h sets __FPU_USED from the float ABI */

#include "core_cm4.h"

#endif
