/* rtosbench's NuttX chip for QEMU's MPS2 AN505: the NVIC priority levels
 * NuttX's ARMv8-M port reads (arch/arm/include/armv8-m/nvicpri.h). The
 * NUCLEO-H5's Cortex-M33 implements 4 priority bits, and so does the twin
 * (boards/qemu-mps2-an505/board.cmake RB_BOARD_NVIC_PRIO_BITS; QEMU keeps
 * 8, NuttX writes the top 4). */
#ifndef __RB_AN505_INCLUDE_CHIP_H
#define __RB_AN505_INCLUDE_CHIP_H

#define NVIC_SYSH_PRIORITY_MIN 0xf0     /* all four bits set: lowest */
#define NVIC_SYSH_PRIORITY_DEFAULT 0x80 /* the midpoint */
#define NVIC_SYSH_PRIORITY_MAX 0x00     /* zero: highest */
#define NVIC_SYSH_PRIORITY_STEP 0x10    /* four bits of priority */

#endif
