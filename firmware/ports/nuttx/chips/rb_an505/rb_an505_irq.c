/* rtosbench's NuttX chip for QEMU's MPS2 AN505: the NVIC as NuttX's ARMv8-M
 * port drives it (arch/arm/src/armv8-m: exception_common dispatches every
 * vector to the handler irq_attach gave it; SVCall switches tasks). Every
 * line starts disabled at the default level; SVCall sits one step above
 * it, the level NuttX's critical sections leave open (BASEPRI at
 * NVIC_SYSH_DISABLE_PRIORITY, CONFIG_ARMV8M_USEBASEPRI). */
#include <arch/armv8-m/nvicpri.h>
#include <arch/irq.h>
#include <debug.h>
#include <errno.h>
#include <nuttx/arch.h>
#include <nuttx/config.h>
#include <nuttx/irq.h>
#include <stdint.h>

#include "arm_internal.h"
#include "chip.h"
#include "nvic.h"

#define RB_PRIO4(p) ((uint32_t)(p) << 24 | (uint32_t)(p) << 16 | (uint32_t)(p) << 8 | (uint32_t)(p))

void up_irqinitialize(void) {
  int i;

  for (i = 0; i < NR_IRQS - RB_AN505_IRQ_FIRST; i += 32) {
    putreg32(0xffffffffu, NVIC_IRQ_CLEAR(i));
  }
  putreg32((uint32_t)_vectors, NVIC_VECTAB);

  putreg32(RB_PRIO4(NVIC_SYSH_PRIORITY_DEFAULT), NVIC_SYSH4_7_PRIORITY);
  putreg32(RB_PRIO4(NVIC_SYSH_PRIORITY_DEFAULT), NVIC_SYSH8_11_PRIORITY);
  putreg32(RB_PRIO4(NVIC_SYSH_PRIORITY_DEFAULT), NVIC_SYSH12_15_PRIORITY);
  for (i = 0; i < RB_AN505_IRQ_NEXTINT; i += 4) {
    putreg32(RB_PRIO4(NVIC_SYSH_PRIORITY_DEFAULT), NVIC_IRQ_PRIORITY(i));
  }

  irq_attach(RB_AN505_IRQ_SVCALL, arm_svcall, NULL);
  irq_attach(RB_AN505_IRQ_HARDFAULT, arm_hardfault, NULL);
  up_prioritize_irq(RB_AN505_IRQ_SVCALL, NVIC_SYSH_SVCALL_PRIORITY);
#ifdef CONFIG_DEBUG_FEATURES
  irq_attach(RB_AN505_IRQ_MEMFAULT, arm_memfault, NULL);
  irq_attach(RB_AN505_IRQ_BUSFAULT, arm_busfault, NULL);
  irq_attach(RB_AN505_IRQ_USAGEFAULT, arm_usagefault, NULL);
#endif

#ifndef CONFIG_SUPPRESS_INTERRUPTS
  up_irq_enable();
#endif
}

/* The enable register and bit of an interrupt: the NVIC's for external
 * lines, SHCSR's or SysTick's for the exceptions that can be disabled. */
static int rb_an505_irqinfo(int irq, uintptr_t* regaddr, uint32_t* bit, int clear) {
  if (irq >= RB_AN505_IRQ_FIRST && irq < NR_IRQS) {
    const int n = irq - RB_AN505_IRQ_FIRST;
    *regaddr = clear ? NVIC_IRQ_CLEAR(n) : NVIC_IRQ_ENABLE(n);
    *bit = (uint32_t)1 << (n & 0x1f);
    return OK;
  }
  *regaddr = NVIC_SYSHCON;
  switch (irq) {
    case RB_AN505_IRQ_MEMFAULT:
      *bit = NVIC_SYSHCON_MEMFAULTENA;
      return OK;
    case RB_AN505_IRQ_BUSFAULT:
      *bit = NVIC_SYSHCON_BUSFAULTENA;
      return OK;
    case RB_AN505_IRQ_USAGEFAULT:
      *bit = NVIC_SYSHCON_USGFAULTENA;
      return OK;
    case RB_AN505_IRQ_SYSTICK:
      *regaddr = NVIC_SYSTICK_CTRL;
      *bit = NVIC_SYSTICK_CTRL_ENABLE;
      return OK;
    default:
      return -EINVAL;
  }
}

void up_disable_irq(int irq) {
  uintptr_t regaddr;
  uint32_t bit;
  if (rb_an505_irqinfo(irq, &regaddr, &bit, 1) == OK) {
    if (irq >= RB_AN505_IRQ_FIRST) {
      putreg32(bit, regaddr);
    } else {
      modifyreg32(regaddr, bit, 0);
    }
  }
}

void up_enable_irq(int irq) {
  uintptr_t regaddr;
  uint32_t bit;
  if (rb_an505_irqinfo(irq, &regaddr, &bit, 0) == OK) {
    if (irq >= RB_AN505_IRQ_FIRST) {
      putreg32(bit, regaddr);
    } else {
      modifyreg32(regaddr, 0, bit);
    }
  }
}

void arm_ack_irq(int irq) {
  (void)irq;
}

int up_prioritize_irq(int irq, int priority) {
  uint32_t regaddr;
  int shift;

  DEBUGASSERT(irq >= RB_AN505_IRQ_MEMFAULT && irq < NR_IRQS &&
              (unsigned)priority <= NVIC_SYSH_PRIORITY_MIN);
  if (irq < RB_AN505_IRQ_FIRST) {
    /* System handlers 4..15 in SHPR1..3 (NVIC_SYSH_PRIORITY maps them). */
    regaddr = NVIC_SYSH_PRIORITY(irq);
    irq -= 4;
  } else {
    irq -= RB_AN505_IRQ_FIRST;
    regaddr = NVIC_IRQ_PRIORITY(irq);
  }
  shift = (irq & 3) << 3;
  modifyreg32(regaddr, 0xffu << shift, (uint32_t)priority << shift);
  return OK;
}
