/* wake_latency: ctl (priority 4) reads the counter and gives a semaphore hi
 * (priority 7) waits on; hi preempts and reads the counter as its first
 * action after the take returns. One switch, plus the give. */
#include "rb_harness.h"

static volatile uint32_t rb_wake_t1;
static uint32_t rb_wake_rounds;
static volatile int rb_wake_rc;

static void rb_wake_receiver(void) {
  int rc = RBP_OK;
  for (uint32_t i = 0; i < rb_wake_rounds; i++) {
    rc |= rbp_port.sem_take(RB_S_WAKE);
    rb_wake_t1 = rb_counter_now();
  }
  rb_wake_rc = rc;
}

void rb_test_wake_latency(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_wake_rounds = w + n;
  rb_wake_rc = RBP_OK;
  rb_team_start(RB_T_HI, rb_wake_receiver); /* hi runs now and blocks on RB_S_WAKE */
  int rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t t0 = rb_counter_now();
    rc |= rbp_port.sem_give(RB_S_WAKE);
    uint32_t d = rb_wake_t1 - t0;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_team_join(RB_T_HI);
  rb_check(rc | rb_wake_rc, "wake_latency: sem give/take");
  rb_quiesce();
  rb_emit_series("wake_latency", rb_buf_a, n, RB_COUNTER_HZ, RB_WITH_BASE);
}
