/* rtosbench's NuttX chip for QEMU's MPS2 AN505: its interrupt numbers.
 * NuttX numbers the 16 exceptions first (arch/arm/src/armv8-m/nvic.h), so
 * NVIC line n is NuttX IRQ 16 + n. The vector table has 48 lines: the IoT
 * Kit's 32 (timer 0, timer 1 and the dual timer at 3, 4 and 5) and the
 * AN505's first 16 (UART0 receive and transmit at 32 and 33). */
#ifndef __RB_AN505_INCLUDE_IRQ_H
#define __RB_AN505_INCLUDE_IRQ_H

#define RB_AN505_IRQ_RESERVED 0
#define RB_AN505_IRQ_NMI 2
#define RB_AN505_IRQ_HARDFAULT 3
#define RB_AN505_IRQ_MEMFAULT 4
#define RB_AN505_IRQ_BUSFAULT 5
#define RB_AN505_IRQ_USAGEFAULT 6
#define RB_AN505_IRQ_SECUREFAULT 7
#define RB_AN505_IRQ_SVCALL 11
#define RB_AN505_IRQ_DBGMONITOR 12
#define RB_AN505_IRQ_PENDSV 14
#define RB_AN505_IRQ_SYSTICK 15
#define RB_AN505_IRQ_FIRST 16

#define RB_AN505_IRQ_NEXTINT 48
#define NR_IRQS (RB_AN505_IRQ_FIRST + RB_AN505_IRQ_NEXTINT)

#endif
