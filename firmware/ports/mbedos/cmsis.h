/* cmsis.h for the mbedos port: the device header Mbed's sources include
 * (CMSIS_device_header in cmsis/device/RTE/include/RTE_Components.h). In
 * Mbed it comes from the target (targets/TARGET_STM/.../cmsis.h ->
 * stm32f4xx.h, ...); the port needs only the board's core, which the
 * compiler names from the board's -mcpu= (the same core port.cmake picks
 * RTX's irq_*.S for): boards/common/rb_cmsis_device.h, which picks
 * core_cm3.h, core_cm4.h or core_cm33.h by it. The CMSIS core headers are Mbed's own
 * (cmsis/CMSIS_5/CMSIS/TARGET_CORTEX_M/ Include, port.cmake's include path). */
#ifndef RB_MBEDOS_CMSIS_H
#define RB_MBEDOS_CMSIS_H

#include "rb_cmsis_device.h"

#ifdef __cplusplus
extern "C" {
#endif
/* CMSIS' core clock variable: RTX's os_systick.c programs SysTick from it. */
extern uint32_t SystemCoreClock;
#ifdef __cplusplus
}
#endif

#endif
