/* A minimal netduinoplus2 image that faults at once: its HardFault handler
 * prints a `!!` line on USART1 and spins. Used to check that
 * scripts/run-qemu.sh stops early and exits 1 on a firmware fault. */
#include <stdint.h>

extern uint32_t _estack;
void reset(void);
void hardfault(void);

__attribute__((section(".isr_vector"), used)) void (*const vectors[16])(void) = {
    (void (*)(void)) & _estack,
    reset,
    hardfault,
    hardfault,
};

void hardfault(void) {
  static const char msg[] = "!! hardfault (test image)\n";
  for (const char* p = msg; *p; p++) {
    *(volatile uint32_t*)0x40011004u = (uint8_t)*p;
  }
  for (;;) {
  }
}

void reset(void) {
  *(volatile uint32_t*)0x10000000u = 1; /* no CCM RAM in QEMU: BusFault -> HardFault */
  for (;;) {
  }
}
