/* rtosbench's NuttX chip for QEMU's MPS2 AN505: reset and the memory NuttX
 * runs in.
 *
 * QEMU starts the Cortex-M33 in the Secure state from INITSVTOR 0x10000000,
 * where the board's ld.script puts NuttX's ARMv8-M vector table
 * (arch/arm/src/armv8-m/arm_vectors.c: the initial stack is the idle task's
 * stack, just above .bss; the reset vector is __start). The image stays
 * Secure without TrustZone (no CONFIG_ARCH_TRUSTZONE_*: NuttX's EXC_RETURN
 * values are the Secure ones; the SAU stays off, so every address is
 * Secure). The image is loaded by QEMU into the code SSRAM, so .data is
 * copied from its load address as from flash. */
#include <nuttx/config.h>
#include <nuttx/init.h>
#include <stdint.h>

#include "arm_internal.h"
#include "chip.h"

/* The idle task's stack is the CONFIG_IDLETHREAD_STACKSIZE bytes above
 * .bss (the vector table's initial stack pointer); the heap runs from its
 * top to CONFIG_RAM_END (arch/arm/src/common/arm_allocateheap.c, which
 * NuttX builds with every ARM chip: CONFIG_MM_REGIONS=1). */
const uintptr_t g_idle_topstack = (uintptr_t)_ebss + CONFIG_IDLETHREAD_STACKSIZE;

void __start(void) noreturn_function;
void __start(void) {
  const uint32_t* src;
  uint32_t* dest;

  /* CP10/CP11 access and lazy stacking when the image uses the FPU. */
  arm_fpuconfig();

  for (dest = (uint32_t*)_sbss; dest < (uint32_t*)_ebss;) {
    *dest++ = 0;
  }
  for (src = (const uint32_t*)_eronly, dest = (uint32_t*)_sdata; dest < (uint32_t*)_edata;) {
    *dest++ = *src++;
  }

  /* The console's UART, for what NuttX itself prints (up_putc). */
  arm_lowsetup();

  nx_start();
  for (;;) {
  }
}
