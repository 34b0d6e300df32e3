/* Start-up of every board: vector table, reset handler (code in RAM, data
 * and bss, the FPU in FP builds), and fault handlers that print one `!!`
 * line (not a protocol record) and stop. The table has RB_VECTOR_COUNT
 * entries (rb_board_hw.h): the system exceptions, then Default_Handler but
 * for the board's own handlers (RB_BOARD_IRQS) and the weak ones it names for
 * ports (RB_BOARD_WEAK_IRQS, optional, the same X(NVIC number, function)
 * form); the F4-layout boards share theirs (stm32f4_vectors.h). On ARMv8-M
 * (qemu-mps2-an505, nucleo-h5) neither board uses TrustZone: QEMU's AN505
 * starts the core Secure and it stays there, the H563 runs with TZEN=0. */
#include <stdint.h>

#include "cm4_regs.h"
#include "rb_board.h"
#include "rb_build_config.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern uint32_t _siramfunc, _sramfunc, _eramfunc;
int main(void);

void Reset_Handler(void);
void Default_Handler(void);
void HardFault_Handler(void);
void NMI_Handler(void) __attribute__((weak, alias("Default_Handler")));
void MemManage_Handler(void) __attribute__((weak, alias("HardFault_Handler")));
void BusFault_Handler(void) __attribute__((weak, alias("HardFault_Handler")));
void UsageFault_Handler(void) __attribute__((weak, alias("HardFault_Handler")));
#if defined(__ARM_ARCH_8M_MAIN__)
void SecureFault_Handler(void) __attribute__((weak, alias("HardFault_Handler")));
#endif
void SVC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void DebugMon_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));
#define RB_WEAK_HANDLER(n, h) void h(void) __attribute__((weak, alias("Default_Handler")));
RB_BOARD_IRQS(RB_WEAK_HANDLER)
#ifdef RB_BOARD_WEAK_IRQS
RB_BOARD_WEAK_IRQS(RB_WEAK_HANDLER)
#endif

#define RB_IRQ_COUNT (RB_VECTOR_COUNT - 16u)

typedef void (*rb_vector)(void);
/* The board's entries replace the range's (designated initializers, in
 * order: the last one counts). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
__attribute__((section(".isr_vector"), used))
const rb_vector rb_vectors[RB_VECTOR_COUNT] = {[0] = (rb_vector)(uintptr_t)&_estack,
                                               [1] = Reset_Handler,
                                               [2] = NMI_Handler,
                                               [3] = HardFault_Handler,
                                               [4] = MemManage_Handler,
                                               [5] = BusFault_Handler,
                                               [6] = UsageFault_Handler,
#if defined(__ARM_ARCH_8M_MAIN__)
                                               [7] = SecureFault_Handler,
#endif
                                               [11] = SVC_Handler,
                                               [12] = DebugMon_Handler,
                                               [14] = PendSV_Handler,
                                               [15] = SysTick_Handler,
                                               [16 ... 16u + RB_IRQ_COUNT - 1u] = Default_Handler,
#define RB_VECTOR_ENTRY(n, h) [16u + (n)] = h,
                                               RB_BOARD_IRQS(RB_VECTOR_ENTRY)
#ifdef RB_BOARD_WEAK_IRQS
                                                   RB_BOARD_WEAK_IRQS(RB_VECTOR_ENTRY)
#endif
};
#pragma GCC diagnostic pop

void Reset_Handler(void) {
  /* Code placed in RAM (RB_RAMFUNC): copied before anything calls it. */
  uint32_t* code = &_siramfunc;
  for (uint32_t* dst = &_sramfunc; dst < &_eramfunc;) {
    *dst++ = *code++;
  }
  uint32_t* src = &_sidata;
  for (uint32_t* dst = &_sdata; dst < &_edata;) {
    *dst++ = *src++;
  }
  for (uint32_t* dst = &_sbss; dst < &_ebss;) {
    *dst++ = 0;
  }
#if RB_CFG_FPU_CONTEXT
  SCB_CPACR |= 0xFu << 20; /* CP10, CP11 full access */
  __asm volatile("dsb\n\tisb" ::: "memory");
#endif
  SCB_VTOR = (uint32_t)(uintptr_t)rb_vectors;
  main();
  for (;;) {
  }
}

static void rb_fault_put_hex(const char* label, uint32_t v) {
  char buf[20];
  uint32_t n = 0;
  for (const char* p = label; *p; p++) {
    buf[n++] = *p;
  }
  buf[n++] = '0';
  buf[n++] = 'x';
  for (int s = 28; s >= 0; s -= 4) {
    buf[n++] = "0123456789abcdef"[(v >> s) & 0xFu];
  }
  rb_board_write(buf, n);
}

static uint32_t rb_ipsr(void) {
  uint32_t v;
  __asm volatile("mrs %0, ipsr" : "=r"(v));
  return v & 0x1FFu;
}

/* Called with the stacked exception frame (r0-r3, r12, lr, pc, xpsr). */
__attribute__((used, noreturn)) void rb_fault_report(const uint32_t* frame, uint32_t exc_return) {
  rb_board_write("!! hardfault", 12);
  rb_fault_put_hex(" exc=", rb_ipsr());
  rb_fault_put_hex(" pc=", frame[6]);
  rb_fault_put_hex(" lr=", frame[5]);
  rb_fault_put_hex(" xpsr=", frame[7]);
  rb_fault_put_hex(" exc_return=", exc_return);
  rb_fault_put_hex(" cfsr=", SCB_CFSR);
  rb_fault_put_hex(" hfsr=", SCB_HFSR);
#if defined(__ARM_ARCH_8M_MAIN__)
  rb_fault_put_hex(" sfsr=", RB_REG32(0xE000EDE4u));
#else
  rb_fault_put_hex(" mmfar=", SCB_MMFAR);
#endif
  rb_fault_put_hex(" bfar=", SCB_BFAR);
  rb_board_write("\n", 1);
  for (;;) {
  }
}

__attribute__((naked)) void HardFault_Handler(void) {
  __asm volatile(
      "tst lr, #4\n\t"
      "ite eq\n\t"
      "mrseq r0, msp\n\t"
      "mrsne r0, psp\n\t"
      "mov r1, lr\n\t"
      "b rb_fault_report\n\t");
}

void Default_Handler(void) {
  rb_board_write("!! unexpected exception", 23);
  rb_fault_put_hex(" exc=", rb_ipsr());
  rb_board_write("\n", 1);
  for (;;) {
  }
}
