/* The CMSIS-Core device header of the liteos_m port on a Cortex-M33 board
 * (RB_LOS_CM33, ports/liteos_m/port.cmake), the counterpart of
 * boards/common/rb_cmsis_device.h (a Cortex-M4F's): the core's exception
 * numbers and settings, then core_cm33.h from the kernel checkout's own GCC
 * target. The boards run Secure-only without TrustZone: no SAU regions. FPU
 * and DSP are present (QEMU's AN505 models both, as the H563 has them);
 * core_cm33.h sets __FPU_USED from the float ABI. The NVIC priority bits
 * come from the board (rb_build_config.h). Device interrupts are numbered
 * from 0, as CMSIS does. */
#ifndef RB_LOS_CM33_DEVICE_H
#define RB_LOS_CM33_DEVICE_H

#include <stdint.h>

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS */

typedef enum {
  NonMaskableInt_IRQn = -14,
  HardFault_IRQn = -13,
  MemoryManagement_IRQn = -12,
  BusFault_IRQn = -11,
  UsageFault_IRQn = -10,
  SecureFault_IRQn = -9,
  SVCall_IRQn = -5,
  DebugMonitor_IRQn = -4,
  PendSV_IRQn = -2,
  SysTick_IRQn = -1,
  RB_FIRST_DEVICE_IRQn = 0,
} IRQn_Type;

#define __CM33_REV 0x0000U
#define __MPU_PRESENT 1U
#define __SAUREGION_PRESENT 0U
#define __VTOR_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U
#define __FPU_PRESENT 1U
#define __DSP_PRESENT 1U

#include "core_cm33.h"

#endif
