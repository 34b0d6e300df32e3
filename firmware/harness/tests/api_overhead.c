/* api_overhead: binary semaphore give + take in one task; the give finds no
 * waiter and the take finds the semaphore full, so no switch happens. Timed
 * by the two-call window (rb_window2); baseline ruler_loop2. */
#include "rb_harness.h"

void rb_test_api_overhead(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_window2_rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window2(RB_S_FREE, rbp_port.sem_give, RB_S_FREE, rbp_port.sem_take);
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_check(rb_window2_rc, "api_overhead: sem give/take");
  rb_emit_series("api_overhead", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP2);
}
