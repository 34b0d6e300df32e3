/* round_trip: ctl (priority 4) gives semaphore PARTNER and takes semaphore
 * BACK in the two-call window rb_window2; lo (priority 3) runs
 * rb_round_partner: loops take PARTNER, give BACK. Two switches per round:
 * ctl blocks in its take (to lo), lo's give wakes ctl (back to ctl).
 * lo never blocks: it starts its role only when ctl first blocks (in its
 * first take of BACK), when PARTNER is already full, and from then on it is
 * preempted inside each give of BACK. So ctl's give never finds a waiter and
 * leaves PARTNER full; ctl's take blocks; lo finishes the give it was
 * preempted in, loops, takes the full PARTNER without blocking and gives
 * BACK, which readies ctl and switches to it from inside that give.
 *
 * lo's loop runs inside ctl's window (from the return of its give to its
 * next give: orr.w subs bne movs blx str orr.w movs blx), so the baseline is
 * ruler_round (rb_window_round: rb_window2's interior followed by those
 * instructions, four empty calls), not ruler_loop2: the net figure is the
 * four kernel calls' instructions (ctl's give and take, lo's take and give,
 * with both switches) minus the empty operation's two per call.
 *
 * Pairing (CHECK round_trip_pairing): after each take lo stores the rounds
 * it has left; the sample of round i is paired when lo's take of round i ran
 * inside it (ctl reads rounds - i after its window). A take of BACK that
 * returned without lo's round (a stale give, a lost switch) fails. */
#include "rb_harness.h"

static uint32_t rb_rt_rounds;
static volatile int rb_rt_rc;
static volatile uint32_t rb_rt_left; /* rounds lo has left after its latest take */

static void rb_rt_partner(void) {
  rb_rt_rc = rb_round_partner(rb_rt_rounds, rbp_port.sem_take, rbp_port.sem_give, &rb_rt_left);
}

#if RB_CFG_FPU_CONTEXT
/* FP builds: the same give/block/woken-back exchange, with each side writing
 * its own values into s16, s24 and s31 (callee-saved under the AAPCS, so only
 * a context switch that loses FP state can change them between the calls).
 * Counted per round as CHECK fp_context. Outside the measured loop. */
#define RB_FP_ROUNDS 1000u

static void rb_fp_set(uint32_t v) {
  __asm volatile("vmov s16, %0\n\tvmov s24, %0\n\tvmov s31, %0" ::"r"(v) : "s16", "s24", "s31");
}

static int rb_fp_holds(uint32_t v) {
  uint32_t a, b, c;
  __asm volatile("vmov %0, s16\n\tvmov %1, s24\n\tvmov %2, s31" : "=r"(a), "=r"(b), "=r"(c));
  return a == v && b == v && c == v;
}

static void rb_fp_partner(void) {
  int rc = RBP_OK;
  for (uint32_t i = 0; i < RB_FP_ROUNDS; i++) {
    rc |= rbp_port.sem_take(RB_S_PARTNER);
    rb_fp_set(0xB0000000u | i);
    rc |= rbp_port.sem_give(RB_S_BACK);
  }
  rb_rt_rc = rc;
}

static void rb_fp_context_check(void) {
  rb_rt_rc = RBP_OK;
  rb_team_start(RB_T_LO, rb_fp_partner);
  int rc = RBP_OK;
  uint32_t pass = 0;
  for (uint32_t i = 0; i < RB_FP_ROUNDS; i++) {
    const uint32_t mine = 0xA0000000u | i;
    rb_fp_set(mine);
    rc |= rbp_port.sem_give(RB_S_PARTNER);
    rc |= rbp_port.sem_take(RB_S_BACK);
    pass += rb_fp_holds(mine) ? 1u : 0u;
  }
  rb_team_join(RB_T_LO);
  rb_check(rc | rb_rt_rc, "fp_context: sem give/take");
  rb_quiesce();
  rb_emit_check("fp_context", RB_FP_ROUNDS, pass, RB_FP_ROUNDS - pass);
}
#endif

void rb_test_round_trip(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_rt_rounds = w + n;
  rb_rt_rc = RBP_OK;
  rb_rt_left = 0xFFFFFFFFu;
  rb_team_start(RB_T_LO, rb_rt_partner); /* lo is lower: it runs when ctl blocks */
  rb_window2_rc = RBP_OK;
  uint32_t paired = 0;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window2(RB_S_PARTNER, rbp_port.sem_give, RB_S_BACK, rbp_port.sem_take);
    paired += rb_rt_left == w + n - i ? 1u : 0u;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_team_join(RB_T_LO);
  rb_check(rb_window2_rc | rb_rt_rc, "round_trip: sem give/take");
  rb_quiesce();
  rb_emit_series("round_trip", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_ROUND);
  rb_emit_check("round_trip_pairing", w + n, paired, w + n - paired);
#if RB_CFG_FPU_CONTEXT
  rb_fp_context_check();
#endif
}
