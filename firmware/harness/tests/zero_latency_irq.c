/* zero_latency_irq: an interrupt above the kernel's masking level.
 *
 * The board's second timer (rb_zli_start) raises events every RB_ZLI_PERIOD
 * ticks at the port's zero_latency_prio, a level the port declares its
 * kernel's critical section leaves unmasked (RBP_HAS_ZERO_LATENCY_IRQ). Its
 * handler calls no kernel function: it records the time from the event to
 * its first read of the timer (rb_zli_irq).
 *   zli_entry_idle      nothing else runs (ctl polls the count once a tick)
 *   zli_entry_critical  bg_a (priority 2) holds the kernel's critical section
 *                       for RB_CRIT_TICKS of the ruler once per tick, as in
 *                       irq_latency's phase critical
 * Compare with irq_latency's irq_entry (the kernel-managed level, RB_IRQ_PRIO)
 * in its phases idle and critical: there a critical section delays events.
 *
 * CHECK zli_unmasked: per critical section bg_a held while the events ran,
 * whether at least one handler ran inside it (the period is well below the
 * section, so at least two fall inside). A port claiming a level its kernel
 * masks fails every round: the claim is tested, not trusted.
 * The critical phase's events span at least RB_ZLI_MIN_TICKS ticks: where
 * its samples and warm-up would end within one tick (256 samples on a capped
 * board at 100 Hz), more of its first events are warm-up, counted and not
 * kept, so that sections overlap them.
 * CHECK zli_events: every event of both phases handled within a period of
 * its time (none lost, none late by a period or more). */
#include "rb_harness.h"

static volatile uint32_t rb_zli_n; /* handler calls this phase */
static volatile uint32_t rb_zli_late;
static uint32_t rb_zli_total;
static uint32_t rb_zli_warmup;
/* Critical sections: index + 1 of the one bg_a is inside (0: outside), and
 * of the latest one a handler ran in. */
static volatile uint32_t rb_zli_open;
static volatile uint32_t rb_zli_seen;
static volatile int rb_zli_bg_stop;
static uint32_t rb_zli_sections;
static uint32_t rb_zli_hits;

void rb_zli_irq(uint32_t event, uint32_t now) {
  const uint32_t i = rb_zli_n;
  if (i >= rb_zli_total) {
    rb_zli_stop(); /* a stray event */
    return;
  }
  const uint32_t lat = (now - event) & RB_ZLI_MASK;
  rb_zli_late += lat >= RB_ZLI_PERIOD ? 1u : 0u;
  if (i >= rb_zli_warmup) {
    rb_buf_a[i - rb_zli_warmup] = lat;
  }
  /* Only a handler inside a section marks it: one that comes between the
   * section's close and bg_a's read of the mark must not unmark it. */
  const uint32_t open = rb_zli_open;
  if (open != 0u) {
    rb_zli_seen = open;
  }
  rb_zli_n = i + 1u;
  if (i + 1u == rb_zli_total) {
    rb_zli_stop();
  }
}

/* Once per tick: the kernel's critical section for RB_CRIT_TICKS. A section
 * counts when the events ran through all of it. */
static void rb_zli_bg_critical(void) {
  uint32_t seen = rb_bg_ticks_begin();
  uint32_t k = 0;
  while (!rb_zli_bg_stop) {
    const uint32_t tick = rb_bg_ticks();
    if (tick == seen) {
      continue;
    }
    seen = tick;
    const uint32_t state = rbp_port.critical_enter();
    const uint32_t n0 = rb_zli_n;
    k++;
    rb_zli_open = k;
    const uint32_t t0 = rb_counter_now();
    while (rb_counter_now() - t0 < RB_CRIT_TICKS) {
    }
    rb_zli_open = 0;
    const int hit = rb_zli_seen == k;
    const uint32_t n1 = rb_zli_n;
    rbp_port.critical_exit(state);
    if (n0 > 0u && n1 < rb_zli_total) {
      rb_zli_sections++;
      rb_zli_hits += hit ? 1u : 0u;
    }
  }
}

#define RB_ZLI_MIN_TICKS 3u
/* The critical phase's warm-up: w, or more where w + n events would span
 * fewer than RB_ZLI_MIN_TICKS ticks. */
static uint32_t rb_zli_critical_warmup(uint32_t n, uint32_t w) {
  const uint64_t need =
      rb_muldiv(RB_ZLI_MIN_TICKS, RB_ZLI_HZ, (uint64_t)RB_CFG_TICK_HZ * RB_ZLI_PERIOD) + 1u;
  return (uint64_t)w + n >= need ? w : (uint32_t)(need - n);
}

/* Runs one phase; returns the samples kept in rb_buf_a. */
static uint32_t rb_zli_phase(rb_role_fn background, uint32_t n, uint32_t w) {
  rb_zli_n = 0;
  rb_zli_total = w + n;
  rb_zli_warmup = w;
  rb_zli_open = 0;
  rb_zli_seen = 0;
  rb_zli_bg_stop = 0;
  if (background) {
    rb_team_start(RB_T_BG_A, background); /* runs when ctl blocks */
  }
  /* Expected span in ticks, and a bound of twice that plus 10 ticks: the
   * handler cannot wake ctl (no kernel call), so ctl polls once a tick. */
  const uint32_t span =
      (uint32_t)rb_muldiv((uint64_t)rb_zli_total * RB_ZLI_PERIOD, RB_CFG_TICK_HZ, RB_ZLI_HZ);
  const uint32_t t_start = rbp_port.tick_count();
  rb_zli_start((uint32_t)rbp_port.zero_latency_prio);
  while (rb_zli_n < rb_zli_total && rbp_port.tick_count() - t_start < 2u * span + 10u) {
    rbp_port.delay(1);
  }
  rb_zli_stop();
  rb_zli_bg_stop = 1;
  if (background) {
    rb_team_join(RB_T_BG_A);
  }
  rb_quiesce();
  return rb_zli_n > w ? rb_zli_n - w : 0u;
}

void rb_test_zero_latency_irq(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  uint32_t late = 0;
  uint32_t handled = 0;
  rb_zli_late = 0;
  rb_zli_sections = 0;
  rb_zli_hits = 0;

  uint32_t kept = rb_zli_phase(0, n, w);
  handled += rb_zli_n;
  late += rb_zli_late;
  rb_emit_series("zli_entry_idle", rb_buf_a, kept, RB_ZLI_HZ, RB_NO_BASE);

  rb_zli_late = 0;
  const uint32_t wc = rb_zli_critical_warmup(n, w);
  kept = rb_zli_phase(rb_zli_bg_critical, n, wc);
  handled += rb_zli_n;
  late += rb_zli_late;
  rb_emit_series("zli_entry_critical", rb_buf_a, kept, RB_ZLI_HZ, RB_NO_BASE);

  if (rb_zli_sections == 0u) {
    /* No section overlapped the events: nothing was shown, a failure. */
    rb_emit_check("zli_unmasked", 1u, 0u, 1u);
  } else {
    rb_emit_check("zli_unmasked", rb_zli_sections, rb_zli_hits, rb_zli_sections - rb_zli_hits);
  }
  const uint32_t rounds = (w + n) + (wc + n);
  const uint32_t on_time = handled > late ? handled - late : 0u;
  rb_emit_check("zli_events", rounds, on_time, rounds - on_time);
}
