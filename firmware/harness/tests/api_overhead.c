/* api_overhead: binary semaphore give + take in one task; the give finds no
 * waiter and the take finds the semaphore full, so no switch happens. */
#include "rb_harness.h"

void rb_test_api_overhead(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  int rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t t0 = rb_counter_now();
    rc |= rbp_port.sem_give(RB_S_FREE);
    rc |= rbp_port.sem_take(RB_S_FREE);
    uint32_t t1 = rb_counter_now();
    if (i >= w) {
      rb_buf_a[i - w] = t1 - t0;
    }
  }
  rb_check(rc, "api_overhead: sem give/take");
  rb_emit_series("api_overhead", rb_buf_a, n, RB_COUNTER_HZ, RB_WITH_BASE);
}
