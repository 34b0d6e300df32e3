/* rtosbench's NuttX chip for QEMU's MPS2 AN505 (ports/nuttx/chips/rb_an505):
 * what NuttX's ARMv8-M port asks of a chip (arm_vectors.c: the number of
 * external interrupts its vector table holds) and the chip's memory map. */
#ifndef __RB_AN505_CHIP_H
#define __RB_AN505_CHIP_H

#include <arch/chip/chip.h>
#include <arch/irq.h>
#include <nuttx/config.h>

/* The vector table: the 16 exceptions and the 48 external interrupts the
 * board uses (the IoT Kit's 32 and the AN505's first 16, UART0's among
 * them), as boards/qemu-mps2-an505/rb_board_hw.h RB_VECTOR_COUNT (64). */
#define ARMV8M_PERIPHERAL_INTERRUPTS RB_AN505_IRQ_NEXTINT

/* Secure aliases (the core runs Secure, the SAU stays off): code in the
 * first ZBT SSRAM at 0x10000000, data in the second at 0x38000000. */
#define RB_AN505_CODE_BASE 0x10000000u
#define RB_AN505_SRAM_BASE 0x38000000u
#define RB_AN505_UART0_BASE 0x50200000u

/* Every device and SysTick (CLKSOURCE=1) run from the 20 MHz MAINCLK. */
#define RB_AN505_MAINCLK 20000000u

#ifndef __ASSEMBLY__
/* UART0 ready for up_putc (rb_an505_lowputc.c), called by __start. */
void arm_lowsetup(void);
#endif

#endif
