/* The harness tests: one table, in the order the firmware runs them. Read by
 * - the firmware: main.c's rb_tests[] and rb_harness.h's prototypes
 *   (RB_TEST_TABLE below), one file harness/tests/<name>.c per test;
 * - firmware/CMakeLists.txt: RB_ALL_TESTS and the per-test RB_CFG_* defines
 *   (it reads the names with a regular expression: keep one entry per line,
 *   starting with two spaces and "X(");
 * - the host: src/catalog, at run time (the test names a matrix may select,
 *   the series each test writes, their units and baselines, docs/protocol.md
 *   section 8).
 *
 * sleep_wake stays last: it is the only test that lets the core halt in WFI,
 * and under QEMU 7.2 a halted core's virtual time may warp by an amount that
 * differs between runs (QEMU issue 2703). Run earlier, that shift moved the
 * phase of every later test's timer events against the code: zephyr's
 * zli_entry_idle p90 differed between two runs of the same image.
 *
 * X(name, capabilities the test needs (RBP_HAS_*, RB_PERIODIC_TICK for a
 *   test a tickless build cannot run, RB_PLAIN_TICK_HOOK for one that times
 *   the tick hook), its pacing, "series it writes")
 *
 * Pacing: RB_PACE_FREE samples back to back, RB_PACE_EVENT one sample per
 * test-timer event, RB_PACE_TICK one sample per kernel tick or more (a
 * board may cap only these tests' sample counts, board.cmake
 * RB_BOARD_SAMPLES_CAP_<test>). A series is in the counter's unit (CONFIG
 * unit) unless it names its own after a colon: bytes, per-mille. A series
 * measured through a ruler window names its baseline after an `@`: the
 * ruler series its RESULT's base= must name (ruler_loop for one call,
 * ruler_loop2 for two, ruler_round for round_trip's window, which holds the
 * partner's loop too; the emit call's RB_BASE_LOOP1/2/ROUND says the same, and
 * `rtosbench verify` refuses a log where they differ); a series without one
 * carries no baseline. The host reads this table from the tree
 * (src/catalog): names, pacing, series, units and baselines, one entry per
 * line. */
#ifndef RB_TESTS_H
#define RB_TESTS_H

/* tick_drift: a periodic build collects the tick hook's stamps (series
 * tick_period); a tickless build, whose hook does not run for the ticks the
 * kernel skips, times the kernel's sleeps against the counter (series
 * tick_sleep, tests/tick_drift.c). */
#if defined(RB_CFG_TICKLESS) && RB_CFG_TICKLESS
#define RB_TICK_DRIFT_NEEDS RBP_HAS_TASKS
#else
#define RB_TICK_DRIFT_NEEDS (RBP_HAS_TASKS | RBP_HAS_TICK_HOOK | RB_PERIODIC_TICK)
#endif

/* clang-format off */
#define RB_TEST_TABLE(X) \
  X(ruler, 0, RB_PACE_FREE, "ruler_read_pair ruler_loop ruler_loop2 ruler_round") \
  X(api_overhead, RBP_HAS_TASKS, RB_PACE_FREE, "api_overhead@ruler_loop2") \
  X(wake_latency, RBP_HAS_TASKS | RBP_HAS_PREEMPTION, RB_PACE_FREE, "wake_latency@ruler_loop") \
  X(round_trip, RBP_HAS_TASKS, RB_PACE_FREE, "round_trip@ruler_round") \
  X(irq_latency, RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR, RB_PACE_EVENT, "irq_entry event_to_task") \
  X(time_slice, RBP_HAS_TASKS | RBP_HAS_TIME_SLICE | RB_PLAIN_TICK_HOOK, RB_PACE_TICK, "time_slice") \
  X(tick_overhead, RBP_HAS_TASKS | RBP_HAS_TICK_HOOK | RB_PERIODIC_TICK | RB_PLAIN_TICK_HOOK, RB_PACE_TICK, "tick_irq_empty irq_dispatch@tick_irq_empty tick_overhead") \
  X(queue, RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_QUEUE, RB_PACE_FREE, "queue@ruler_loop") \
  X(mutex, RBP_HAS_TASKS | RBP_HAS_MUTEX, RB_PACE_FREE, "mutex_lock_unlock@ruler_loop2") \
  X(notify, RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_NOTIFY, RB_PACE_EVENT, "notify_wake@ruler_loop notify_event_to_task") \
  X(yield, RBP_HAS_TASKS, RB_PACE_FREE, "yield@ruler_loop") \
  X(tick_drift, RB_TICK_DRIFT_NEEDS, RB_PACE_TICK, "tick_period tick_sleep") \
  X(idle_occupancy, RBP_HAS_TASKS | RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK | RB_PERIODIC_TICK | RB_PLAIN_TICK_HOOK, RB_PACE_TICK, "idle_time") \
  X(mixed_load, RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE | RBP_HAS_MUTEX, RB_PACE_TICK, "mixed_load") \
  X(heap, RBP_HAS_TASKS | RBP_HAS_HEAP, RB_PACE_FREE, "heap_alloc@ruler_loop heap_free@ruler_loop heap_alloc_mixed@ruler_loop heap_free_mixed@ruler_loop heap_free_bytes:bytes heap_largest_free:bytes heap_frag_permille:per-mille heap_alloc_ok_permille:per-mille") \
  X(zero_latency_irq, RBP_HAS_TASKS | RBP_HAS_ZERO_LATENCY_IRQ, RB_PACE_EVENT, "zli_entry_idle zli_entry_critical") \
  X(sleep_wake, RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_IDLE_HOOK, RB_PACE_EVENT, "sleep_wake_entry sleep_wake stop_wake")
/* clang-format on */

#endif
