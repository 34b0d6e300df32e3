/* ruler: the cost of the measurement itself.
 * ruler_read_pair: two back-to-back counter reads.
 * ruler_loop: rb_window1 (counter read, one call, counter read) with the
 *   empty operation; its median is the base_ticks of every one-call window's
 *   series (wake_latency, queue; time_slice).
 * ruler_loop2: rb_window2 (counter read, two calls, counter read) with the
 *   empty operation twice; its median is the base_ticks of every two-call
 *   window's series (api_overhead, mutex_lock_unlock).
 * ruler_round: rb_window_round (counter read, rb_window2's interior, the
 *   partner's round of round_trip as it runs inside ctl's window, counter
 *   read) with the empty operation: four calls; its median is round_trip's
 *   base_ticks.
 * The windows are the routines the tests use (window.c), so a series and its
 * baseline run the same machine code.
 *
 * CHECK counter_runs_in_idle (with tasks): ctl blocks for two ticks, so only
 * the idle task runs; the counter must advance by at least one tick period
 * meanwhile. On hardware an idle loop that sleeps (WFI) stops the DWT cycle
 * counter, and every series timed across idle would be short without a sign:
 * this makes it a verdict. CHECK idle_hook_runs (with the idle hook): the
 * idle hook ran during those ticks (rb_quiesce depends on it). A tickless
 * build (RB_CFG_TICKLESS) has no counter_runs_in_idle: its kernel sleeps while
 * idle, and every test that would time across idle with the counter reports
 * NA there (rb_tests.h, RB_PERIODIC_TICK). */
#include "rb_harness.h"

void rb_test_ruler(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;

  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t t0 = rb_counter_now();
    uint32_t t1 = rb_counter_now();
    if (i >= w) {
      rb_buf_a[i - w] = t1 - t0;
    }
  }
  uint32_t pair = rb_emit_series("ruler_read_pair", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);
  rb_rec_begin("DWT_READ_PAIR,");
  rb_rec_u32(pair);
  rb_rec_end();

  struct rb_stamp s = {0, 0, RBP_OK};
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window1(RB_S_FREE, rb_empty_table.op, &s);
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_check(s.rc, "ruler: empty op");
  rb_base_ticks = rb_emit_series("ruler_loop", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);

  rb_window2_rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window2(RB_S_FREE, rb_empty_table.op, RB_S_FREE, rb_empty_table.op);
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_check(rb_window2_rc, "ruler: empty op (two calls)");
  rb_base2_ticks = rb_emit_series("ruler_loop2", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);

  rb_window_round_rc = RBP_OK;
  volatile uint32_t left = 0;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window_round(rb_empty_table.op, rb_empty_table.op, &left);
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_check(rb_window_round_rc, "ruler: empty op (round)");
  rb_base_round_ticks = rb_emit_series("ruler_round", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);

  if (rbp_port.caps & RBP_HAS_TASKS) {
    const uint32_t period = RB_COUNTER_HZ / RB_CFG_TICK_HZ;
    const uint32_t idle0 = rb_idle_passes;
    const uint32_t c0 = rb_counter_now();
    rbp_port.delay(2u);
    const uint32_t elapsed = rb_counter_now() - c0;
    const uint32_t ran = elapsed >= period ? 1u : 0u;
#if RB_CFG_TICKLESS
    /* A tickless kernel sleeps while idle by design, and the counter may
     * stop there: no figure of this build times across idle with it (the
     * tests that would need RB_PERIODIC_TICK and report NA). */
    (void)ran;
#else
    rb_emit_check("counter_runs_in_idle", 1u, ran, 1u - ran);
#endif
    if (rbp_port.caps & RBP_HAS_IDLE_HOOK) {
      const uint32_t hooked = rb_idle_passes != idle0 ? 1u : 0u;
      rb_emit_check("idle_hook_runs", 1u, hooked, 1u - hooked);
    }
  }
}
