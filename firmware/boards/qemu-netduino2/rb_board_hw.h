/* QEMU netduino2 (STM32F205 model, Cortex-M3, no FPU): the emulated twin of
 * the GD32F103C8. Its ruler, event and interrupt sources are those of every
 * QEMU STM32 board (boards/common/qemu_stm32_hw.h); the board code is
 * netduinoplus2's board.c. */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

/* SysTick (CLKSOURCE=1) counts at the machine's 120 MHz SYSCLK of virtual
 * time (hw/arm/netduino2.c). */
#define RB_CORE_HZ 120000000u
#define RB_QEMU_BOARD "qemu-netduino2"

#include "../common/qemu_stm32_hw.h"

#endif
