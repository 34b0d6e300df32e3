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
 *   RB_EVENT_PERIOD      ticks of the event timer between two events
 *   rb_event_now()       reads the event timer (a free-running 32-bit up-counter)
 *   RB_TEST_IRQN         NVIC number of the test-timer interrupt
 */
#ifndef RB_BOARD_H
#define RB_BOARD_H

#include <stdint.h>

#include "rb_board_hw.h"

/* Clocks, ruler, UART and event timer (events not yet enabled). Runs first in
 * main(), before the kernel; never fails (a clock that does not start is
 * reported through rb_board_facts). */
void rb_board_init(void);

/* Writes n bytes to the console UART, polled. */
void rb_board_write(const char* s, uint32_t n);

/* Starts periodic test-timer events at priority RB_IRQ_PRIO: every
 * RB_EVENT_PERIOD event-timer ticks the board's IRQ handler reads
 * rb_event_now() as its first action and calls rb_event_irq(). */
void rb_event_start(void);
/* Stops the events; callable from the IRQ handler. No interrupt of the test
 * timer is pending afterwards. */
void rb_event_stop(void);

/* Provided by the harness, called by the board's test-timer IRQ handler:
 * `event` is the event-timer time of the event (hardware compare value, or the
 * computed update time where the hardware keeps none), `now` the event-timer
 * time read at ISR entry. */
void rb_event_irq(uint32_t event, uint32_t now);

/* Conditions the board can read back itself (docs/protocol.md section 3). A
 * value the board cannot read is reported as n/a: NULL strings, -1 integers,
 * 0 for core_measured_hz. */
struct rb_board_facts {
  uint32_t core_measured_hz; /* from the clock registers; 0: n/a */
  const char* reset_cause;   /* por, pin, sw, iwdg, wwdg, lpwr, bor; NULL: n/a */
  int flash_ws;              /* -1: n/a */
  int icache, dcache, prefetch;
};
/* Fills `facts`; called once, before the kernel starts (it clears the reset
 * flags so the next reset reports its own cause). */
void rb_board_read_facts(struct rb_board_facts* facts);

#endif
