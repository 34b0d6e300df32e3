/* sleep_wake: wake-up latency from the kernel's low-power idle to the woken
 * task, timed by the event timer (it keeps counting while the core sleeps;
 * the DWT cycle counter does not, so no figure here uses it).
 *
 * Phase wfi: irq_latency's idle phase (rb_irq_sleep_phase) while the idle
 * hook executes WFI after counting its pass, as an application's idle hook
 * sleeps (in a tickless build, RB_CFG_TICKLESS, the kernel's own tickless
 * idle sleeps instead, seed 000 section 5.3's wake-up cost included): every
 * task is blocked, the idle task sleeps, the board's event
 * timer (rb_event_start) wakes the core, its ISR gives the semaphore hi
 * (priority 7) waits on with the port's from-ISR give.
 *   sleep_wake_entry  event to the ISR's first read of the event timer
 *   sleep_wake        event to hi's first read of the event timer
 * Its PHASE line carries irq_latency's counters (pairing, late events).
 * After each sample hi lets the board re-read the next event's time from its
 * timer (rb_event_resync): under QEMU an update re-armed late by a warp of
 * the halted core's time (issue 2703) is then one late sample, not a step
 * that every later sample keeps.
 *
 * Phase stop (boards with RB_BOARD_HAS_STOP: the F407): the idle hook enters
 * the board's STOP mode (rb_stop_idle); the board's wake-up source (RTC
 * wake-up timer) wakes the core, the board's handler restores the clock tree,
 * reads the event timer and calls rb_stop_irq, which gives hi's semaphore.
 *   stop_wake         event timer ticks (core clock, after the restore) from
 *                     the handler's read to hi's first read
 *   CHECK stop_entered  per event: the DWT counter advanced by less than half
 *                     the wake-up period between the WFI and the handler, so
 *                     the core clock really stopped (a STOP request that
 *                     only slept, or never slept, counts its whole period)
 * A board without STOP prints NA,stop_wake with its reason.
 *
 * The hook sleeps only while rb_idle_sleep is set, from just before this
 * test's events start to just after they stop; every other test keeps the
 * busy idle their cycle-counter figures need. */
#include "rb_harness.h"

#define RB_SLEEP_WFI 1u
#define RB_SLEEP_STOP 2u

volatile uint32_t rb_idle_sleep;

void rb_sleep_idle(void) {
#if RB_BOARD_HAS_STOP
  if (rb_idle_sleep == RB_SLEEP_STOP) {
    rb_stop_idle();
    return;
  }
#endif
  __asm volatile("dsb\n\twfi\n\tisb" ::: "memory");
}

#if RB_BOARD_HAS_STOP
/* A STOP wake-up costs the clock restart (HSE and PLL lock) on top of the
 * period: 1000 samples after 100 warm-up rounds, about 1.1 s. */
#define RB_STOP_SAMPLES 1000u
#define RB_STOP_WARMUP 100u
/* DWT cycles between the WFI and the handler above which the core did not
 * stop: half the wake-up period at the core clock. */
#define RB_STOP_AWAKE_CYCLES ((uint32_t)(((uint64_t)RB_STOP_PERIOD_US * RB_CORE_HZ) / 2000000u))

static volatile uint32_t rb_sw_n;      /* handler calls this phase */
static volatile uint32_t rb_sw_task_n; /* hi wakeups */
static volatile uint32_t rb_sw_bad;
static volatile uint32_t rb_sw_stopped; /* events the core reached from STOP */
static volatile uint32_t rb_sw_event;   /* event-timer time of the latest handler read */
static volatile int rb_sw_active;
static volatile int rb_sw_abort;
static volatile int rb_sw_rc;
static uint32_t rb_sw_total;
static uint32_t rb_sw_warmup;

void rb_stop_irq(uint32_t now, uint32_t cycles_in_wait) {
  rbp_port.isr_enter();
  const uint32_t i = rb_sw_n;
  if (!rb_sw_active || i > rb_sw_total) {
    rb_stop_stop();
    rbp_port.isr_exit();
    return;
  }
  if (rb_sw_task_n != i) {
    rb_sw_bad++;
  }
  rb_sw_n = i + 1u;
  int rc;
  if (i < rb_sw_total) {
    rb_sw_stopped += cycles_in_wait < RB_STOP_AWAKE_CYCLES ? 1u : 0u;
    rb_sw_event = now;
    rc = rbp_port.sem_give_from_isr(RB_S_IRQ);
  } else {
    rb_stop_stop();
    rb_sw_active = 0;
    rc = rbp_port.sem_give_from_isr(RB_S_IRQ_END);
  }
  rb_sw_rc |= rc;
  rbp_port.isr_exit();
}

static void rb_sw_receiver(void) {
  int rc = RBP_OK;
  for (;;) {
    rc |= rbp_port.sem_take(RB_S_IRQ);
    const uint32_t now = rb_event_now();
    if (rb_sw_abort) {
      break;
    }
    const uint32_t j = rb_sw_task_n;
    if (rb_sw_n != j + 1u) {
      rb_sw_bad++;
    }
    if (j >= rb_sw_warmup) {
      rb_buf_a[j - rb_sw_warmup] = (now - rb_sw_event) & RB_EVENT_MASK;
    }
    rb_sw_task_n = j + 1u;
    if (j + 1u == rb_sw_total) {
      break;
    }
  }
  rb_sw_rc |= rc;
}

static void rb_sw_stop_phase(uint32_t n, uint32_t w) {
  rb_sw_n = 0;
  rb_sw_task_n = 0;
  rb_sw_bad = 0;
  rb_sw_stopped = 0;
  rb_sw_abort = 0;
  rb_sw_rc = RBP_OK;
  rb_sw_total = w + n;
  rb_sw_warmup = w;
  rb_team_start(RB_T_HI, rb_sw_receiver); /* blocks on RB_S_IRQ */
  rb_sw_active = 1;
  rb_idle_sleep = RB_SLEEP_STOP;
  rb_stop_start();
  rb_check(rbp_port.sem_take(RB_S_IRQ_END), "sleep_wake: take end");
  rb_idle_sleep = 0;
  rb_stop_stop();
  if (rb_sw_task_n != rb_sw_total) {
    rb_sw_abort = 1;
    rb_check(rbp_port.sem_give(RB_S_IRQ), "sleep_wake: release hi");
  }
  rb_team_join(RB_T_HI);
  rb_check(rb_sw_rc, "sleep_wake: kernel call");
  rb_quiesce();

  const uint32_t kept = (rb_sw_task_n > w) ? rb_sw_task_n - w : 0u;
  const uint32_t irq_kept = (rb_sw_n > w + 1u) ? rb_sw_n - 1u - w : 0u;
  const int ok = rb_sw_bad == 0u && kept == n && irq_kept == n;
  rb_rec_begin("PHASE,stop");
  rb_rec_kv_u32("irq", irq_kept);
  rb_rec_kv_u32("task", kept);
  rb_rec_kv_u32("bad", rb_sw_bad);
  rb_rec_kv("status", ok ? "OK" : "BAD");
  rb_rec_kv_u32("expected", n);
  rb_rec_end();
  rb_emit_series("stop_wake", rb_buf_a, kept, RB_EVENT_HZ, RB_NO_BASE);
  rb_emit_check("stop_entered", rb_sw_total, rb_sw_stopped, rb_sw_total - rb_sw_stopped);
}
#endif

uint32_t rb_sleep_wake_quiet_ms(const struct rb_test* t) {
  const uint64_t waits = (uint64_t)t->warmup + t->samples + 2u;
  uint32_t ms = (uint32_t)(rb_muldiv(waits * RB_EVENT_PERIOD, 1000u, RB_EVENT_HZ) + 1u);
#if RB_BOARD_HAS_STOP
  const uint32_t stop_ms =
      (RB_STOP_SAMPLES + RB_STOP_WARMUP + 2u) * (RB_STOP_PERIOD_US / 1000u + 1u);
  ms = stop_ms > ms ? stop_ms : ms;
#endif
  return ms;
}

void rb_test_sleep_wake(const struct rb_test* t) {
  /* A tickless build leaves the sleeping to its kernel: the idle hook stays
   * busy and the kernel's tickless idle stops the tick, sleeps and restores
   * the tick on the way out, which is what this phase then times. */
  rb_idle_sleep = RB_CFG_TICKLESS ? 0u : RB_SLEEP_WFI;
  rb_irq_sleep_phase("wfi", "sleep_wake_entry", "sleep_wake", t->samples, t->warmup);
  rb_idle_sleep = 0;
#if RB_BOARD_HAS_STOP
  rb_sw_stop_phase(t->samples < RB_STOP_SAMPLES ? t->samples : RB_STOP_SAMPLES,
                   t->warmup < RB_STOP_WARMUP ? t->warmup : RB_STOP_WARMUP);
#else
  rb_emit_na("stop_wake", RB_BOARD_NO_STOP);
#endif
}
