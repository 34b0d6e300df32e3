/* device.h for the mbedos port. Mbed's targets provide this header
 * (targets/.../device.h: the DEVICE_* peripherals of the target); the HAL
 * headers that the rtos:: sources reach include it. The port uses no Mbed
 * HAL driver, so it declares no DEVICE_* feature (no us/lp ticker: RTX's
 * SysTick is the only timebase, also for the tickless build's sleeps, which
 * use RTX's osKernelSuspend/osKernelResume, not Mbed's MBED_TICKLESS). */
#ifndef RB_MBEDOS_DEVICE_H
#define RB_MBEDOS_DEVICE_H

#include "cmsis.h"

#endif
