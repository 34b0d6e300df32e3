/* QEMU netduinoplus2 (STM32F405 model, Cortex-M4F): the emulated bench.
 * Its ruler, event and interrupt sources are those of every QEMU STM32 board
 * (boards/common/qemu_stm32_hw.h). */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

/* SysTick (CLKSOURCE=1) counts at 168 MHz of virtual time. */
#define RB_CORE_HZ 168000000u
#define RB_QEMU_BOARD "qemu-netduinoplus2"

#include "../common/qemu_stm32_hw.h"

#endif
