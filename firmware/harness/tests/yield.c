/* yield: bg_a and bg_b (both priority 2, nothing else ready) hand the
 * processor to each other with the port's yield. Each runs the one-call
 * window rb_window1_void around its yield, round after round. One sample is
 * one switch: the yielding task's first counter read (t0) to the other task's
 * second counter read (t1), the first instruction after the other task's own
 * yield returns. Baseline ruler_loop (the same single blx between the reads).
 *
 * Pairing: before its window a task writes a token of its round (`asked`);
 * the task that returns from its yield publishes its t1 with the token it
 * found (`ack`) and its own ID. Back from its yield, a task takes the other's
 * published t1 for its sample; the sample is paired when the publication
 * came from the other task and carries this round's token (the other task
 * returned from its yield because of this yield). CHECK yield_pairing fails
 * every recorded sample that is not.
 *
 * A tick can switch the two tasks without a yield (time slicing) or run a
 * woken kernel task in between. A round in which the task's tick count
 * (rbp_port.tick_count) moved, over this round or its previous one (a
 * rotation there leaves the next round's publication stale), is not recorded
 * but redone; the CHECK line counts them (redone=). The first round of the
 * task that starts (the other has published nothing yet) is not recorded
 * either. Without a tick, only a yield switches, so an unpaired sample is a
 * yield that did not switch to the ready equal-priority task. */
#include "rb_harness.h"

static volatile uint32_t rb_y_asked; /* token of the yield in progress */
static volatile uint32_t rb_y_ack;   /* token found by the task that returned */
static volatile uint32_t rb_y_t1;    /* its t1 */
static volatile int rb_y_from;       /* its ID (0: bg_a, 1: bg_b; -1: none yet) */
static volatile uint32_t rb_y_count[2];
static uint32_t rb_y_quota[2];
static uint32_t rb_y_warm[2];
static uint32_t rb_y_paired[2];
static uint32_t rb_y_redone[2];
static uint32_t rb_y_gave_up;

static void rb_y_run(int me, uint32_t* buf) {
  const int other = 1 - me;
  void (*const yield)(void) = rbp_port.yield;
  struct rb_stamp s = {0, 0, RBP_OK};
  const uint32_t limit = 4u * (rb_y_quota[0] + rb_y_quota[1]) + 64u;
  uint32_t attempts = 0;
  uint32_t tick_prev = rbp_port.tick_count();
  while (rb_y_count[me] < rb_y_quota[me] || rb_y_count[other] < rb_y_quota[other]) {
    if (++attempts > limit) {
      rb_y_gave_up = 1;
      break;
    }
    const uint32_t token = (attempts << 1) | (uint32_t)me;
    const uint32_t tick0 = rbp_port.tick_count();
    rb_y_asked = token;
    rb_window1_void(yield, &s);
    /* What the other task published when it came back from its yield. */
    const uint32_t their_t1 = rb_y_t1;
    const uint32_t ack = rb_y_ack;
    const int from = rb_y_from;
    const uint32_t tick1 = rbp_port.tick_count();
    /* Ours: the end of the sample the other task's yield started. */
    rb_y_t1 = s.t1;
    rb_y_ack = rb_y_asked;
    rb_y_from = me;
    const uint32_t since = tick_prev;
    tick_prev = tick0;
    if (from < 0 || rb_y_count[me] >= rb_y_quota[me]) {
      continue; /* start-up round, or this task's samples are all taken */
    }
    if (tick1 != since) {
      rb_y_redone[me]++;
      continue;
    }
    const uint32_t k = rb_y_count[me];
    if (from == other && ack == token) {
      rb_y_paired[me]++;
    }
    if (k >= rb_y_warm[me]) {
      buf[k - rb_y_warm[me]] = their_t1 - s.t0;
    }
    rb_y_count[me] = k + 1u;
  }
}

static void rb_y_role_a(void) {
  rb_y_run(0, rb_buf_a);
}
static void rb_y_role_b(void) {
  rb_y_run(1, rb_buf_b);
}

void rb_test_yield(const struct rb_test* t) {
  if (rbp_port.yield == 0) {
    rb_emit_na("yield", "the port provides no yield operation");
    return;
  }
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  /* bg_a takes the odd sample when n or w is odd. */
  rb_y_quota[0] = (n + 1u) / 2u + (w + 1u) / 2u;
  rb_y_quota[1] = n / 2u + w / 2u;
  rb_y_warm[0] = (w + 1u) / 2u;
  rb_y_warm[1] = w / 2u;
  for (int k = 0; k < 2; k++) {
    rb_y_count[k] = 0;
    rb_y_paired[k] = 0;
    rb_y_redone[k] = 0;
  }
  rb_y_gave_up = 0;
  rb_y_from = -1;
  rb_y_asked = 0;
  rb_y_ack = 0;
  rb_team_start(RB_T_BG_A, rb_y_role_a);
  rb_team_start(RB_T_BG_B, rb_y_role_b);
  rb_team_join(RB_T_BG_A);
  rb_team_join(RB_T_BG_B);
  rb_quiesce();

  const uint32_t na = rb_y_count[0] > rb_y_warm[0] ? rb_y_count[0] - rb_y_warm[0] : 0u;
  const uint32_t nb = rb_y_count[1] > rb_y_warm[1] ? rb_y_count[1] - rb_y_warm[1] : 0u;
  if (rb_y_gave_up || na + nb != n) {
    rb_emit_na("yield", "too many rounds were redone (a tick in nearly every round)");
    return;
  }
  /* Measurement order: the two tasks' samples alternate (bg_a, bg_b, ...),
   * a redone round aside. Merged into rb_buf_a backwards: step i reads
   * rb_buf_a only at indexes <= i / 2 <= i. */
  for (uint32_t i = n; i-- > 0u;) {
    rb_buf_a[i] = (i & 1u) ? rb_buf_b[i / 2u] : rb_buf_a[i / 2u];
  }
  rb_emit_series("yield", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP1);
  const uint32_t rounds = rb_y_quota[0] + rb_y_quota[1];
  const uint32_t paired = rb_y_paired[0] + rb_y_paired[1];
  rb_rec_begin("CHECK,yield_pairing");
  rb_rec_kv_u32("rounds", rounds);
  rb_rec_kv_u32("pass", paired);
  rb_rec_kv_u32("fail", rounds - paired);
  rb_rec_kv("status", paired == rounds ? "OK" : "FAIL");
  rb_rec_kv_u32("redone", rb_y_redone[0] + rb_y_redone[1]);
  rb_rec_end();
}
