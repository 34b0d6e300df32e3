/* irq_latency: a periodic hardware timer event (rb_event_start) to
 *   irq_entry:     the first read of the event timer in the ISR, and
 *   event_to_task: the first read in hi (priority 7), which the ISR wakes
 *                  with the port's from-ISR give and switch-on-exit request.
 * Both are event-timer ticks since the event (hz = RB_EVENT_HZ), taken
 * modulo the timer's width (RB_EVENT_MASK: TIM1 is 16-bit). Three
 * phases (seed 003): idle (nothing else runs), busy (bg_a, priority 2, runs
 * an integer loop), critical (bg_a masks interrupts through the port's
 * critical section for RB_CRIT_TICKS of the ruler once per tick).
 *
 * Counters per phase (PHASE line): irq = ISR samples kept, task = task
 * samples kept, bad = events where the ISR came a period or more late or hi
 * had not consumed the previous event, plus task wakeups that did not match
 * the ISR's count. One extra, unrecorded event ends the phase and wakes ctl.
 *
 * Phase critical: where an event falls against the masking window decides
 * its latency, so the phase's percentiles rank nothing. Its PHASE line
 * carries instead, per series (entry_ = irq_entry, task_ = event_to_task):
 *   window   the masking window in event-timer ticks (RB_CRIT_TICKS of the
 *            ruler converted at RB_EVENT_HZ / RB_COUNTER_HZ)
 *   *_limit  the busy phase's maximum of the series (the same background
 *            task running, nothing masked)
 *   *_delayed samples above *_limit (delayed by the masking)
 *   *_worst  the phase's maximum
 *   *_beyond *_worst - window, 0 when not above: what an event waits beyond
 *            the masking window itself
 * The host re-derives each from the RAW lines (docs/protocol.md). */
#include "rb_harness.h"

static volatile uint32_t rb_irq_n;  /* ISR calls this phase */
static volatile uint32_t rb_task_n; /* hi wakeups this phase */
static volatile uint32_t rb_irq_bad;
static volatile uint32_t rb_irq_event; /* event time of the latest ISR call */
static volatile int rb_irq_abort;
static volatile int rb_irq_active;
static volatile int rb_irq_rc;
static uint32_t rb_irq_total; /* warmup + samples */
static uint32_t rb_irq_warmup;

/* The busy phase's maxima: the limits of phase critical's "delayed". */
static uint32_t rb_busy_entry_max;
static uint32_t rb_busy_task_max;
#define RB_CRIT_EVENT_TICKS ((uint32_t)(((uint64_t)RB_CRIT_TICKS * RB_EVENT_HZ) / RB_COUNTER_HZ))

static volatile int rb_bg_stop;
static volatile uint32_t rb_bg_sink;

void (*volatile rb_event_handler)(uint32_t event, uint32_t now);

/* An event irq_latency is not measuring: the handler of the test that set
 * rb_event_handler, else a stray event, which stops the timer. Not inlined,
 * so rb_event_irq's code on irq_latency's path stays as it was. */
static __attribute__((noinline)) void rb_event_unclaimed(uint32_t event, uint32_t now) {
  void (*const handler)(uint32_t, uint32_t) = rb_event_handler;
  if (handler != 0) {
    handler(event, now);
  } else {
    rb_event_stop();
  }
}

void rb_event_irq(uint32_t event, uint32_t now) {
  rbp_port.isr_enter();
  const uint32_t i = rb_irq_n;
  if (!rb_irq_active || i > rb_irq_total) {
    /* Not measuring: another test's event, else a stray one. */
    rb_event_unclaimed(event, now);
    rbp_port.isr_exit();
    return;
  }
  const uint32_t lat = (now - event) & RB_EVENT_MASK;
  if (lat >= RB_EVENT_PERIOD || rb_task_n != i) {
    rb_irq_bad++;
  }
  rb_irq_n = i + 1u;
  int rc;
  if (i < rb_irq_total) {
    if (i >= rb_irq_warmup) {
      rb_buf_a[i - rb_irq_warmup] = lat;
    }
    rb_irq_event = event;
    rc = rbp_port.sem_give_from_isr(RB_S_IRQ);
  } else {
    /* The terminating event: not recorded, wakes ctl. */
    rb_event_stop();
    rb_irq_active = 0;
    rc = rbp_port.sem_give_from_isr(RB_S_IRQ_END);
  }
  rb_irq_rc |= rc;
  rbp_port.isr_exit();
}

/* hi's loop, written once for two functions: rb_irq_receiver (irq_latency's
 * phases, code unchanged) and rb_irq_receiver_resync (sleep_wake's phase
 * wfi), which after each sample lets the board take the next event's time
 * from its timer (rb_event_resync, rb_board.h), off every measured path. */
#define RB_IRQ_RECEIVER(fn, after_sample)                        \
  static void fn(void) {                                         \
    int rc = RBP_OK;                                             \
    for (;;) {                                                   \
      rc |= rbp_port.sem_take(RB_S_IRQ);                         \
      const uint32_t now = rb_event_now();                       \
      if (rb_irq_abort) {                                        \
        break;                                                   \
      }                                                          \
      const uint32_t j = rb_task_n;                              \
      const uint32_t lat = (now - rb_irq_event) & RB_EVENT_MASK; \
      if (rb_irq_n != j + 1u || lat >= RB_EVENT_PERIOD) {        \
        rb_irq_bad++;                                            \
      }                                                          \
      if (j >= rb_irq_warmup) {                                  \
        rb_buf_b[j - rb_irq_warmup] = lat;                       \
      }                                                          \
      rb_task_n = j + 1u;                                        \
      after_sample;                                              \
      if (j + 1u == rb_irq_total) {                              \
        break;                                                   \
      }                                                          \
    }                                                            \
    rb_irq_rc |= rc;                                             \
  }

#if RB_CFG_EDGES
/* irq_latency's edges (RB_EDGES=on; docs/firmware.md, "Edges"): the
 * edge-mapped series is event_to_task, one MK pulse per phase. EV is the
 * event timer's channel output, set by the compare match itself. After
 * hi's read of the event timer (the read that ends the window) and the
 * sample's bookkeeping, hi raises TK, lowers EV and arms it for the next
 * match, holds TK a moment and lowers it, and frames the kept samples with
 * MK. The handler gets no write: one there would sit inside
 * event_to_task's window, and irq_entry has no edges.
 *
 * Only an edges build has these writes, and all of them come after the
 * sample is stored, so hi's loop up to there is the code of the build
 * without edges (main's). A call right after the read had the compiler
 * schedule hi's code around the read differently (one instruction more or
 * less before it: one of event_to_task's instructions under QEMU); an asm
 * barrier after the read kept the edge code out of the window but also kept
 * out an instruction the compiler puts there without edges.
 *
 * TK therefore rises some instructions after the read that ends the
 * window. hi reads the event timer again just before TK's store and keeps
 * the smallest and largest difference over the phase's kept samples: the
 * PHASE record reports them (tk_lag_min=, tk_lag_max=, event timer ticks),
 * and `rtosbench edges` subtracts them from the TK edges. */
static uint32_t rb_irq_lag_min;
static uint32_t rb_irq_lag_max;

static void rb_irq_edge_sample(uint32_t j, uint32_t now) {
  const uint32_t lag = (rb_event_now() - now) & RB_EVENT_MASK;
  rb_board_edge_tk(1);
  if (j >= rb_irq_warmup) {
    rb_irq_lag_min = lag < rb_irq_lag_min ? lag : rb_irq_lag_min;
    rb_irq_lag_max = lag > rb_irq_lag_max ? lag : rb_irq_lag_max;
  }
  rb_board_edge_ev_rearm();
  rb_edge_hold(rb_counter_now());
  rb_board_edge_tk(0);
  if (j + 1u == rb_irq_warmup) {
    rb_board_edge_mk(1); /* before event w, the first kept one */
  } else if (j + 1u == rb_irq_total) {
    rb_board_edge_mk(0); /* after the last kept sample */
  }
}

RB_IRQ_RECEIVER(rb_irq_receiver, rb_irq_edge_sample(j, now))
#else
RB_IRQ_RECEIVER(rb_irq_receiver, (void)0)
#endif
RB_IRQ_RECEIVER(rb_irq_receiver_resync, rb_event_resync())

static void rb_bg_busy(void) {
  uint32_t x = 1u;
  while (!rb_bg_stop) {
    x = x * 1664525u + 1013904223u;
  }
  rb_bg_sink = x;
}

static void rb_bg_critical(void) {
  uint32_t seen = rb_bg_ticks_begin();
  while (!rb_bg_stop) {
    const uint32_t tick = rb_bg_ticks();
    if (tick == seen) {
      continue;
    }
    seen = tick;
    const uint32_t state = rbp_port.critical_enter();
    const uint32_t t0 = rb_counter_now();
    while (rb_counter_now() - t0 < RB_CRIT_TICKS) {
    }
    rbp_port.critical_exit(state);
  }
}

/* Samples of v[0..n) above `limit`, and the largest. */
static uint32_t rb_irq_above(const uint32_t* v, uint32_t n, uint32_t limit, uint32_t* worst) {
  uint32_t count = 0;
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    count += v[i] > limit ? 1u : 0u;
    m = v[i] > m ? v[i] : m;
  }
  *worst = m;
  return count;
}

static void rb_irq_field(const char* prefix, const char* key, uint32_t v) {
  rb_rec_text(",");
  rb_rec_text(prefix);
  rb_rec_text(key);
  rb_rec_u32(v);
}

static void rb_irq_delay_fields(const char* prefix, const uint32_t* v, uint32_t n, uint32_t limit) {
  uint32_t worst;
  const uint32_t delayed = rb_irq_above(v, n, limit, &worst);
  const uint32_t window = RB_CRIT_EVENT_TICKS;
  rb_irq_field(prefix, "_limit=", limit);
  rb_irq_field(prefix, "_delayed=", delayed);
  rb_irq_field(prefix, "_worst=", worst);
  rb_irq_field(prefix, "_beyond=", worst > window ? worst - window : 0u);
}

static void rb_irq_phase(const char* phase, const char* entry_name, const char* task_name,
                         rb_role_fn background, rb_role_fn receiver, uint32_t n, uint32_t w) {
  rb_irq_n = 0;
  rb_task_n = 0;
  rb_irq_bad = 0;
  rb_irq_abort = 0;
  rb_irq_rc = RBP_OK;
  rb_irq_total = w + n;
  rb_irq_warmup = w;
  rb_bg_stop = 0;
  rb_team_start(RB_T_HI, receiver); /* blocks on RB_S_IRQ */
  if (background) {
    rb_team_start(RB_T_BG_A, background); /* runs when ctl blocks */
  }
  rb_irq_active = 1;
#if RB_CFG_EDGES
  const int edges = receiver == rb_irq_receiver;
  rb_irq_lag_min = UINT32_MAX;
  rb_irq_lag_max = 0u;
  if (edges && w == 0u) {
    rb_board_edge_mk(1);
  }
#endif
  rb_event_start();
#if RB_CFG_EDGES
  if (edges) {
    /* Armed once the compare register holds the first event (the match of
     * a stale value would set EV early), a period before it. */
    rb_board_edge_ev_rearm();
  }
#endif
  rb_check(rbp_port.sem_take(RB_S_IRQ_END), "irq_latency: take end");
  if (rb_task_n != rb_irq_total) {
    /* A wakeup was lost (the ISR gave a semaphore still full): release hi. */
    rb_irq_abort = 1;
    rb_check(rbp_port.sem_give(RB_S_IRQ), "irq_latency: release hi");
  }
  rb_team_join(RB_T_HI);
#if RB_CFG_EDGES
  if (edges) {
    rb_board_edge_mk(0); /* already low unless a wakeup was lost */
    rb_board_edge_ev_disarm();
  }
#endif
  rb_bg_stop = 1;
  if (background) {
    rb_team_join(RB_T_BG_A);
  }
  rb_check(rb_irq_rc, "irq_latency: kernel call");
  rb_quiesce();

  const uint32_t irq_kept = (rb_irq_n > w + 1u) ? rb_irq_n - 1u - w : 0u;
  const uint32_t task_kept = (rb_task_n > w) ? rb_task_n - w : 0u;
  const int ok = rb_irq_bad == 0u && irq_kept == n && task_kept == n;
  rb_rec_begin("PHASE,");
  rb_rec_text(phase);
  rb_rec_kv_u32("irq", irq_kept);
  rb_rec_kv_u32("task", task_kept);
  rb_rec_kv_u32("bad", rb_irq_bad);
  rb_rec_kv("status", ok ? "OK" : "BAD");
  rb_rec_kv_u32("expected", n);
#if RB_CFG_EDGES
  if (edges && task_kept != 0u) {
    rb_irq_field("tk_lag", "_min=", rb_irq_lag_min);
    rb_irq_field("tk_lag", "_max=", rb_irq_lag_max);
  }
#endif
  const int critical = background == rb_bg_critical;
  if (critical) {
    rb_rec_kv_u32("window", RB_CRIT_EVENT_TICKS);
    rb_irq_delay_fields("entry", rb_buf_a, irq_kept, rb_busy_entry_max);
    rb_irq_delay_fields("task", rb_buf_b, task_kept, rb_busy_task_max);
  }
  rb_rec_end();
  rb_emit_series(entry_name, rb_buf_a, irq_kept, RB_EVENT_HZ, RB_NO_BASE);
  rb_emit_series(task_name, rb_buf_b, task_kept, RB_EVENT_HZ, RB_NO_BASE);
  if (background == rb_bg_busy) {
    /* Sorted by rb_emit_series: the last is the maximum. */
    rb_busy_entry_max = irq_kept ? rb_buf_a[irq_kept - 1u] : 0u;
    rb_busy_task_max = task_kept ? rb_buf_b[task_kept - 1u] : 0u;
  }
}

void rb_irq_sleep_phase(const char* phase, const char* entry_name, const char* task_name,
                        uint32_t n, uint32_t w) {
  rb_irq_phase(phase, entry_name, task_name, 0, rb_irq_receiver_resync, n, w);
}

void rb_test_irq_latency(const struct rb_test* t) {
  rb_irq_phase("idle", "irq_entry", "event_to_task", 0, rb_irq_receiver, t->samples, t->warmup);
  rb_irq_phase("busy", "irq_entry", "event_to_task", rb_bg_busy, rb_irq_receiver, t->samples,
               t->warmup);
  rb_irq_phase("critical", "irq_entry", "event_to_task", rb_bg_critical, rb_irq_receiver,
               t->samples, t->warmup);
}
