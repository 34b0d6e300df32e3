/* mbed_rtx.h for the mbedos port. Mbed's targets provide this header
 * (targets/.../mbed_rtx.h) for the boot code's stack and heap symbols;
 * cmsis/device/rtos/include/mbed_rtx_conf.h includes it. The port uses
 * neither Mbed's boot code nor its heap, so it defines nothing. */
#ifndef RB_MBEDOS_MBED_RTX_H
#define RB_MBEDOS_MBED_RTX_H
#endif
