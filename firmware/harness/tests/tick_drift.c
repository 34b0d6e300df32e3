/* tick_drift: the kernel's time against the independent counter.
 * rb_tick_hook stores the counter at every tick in a ring (main.c); ctl
 * sleeps a few ticks at a time and collects the stamps. Series tick_period:
 * the counter ticks between consecutive ticks (RAW, no baseline: a span of
 * time, not a window). Its mean is the kernel's tick period as the counter
 * sees it, its spread the tick's jitter.
 *
 * CHECK tick_drift (rounds = the periods kept) fails a period longer than
 * 3/2 of the nominal one (a lost tick: the kernel's time fell behind), one
 * shorter than 1/2 (a spurious tick), a tick whose stamp ctl could not
 * collect (missed=), and every tick by which the kernel's count
 * (rbp_port.tick_count) and the hook's count drifted apart over the run.
 * It also carries the cumulative drift of kernel time over the kept periods:
 * elapsed= (the sum of tick_period, 64-bit: the 32-bit counter wraps every
 * 25 s at 168 MHz, so the span is accumulated per period), nominal= (periods *
 * counter Hz / tick Hz) and drift_ppm= ((elapsed - nominal) * 1e6 / nominal,
 * signed, truncated toward zero); verify re-derives all three from RAW.
 * With a periodic tick the kernel counts one tick per interrupt, so this
 * drift_ppm checks the tick timer's reload value, not a drift of the
 * kernel's time. A tickless build (RB_CFG_TICKLESS), where the kernel
 * computes the ticks it slept and can drift, times its sleeps instead
 * (rb_td_tickless below: series tick_sleep). */
#include "rb_harness.h"

/* ctl sleeps this many ticks between collections (fewer than the ring). */
#define RB_TD_STEP 4u

/* (elapsed - nominal) * 1e6 / nominal as signed decimal text, truncated
 * toward zero (the sign kept apart: no 64-bit signed division). */
static const char* rb_td_ppm(uint64_t elapsed, uint64_t nominal) {
  const int behind = elapsed < nominal;
  const uint64_t diff = behind ? nominal - elapsed : elapsed - nominal;
  const uint64_t ppm = nominal > 0u ? rb_muldiv(diff, 1000000u, nominal) : 0u;
  static char drift[24];
  uint32_t len = 0;
  char digits[24];
  uint32_t nd = 0;
  uint64_t v = ppm;
  do {
    digits[nd++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0u && nd < sizeof digits);
  if (behind && ppm != 0u) {
    drift[len++] = '-';
  }
  while (nd > 0u) {
    drift[len++] = digits[--nd];
  }
  drift[len] = '\0';
  return drift;
}

#if RB_CFG_TICKLESS
/* Tickless: the kernel stops its tick while idle and, on waking, advances
 * its count by the ticks it computes slept; the tick hook does not run for
 * those. ctl sleeps RB_TD_SLEEP ticks at a time (at 1 kHz 8 ms: the 32-bit
 * counter, which wraps every 25 s at 168 MHz, cannot wrap between two reads)
 * and reads, on waking, the counter and rbp_port.tick_count(). A sample of
 * series tick_sleep is the counter ticks one sleep took; the consecutive
 * reads chain, so their sum is the counter's time over the run, read at the
 * same point after a wake-up at both ends. */
#define RB_TD_SLEEP 8u

static void rb_td_tickless(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  const uint32_t nominal_period = RB_COUNTER_HZ / RB_CFG_TICK_HZ;
  uint64_t elapsed = 0;
  uint64_t ticks = 0;
  uint32_t step = 0; /* kernel ticks per sleep: the first kept sleep's */
  uint32_t uneven = 0;
  rbp_port.delay(1); /* start just after a tick */
  uint32_t prev_c = rb_counter_now();
  uint32_t prev_k = rbp_port.tick_count();
  for (uint32_t i = 0; i < w + n; i++) {
    rbp_port.delay(RB_TD_SLEEP);
    const uint32_t c = rb_counter_now();
    const uint32_t k = rbp_port.tick_count();
    if (i >= w) {
      const uint32_t dk = k - prev_k;
      if (i == w) {
        step = dk;
      }
      rb_buf_a[i - w] = c - prev_c;
      elapsed += c - prev_c;
      ticks += dk;
      uneven += dk != step ? 1u : 0u;
    }
    prev_c = c;
    prev_k = k;
  }
  rb_emit_series("tick_sleep", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);

  const uint64_t nominal = ticks * nominal_period;
  /* A sleep the kernel counted no tick for fails them all. */
  const uint32_t fail = step == 0u ? n : uneven;
  rb_rec_begin("CHECK,tick_drift");
  rb_rec_kv_u32("rounds", n);
  rb_rec_kv_u32("pass", n - fail);
  rb_rec_kv_u32("fail", fail);
  rb_rec_kv("status", fail == 0u ? "OK" : "FAIL");
  rb_rec_kv_u32("sleep", RB_TD_SLEEP);
  rb_rec_kv_u32("step", step);
  rb_rec_kv_u32("uneven", uneven);
  rb_rec_kv_u64("ticks", ticks);
  rb_rec_kv_u64("elapsed", elapsed);
  rb_rec_kv_u64("nominal", nominal);
  rb_rec_kv("drift_ppm", rb_td_ppm(elapsed, nominal));
  rb_rec_end();
}
#endif

#if !RB_CFG_TICKLESS
/* The kernel's tick count minus the hook's, read with no tick in between. */
static uint32_t rb_td_offset(void) {
  for (;;) {
    const uint32_t h = rb_tick_hook_count;
    const uint32_t k = rbp_port.tick_count();
    if (rb_tick_hook_count == h) {
      return k - h;
    }
  }
}
#endif

void rb_test_tick_drift(const struct rb_test* t) {
#if RB_CFG_TICKLESS
  rb_td_tickless(t);
#else
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  const uint32_t nominal_period = RB_COUNTER_HZ / RB_CFG_TICK_HZ;
  const uint32_t offset0 = rb_td_offset();
  uint32_t missed = 0;
  uint32_t lost = 0;
  uint32_t spurious = 0;
  uint64_t elapsed = 0;

  /* Period i (0-based, warm-up included) ends at hook tick first + i + 1. */
  rbp_port.delay(1);
  const uint32_t first = rb_tick_hook_count - 1u; /* its stamp is in the ring */
  uint32_t prev_stamp = rb_tick_stamps[first & (RB_TICK_STAMPS - 1u)];
  uint32_t next = first + 1u;
  uint32_t i = 0;
#if RB_EDGE_TICK
  /* Kept period j lies between the stamps of hook ticks first + w + j and
   * first + w + j + 1: the hook toggles TK after each of those n + 1 stamps
   * and frames them with MK (main.c); w >= 2 (firmware/CMakeLists.txt). */
  rb_edge_tick_from = first + w;
  rb_edge_tick_span = n;
  rb_edge_tick_on = 1;
#endif
  while (i < w + n) {
    rbp_port.delay(RB_TD_STEP);
    const uint32_t now = rb_tick_hook_count;
    if (now - next > RB_TICK_STAMPS - 1u) {
      /* Stamps overwritten before ctl ran: go on from the oldest kept one
       * (ticks now - RB_TICK_STAMPS .. now - 1 are in the ring). */
      missed += now - (RB_TICK_STAMPS - 1u) - next;
      next = now - (RB_TICK_STAMPS - 1u);
      prev_stamp = rb_tick_stamps[(next - 1u) & (RB_TICK_STAMPS - 1u)];
    }
    for (; next != now && i < w + n; next++, i++) {
      const uint32_t stamp = rb_tick_stamps[next & (RB_TICK_STAMPS - 1u)];
      const uint32_t period = stamp - prev_stamp;
      prev_stamp = stamp;
      if (i >= w) {
        rb_buf_a[i - w] = period;
        elapsed += period;
        lost += period > nominal_period + nominal_period / 2u ? 1u : 0u;
        spurious += period < nominal_period / 2u ? 1u : 0u;
      }
    }
  }
  const uint32_t offset1 = rb_td_offset();
  const uint32_t apart = offset1 - offset0;
  const uint32_t disagree = (int32_t)apart < 0 ? 0u - apart : apart;
  rb_emit_series("tick_period", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);

  const uint64_t nominal = (uint64_t)n * nominal_period;
  uint32_t fail = lost + spurious + missed + disagree;
  if (fail > n) {
    fail = n;
  }
  const char* drift = rb_td_ppm(elapsed, nominal);

  rb_rec_begin("CHECK,tick_drift");
  rb_rec_kv_u32("rounds", n);
  rb_rec_kv_u32("pass", n - fail);
  rb_rec_kv_u32("fail", fail);
  rb_rec_kv("status", fail == 0u ? "OK" : "FAIL");
  rb_rec_kv_u32("lost", lost);
  rb_rec_kv_u32("spurious", spurious);
  rb_rec_kv_u32("missed", missed);
  rb_rec_kv_u32("count_apart", disagree);
  rb_rec_kv_u64("elapsed", elapsed);
  rb_rec_kv_u64("nominal", nominal);
  rb_rec_kv("drift_ppm", drift);
  rb_rec_end();
#if RB_EDGE_TICK
  while (rb_edge_tick_on) { /* MK falls at the tick after the last kept stamp */
    rbp_port.delay(1u);
  }
#endif
#endif
}
