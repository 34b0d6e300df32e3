/* rtosbench's NuttX board for QEMU's MPS2 AN505: nothing to bring up. The
 * harness' board layer (boards/qemu-mps2-an505/board.c) starts the timers
 * and the UART it measures with from main(), NuttX's init task. */
#include <nuttx/board.h>
#include <nuttx/config.h>

#ifdef CONFIG_BOARD_LATE_INITIALIZE
void board_late_initialize(void) {}
#endif
