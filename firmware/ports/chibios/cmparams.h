/* The device parameters ChibiOS' ARMv7-M port reads (chcore.h includes
 * "cmparams.h"), for the STM32F4 of both boards. ChibiOS ships one per device
 * family with its startup code (os/common/startup/ARMCMx/devices/STM32F4xx),
 * where it includes ST's device header (stm32f4xx.h) for the CMSIS core
 * definitions. This port owns neither the startup code nor the device
 * header: the boards (firmware/boards/) own the vectors, clocks and
 * peripherals, so this file gives the kernel only what it uses of the
 * core: the Cortex-M4 model and its FPU (or the Cortex-M3 without), the board's implemented
 * priority bits and, through boards/common/rb_cmsis_device.h, the CMSIS core header (core_cm4.h,
 * ChibiOS' copy in os/common/ext/ARM/CMSIS/Core/Include) with the core exception numbers. */
#ifndef CMPARAMS_H
#define CMPARAMS_H

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS (defines only: safe in assembly) */

/* The core the board's -mcpu= names (RB_CPU, port.cmake): a Cortex-M3 has no
 * FPU. CONFIG port_variant= stays os/common/ports/ARMv7-M. */
#if defined(RB_CH_CORTEX_M3)
#define CORTEX_MODEL 3
#define CORTEX_HAS_FPU 0
#else
#define CORTEX_MODEL 4
#define CORTEX_HAS_FPU 1
#endif
#define CORTEX_PRIORITY_BITS RB_NVIC_PRIO_BITS
#define CORTEX_NUM_VECTORS 82 /* STM32F405/407: 82 device interrupts */

#if !defined(_FROM_ASM_)
/* The core exception numbers and settings, then core_cm4.h (ChibiOS' copy,
 * from the port's include path): the boards' one CMSIS-Core device header. */
#include "rb_cmsis_device.h"
#endif

#endif
