/* The board API: what the harness needs from a board (firmware/boards/<name>/).
 *
 * Each board also provides the header `rb_board_hw.h` (on the include path of
 * its build) defining, as constants and static inline functions so the
 * measured paths contain a single load:
 *   RB_CORE_HZ           configured core clock (SysTick counts at it)
 *   RB_COUNTER_HZ        rate of the ruler counter
 *   RB_COUNTER_NAME      CONFIG counter= ("dwt" or "tim2")
 *   RB_COUNTER_UNIT      CONFIG unit= ("cycles" or "instructions")
 *   rb_counter_now()     reads the ruler (a free-running 32-bit up-counter)
 *   RB_EVENT_HZ          rate of the event timer (test-timer interrupts)
 *   RB_EVENT_NAME        CONFIG irq_source=
 *   RB_EVENT_CLOCK       CONFIG event_clock=: "core" when the event timer
 *                        counts at the core clock (RB_EVENT_HZ == RB_CORE_HZ,
 *                        seed 003; every hardware board), else what it
 *                        counts ("instructions" under QEMU)
 *   RB_EVENT_MASK        the event timer's width: 0xFFFF for a 16-bit timer,
 *                        0xFFFFFFFF for a 32-bit one; event-timer differences
 *                        are taken modulo RB_EVENT_MASK + 1
 *   RB_EVENT_PERIOD      ticks of the event timer between two events (far
 *                        below RB_EVENT_MASK, so one wrap is never ambiguous)
 *   rb_event_now()       reads the event timer (a free-running up-counter)
 *   RB_TEST_IRQN         NVIC number of the test-timer interrupt
 *   RB_BOARD_IRQS(X)     every interrupt handler of board.c as X(NVIC number,
 *                        function): a kernel that owns the vector table
 *                        (NuttX, Zephyr) connects them its own way
 *
 * A kernel that sets the clocks itself defines RB_KERNEL_OWNS_CLOCKS for the
 * board (port.cmake): rb_board_console_init then leaves the clock tree alone
 * and only reads it back (CONFIG core_measured, flash_ws, caches).
 *   RB_ZLI_NAME          the source of rb_zli_start() (zero_latency_irq)
 *   RB_ZLI_HZ            rate of its timer; rb_zli_now() reads it
 *   RB_ZLI_MASK          its width, as RB_EVENT_MASK
 *   RB_ZLI_PERIOD        ticks between two of its events: well below the
 *                        critical section of RB_CRIT_TICKS (rb_harness.h),
 *                        so every critical section holds at least two
 *   RB_BOARD_HAS_STOP    1: the board provides the STOP-mode functions below
 *                        (sleep_wake's series stop_wake); 0: it cannot, and
 *                        RB_BOARD_NO_STOP says why (NA reason)
 *   RB_EMPTY_NAME        CONFIG irq_empty=: the source of rb_empty_start()
 *   RB_EMPTY_ABOVE_PASS  optional: where loop passes are exact and an empty
 *                        interrupt is cheaper than tick_overhead's gap
 *                        threshold (QEMU), a pass this many ticks longer than
 *                        the shortest is an interrupted one
 */
#ifndef RB_BOARD_H
#define RB_BOARD_H

#include <stdint.h>

#include "rb_board_hw.h"

/* Clocks and the console UART (transmit and receive), nothing more: runs
 * first in main(), before the start handshake; never fails (a clock that
 * does not start is reported through rb_board_facts). The UART divider comes
 * from the bus clock read back from the clock registers, so the console
 * keeps RB_UART_BAUD even on a clock other than the nominal one. */
void rb_board_console_init(void);

/* The ruler and the event timer (events not yet enabled). Runs after the
 * start handshake, so a debugger that let go of the core before the start
 * cannot have reset what it sets (e.g. DEMCR.TRCENA). */
void rb_board_init(void);

/* Writes n bytes to the console UART, polled. */
void rb_board_write(const char* s, uint32_t n);

/* The next byte received on the console UART, or -1 when none is waiting
 * (an overrun is cleared and its byte lost). Polled. */
int rb_board_getc(void);

/* The chip's identity (STM32: DBGMCU_IDCODE, device in bits 11:0, revision
 * in bits 31:16); 0 where the board cannot read it. */
uint32_t rb_board_idcode(void);

/* Starts periodic test-timer events at priority RB_IRQ_PRIO: every
 * RB_EVENT_PERIOD event-timer ticks the board's IRQ handler reads
 * rb_event_now() as its first action and calls rb_event_irq(). */
void rb_event_start(void);
/* Stops the events; callable from the IRQ handler. No interrupt of the test
 * timer is pending afterwards. */
void rb_event_stop(void);
/* Called by the harness in task context after an event was handled, while
 * the core halts between events (sleep_wake, phase wfi): a board without a
 * hardware event time (QEMU: the update time is computed) re-arms its timer
 * now and takes the next event's time from the counter read at that store,
 * so every event time comes from the timer itself and an emulator that
 * re-arms late (QEMU issue 2703) delays one sample instead of shifting every
 * later one. A board whose hardware keeps the event time (a compare
 * register) does nothing. Never called on irq_latency's paths. */
void rb_event_resync(void);

/* Starts periodic "empty" interrupts at priority RB_IRQ_PRIO, a period
 * shorter than a tick apart, whose handler only acknowledges its timer (no
 * harness or kernel code): tick_overhead's calibration of an interrupt's own
 * entry and exit. Independent of rb_event_start; never both at once. */
void rb_empty_start(void);
/* Stops them; no empty interrupt is pending afterwards. */
void rb_empty_stop(void);
/* Empty interrupts taken: the handler acknowledges its timer and adds one
 * here, nothing else (tick_overhead's CHECK empty_gaps matches each gap of
 * its calibration run to one of these). */
extern volatile uint32_t rb_empty_irqs;

/* zero_latency_irq: periodic events of a second timer every RB_ZLI_PERIOD
 * ticks at NVIC level `level` (the port's zero_latency_prio); the handler
 * reads rb_zli_now() first, acknowledges and calls rb_zli_irq(). It calls
 * no kernel function (a port's RB_BOARD_IRQS connection may wrap it, as for
 * every board interrupt). rb_zli_stop() is callable from the handler. */
void rb_zli_start(uint32_t level);
void rb_zli_stop(void);
/* Provided by the harness: `event` and `now` as in rb_event_irq, in ticks
 * of the zero-latency timer (RB_ZLI_MASK wide). */
void rb_zli_irq(uint32_t event, uint32_t now);

#if RB_BOARD_HAS_STOP
/* sleep_wake, phase stop: the board's STOP mode with a wake-up source that
 * runs in STOP (the F407: RTC wake-up timer on EXTI line 22), every
 * RB_STOP_PERIOD_US microseconds once started. rb_stop_idle() is what the
 * idle hook calls: it enters STOP (SLEEPDEEP + WFI) and returns after the
 * wake-up interrupt ran. The wake-up handler restores the clock tree (RM0090:
 * the PLL is off after STOP, the core runs on HSI), then reads the event
 * timer (rb_event_now(), core clock again) and calls rb_stop_irq() with it
 * and the core cycles the DWT counted from the WFI to the handler's entry
 * (the counter stops with the core clock in STOP: far fewer than the period
 * when the core really stopped). */
void rb_stop_start(void);
void rb_stop_stop(void);
void rb_stop_idle(void);
void rb_stop_irq(uint32_t now, uint32_t cycles_in_wait);
#endif

/* Provided by the harness, called by the board's test-timer IRQ handler:
 * `event` is the event-timer time of the event (hardware compare value, or the
 * computed update time where the hardware keeps none), `now` the event-timer
 * time read at ISR entry; both as the timer reads (RB_EVENT_MASK wide). */
void rb_event_irq(uint32_t event, uint32_t now);

/* Edges (RB_EDGES=on; docs/firmware.md, "Edges"): three outputs a logic
 * analyzer watches, the pins board.cmake names (RB_BOARD_EDGE_MK, _EV, _TK).
 * Called only by an edges build, always outside the DWT windows they mark.
 *   MK  marker, high over the kept samples of one edge-mapped series
 *   EV  the event: the event timer's channel-1 output compare pin, set by
 *       the timer itself on a compare match ("active on match") while
 *       armed; or forced by software where the event is code (wake_latency)
 *   TK  the stamp: set by the code right after the read that ends a window,
 *       or toggled at each stamp of a periodic series
 * A board without pins it can drive (QEMU) makes writes the emulator accepts
 * and ignores (board.cmake RB_BOARD_EDGE_PINS emulated). */
/* Every pin an output at low, EV's channel in forced-inactive mode (no
 * match sets it); runs once after rb_board_init. */
void rb_board_edge_init(void);
void rb_board_edge_mk(int level);
void rb_board_edge_tk(int level);
/* EV: low and armed again, so the next compare match of the event timer
 * sets it (one rising edge per event); called after the event's window. */
void rb_board_edge_ev_rearm(void);
/* EV: low, and no compare match sets it until rb_board_edge_ev_rearm. */
void rb_board_edge_ev_disarm(void);
/* EV forced to `level` by software (wake_latency's event is ctl's code). */
void rb_board_edge_ev(int level);

/* Conditions the board can read back itself (docs/protocol.md section 3). A
 * value the board cannot read is reported as n/a: NULL strings, -1 integers,
 * 0 for core_measured_hz. */
struct rb_board_facts {
  uint32_t core_measured_hz; /* from the clock registers; 0: n/a */
  uint32_t irq_measured_hz;  /* the event timer's clock from the clock registers; 0: n/a */
  const char* reset_cause;   /* por, pin, sw, iwdg, wwdg, lpwr, bor; NULL: n/a */
  uint32_t reset_flags;      /* the reset controller's raw flags at boot (RCC_CSR) */
  int has_reset_flags;       /* 0: n/a */
  int flash_ws;              /* -1: n/a */
  int icache, dcache, prefetch;
};
/* Fills `facts`; called once, before the kernel starts (it clears the reset
 * flags so the next reset reports its own cause). */
void rb_board_read_facts(struct rb_board_facts* facts);

#endif
