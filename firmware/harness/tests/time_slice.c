/* time_slice: bg_a and bg_b (both priority 2) spin; the kernel rotates them
 * every tick. Kernel-neutral detection, no hooks: each task counts its own
 * loop passes and, on every pass, looks at the other's count; when it has
 * changed since the last look, the other ran in between, so this task has
 * just been switched in: it reads the counter. The records of the two tasks
 * alternate by construction; the series is the time between consecutive
 * switch-ins (one slice each). Each task writes only its own variables.
 * No ruler baseline is subtracted: a slice is a span of time, not a code
 * path timed by a read/call/read window. */
#include "rb_harness.h"

static volatile uint32_t rb_ts_iter[2];   /* loop passes, written by their owner */
static volatile uint32_t rb_ts_rec[2];    /* switch-ins seen, written by their owner */
static volatile uint32_t rb_ts_stored[2]; /* switch-ins stored, written by their owner */
static volatile int rb_ts_stop;
static uint32_t rb_ts_warmup;
static uint32_t rb_ts_total; /* switch-ins to see: warmup + samples + 1 */

static void rb_ts_spin(int me, uint32_t* mine) {
  const int other = 1 - me;
  uint32_t last = rb_ts_iter[other];
  while (!rb_ts_stop) {
    rb_ts_iter[me]++;
    const uint32_t seen = rb_ts_iter[other];
    if (seen != last) {
      const uint32_t now = rb_counter_now();
      last = seen;
      const uint32_t k = rb_ts_rec[0] + rb_ts_rec[1];
      if (k >= rb_ts_total) {
        break; /* the other task saw the last switch-in after our stop check */
      }
      if (k >= rb_ts_warmup) {
        mine[rb_ts_stored[me]] = now;
        rb_ts_stored[me]++;
      }
      rb_ts_rec[me]++;
      if (k + 1u >= rb_ts_total) {
        rb_ts_stop = 1;
      }
    }
  }
}

static void rb_ts_role_a(void) {
  rb_ts_spin(0, rb_buf_a);
}
static void rb_ts_role_b(void) {
  rb_ts_spin(1, rb_buf_b);
}

void rb_test_time_slice(const struct rb_test* t) {
  const uint32_t n = t->samples;
  for (int k = 0; k < 2; k++) {
    rb_ts_iter[k] = 0;
    rb_ts_rec[k] = 0;
    rb_ts_stored[k] = 0;
  }
  rb_ts_stop = 0;
  rb_ts_warmup = t->warmup;
  rb_ts_total = t->warmup + n + 1u;
  rb_team_start(RB_T_BG_A, rb_ts_role_a);
  rb_team_start(RB_T_BG_B, rb_ts_role_b);
  rb_team_join(RB_T_BG_A);
  rb_team_join(RB_T_BG_B);
  rb_quiesce();

  /* Merge: stored switch-in times alternate first, second, first, ...; the
   * first is whoever stored more, or on a tie the earlier one. */
  const uint32_t sa = rb_ts_stored[0];
  const uint32_t sb = rb_ts_stored[1];
  int a_first = sa > sb || (sa == sb && sa > 0u && (int32_t)(rb_buf_a[0] - rb_buf_b[0]) < 0);
  uint32_t* first = a_first ? rb_buf_a : rb_buf_b;
  uint32_t* second = a_first ? rb_buf_b : rb_buf_a;
  const uint32_t nf = a_first ? sa : sb;
  const uint32_t ns = a_first ? sb : sa;
  if (sa + sb != n + 1u || nf < ns || nf > ns + 1u) {
    rb_emit_na("time_slice", "the two tasks' switch-ins did not alternate (is slicing on?)");
    return;
  }
  /* t[2i] = first[i], t[2i+1] = second[i]; interval k = t[k+1] - t[k],
   * written backwards into `first`: step k reads first[] only at indexes
   * <= (k+1)/2 <= k, so nothing is overwritten before it is read. */
  for (uint32_t k = n; k-- > 0u;) {
    const uint32_t a = (k & 1u) ? second[k / 2u] : first[k / 2u];
    const uint32_t b = ((k + 1u) & 1u) ? second[(k + 1u) / 2u] : first[(k + 1u) / 2u];
    first[k] = b - a;
  }
  rb_emit_series("time_slice", first, n, RB_COUNTER_HZ, RB_NO_BASE);
}
