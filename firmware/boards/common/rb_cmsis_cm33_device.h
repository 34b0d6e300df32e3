/* The CMSIS-Core device header of the Cortex-M33 boards (qemu-mps2-an505,
 * nucleo-h5), for the kernels whose CPU port includes CMSIS (ChibiOS'
 * ARMv8-M-ML, LiteOS-M's cortex-m33): the core's exception numbers and
 * settings, then core_cm33.h from the include path the port gives (each
 * kernel ships its own CMSIS); rb_cmsis_device.h is the Cortex-M4F's. The
 * settings are those both boards' cores have: FPv5 single precision and the
 * DSP extension (GCC's -mcpu=cortex-m33 emits DSP instructions, which
 * core_cm33.h refuses without __DSP_PRESENT), an MPU (never enabled here),
 * no SAU regions used (the firmware runs Secure-only). The NVIC priority bits
 * come from the board (rb_build_config.h). Device interrupts are numbered
 * from 0, as CMSIS does. */
#ifndef RB_CMSIS_CM33_DEVICE_H
#define RB_CMSIS_CM33_DEVICE_H

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
#define __FPU_PRESENT 1U /* core_cm33.h sets __FPU_USED from the float ABI */
#define __DSP_PRESENT 1U
#define __VTOR_PRESENT 1U
#define __NVIC_PRIO_BITS RB_NVIC_PRIO_BITS
#define __Vendor_SysTickConfig 0U

#include "core_cm33.h"

#endif
