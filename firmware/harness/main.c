/* Boot, the fixed task layout and the controller that runs every test.
 *
 * main() brings up the clocks and the console, waits for the host's start
 * line (the start handshake, docs/protocol.md section 1.3), then initialises
 * the rest of the board and the port, creates every object and task (the
 * same ones for every kernel, whether a test uses them or not) and starts
 * the kernel. The controller task prints BEGIN and CONFIG, runs the
 * selected tests in a fixed order, prints END and then blocks forever; the
 * idle task keeps running (the host stops QEMU or the board). */
#include "cm4_regs.h"
#include "rb_harness.h"

uint32_t rb_buf_a[RB_CFG_BUF_SAMPLES];
uint32_t rb_buf_b[RB_CFG_BUF_SAMPLES];

/* A port whose kernel allocates every task stack itself sets
 * RB_PORT_KERNEL_STACKS=1 (LiteOS-M 1.1, which also names rbp_stack_unseen):
 * the harness keeps no stacks for it, RB_TASKS x RB_STACK_WORDS words of RAM
 * nobody would use (12 KB: without them LiteOS-M's image overflowed the
 * 128 KB at 10000 samples). */
#ifndef RB_PORT_KERNEL_STACKS
#define RB_PORT_KERNEL_STACKS 0
#endif
#if RB_PORT_KERNEL_STACKS
#define RB_HARNESS_STACK_WORDS 1u
#else
#define RB_HARNESS_STACK_WORDS RB_STACK_WORDS
#endif
static uint32_t rb_stacks[RB_TASKS][RB_HARNESS_STACK_WORDS] __attribute__((aligned(8)));
#define RB_STACK_FILL 0xA5A5A5A5u

volatile uint32_t rb_tick_hook_count;
volatile uint32_t rb_idle_passes;
uint32_t rb_base_ticks;
uint32_t rb_base2_ticks;
uint32_t rb_base_round_ticks;
uint32_t rb_boot_dhcsr;
const char* rb_start_kind = "none";

#define RB_TEST_ENTRY(id, caps, pacing, series) \
  {#id, (caps), RB_CFG_ON_##id, RB_CFG_SAMPLES_##id, RB_CFG_WARMUP_##id, rb_test_##id},

const struct rb_test rb_tests[] = {RB_TEST_TABLE(RB_TEST_ENTRY)};
const uint32_t rb_test_count = sizeof rb_tests / sizeof rb_tests[0];

/* Each capability as the object of "provides no ...". */
static const struct {
  uint32_t cap;
  const char* what;
} rb_cap_names[] = {
    {RBP_HAS_TASKS, "tasks and semaphores"},
    {RBP_HAS_PREEMPTION, "preemptive scheduling"},
    {RBP_HAS_SEM_FROM_ISR, "semaphore give from an ISR"},
    {RBP_HAS_QUEUE, "message queue"},
    {RBP_HAS_MUTEX, "mutex"},
    {RBP_HAS_MUTEX_PI, "priority-inheritance mutex"},
    {RBP_HAS_TIME_SLICE, "time slicing among equal priorities"},
    {RBP_HAS_TICK_HOOK, "tick hook"},
    {RBP_HAS_IDLE_HOOK, "idle hook"},
    {RBP_HAS_HEAP, "general-purpose allocator of its own"},
    {RBP_HAS_NOTIFY, "direct task notification"},
    {RBP_HAS_ZERO_LATENCY_IRQ, "interrupt level its critical section leaves unmasked"},
    {RB_PERIODIC_TICK,
     "periodic tick: this build is tickless and the kernel stops its tick while idle"},
#if RB_EDGE_TICK
    {RB_PLAIN_TICK_HOOK,
     "plain tick hook: this edges build tests for tick_drift's edges in the tick hook"},
#endif
};

volatile uint32_t rb_tick_stamps[RB_TICK_STAMPS];
volatile int rb_idle_probe_on;

/* The counter at each tick, kept in a small ring indexed by the hook count
 * (tick_drift reads it without missing a tick). */
#if RB_EDGE_TICK
volatile uint32_t rb_edge_tick_from;
volatile uint32_t rb_edge_tick_span;
volatile int rb_edge_tick_on;
static int rb_edge_tick_level;

/* After the stamp of tick c: the marker and the toggles of tick_drift's kept
 * stamps (rb_harness.h), each after the counter read it belongs to. */
static void rb_edge_tick(uint32_t c) {
  const uint32_t k = c - rb_edge_tick_from; /* kept stamp k, 0..span */
  if (k <= rb_edge_tick_span) {
    rb_edge_tick_level = !rb_edge_tick_level;
    rb_board_edge_tk(rb_edge_tick_level);
  } else if (k == 0u - 1u) {
    rb_board_edge_mk(1);
  } else if (k == rb_edge_tick_span + 1u) {
    rb_board_edge_mk(0);
    rb_edge_tick_on = 0;
  }
}
#endif

void rb_tick_hook(void) {
  const uint32_t c = rb_tick_hook_count;
  rb_tick_stamps[c & (RB_TICK_STAMPS - 1u)] = rb_counter_now();
  rb_tick_hook_count = c + 1u;
#if RB_EDGE_TICK
  if (rb_edge_tick_on) {
    rb_edge_tick(c);
  }
#endif
}

void rb_idle_hook(void) {
  rb_idle_passes++;
  if (rb_idle_probe_on) {
    rb_idle_probe();
  }
  if (rb_idle_sleep != 0u) { /* only during sleep_wake */
    rb_sleep_idle();
  }
}

void rb_fatal(const char* what) {
  __asm volatile("cpsid i" ::: "memory");
  rb_board_write("!! port error: ", 15);
  rb_other_line(what);
  for (;;) {
  }
}

void rb_check(int rc, const char* what) {
  if (rc != RBP_OK) {
    rb_fatal(what);
  }
}

void rb_fpu_touch(void) {
#if RB_CFG_FPU_CONTEXT
  __asm volatile("vmov.f32 s15, s15" ::: "memory");
#endif
}

/* NA reason for a test whose needs the port lacks: names the first missing
 * capability. The text is static per capability, so no formatting is needed. */
static void rb_emit_missing(const char* test, uint32_t missing) {
  static char reason[128];
  const char* what = "capability the test needs";
  for (uint32_t i = 0; i < sizeof rb_cap_names / sizeof rb_cap_names[0]; i++) {
    if (missing & rb_cap_names[i].cap) {
      what = rb_cap_names[i].what;
      break;
    }
  }
  uint32_t n = 0;
  const char* parts[] = {"port ",         RB_CFG_PORT,      " (kernel ",
                         rbp_port.kernel, ") provides no ", what};
  for (uint32_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
    for (const char* s = parts[p]; *s && n + 1 < sizeof reason; s++) {
      reason[n++] = *s;
    }
  }
  reason[n] = '\0';
  rb_emit_na(test, reason);
}

/* Untouched fill words from the bottom of a stack, above the words the
 * kernel keeps there (rbp_stack_reserved_words). */
static uint32_t rb_stack_free_words(const uint32_t* stack) {
  uint32_t n = rbp_stack_reserved_words;
  while (n < RB_STACK_WORDS && stack[n] == RB_STACK_FILL) {
    n++;
  }
  return n - rbp_stack_reserved_words;
}

/* The longest time a test prints nothing, in ms, announced in its TEST
 * record (quiet_ms=) so the host's inactivity timeout follows it: the
 * tick-paced tests wait one tick per sample (11 s at 1 kHz, 110 s at 100 Hz
 * with the default 10000 + 1000), irq_latency one event period per sample in
 * each phase (notify in its interrupt phase). 0: nothing to announce (the
 * others print within a second). */
static uint32_t rb_quiet_ms(const struct rb_test* t) {
  const uint64_t waits = (uint64_t)t->warmup + t->samples + 2u;
  if (t->run == rb_test_time_slice || t->run == rb_test_tick_overhead) {
    return (uint32_t)((waits * 1000u + RB_CFG_TICK_HZ - 1u) / RB_CFG_TICK_HZ);
  }
  if (t->run == rb_test_sleep_wake) {
    return rb_sleep_wake_quiet_ms(t);
  }
  /* One delay(1) per sample, which is two ticks where the kernel's delay
   * means "at least one full tick" (Zephyr, NuttX), plus a few
   * (tick_drift's collection step, idle_occupancy's calibration). */
#if RB_CFG_TICKLESS
  /* tick_drift's tickless sleeps: 8 ticks each, 9 where delay means "at
   * least" the ticks asked (tests/tick_drift.c). */
  if (t->run == rb_test_tick_drift) {
    return (uint32_t)(((9u * waits + 16u) * 1000u + RB_CFG_TICK_HZ - 1u) / RB_CFG_TICK_HZ);
  }
#endif
  if (t->run == rb_test_tick_drift || t->run == rb_test_idle_occupancy ||
      t->run == rb_test_mixed_load) {
    return (uint32_t)(((2u * waits + 16u) * 1000u + RB_CFG_TICK_HZ - 1u) / RB_CFG_TICK_HZ);
  }
  if (t->run == rb_test_irq_latency || t->run == rb_test_notify) {
    return (uint32_t)(rb_muldiv(waits * RB_EVENT_PERIOD, 1000u, RB_EVENT_HZ) + 1u);
  }
  return 0;
}

/* Runs every selected test and prints the whole log. */
static void rb_run_all(void) {
  rb_report_init();
  rb_rec_begin("BEGIN,RTOS_BENCH_V2");
  rb_rec_end();
  rb_config_emit();

  uint32_t run = 0;
  uint32_t na = 0;
  for (uint32_t i = 0; i < rb_test_count; i++) {
    const struct rb_test* t = &rb_tests[i];
    if (!t->enabled) {
      continue;
    }
    uint32_t missing = t->needs & ~(rbp_port.caps | RB_BUILD_CAPS);
    rb_rec_begin("TEST,");
    rb_rec_text(t->name);
    if (missing == 0u && rb_quiet_ms(t) > 0u) {
      rb_rec_kv_u32("quiet_ms", rb_quiet_ms(t));
    }
    rb_rec_end();
    if (missing != 0u) {
      rb_emit_missing(t->name, missing);
      na++;
      continue;
    }
    t->run(t);
    run++;
  }

  rb_rec_begin("END,RTOS_BENCH_V2");
  rb_rec_kv_u32("tests_run", run);
  rb_rec_kv_u32("tests_na", na);
  if ((rbp_port.caps & RBP_HAS_TASKS) && (rbp_stack_unseen != 0 || RB_PORT_KERNEL_STACKS)) {
    rb_rec_kv("stack_min_free_words", "n/a");
  } else if (rbp_port.caps & RBP_HAS_TASKS) {
    uint32_t min_free = RB_STACK_WORDS;
    for (int k = 0; k < RB_TASKS; k++) {
      uint32_t f = rb_stack_free_words(rb_stacks[k]);
      if (f < min_free) {
        min_free = f;
      }
    }
    rb_rec_kv_u32("stack_min_free_words", min_free);
  }
  rb_rec_end();
}

static void rb_controller(void* arg) {
  (void)arg;
  rb_fpu_touch();
  rb_run_all();
  for (;;) {
    rbp_port.sem_take(RB_S_NEVER);
  }
}

static void rb_require(int ok, const char* what) {
  if (!ok) {
    rb_fatal(what);
  }
}

/* A port that claims a capability must provide its operations. */
static void rb_check_port_table(void) {
  const struct rbp_ops* p = &rbp_port;
  const uint32_t c = p->caps;
  rb_require(p->kernel != 0, "rbp_port.kernel is NULL");
  if (c & RBP_HAS_TASKS) {
    rb_require(p->init && p->task_create && p->start && p->sem_create && p->sem_give &&
                   p->sem_take && p->critical_enter && p->critical_exit && p->delay &&
                   p->tick_count,
               "RBP_HAS_TASKS set but an operation it needs is NULL");
  }
  if (c & RBP_HAS_SEM_FROM_ISR) {
    rb_require(p->sem_give_from_isr && p->isr_enter && p->isr_exit,
               "RBP_HAS_SEM_FROM_ISR set but sem_give_from_isr/isr_enter/isr_exit is NULL");
  }
  if (c & RBP_HAS_QUEUE) {
    rb_require(p->queue_create && p->queue_send && p->queue_receive,
               "RBP_HAS_QUEUE set but a queue operation is NULL");
  }
  if (c & RBP_HAS_MUTEX) {
    rb_require(p->mutex_create && p->mutex_lock && p->mutex_unlock,
               "RBP_HAS_MUTEX set but a mutex operation is NULL");
  }
  if (c & RBP_HAS_HEAP) {
    rb_require(p->heap_alloc && p->heap_free && p->heap_stats,
               "RBP_HAS_HEAP set but a heap operation is NULL");
  }
  if (c & RBP_HAS_NOTIFY) {
    rb_require(p->notify_give && p->notify_take && p->notify_give_from_isr,
               "RBP_HAS_NOTIFY set but a notify operation is NULL");
  }
  rb_require(!(c & RBP_HAS_MUTEX_PI) || (c & RBP_HAS_MUTEX),
             "RBP_HAS_MUTEX_PI without RBP_HAS_MUTEX");
}

/* The start handshake. The banner says the image waits; it is repeated
 * about every RB_START_SPINS polls of the UART (under a second on the F407)
 * so a host whose port came up late (a VCP re-enumerating after a power
 * cycle) still sees one. The host answers `START <nonce>`; a plain `START`
 * (a person at a terminal) is accepted too and recorded as such. A START
 * with another image's nonce is refused with a line saying so. Bytes are
 * polled while the banner is sent, so a start line arriving then is kept. */
#define RB_START_SPINS 4000000u
#define RB_START_MAX 32u

static const char rb_banner[] =
    "rtosbench-fw: board=" RB_CFG_BOARD " port=" RB_CFG_PORT " harness=" RB_CFG_HARNESS_HASH
    " nonce=" RB_CFG_NONCE " waiting for START\n";

static int rb_start_matches(const char* line, uint32_t n) {
  static const char start[] = "START";
  static const char nonce[] = RB_CFG_NONCE;
  const uint32_t ls = sizeof start - 1u;
  const uint32_t ln = sizeof nonce - 1u;
  for (uint32_t i = 0; i < ls; i++) {
    if (i >= n || line[i] != start[i]) {
      return 0;
    }
  }
  if (n == ls) {
    rb_start_kind = "manual";
    return 1;
  }
  if (line[ls] != ' ') {
    return 0;
  }
  if (n == ls + 1u + ln) {
    uint32_t i = 0;
    while (i < ln && line[ls + 1u + i] == nonce[i]) {
      i++;
    }
    if (i == ln) {
      rb_start_kind = "host";
      return 1;
    }
  }
  rb_other_line("rtosbench-fw: START refused: its nonce is not this image's (" RB_CFG_NONCE ")");
  return 0;
}

static void rb_wait_start(void) {
  char line[RB_START_MAX];
  uint32_t n = 0;
  for (;;) {
    uint32_t sent = 0;
    for (uint32_t spin = 0; spin < RB_START_SPINS; spin++) {
      if (sent < sizeof rb_banner - 1u) {
        rb_board_write(&rb_banner[sent++], 1u);
      }
      const int c = rb_board_getc();
      if (c < 0) {
        continue;
      }
      if (c == '\n' || c == '\r') {
        if (n > 0u && n <= RB_START_MAX && rb_start_matches(line, n)) {
          /* Finish the banner line: BEGIN must start a line of its own. */
          rb_board_write(&rb_banner[sent], (uint32_t)(sizeof rb_banner - 1u - sent));
          return;
        }
        n = 0;
      } else {
        if (n < RB_START_MAX) {
          line[n] = (char)c;
        }
        n++;
      }
    }
  }
}

int main(void) {
  rb_board_console_init();
  rb_wait_start();
  /* The host has let go of the core (it sends START after the release): read
   * DHCSR before anything else touches the debug registers. */
  rb_boot_dhcsr = DBG_DHCSR;
  rb_board_init();
#if RB_CFG_EDGES
  rb_board_edge_init();
#endif
  rb_board_read_facts(&rb_facts);
  rb_check_port_table();

  if (!(rbp_port.caps & RBP_HAS_TASKS)) {
    /* No kernel (the template port): the ruler still runs, every other test
     * is reported NA. */
    rb_run_all();
    for (;;) {
    }
  }

  rb_check(rbp_port.init(), "init");
  for (int id = 0; id < RB_SEMS; id++) {
    rb_check(rbp_port.sem_create(id), "sem_create");
  }
  if (rbp_port.caps & RBP_HAS_QUEUE) {
    for (int id = 0; id < RB_QUEUES; id++) {
      rb_check(rbp_port.queue_create(id), "queue_create");
    }
  }
  if (rbp_port.caps & RBP_HAS_MUTEX) {
    for (int id = 0; id < RB_MUTEXES; id++) {
      rb_check(rbp_port.mutex_create(id), "mutex_create");
    }
  }

  static const struct {
    const char* name;
    int prio;
  } layout[RB_TASKS] = {
      [RB_T_CTL] = {"ctl", RB_PRIO_CTL},  [RB_T_HI] = {"hi", RB_PRIO_HI},
      [RB_T_MED] = {"med", RB_PRIO_MED},  [RB_T_LO] = {"lo", RB_PRIO_LO},
      [RB_T_BG_A] = {"bg_a", RB_PRIO_BG}, [RB_T_BG_B] = {"bg_b", RB_PRIO_BG},
  };
  for (int k = 0; k < RB_TASKS; k++) {
    for (uint32_t w = 0; w < RB_HARNESS_STACK_WORDS; w++) {
      rb_stacks[k][w] = RB_STACK_FILL;
    }
    rbp_entry_fn entry = (k == RB_T_CTL) ? rb_controller : rb_worker_main;
    rb_check(rbp_port.task_create(k, layout[k].name, entry, (void*)(intptr_t)k, layout[k].prio,
                                  rb_stacks[k], RB_STACK_WORDS),
             "task_create");
  }
  rbp_port.start();
  rb_fatal("start returned");
}
