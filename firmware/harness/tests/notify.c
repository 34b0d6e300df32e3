/* notify: the kernel's direct task notification (RBP_HAS_NOTIFY), the same
 * two wake-ups the semaphore series measure, with the notification in place
 * of the semaphore (seed 003: task notification against a semaphore).
 *
 * Phase task (series notify_wake), as wake_latency: ctl (priority 4) gives
 * hi (priority 7) a notification with notify_give(RB_T_HI) while hi waits in
 * notify_take(RB_T_HI); hi preempts inside the give. Both sides run the
 * one-call window rb_window1: ctl's first counter read (t0) starts the
 * sample, hi's second counter read (t1), the first instruction after its
 * take returns, ends it. Baseline ruler_loop, as wake_latency's.
 * Pairing (CHECK notify_wake_pairing): hi stores the round it ran for with
 * its timestamp; a sample whose round is not ctl's fails.
 *
 * Phase interrupt (series notify_event_to_task), as irq_latency's idle
 * phase: the board's periodic test-timer event; its ISR (rb_event_irq, which
 * hands the event to rb_notify_irq through rb_event_handler between the
 * port's isr_enter and isr_exit) gives hi a notification with notify_give_from_isr(RB_T_HI); hi's
 * first action after its take returns is a read of the event timer. The
 * sample is event-timer ticks from the event to that read (hz = RB_EVENT_HZ,
 * modulo RB_EVENT_MASK + 1). Nothing else runs. One extra, unrecorded event
 * ends the phase and wakes ctl through the semaphore RB_S_IRQ_END.
 * Pairing (CHECK notify_event_to_task_pairing): rounds = events, pass =
 * events whose ISR came less than a period late, found hi done with the
 * previous one, and whose wake-up hi saw as the ISR's latest; a lost
 * notification (hi slept through an event) leaves the kept count short, and
 * fail counts that too. */
#include "rb_harness.h"

/* ---- Phase task ---------------------------------------------------------- */

static volatile uint32_t rb_ntf_t1;
static volatile uint32_t rb_ntf_round;
static uint32_t rb_ntf_rounds;
static volatile int rb_ntf_rc;

static void rb_ntf_receiver(void) {
  struct rb_stamp s = {0, 0, RBP_OK};
  for (uint32_t i = 0; i < rb_ntf_rounds; i++) {
    (void)rb_window1(RB_T_HI, rbp_port.notify_take, &s);
    rb_ntf_t1 = s.t1;
    rb_ntf_round = i;
  }
  rb_ntf_rc = s.rc;
}

static void rb_ntf_task_phase(uint32_t n, uint32_t w) {
  rb_ntf_rounds = w + n;
  rb_ntf_rc = RBP_OK;
  rb_ntf_round = 0xFFFFFFFFu;
  rb_team_start(RB_T_HI, rb_ntf_receiver); /* hi runs now and blocks in notify_take */
  struct rb_stamp s = {0, 0, RBP_OK};
  uint32_t paired = 0;
  for (uint32_t i = 0; i < w + n; i++) {
    (void)rb_window1(RB_T_HI, rbp_port.notify_give, &s);
    uint32_t d = rb_ntf_t1 - s.t0;
    paired += rb_ntf_round == i ? 1u : 0u;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_team_join(RB_T_HI);
  rb_check(s.rc | rb_ntf_rc, "notify: give/take");
  rb_quiesce();
  rb_emit_series("notify_wake", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP1);
  rb_emit_check("notify_wake_pairing", w + n, paired, w + n - paired);
}

/* ---- Phase interrupt ----------------------------------------------------- */

static volatile uint32_t rb_ntf_irq_n;  /* ISR calls */
static volatile uint32_t rb_ntf_task_n; /* hi wake-ups */
static volatile uint32_t rb_ntf_bad;
static volatile uint32_t rb_ntf_event; /* event time of the latest ISR call */
static volatile int rb_ntf_abort;
static volatile int rb_ntf_irq_rc;
static uint32_t rb_ntf_total; /* warmup + samples */
static uint32_t rb_ntf_warmup;

/* Called by rb_event_irq between the port's isr_enter and isr_exit. */
static void rb_notify_irq(uint32_t event, uint32_t now) {
  const uint32_t i = rb_ntf_irq_n;
  if (i > rb_ntf_total) {
    rb_event_stop(); /* after the end: stray */
    return;
  }
  const uint32_t lat = (now - event) & RB_EVENT_MASK;
  if (lat >= RB_EVENT_PERIOD || rb_ntf_task_n != i) {
    rb_ntf_bad++;
  }
  rb_ntf_irq_n = i + 1u;
  int rc;
  if (i < rb_ntf_total) {
    rb_ntf_event = event;
    rc = rbp_port.notify_give_from_isr(RB_T_HI);
  } else {
    /* The terminating event: not recorded, wakes ctl. */
    rb_event_stop();
    rc = rbp_port.sem_give_from_isr(RB_S_IRQ_END);
  }
  rb_ntf_irq_rc |= rc;
}

static void rb_ntf_irq_receiver(void) {
  int rc = RBP_OK;
  for (;;) {
    rc |= rbp_port.notify_take(RB_T_HI);
    const uint32_t now = rb_event_now();
    if (rb_ntf_abort) {
      break;
    }
    const uint32_t j = rb_ntf_task_n;
    const uint32_t lat = (now - rb_ntf_event) & RB_EVENT_MASK;
    if (rb_ntf_irq_n != j + 1u || lat >= RB_EVENT_PERIOD) {
      rb_ntf_bad++;
    }
    if (j >= rb_ntf_warmup) {
      rb_buf_b[j - rb_ntf_warmup] = lat;
    }
    rb_ntf_task_n = j + 1u;
    if (j + 1u == rb_ntf_total) {
      break;
    }
  }
  rb_ntf_irq_rc |= rc;
}

static void rb_ntf_irq_phase(uint32_t n, uint32_t w) {
  rb_ntf_irq_n = 0;
  rb_ntf_task_n = 0;
  rb_ntf_bad = 0;
  rb_ntf_abort = 0;
  rb_ntf_irq_rc = RBP_OK;
  rb_ntf_total = w + n;
  rb_ntf_warmup = w;
  rb_team_start(RB_T_HI, rb_ntf_irq_receiver); /* blocks in notify_take */
  rb_event_handler = rb_notify_irq;
  rb_event_start();
  rb_check(rbp_port.sem_take(RB_S_IRQ_END), "notify: take end");
  rb_event_handler = 0;
  if (rb_ntf_task_n != rb_ntf_total) {
    /* A wake-up was lost (a notification given while one was pending, or
     * never delivered): release hi. */
    rb_ntf_abort = 1;
    rb_check(rbp_port.notify_give(RB_T_HI), "notify: release hi");
  }
  rb_team_join(RB_T_HI);
  rb_check(rb_ntf_irq_rc, "notify: kernel call from the ISR");
  rb_quiesce();

  const uint32_t kept = (rb_ntf_task_n > w) ? rb_ntf_task_n - w : 0u;
  const uint32_t events = w + n;
  /* Every event either fails or passes: bad events, then lost wake-ups. */
  uint32_t fail = rb_ntf_bad + (events - (rb_ntf_task_n < events ? rb_ntf_task_n : events));
  fail = fail < events ? fail : events;
  rb_emit_series("notify_event_to_task", rb_buf_b, kept, RB_EVENT_HZ, RB_NO_BASE);
  rb_emit_check("notify_event_to_task_pairing", events, events - fail, fail);
}

void rb_test_notify(const struct rb_test* t) {
  rb_ntf_task_phase(t->samples, t->warmup);
  rb_ntf_irq_phase(t->samples, t->warmup);
}
