/* QEMU mps2-an505 (Arm's AN505 FPGA image: an IoT Kit subsystem with a
 * Cortex-M33, ARMv8-M Mainline): the emulated twin of the Cortex-M33 boards
 * (issue 31). QEMU 7.2 (hw/arm/mps2-tz.c, hw/arm/armsse.c) runs every
 * device of the subsystem from its 20 MHz MAINCLK, SysTick (CLKSOURCE=1)
 * included, and models no DWT cycle counter (it reads 0). The board runs
 * under -icount shift=RB_QEMU_ICOUNT_SHIFT (6, board.cmake): one
 * instruction is 2^6 = 64 ns of virtual time, so one 20 MHz tick (50 ns) is
 * 50/64 = 0.78125 instructions and an instruction 1.28 ticks. Under shift=0
 * a tick was 50 instructions; no shift makes it a whole number of
 * instructions (50 is not a power of two), and 6 is the smallest shift with
 * a tick shorter than one instruction (docs/firmware.md, "qemu-mps2-an505"):
 * - the ruler is the dual timer's first counter (CMSDK APB dual timer,
 *   free-running, 32 bits, prescale 1), never reloaded: it counts down, so
 *   rb_counter_now() returns its complement, an up-counter. Its unit is a
 *   tick of the 20 MHz clock (unit=ticks, counter=dualtimer1_20mhz_icount6:
 *   the substitute for a cycle counter, named with the shift it needs): a
 *   span of k instructions reads floor or ceil of 1.28 k ticks, by its phase
 *   against the clock; neither core cycles nor whole instructions;
 * - the event source is timer 0's interrupt (CMSDK APB timer, NVIC 3),
 *   periodic; the handler places each event by the timer's own count
 *   (board.c), in ruler ticks: event_clock=sysclk, the same 20 MHz clock;
 * - the empty interrupts of tick_overhead's calibration are timer 1's
 *   (NVIC 4), zero_latency_irq's the dual timer's second counter (NVIC 5).
 * The core runs in the Secure state, where QEMU starts it (INITSVTOR
 * 0x10000000); the SAU stays disabled with ALLNS=0, so every address is
 * Secure and the board uses the Secure aliases (0x1..., 0x3..., 0x5...). */
#ifndef RB_BOARD_HW_H
#define RB_BOARD_HW_H

#include <stdint.h>

/* SysTick (CLKSOURCE=1) counts at MAINCLK, 20 MHz of virtual time. */
#define RB_CORE_HZ 20000000u
#define RB_QEMU_BOARD "qemu-mps2-an505"

/* Peripherals of the IoT Kit and the AN505 FPGA, Secure aliases. */
#define AN505_TIMER0_BASE 0x50000000u
#define AN505_TIMER1_BASE 0x50001000u
#define AN505_DUALTIMER_BASE 0x50002000u
#define AN505_UART0_BASE 0x50200000u

#define RB_COUNTER_HZ 20000000u
#ifndef RB_QEMU_ICOUNT_SHIFT
#error "board.cmake passes RB_QEMU_ICOUNT_SHIFT (the -icount shift the board runs under)"
#endif
#define RB_COUNTER_NAME "dualtimer1_20mhz_icount" RB_AN505_STR(RB_QEMU_ICOUNT_SHIFT)
#define RB_AN505_STR(x) RB_AN505_STR_(x)
#define RB_AN505_STR_(x) #x
#define RB_COUNTER_UNIT "ticks"
static inline uint32_t rb_counter_now(void) {
  return ~*(volatile uint32_t*)(AN505_DUALTIMER_BASE + 0x04u);
}

/* Event times are ruler times (board.c derives them from the timers). */
#define RB_EVENT_HZ 20000000u
#define RB_EVENT_NAME "timer0_reload"
#define RB_EVENT_CLOCK "sysclk"
#define RB_EVENT_MASK 0xFFFFFFFFu
/* 135 us of virtual time (2700 ticks, 2109 instructions at shift 6; not a
 * divisor of the 20000-tick period of a 1 kHz tick): longer than the 20 us
 * (400 ticks, 312 instructions) critical section of phase critical plus the
 * wake-up. */
#define RB_EVENT_PERIOD 2700u
static inline uint32_t rb_event_now(void) {
  return rb_counter_now();
}
#define RB_TEST_IRQN 3u
/* Every interrupt handler of board.c (NVIC number, function), for a kernel
 * that owns the vector table (rb_board.h). */
#define RB_BOARD_IRQS(X) \
  X(3u, TIMER0_IRQHandler) X(4u, TIMER1_IRQHandler) X(5u, DUALTIMER_IRQHandler)
/* UART0's receive and transmit interrupts (AN505 expansion interrupts 0 and
 * 1, NVIC 32 and 33): the harness polls the console, a port whose kernel
 * reads it by interrupt defines the handler (boards/common/startup.c). */
#define RB_BOARD_WEAK_IRQS(X) X(32u, UART0RX_IRQHandler) X(33u, UART0TX_IRQHandler)

/* zero_latency_irq: the dual timer's second counter, periodic, every 157
 * ticks (7.85 us, 122 instructions at shift 6), well below the 400 ticks of
 * a critical section; its
 * event times are ruler times as the test timer's. */
#define RB_ZLI_NAME "dualtimer2_reload"
#define RB_ZLI_HZ 20000000u
#define RB_ZLI_MASK 0xFFFFFFFFu
#define RB_ZLI_PERIOD 157u
#define RB_ZLI_IRQN 5u
static inline uint32_t rb_zli_now(void) {
  return rb_counter_now();
}

/* No STOP mode: QEMU (7.2) treats WFI with SLEEPDEEP like a plain WFI and
 * the AN505 model has no wake-up timer that runs in a deep sleep. */
#define RB_BOARD_HAS_STOP 0
#define RB_BOARD_NO_STOP "board " RB_QEMU_BOARD " has no STOP mode (QEMU: SLEEPDEEP is a plain WFI)"

/* Empty interrupts: timer 1's reload every 135 us of virtual time. */
#define RB_EMPTY_NAME "timer1_reload"
#define RB_EMPTY_IRQN 4u
#define RB_EMPTY_ISR TIMER1_IRQHandler
#define RB_EMPTY_PERIOD 2700u
/* Exception entry and exit cost nothing here, so an empty interrupt adds
 * only its handler's 8 or so instructions (about 10 ticks) to a loop pass,
 * less than tick_overhead's gap threshold; a pass of fixed code reads one
 * of two tick counts (1.28 ticks per instruction, by its phase), so a pass
 * longer than the shortest by more than 6 ticks is a gap (with 3, CHECK
 * empty_gaps failed every round on bare: not understood, so the margin is
 * about half the handler's 11 ticks). */
#define RB_EMPTY_ABOVE_PASS 6u
/* Vector table entries: 16 system + 48 external (startup.c: the IoT Kit's
 * 32 and the AN505's first 16, UART0's among them; QEMU's NVIC has 124 but
 * no other source is ever enabled). */
#define RB_VECTOR_COUNT 64u

#endif
