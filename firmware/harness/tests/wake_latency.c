/* wake_latency: ctl (priority 4) gives a semaphore hi (priority 7) waits on;
 * hi preempts inside the give. Both sides run the one-call window
 * rb_window1: ctl's first counter read (t0) starts the sample, and hi's
 * second counter read (t1), the first instruction after its take returns,
 * ends it. Inside: ctl's blx to the give, the kernel's give, the switch and
 * the take's return in hi. Baseline ruler_loop (the same routine: counter
 * read, blx, the empty operation's two instructions, counter read).
 *
 * Pairing (CHECK wake_latency_pairing): hi stores the round it ran for with
 * its timestamp; a sample whose round is not ctl's (hi did not run for it:
 * a stale timestamp) fails.
 *
 * Edges (RB_EDGES=on): EV high from just before t0, TK high from just after
 * t1; EV has no event grid here (the event is code). */
#include "rb_harness.h"

static volatile uint32_t rb_wake_t1;
static volatile uint32_t rb_wake_round;
static uint32_t rb_wake_rounds;
static volatile int rb_wake_rc;

static void rb_wake_receiver(void) {
  struct rb_stamp s = {0, 0, RBP_OK};
  for (uint32_t i = 0; i < rb_wake_rounds; i++) {
    (void)rb_window1(RB_S_WAKE, rbp_port.sem_take, &s);
#if RB_CFG_EDGES
    rb_board_edge_tk(1); /* after t1, the read that ends the window */
#endif
    rb_wake_t1 = s.t1;
    rb_wake_round = i;
  }
  rb_wake_rc = s.rc;
}

void rb_test_wake_latency(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_wake_rounds = w + n;
  rb_wake_rc = RBP_OK;
  rb_wake_round = 0xFFFFFFFFu;
  rb_team_start(RB_T_HI, rb_wake_receiver); /* hi runs now and blocks on RB_S_WAKE */
  struct rb_stamp s = {0, 0, RBP_OK};
  uint32_t paired = 0;
  for (uint32_t i = 0; i < w + n; i++) {
#if RB_CFG_EDGES
    /* Edges (docs/firmware.md): the event is ctl's code, not a timer, so EV
     * is forced by software just before the window's first read (t0); hi
     * raises TK right after its t1; both fall here after the window. MK
     * frames the kept samples. */
    if (i == w) {
      rb_board_edge_mk(1);
    }
    if (i >= w) {
      rb_board_edge_ev(1);
    }
#endif
    (void)rb_window1(RB_S_WAKE, rbp_port.sem_give, &s);
#if RB_CFG_EDGES
    rb_edge_hold(s.t0);
    rb_board_edge_ev(0);
    rb_board_edge_tk(0);
    if (i + 1u == w + n) {
      rb_board_edge_mk(0);
    }
#endif
    uint32_t d = rb_wake_t1 - s.t0;
    paired += rb_wake_round == i ? 1u : 0u;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_team_join(RB_T_HI);
  rb_check(s.rc | rb_wake_rc, "wake_latency: sem give/take");
  rb_quiesce();
  rb_emit_series("wake_latency", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP1);
  rb_emit_check("wake_latency_pairing", w + n, paired, w + n - paired);
}
