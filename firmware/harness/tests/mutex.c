/* mutex:
 * mutex_lock_unlock: uncontended lock + unlock in ctl, timed by the two-call
 *   window rb_window2 (baseline ruler_loop2).
 * mutex_pi (CHECK): priority inheritance, counted per round. lo (priority 3)
 *   locks the mutex and wakes hi (7); hi wakes med (5), then blocks on the
 *   mutex. With inheritance lo now runs at 7 and marks L, unlocks, hi takes
 *   the mutex and marks H; med marks M; lo, back at its own priority 3, runs
 *   last and marks l: the trace is L H M l. Without inheritance med (5 > 3)
 *   runs while hi waits: M before L. A kernel that leaves lo boosted after
 *   the unlock lets lo mark l before med runs (L H l M, or L l H M).
 *   A round passes only when the trace is exactly L H M l. */
#include "rb_harness.h"

#define RB_PI_ROUNDS 1000u

static volatile char rb_pi_trace[8];
static volatile uint32_t rb_pi_len;
static volatile int rb_pi_rc;

static void rb_pi_mark(char c) {
  uint32_t k = rb_pi_len;
  if (k < sizeof rb_pi_trace) {
    rb_pi_trace[k] = c;
  }
  rb_pi_len = k + 1u;
}

static void rb_pi_high(void) {
  int rc = rbp_port.sem_take(RB_S_PI_HI);
  rc |= rbp_port.sem_give(RB_S_PI_MED);
  rc |= rbp_port.mutex_lock(RB_M_PI);
  rb_pi_mark('H');
  rc |= rbp_port.mutex_unlock(RB_M_PI);
  rb_pi_rc |= rc;
}

static void rb_pi_medium(void) {
  int rc = rbp_port.sem_take(RB_S_PI_MED);
  rb_pi_mark('M');
  rb_pi_rc |= rc;
}

static void rb_pi_low(void) {
  int rc = rbp_port.mutex_lock(RB_M_PI);
  rc |= rbp_port.sem_give(RB_S_PI_HI);
  rb_pi_mark('L');
  rc |= rbp_port.mutex_unlock(RB_M_PI);
  rb_pi_mark('l');
  rb_pi_rc |= rc;
}

static void rb_pi_check(void) {
  uint32_t pass = 0;
  rb_pi_rc = RBP_OK;
  for (uint32_t r = 0; r < RB_PI_ROUNDS; r++) {
    rb_pi_len = 0;
    rb_team_start(RB_T_HI, rb_pi_high);    /* runs now, blocks on RB_S_PI_HI */
    rb_team_start(RB_T_MED, rb_pi_medium); /* runs now, blocks on RB_S_PI_MED */
    rb_team_start(RB_T_LO, rb_pi_low);     /* runs once ctl blocks */
    rb_team_join(RB_T_HI);
    rb_team_join(RB_T_MED);
    rb_team_join(RB_T_LO);
    if (rb_pi_len == 4u && rb_pi_trace[0] == 'L' && rb_pi_trace[1] == 'H' &&
        rb_pi_trace[2] == 'M' && rb_pi_trace[3] == 'l') {
      pass++;
    }
  }
  rb_check(rb_pi_rc, "mutex_pi: kernel call");
  rb_quiesce();
  rb_emit_check("mutex_pi", RB_PI_ROUNDS, pass, RB_PI_ROUNDS - pass);
}

void rb_test_mutex(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_window2_rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window2(RB_M_API, rbp_port.mutex_lock, RB_M_API, rbp_port.mutex_unlock);
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_check(rb_window2_rc, "mutex: lock/unlock");
  rb_emit_series("mutex_lock_unlock", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP2);

  if (rbp_port.caps & RBP_HAS_MUTEX_PI) {
    rb_pi_check();
  } else {
    rb_emit_na("mutex_pi",
               "the port's mutex has no priority inheritance (RBP_HAS_MUTEX_PI not set)");
  }
}
