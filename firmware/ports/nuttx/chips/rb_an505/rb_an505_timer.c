/* rtosbench's NuttX chip for QEMU's MPS2 AN505: the system timer. SysTick
 * counts the 20 MHz MAINCLK (CLKSOURCE=1, QEMU's mps2-tz model) and
 * interrupts CLK_TCK times a second; its handler is NuttX's tick
 * (nxsched_process_timer). The port sets its priority afterwards
 * (rbp_sys_nuttx.c, rb_cm_tick_prio_set). */
#include <nuttx/arch.h>
#include <nuttx/config.h>
#include <stdint.h>
#include <time.h>

#include "arm_internal.h"
#include "chip.h"
#include "nvic.h"

#define RB_SYSTICK_RELOAD ((RB_AN505_MAINCLK / CLK_TCK) - 1u)

static int rb_an505_timerisr(int irq, void* context, void* arg) {
  (void)irq;
  (void)context;
  (void)arg;
  nxsched_process_timer();
  return 0;
}

void up_timer_initialize(void) {
  putreg32(RB_SYSTICK_RELOAD, NVIC_SYSTICK_RELOAD);
  putreg32(0, NVIC_SYSTICK_CURRENT);
  irq_attach(RB_AN505_IRQ_SYSTICK, rb_an505_timerisr, NULL);
  putreg32(NVIC_SYSTICK_CTRL_CLKSOURCE | NVIC_SYSTICK_CTRL_TICKINT | NVIC_SYSTICK_CTRL_ENABLE,
           NVIC_SYSTICK_CTRL);
  up_enable_irq(RB_AN505_IRQ_SYSTICK);
}
