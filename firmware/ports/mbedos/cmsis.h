/* cmsis.h for the mbedos port: the device header Mbed's sources include
 * (CMSIS_device_header in cmsis/device/RTE/include/RTE_Components.h). In
 * Mbed it comes from the target (targets/TARGET_STM/.../cmsis.h ->
 * stm32f4xx.h); the port needs only the Cortex-M4 core of the STM32F407 the
 * boards emulate or are: CMSIS' core_cm4.h with the device's core settings. */
#ifndef RB_MBEDOS_CMSIS_H
#define RB_MBEDOS_CMSIS_H

#include "rb_cmsis_device.h" /* the core (boards/common) */

#ifdef __cplusplus
extern "C" {
#endif
/* CMSIS' core clock variable: RTX's os_systick.c programs SysTick from it. */
extern uint32_t SystemCoreClock;
#ifdef __cplusplus
}
#endif

#endif
