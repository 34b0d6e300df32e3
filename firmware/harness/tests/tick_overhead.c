/* tick_overhead: cycles the tick interrupt takes from a running task.
 * bg_a (the only ready task; the test timer is off) reads the counter in a
 * tight loop. A pass that takes much longer than the loop's own pass was
 * interrupted; the sample is that gap minus the loop's own pass (the
 * shortest pass seen). Every gap must be a tick: CHECK tick_gaps compares the
 * number of gaps with the ticks counted by rb_tick_hook over the same span. */
#include "rb_harness.h"

static uint32_t rb_to_samples;
static uint32_t rb_to_warmup;
static uint32_t rb_to_threshold;
static volatile uint32_t rb_to_pass;  /* shortest uninterrupted pass */
static volatile uint32_t rb_to_ticks; /* hook ticks over the kept gaps */

static void rb_to_loop(void) {
  const uint32_t total = rb_to_warmup + rb_to_samples;
  const uint32_t threshold = rb_to_threshold;
  uint32_t pass = 0xFFFFFFFFu;
  uint32_t gaps = 0;
  uint32_t tick_start = 0;
  uint32_t prev = rb_counter_now();
  while (gaps < total) {
    const uint32_t now = rb_counter_now();
    const uint32_t d = now - prev;
    prev = now;
    if (d > threshold) {
      if (gaps >= rb_to_warmup) {
        rb_buf_a[gaps - rb_to_warmup] = d;
      } else if (gaps + 1u == rb_to_warmup) {
        tick_start = rb_tick_hook_count;
      }
      gaps++;
    } else if (d < pass) {
      pass = d;
    }
  }
  rb_to_ticks = rb_tick_hook_count - tick_start;
  rb_to_pass = pass;
}

void rb_test_tick_overhead(const struct rb_test* t) {
  const uint32_t n = t->samples;
  /* Classification only: well above a loop pass, well below any interrupt
   * entry + exit. The value subtracted is the pass measured in the loop. */
  uint32_t t0 = rb_counter_now();
  uint32_t t1 = rb_counter_now();
  rb_to_threshold = 4u * (t1 - t0) + 24u;
  rb_to_samples = n;
  rb_to_warmup = t->warmup == 0u ? 1u : t->warmup; /* the first gap starts the count */
  rb_team_start(RB_T_BG_A, rb_to_loop);
  rb_team_join(RB_T_BG_A);
  rb_quiesce();

  const uint32_t pass = rb_to_pass;
  uint32_t short_gaps = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (rb_buf_a[i] <= 2u * pass) {
      short_gaps++;
    }
    rb_buf_a[i] -= pass;
  }
  rb_emit_series("tick_overhead", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);
  const uint32_t ticks = rb_to_ticks;
  uint32_t fail = (ticks > n ? ticks - n : n - ticks) + short_gaps;
  if (fail > n) {
    fail = n;
  }
  rb_emit_check("tick_gaps", n, n - fail, fail);
}
