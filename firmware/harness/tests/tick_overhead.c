/* tick_overhead: cycles the kernel's own tick work takes from a running task.
 * bg_a (the only ready task; the test timer is off) reads the counter in a
 * tight loop. A pass that takes much longer than the loop's own pass was
 * interrupted: a gap. Two runs of the same loop routine:
 * - ticks: no empty interrupts; every gap is a tick;
 * - calibration: the board's empty interrupts (rb_empty_start: a handler
 *   that only acknowledges its timer) fire during the loop; a gap in which
 *   the tick hook count did not move is one empty interrupt. Series
 *   tick_irq_empty: each such gap minus the loop's own pass (the shortest
 *   pass seen): the interrupt's entry and exit, the handler's acknowledge
 *   (on hardware: exception entry/exit; under QEMU, which charges nothing for
 *   them: the handler's instructions).
 * Series tick_overhead: each tick gap minus the pass minus the median of
 * tick_irq_empty, floored at 0: the kernel's tick work alone, on every board
 * alike.
 * CHECK tick_gaps compares the number of tick gaps with the ticks counted by
 * rb_tick_hook over the same span, and counts gaps no longer than two passes. */
#include "rb_harness.h"

#define RB_TO_TICKS 0
#define RB_TO_EMPTY 1

static uint32_t rb_to_samples;
static uint32_t rb_to_warmup;
static uint32_t rb_to_threshold;
static int rb_to_mode;
static uint32_t* rb_to_buf;
static volatile uint32_t rb_to_pass;  /* shortest uninterrupted pass */
static volatile uint32_t rb_to_ticks; /* hook ticks over the kept gaps */
static volatile uint32_t rb_to_kept;  /* gaps stored */

/* One loop for both runs: the passes between gaps are the same code. In
 * RB_TO_EMPTY a gap during which a tick happened is skipped (not an empty
 * interrupt alone), and the run gives up after `total + 16` ticks. */
static void rb_to_loop(void) {
  const uint32_t total = rb_to_warmup + rb_to_samples;
  const uint32_t threshold = rb_to_threshold;
  const int empty = rb_to_mode == RB_TO_EMPTY;
  uint32_t* const buf = rb_to_buf;
  uint32_t pass = 0xFFFFFFFFu;
  uint32_t gaps = 0;
  uint32_t tick_start = rb_tick_hook_count;
  uint32_t tick_seen = tick_start;
  const uint32_t tick_limit = tick_start + total + 16u;
  uint32_t prev = rb_counter_now();
  while (gaps < total) {
    const uint32_t now = rb_counter_now();
    const uint32_t d = now - prev;
    prev = now;
    if (d > threshold) {
      if (empty) {
        const uint32_t tick = rb_tick_hook_count;
        if (tick != tick_seen) {
          tick_seen = tick;
          if ((int32_t)(tick - tick_limit) >= 0) {
            break; /* no empty interrupts */
          }
          continue;
        }
      }
      if (gaps >= rb_to_warmup) {
        buf[gaps - rb_to_warmup] = d;
      } else if (gaps + 1u == rb_to_warmup) {
        tick_start = rb_tick_hook_count;
      }
      gaps++;
    } else if (d < pass) {
      pass = d;
    }
  }
  rb_to_ticks = rb_tick_hook_count - tick_start;
  rb_to_kept = gaps > rb_to_warmup ? gaps - rb_to_warmup : 0u;
  rb_to_pass = pass;
}

/* Runs the loop on bg_a; returns the shortest pass. */
static uint32_t rb_to_run(int mode, uint32_t* buf) {
  rb_to_mode = mode;
  rb_to_buf = buf;
  rb_team_start(RB_T_BG_A, rb_to_loop);
  rb_team_join(RB_T_BG_A);
  rb_quiesce();
  return rb_to_pass;
}

void rb_test_tick_overhead(const struct rb_test* t) {
  const uint32_t n = t->samples;
  /* Classification only: well above a loop pass, well below any interrupt
   * entry + exit. The value subtracted is the pass measured in the loop. */
  uint32_t t0 = rb_counter_now();
  uint32_t t1 = rb_counter_now();
  const uint32_t threshold = 4u * (t1 - t0) + 24u;
  rb_to_threshold = threshold;
  rb_to_samples = n;
  rb_to_warmup = t->warmup == 0u ? 1u : t->warmup; /* the first gap starts the count */

  /* Ticks, in rb_buf_a. */
  const uint32_t pass = rb_to_run(RB_TO_TICKS, rb_buf_a);
  const uint32_t ticks = rb_to_ticks;

  /* Calibration: the empty interrupt, in rb_buf_b. A board whose passes are
   * exact and whose empty interrupt costs less than the threshold (QEMU:
   * entry and exit are free) classifies by the tick run's pass instead. */
#ifdef RB_EMPTY_ABOVE_PASS
  rb_to_threshold = pass + RB_EMPTY_ABOVE_PASS < threshold ? pass + RB_EMPTY_ABOVE_PASS : threshold;
#endif
  rb_empty_start();
  const uint32_t empty_pass = rb_to_run(RB_TO_EMPTY, rb_buf_b);
  rb_empty_stop();
  if (rb_to_kept != n) {
    rb_emit_na("tick_irq_empty", "the board's empty interrupts were not seen");
    rb_emit_na("tick_overhead", "no calibration of the empty interrupt");
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    rb_buf_b[i] -= empty_pass;
  }
  const uint32_t empty_irq =
      rb_emit_series("tick_irq_empty", rb_buf_b, n, RB_COUNTER_HZ, RB_NO_BASE);

  uint32_t short_gaps = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (rb_buf_a[i] <= 2u * pass) {
      short_gaps++;
    }
    const uint32_t gross = rb_buf_a[i] - pass;
    rb_buf_a[i] = gross > empty_irq ? gross - empty_irq : 0u;
  }
  rb_emit_series("tick_overhead", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);
  uint32_t fail = (ticks > n ? ticks - n : n - ticks) + short_gaps;
  if (fail > n) {
    fail = n;
  }
  rb_emit_check("tick_gaps", n, n - fail, fail);
}
