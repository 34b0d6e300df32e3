/* Startup of the QEMU mps2-an505 twin: vector table (the IoT Kit's
 * interrupts and the AN505's first expansion ones), reset handler (code in
 * RAM, data and bss, the FPU in FP builds), and fault handlers that print one
 * `!!` line (not a protocol record) and stop. The STM32 boards' start-up
 * (boards/common/startup.c) with this machine's table; the core starts in
 * the Secure state and stays there (rb_board_hw.h). */
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
void SecureFault_Handler(void) __attribute__((weak, alias("HardFault_Handler")));
void SVC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void DebugMon_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));
/* The test timer, the empty interrupts and zero_latency_irq's timer
 * (board.c); UART0's receive and transmit interrupts (AN505 expansion
 * interrupts 0 and 1, NVIC 32 and 33): the harness polls the console, a
 * port whose kernel reads it by interrupt defines the handler. */
void TIMER0_IRQHandler(void) __attribute__((weak, alias("Default_Handler")));
void TIMER1_IRQHandler(void) __attribute__((weak, alias("Default_Handler")));
void DUALTIMER_IRQHandler(void) __attribute__((weak, alias("Default_Handler")));
void UART0RX_IRQHandler(void) __attribute__((weak, alias("Default_Handler")));
void UART0TX_IRQHandler(void) __attribute__((weak, alias("Default_Handler")));

#define RB_IRQ_COUNT (RB_VECTOR_COUNT - 16u)

typedef void (*rb_vector)(void);
__attribute__((section(".isr_vector"), used)) const rb_vector rb_vectors[RB_VECTOR_COUNT] = {
    [0] = (rb_vector)(uintptr_t)&_estack,
    [1] = Reset_Handler,
    [2] = NMI_Handler,
    [3] = HardFault_Handler,
    [4] = MemManage_Handler,
    [5] = BusFault_Handler,
    [6] = UsageFault_Handler,
    [7] = SecureFault_Handler,
    [11] = SVC_Handler,
    [12] = DebugMon_Handler,
    [14] = PendSV_Handler,
    [15] = SysTick_Handler,
    [16 ... 16 + 2] = Default_Handler,
    [16 + 3] = TIMER0_IRQHandler,
    [16 + 4] = TIMER1_IRQHandler,
    [16 + 5] = DUALTIMER_IRQHandler,
    [16 + 6 ... 16 + 31] = Default_Handler,
    [16 + 32] = UART0RX_IRQHandler,
    [16 + 33] = UART0TX_IRQHandler,
    [16 + 34 ... 16u + RB_IRQ_COUNT - 1u] = Default_Handler,
};

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
  rb_fault_put_hex(" sfsr=", RB_REG32(0xE000EDE4u));
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
