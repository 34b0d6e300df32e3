/* Internal interface of the kernel-neutral harness: the fixed task layout,
 * object IDs, sample buffers, the protocol writer and the statistics.
 * docs/firmware.md describes the layout and each test's method. */
#ifndef RB_HARNESS_H
#define RB_HARNESS_H

#include <stdint.h>

#include "rb_board.h"
#include "rb_build_config.h"
#include "rb_port.h"
#include "rb_tests.h"

/* ---- Task layout: the same for every kernel ------------------------------
 * Every test runs on these six tasks; all have RB_STACK_WORDS-word stacks.
 * The kernel adds its own tasks, which differ: an idle task everywhere, and a
 * timer service task or work queue where its configuration keeps one
 * (docs/kernels.md, "Unequal work": none blocks a measured path, they cost
 * RAM). ctl runs the tests and prints; the others are
 * workers that run a role function when ctl starts them. */
enum rb_task_id { RB_T_CTL, RB_T_HI, RB_T_MED, RB_T_LO, RB_T_BG_A, RB_T_BG_B, RB_TASKS };
#define RB_PRIO_CTL 4
#define RB_PRIO_HI 7
#define RB_PRIO_MED 5
#define RB_PRIO_LO 3
#define RB_PRIO_BG 2

/* Semaphores (binary), queue and mutex IDs. */
enum rb_sem_id {
  RB_S_START0 = 0,                     /* + task: ctl -> worker, run your role */
  RB_S_DONE0 = RB_S_START0 + RB_TASKS, /* + task: worker -> ctl, role finished */
  RB_S_WAKE = RB_S_DONE0 + RB_TASKS,   /* wake_latency: ctl -> hi */
  RB_S_PARTNER,                        /* round_trip: ctl -> lo */
  RB_S_BACK,                           /* round_trip: lo -> ctl; mixed_load: bg_a -> lo */
  RB_S_FREE,                           /* api_overhead: give + take in ctl */
  RB_S_IRQ,                            /* irq_latency: ISR -> hi */
  RB_S_IRQ_END,                        /* irq_latency: ISR -> ctl after the last event */
  RB_S_PI_HI,                          /* mutex_pi: lo -> hi */
  RB_S_PI_MED,                         /* mutex_pi: hi -> med */
  RB_S_NEVER,                          /* ctl waits here forever after END */
  RB_SEMS
};
enum rb_queue_id { RB_Q_MSG, RB_QUEUES };
enum rb_mutex_id { RB_M_API, RB_M_PI, RB_MUTEXES };

/* ---- Sample buffers: two series live at once, each at most
 * RB_CFG_BUF_SAMPLES (RB_CFG_SAMPLES, or the board's cap) --------------- */
extern uint32_t rb_buf_a[RB_CFG_BUF_SAMPLES];
extern uint32_t rb_buf_b[RB_CFG_BUF_SAMPLES];

/* ---- Tests ---------------------------------------------------------------- */
struct rb_test {
  const char* name;
  uint32_t needs;   /* RBP_HAS_* the test cannot do without */
  int enabled;      /* selected by RB_TESTS */
  uint32_t samples; /* kept per series */
  uint32_t warmup;  /* discarded per series */
  void (*run)(const struct rb_test* t);
};
extern const struct rb_test rb_tests[];
extern const uint32_t rb_test_count;

/* A condition of the build rather than a capability of the port, named in
 * rb_tests.h's needs like one: the kernel's tick interrupt comes every
 * period, idle or not. Every build has it but a tickless one (RB_TICKLESS=1),
 * whose kernel stops its tick while idle: there the tests that time the tick
 * or count idle time per tick report NA. */
#define RB_PERIODIC_TICK (1u << 31)
/* Another such condition, only in an edges build that runs tick_drift
 * (RB_EDGE_TICK): the tick hook does nothing but stamp the tick. There the
 * hook tests whether tick_drift armed its edges on every tick (main.c), two
 * instructions in the tick interrupt that tick_overhead, time_slice and
 * idle_occupancy (idle time per tick: the interrupt is not idle) would count
 * as the kernel's, so those three report NA and every other series keeps the
 * figures of the build without edges (docs/firmware.md, "Edges"). Every
 * other build has a plain hook: the condition is 0 there, so the needs of
 * those tests and RB_BUILD_CAPS are those of a build without edges. */
#define RB_EDGE_TICK (RB_CFG_EDGES && RB_CFG_ON_tick_drift && !RB_CFG_TICKLESS)
#if RB_EDGE_TICK
#define RB_PLAIN_TICK_HOOK (1u << 30)
#else
#define RB_PLAIN_TICK_HOOK 0u
#endif
#if RB_CFG_TICKLESS
#define RB_BUILD_CAPS 0u
#else
#define RB_BUILD_CAPS RB_PERIODIC_TICK
#endif

/* One runner per entry of the table (rb_tests.h). */
#define RB_TEST_PROTOTYPE(id, caps, pacing, series) void rb_test_##id(const struct rb_test* t);
RB_TEST_TABLE(RB_TEST_PROTOTYPE)

/* ---- Workers -------------------------------------------------------------- */
typedef void (*rb_role_fn)(void);
/* Hands `role` to worker `task` and lets it run (a higher-priority worker runs
 * at once up to its first block; a lower one when ctl blocks). */
void rb_team_start(int task, rb_role_fn role);
/* Waits until worker `task` has finished its role. */
void rb_team_join(int task);
/* Returns once every task but ctl is blocked (the idle hook has run). */
void rb_quiesce(void);
void rb_worker_main(void* arg);

/* ---- The empty operation of the ruler: same call shape as a port op ------ */
struct rb_empty_table {
  int (*op)(int id);
};
extern const struct rb_empty_table rb_empty_table;

/* ---- Measurement windows (window.c, docs/firmware.md) ----------------------
 * One noinline routine per window shape; between its two counter reads only
 * the call(s). The ruler runs rb_window1 and rb_window2 with the empty
 * operation: ruler_loop and ruler_loop2 are the baselines of the one-call and
 * the two-call windows. rb_window1_send/_recv have rb_window1's code between
 * the reads (one blx; their extra argument is in r1 before the first read). */
struct rb_stamp {
  uint32_t t0, t1; /* the window's two counter reads */
  int rc;          /* OR of the operation's results */
};
/* Counter read, op(id), counter read; stores t0, t1, rc into *s after the
 * second read and returns t1 - t0. */
uint32_t rb_window1(int id, int (*op)(int), struct rb_stamp* s);
uint32_t rb_window1_send(int id, uint32_t msg, int (*op)(int, uint32_t), struct rb_stamp* s);
uint32_t rb_window1_recv(int id, uint32_t* msg, int (*op)(int, uint32_t*), struct rb_stamp* s);
/* The heap test's windows (one blx, as rb_window1): rb_window1_alloc stores
 * the returned pointer in s->ptr, rb_window1_free ORs the result into s->rc. */
struct rb_stamp_ptr {
  uint32_t t0, t1;
  void* ptr;
};
uint32_t rb_window1_alloc(uint32_t bytes, void* (*op)(uint32_t), struct rb_stamp_ptr* s);
uint32_t rb_window1_free(void* block, int (*op)(void*), struct rb_stamp* s);
/* Counter read, op(), counter read (a void(void) operation: yield); stores
 * t0 and t1 into *s after the second read. rb_window1's code between the
 * reads (one blx), so ruler_loop is its baseline. */
void rb_window1_void(void (*op)(void), struct rb_stamp* s);
/* Counter read, a(ida), b(idb), counter read; ORs both results into
 * rb_window2_rc after the second read and returns t1 - t0. */
uint32_t rb_window2(int ida, int (*a)(int), int idb, int (*b)(int));
extern int rb_window2_rc;
/* round_trip's partner (lo): `rounds` rounds of a(RB_S_PARTNER) then
 * b(RB_S_BACK), storing the rounds left into *left after each a; returns the
 * OR of the results. Its loop is the partner's share of round_trip's window,
 * and rb_window_round (the ruler's ruler_round) runs the same instructions
 * after rb_window2's, with counter reads around: round_trip's baseline. ORs
 * the results into rb_window_round_rc; returns t1 - t0. */
int rb_round_partner(uint32_t rounds, int (*a)(int), int (*b)(int), volatile uint32_t* left);
uint32_t rb_window_round(int (*a)(int), int (*b)(int), volatile uint32_t* left);
extern int rb_window_round_rc;

/* ---- Counters shared with the hooks -------------------------------------- */
extern volatile uint32_t rb_tick_hook_count;
extern volatile uint32_t rb_idle_passes;
/* rb_tick_hook stores the counter at tick k (k = rb_tick_hook_count before
 * the hook's increment) in rb_tick_stamps[k % RB_TICK_STAMPS] (tick_drift). */
#define RB_TICK_STAMPS 8u
extern volatile uint32_t rb_tick_stamps[RB_TICK_STAMPS];

#if RB_EDGE_TICK
/* Edges (docs/firmware.md, "Edges"): tick_drift arms the tick hook with the
 * hook counts of its kept stamps, from rb_edge_tick_from to
 * rb_edge_tick_from + rb_edge_tick_span (the span is the kept periods). The
 * hook raises MK at tick from - 1, toggles TK right after each of those
 * stamps and lowers MK at tick from + span + 1, then clears rb_edge_tick_on. */
extern volatile uint32_t rb_edge_tick_from;
extern volatile uint32_t rb_edge_tick_span;
extern volatile int rb_edge_tick_on;
#endif
#if RB_CFG_EDGES
/* TK and EV pulses last at least this many counter ticks (about 250 ns on
 * the hardware boards: six samples of a 24 MHz analyzer), held outside the
 * windows. */
#define RB_EDGE_HOLD_TICKS (RB_COUNTER_HZ / 4000000u + 1u)
static inline void rb_edge_hold(uint32_t since) {
  while (rb_counter_now() - since < RB_EDGE_HOLD_TICKS) {
  }
}
#endif

/* The ticks a background task paces itself by (once per tick: irq_latency's
 * and zero_latency_irq's critical sections): the tick hook's count where the
 * port has one (a plain load: cheaper to poll, above all under QEMU), else
 * the kernel's tick count. A tickless build paces by the ruler instead, one
 * tick period of it at a time from rb_bg_ticks_begin(): its kernel's tick
 * hook runs only when the kernel's timer fires, and a kernel's tick count can
 * take a critical section per read (Zephyr's k_uptime_ticks, uC/OS-III's
 * OSTimeGet), which polled in a loop would mask the events the phase times.
 * Counted from the task's start, as the tick is from the kernel's: under
 * QEMU the ruler's phase against the code moves with every sleep before it
 * (QEMU issue 2703), the distance from the start does not. */
extern uint32_t rb_bg_base;
static inline uint32_t rb_bg_ticks(void) {
#if RB_CFG_TICKLESS
  return (rb_counter_now() - rb_bg_base) / (RB_COUNTER_HZ / RB_CFG_TICK_HZ);
#else
  return (rbp_port.caps & RBP_HAS_TICK_HOOK) ? rb_tick_hook_count : rbp_port.tick_count();
#endif
}
static inline uint32_t rb_bg_ticks_begin(void) {
#if RB_CFG_TICKLESS
  rb_bg_base = rb_counter_now();
#endif
  return rb_bg_ticks();
}

/* While set, rb_idle_hook calls rb_idle_probe() on every pass
 * (idle_occupancy, tests/idle_occupancy.c). */
extern volatile int rb_idle_probe_on;
void rb_idle_probe(void);
/* ruler_loop, ruler_loop2 and ruler_round medians: the base_ticks of the
 * one-call and the two-call windows' series and of round_trip
 * (RB_BASE_LOOP1, RB_BASE_LOOP2, RB_BASE_ROUND). */
extern uint32_t rb_base_ticks;
extern uint32_t rb_base2_ticks;
extern uint32_t rb_base_round_ticks;
extern uint32_t rb_boot_dhcsr;
/* How the run was started (CONFIG start=): "host" (START with this image's
 * nonce), "manual" (a plain START). */
extern const char* rb_start_kind;

/* Calls fatal when rc != 0 (outside measurement windows only). */
void rb_check(int rc, const char* what);
/* Executes one FP instruction in FP builds so the calling task's context
 * carries FP state from now on (CONTROL.FPCA); nothing in soft-float builds. */
void rb_fpu_touch(void);

/* ---- Protocol writer (docs/protocol.md, V2) ------------------------------ */
void rb_report_init(void);
/* A protocol record: begin, append fields, end (adds |seq|crc and LF). */
void rb_rec_begin(const char* kind);
void rb_rec_text(const char* s);                    /* appends s as is (",name" etc.) */
void rb_rec_u32(uint32_t v);                        /* appends decimal */
void rb_rec_kv(const char* key, const char* value); /* ",key=value"; NULL -> n/a */
void rb_rec_kv_u32(const char* key, uint32_t v);
void rb_rec_kv_u64(const char* key, uint64_t v);
void rb_rec_kv_int(const char* key, int v);      /* negative -> n/a */
void rb_rec_kv_hex(const char* key, uint32_t v); /* 0x%08x */
void rb_rec_end(void);
/* A line outside the protocol (no seq, no crc): banners and `!!` errors. */
void rb_other_line(const char* s);
/* NA,<name>,reason=<reason> */
void rb_emit_na(const char* name, const char* reason);
/* CHECK,<name>,rounds=,pass=,fail=,status= */
void rb_emit_check(const char* name, uint32_t rounds, uint32_t pass, uint32_t fail);

/* ---- Statistics ----------------------------------------------------------- */
/* The baseline a series' RESULT names (base_ticks=, base=). */
#define RB_NO_BASE 0
#define RB_BASE_LOOP1 1 /* ruler_loop: one-call windows */
#define RB_BASE_LOOP2 2 /* ruler_loop2: two-call windows */
#define RB_BASE_ROUND 3 /* ruler_round: round_trip's window (rb_window_round) */
#define RB_WITH_BASE RB_BASE_LOOP1
/* Prints the RAW lines of samples[0..n) in measurement order, sorts the
 * buffer, prints the RESULT (docs/protocol.md section 4; with base_ticks and
 * base= naming the baseline unless base is RB_NO_BASE) and returns the median.
 * n == 0 prints NA instead. */
uint32_t rb_emit_series(const char* name, uint32_t* samples, uint32_t n, uint32_t hz, int base);
/* The same with another series of the test as the baseline: base= names it,
 * base_ticks= is its median (tick_overhead's irq_dispatch over
 * tick_irq_empty). */
uint32_t rb_emit_series_over(const char* name, uint32_t* samples, uint32_t n, uint32_t hz,
                             const char* base_name, uint32_t base_ticks);
/* The same with calls= (every call the series' pattern made, warm-up
 * included) and refused= (those the kernel refused, whose times are not
 * kept) on the RESULT: the heap test's allocations. */
uint32_t rb_emit_series_calls(const char* name, uint32_t* samples, uint32_t n, uint32_t hz,
                              int base, uint32_t calls, uint32_t refused);
void rb_sort_u32(uint32_t* v, uint32_t n);
/* floor(a * b / c), exact (96-bit intermediate); c > 0. */
uint64_t rb_muldiv(uint64_t a, uint32_t b, uint64_t c);

/* ---- CONFIG -------------------------------------------------------------- */
/* Read once in main() before the kernel starts. */
extern struct rb_board_facts rb_facts;
void rb_config_emit(void);

/* The test-timer events (rb_event_irq, irq_latency.c) while irq_latency is
 * not measuring: a test that sets this handler before rb_event_start gets
 * them, called between the port's isr_enter and isr_exit (rb_event_irq calls
 * both); NULL: they are stray and stop the timer. */
extern void (*volatile rb_event_handler)(uint32_t event, uint32_t now);

/* irq_latency, phase critical: the background task masks interrupts for
 * about 20 us of the ruler once per tick. */
#define RB_CRIT_TICKS (RB_COUNTER_HZ / 50000u)

/* irq_latency's phase code (phase idle: no background task) under other
 * series names, for a phase in which the core halts between events:
 * sleep_wake's phase wfi runs it with the idle hook sleeping. After each
 * sample hi calls rb_event_resync (rb_board.h), so each event's time comes
 * from the board's timer even where an emulator re-arms it late. */
void rb_irq_sleep_phase(const char* phase, const char* entry_name, const char* task_name,
                        uint32_t n, uint32_t w);

/* sleep_wake: while nonzero the idle hook sleeps (rb_sleep_idle: WFI, or the
 * board's STOP mode) after counting its pass; zero in every other test. */
extern volatile uint32_t rb_idle_sleep;
void rb_sleep_idle(void);
/* The longest time sleep_wake prints nothing (TEST quiet_ms=). */
uint32_t rb_sleep_wake_quiet_ms(const struct rb_test* t);

#endif
