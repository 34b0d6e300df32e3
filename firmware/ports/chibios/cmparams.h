/* The device parameters ChibiOS' Cortex-M ports read (chcore.h includes
 * "cmparams.h"): ARMv7-M for the STM32F4 of the Cortex-M4 and Cortex-M3
 * boards, ARMv8-M-ML for the Cortex-M33 boards. ChibiOS ships one per
 * device family with its startup code (os/common/startup/ARMCMx/devices/
 * STM32F4xx, STM32L5xx, ...), where it includes the vendor's device header
 * for the CMSIS core definitions. This port owns neither the startup code
 * nor a device header: the boards (firmware/boards/) own the vectors, clocks
 * and peripherals, so this file gives the kernel only what it uses of the
 * core: its model and its FPU (none on a Cortex-M3), the board's implemented
 * priority bits and the CMSIS core header with the core exception numbers
 * (boards/common/rb_cmsis_device.h: core_cm3.h, core_cm4.h or core_cm33.h by
 * the core; ChibiOS' copies, in os/common/ext/ARM/CMSIS/Core/Include). */
#ifndef CMPARAMS_H
#define CMPARAMS_H

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS (defines only: safe in assembly) */

/* The core the board's -mcpu= names (RB_CPU, port.cmake): a Cortex-M3 has no
 * FPU, a Cortex-M33 (ARMv8-M-ML's only model, 33) has one. CONFIG
 * port_variant= names the CPU port (os/common/ports/ARMv7-M or ARMv8-M-ML). */
#if defined(RB_CH_CORTEX_M33)
#define CORTEX_MODEL 33
#define CORTEX_HAS_FPU 1
#elif defined(RB_CH_CORTEX_M3)
#define CORTEX_MODEL 3
#define CORTEX_HAS_FPU 0
#else
#define CORTEX_MODEL 4
#define CORTEX_HAS_FPU 1
#endif
#define CORTEX_PRIORITY_BITS RB_NVIC_PRIO_BITS
/* Read only by ChibiOS' vectors.S, which is not compiled here (the boards
 * own the table): the STM32F405/407's 82 device interrupts. */
#define CORTEX_NUM_VECTORS 82

#if !defined(_FROM_ASM_)
/* The core exception numbers and settings, then the CMSIS core header
 * (ChibiOS' copy, from the port's include path). */
#include "rb_cmsis_device.h"
#endif

#endif
