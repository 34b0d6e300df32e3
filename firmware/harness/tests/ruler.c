/* ruler: the cost of the measurement itself.
 * ruler_read_pair: two back-to-back counter reads.
 * ruler_loop: rb_window1 (counter read, one call, counter read) with the
 *   empty operation; its median is the base_ticks of every one-call window's
 *   series (wake_latency, queue; time_slice).
 * ruler_loop2: rb_window2 (counter read, two calls, counter read) with the
 *   empty operation twice; its median is the base_ticks of every two-call
 *   window's series (api_overhead, round_trip, mutex_lock_unlock).
 * The windows are the routines the tests use (window.c), so a series and its
 * baseline run the same machine code. */
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
}
