/* queue: ctl (priority 4) reads the counter and sends one uint32 message to
 * the one-slot queue hi (priority 7) waits on; hi reads the counter as its
 * first action after the receive returns. Every message is checked (CHECK
 * queue_msg): a port that loses or reorders messages fails. */
#include "rb_harness.h"

static volatile uint32_t rb_q_t1;
static uint32_t rb_q_rounds;
static volatile uint32_t rb_q_bad;
static volatile int rb_q_rc;

static void rb_q_receiver(void) {
  int rc = RBP_OK;
  uint32_t bad = 0;
  for (uint32_t i = 0; i < rb_q_rounds; i++) {
    uint32_t msg = 0;
    rc |= rbp_port.queue_receive(RB_Q_MSG, &msg);
    rb_q_t1 = rb_counter_now();
    if (msg != (i ^ 0x5A5A0000u)) {
      bad++;
    }
  }
  rb_q_bad = bad;
  rb_q_rc = rc;
}

void rb_test_queue(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_q_rounds = w + n;
  rb_q_rc = RBP_OK;
  rb_team_start(RB_T_HI, rb_q_receiver);
  int rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    const uint32_t msg = i ^ 0x5A5A0000u;
    uint32_t t0 = rb_counter_now();
    rc |= rbp_port.queue_send(RB_Q_MSG, msg);
    uint32_t d = rb_q_t1 - t0;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_team_join(RB_T_HI);
  rb_check(rc | rb_q_rc, "queue: send/receive");
  rb_quiesce();
  rb_emit_series("queue", rb_buf_a, n, RB_COUNTER_HZ, RB_WITH_BASE);
  rb_emit_check("queue_msg", w + n, w + n - rb_q_bad, rb_q_bad);
}
