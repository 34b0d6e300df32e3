/* rtosbench's NuttX board for QEMU's MPS2 AN505: the board facts NuttX's
 * code reads through <arch/board/board.h>. There are no LEDs or buttons;
 * the clocks are fixed (every device and SysTick at the 20 MHz MAINCLK,
 * ports/nuttx/chips/rb_an505/chip.h) and need no set-up. */
#ifndef __RB_MPS2_AN505_BOARD_H
#define __RB_MPS2_AN505_BOARD_H

#define BOARD_CPU_FREQUENCY 20000000u

#endif
