/* rtosbench's NuttX chip for QEMU's MPS2 AN505: character output on UART0
 * (a CMSDK APB UART), for what NuttX itself prints (up_putc: assertions,
 * panics). The harness drives the same UART from the board layer
 * (boards/qemu-mps2-an505/board.c) and polls it; NuttX has no serial
 * driver and no console device here (CONFIG_DEV_CONSOLE off). */
#include <nuttx/arch.h>
#include <nuttx/config.h>
#include <stdint.h>

#include "arm_internal.h"
#include "chip.h"

#define RB_UART_DATA (*(volatile uint32_t*)(RB_AN505_UART0_BASE + 0x00u))
#define RB_UART_STATE (*(volatile uint32_t*)(RB_AN505_UART0_BASE + 0x04u))
#define RB_UART_CTRL (*(volatile uint32_t*)(RB_AN505_UART0_BASE + 0x08u))
#define RB_UART_BAUDDIV (*(volatile uint32_t*)(RB_AN505_UART0_BASE + 0x10u))
#define RB_UART_STATE_TXFULL (1u << 0)
#define RB_UART_CTRL_TXEN (1u << 0)
#define RB_UART_CTRL_RXEN (1u << 1)

void arm_lowsetup(void) {
  RB_UART_BAUDDIV = RB_AN505_MAINCLK / 115200u; /* QEMU ignores the rate */
  RB_UART_CTRL = RB_UART_CTRL_TXEN | RB_UART_CTRL_RXEN;
}

void arm_lowputc(char ch) {
  while (RB_UART_STATE & RB_UART_STATE_TXFULL) {
  }
  RB_UART_DATA = (uint8_t)ch;
}

int up_putc(int ch) {
  if (ch == '\n') {
    arm_lowputc('\r');
  }
  arm_lowputc((char)ch);
  return ch;
}
