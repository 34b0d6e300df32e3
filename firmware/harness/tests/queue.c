/* queue: ctl (priority 4) sends one uint32 message to the one-slot queue hi
 * (priority 7) waits on; hi preempts inside the send. ctl's side is the
 * one-call window rb_window1_send, hi's rb_window1_recv (both have
 * rb_window1's code between their reads): ctl's first counter read (t0)
 * starts the sample, hi's second (t1), the first instruction after its
 * receive returns, ends it. Baseline ruler_loop.
 *
 * Every message carries its round (round ^ 0x5A5A0000). CHECK queue_msg: hi
 * received the message of its own round (a port that loses or reorders
 * messages fails). CHECK queue_pairing: the timestamp ctl takes for round i
 * comes with round i's message (a stale timestamp fails). */
#include "rb_harness.h"

#define RB_Q_TAG 0x5A5A0000u

static volatile uint32_t rb_q_t1;
static volatile uint32_t rb_q_round;
static uint32_t rb_q_rounds;
static volatile uint32_t rb_q_bad;
static volatile int rb_q_rc;

static void rb_q_receiver(void) {
  struct rb_stamp s = {0, 0, RBP_OK};
  uint32_t bad = 0;
  for (uint32_t i = 0; i < rb_q_rounds; i++) {
    uint32_t msg = 0;
    (void)rb_window1_recv(RB_Q_MSG, &msg, rbp_port.queue_receive, &s);
    rb_q_t1 = s.t1;
    rb_q_round = msg ^ RB_Q_TAG;
    if (msg != (i ^ RB_Q_TAG)) {
      bad++;
    }
  }
  rb_q_bad = bad;
  rb_q_rc = s.rc;
}

void rb_test_queue(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_q_rounds = w + n;
  rb_q_rc = RBP_OK;
  rb_q_round = 0xFFFFFFFFu;
  rb_team_start(RB_T_HI, rb_q_receiver);
  struct rb_stamp s = {0, 0, RBP_OK};
  uint32_t paired = 0;
  for (uint32_t i = 0; i < w + n; i++) {
    (void)rb_window1_send(RB_Q_MSG, i ^ RB_Q_TAG, rbp_port.queue_send, &s);
    uint32_t d = rb_q_t1 - s.t0;
    paired += rb_q_round == i ? 1u : 0u;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_team_join(RB_T_HI);
  rb_check(s.rc | rb_q_rc, "queue: send/receive");
  rb_quiesce();
  rb_emit_series("queue", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP1);
  rb_emit_check("queue_msg", w + n, w + n - rb_q_bad, rb_q_bad);
  rb_emit_check("queue_pairing", w + n, paired, w + n - paired);
}
