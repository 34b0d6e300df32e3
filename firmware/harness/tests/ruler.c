/* ruler: the cost of the measurement itself.
 * ruler_read_pair: two back-to-back counter reads.
 * ruler_loop: the measurement path every task-side test uses (counter read,
 *   one operation called through a const table, counter read) with an empty
 *   operation. Its median is every later RESULT's base_ticks. */
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

  int rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t t0 = rb_counter_now();
    rc |= rb_empty_table.op(RB_S_FREE);
    uint32_t t1 = rb_counter_now();
    if (i >= w) {
      rb_buf_a[i - w] = t1 - t0;
    }
  }
  rb_check(rc, "ruler: empty op");
  rb_base_ticks = rb_emit_series("ruler_loop", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);
}
