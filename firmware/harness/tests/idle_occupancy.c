/* idle_occupancy: the share of the processor left to the kernel's idle task
 * at the run's tick rate under a fixed load: med (priority 5) wakes once per
 * two ticks on every kernel and runs the same computation once per tick
 * (RB_IO_WORK_ITERS steps of a 32-bit linear congruential generator), while
 * ctl waits for it to finish and the other tasks are blocked.
 *
 * What counts as idle: while the test runs, rb_idle_hook calls
 * rb_idle_probe() on every pass of the idle loop; the probe reads the counter
 * and adds the time since the previous pass to the idle total when it is at
 * most `idle_gap` counter ticks (twice the shortest pass seen in a quiet
 * calibration, plus 16). A longer interval held something else (the tick
 * interrupt, med's wake-up and work) and counts as not idle, whole. So idle
 * time is the idle loop's own passes back to back; the pass cut by an
 * interruption is not counted, which undercounts idle by at most one pass per
 * interruption.
 *
 * One wake pattern: a kernel whose delay(1) sleeps to the second tick
 * boundary ("at least one full tick": Zephyr, NuttX) has med sleep delay(1),
 * the others delay(2), so med wakes every other tick on every kernel and
 * runs the work twice per wake (RB_IO_TICKS_PER_WAKE).
 *
 * Resolution: the probe counts the intervals it did not count as idle
 * (cuts=: the tick interrupts and med's runs that were longer than
 * idle_gap). An interval that held an interruption is either such a cut,
 * which loses the idle pass it cut (at most idle_gap), or not, and then the
 * interruption (shorter than idle_gap) counts as idle; every tick holds at
 * least its tick interrupt. So idle_time is uncertain by
 * resolution= ceil(max(cuts, ticks) * idle_gap / ticks) counter ticks per
 * tick, and two kernels' idle_time differing by less than the larger of
 * their resolutions is no ranking.
 *
 * Series idle_time: idle counter ticks per tick: each window (med's wake to
 * its next wake, ticks_per_wake ticks) gives its idle time divided by
 * ticks_per_wake. CHECK idle_occupancy (rounds = windows) fails a window
 * that did not span ticks_per_wake ticks (the load overran, or a tick was
 * lost) and carries idle= and elapsed= (the windows' idle time and length,
 * summed exactly) and share_ppm= (idle * 1e6 / elapsed), plus idle_pass=,
 * idle_gap=, the load's work= (its steps over the kept windows),
 * ticks_per_wake= (2), cuts= and resolution= (above).
 * CHECK idle_quiet (one round): with no load, over RB_IO_QUIET_TICKS, the
 * probe must classify at least 90% of the time as idle, else the idle loop's
 * passes vary too much for this method and the figure is not trusted. */
#include "rb_harness.h"

#define RB_IO_WORK_ITERS 10000u
#define RB_IO_QUIET_TICKS 4u
#define RB_IO_QUIET_MIN_PPM 900000u
#define RB_IO_TICKS_PER_WAKE 2u

static volatile uint32_t rb_io_last; /* counter at the previous idle pass */
static volatile uint32_t rb_io_time; /* idle counter ticks so far */
static volatile uint32_t rb_io_gap;  /* longest interval that counts as idle */
static volatile uint32_t rb_io_min;  /* shortest interval seen */
static volatile uint32_t rb_io_sink;
static uint32_t rb_io_total;
static uint32_t rb_io_warmup;
static uint64_t rb_io_elapsed;
static uint64_t rb_io_idle;
static uint32_t rb_io_bad;
static uint32_t rb_io_work_done;
static uint32_t rb_io_span;          /* ticks one sleep of med spans */
static volatile uint32_t rb_io_cuts; /* intervals longer than rb_io_gap */
static uint32_t rb_io_cut_total;     /* ... in the kept windows */

void rb_idle_probe(void) {
  const uint32_t now = rb_counter_now();
  const uint32_t d = now - rb_io_last;
  rb_io_last = now;
  if (d <= rb_io_gap) {
    rb_io_time += d;
  } else {
    rb_io_cuts++;
  }
  if (d < rb_io_min) {
    rb_io_min = d;
  }
}

/* The fixed load: the same instructions on every kernel. The empty asm
 * makes every step real (GCC can neither fold the loop nor hoist the call). */
__attribute__((noinline)) static uint32_t rb_io_work(uint32_t x, uint32_t iters) {
  for (uint32_t i = 0; i < iters; i++) {
    x = x * 1664525u + 1013904223u;
    __asm volatile("" : "+r"(x));
  }
  return x;
}

static void rb_io_load(void) {
  rbp_port.delay(1); /* start on a tick */
  /* One wake pattern on every kernel: med wakes once per two ticks. The
   * kernel's delay(1) spans 1 tick from a tick, or 2 where it means "at
   * least one full tick" (Zephyr, NuttX); med sleeps delay(2) on the first
   * and delay(1) on the second, so every kernel's sleep spans 2 ticks, and
   * the work is done once per spanned tick (the same load per tick). */
  uint32_t t = rb_tick_hook_count;
  rbp_port.delay(1);
  const uint32_t one = rb_tick_hook_count - t;
  const uint32_t d = one == 1u ? 2u : 1u;
  t = rb_tick_hook_count;
  rbp_port.delay(d);
  const uint32_t span = rb_tick_hook_count - t;
  rb_io_span = span;
  if (span != RB_IO_TICKS_PER_WAKE) {
    return; /* reported by the CHECK */
  }
  uint32_t prev_idle = rb_io_time;
  uint32_t prev_cuts = rb_io_cuts;
  uint32_t prev_t = rb_counter_now();
  uint32_t prev_tick = rb_tick_hook_count;
  for (uint32_t i = 0; i < rb_io_total; i++) {
    for (uint32_t k = 0; k < span; k++) {
      rb_io_sink = rb_io_work(i + k, RB_IO_WORK_ITERS);
    }
    rbp_port.delay(d);
    const uint32_t idle = rb_io_time;
    const uint32_t cuts = rb_io_cuts;
    const uint32_t now = rb_counter_now();
    const uint32_t tick = rb_tick_hook_count;
    if (i >= rb_io_warmup) {
      rb_buf_a[i - rb_io_warmup] = (idle - prev_idle) / span; /* per tick */
      rb_io_idle += idle - prev_idle;
      rb_io_elapsed += now - prev_t;
      rb_io_cut_total += cuts - prev_cuts;
      rb_io_bad += (tick - prev_tick) != span ? 1u : 0u;
      rb_io_work_done += span * RB_IO_WORK_ITERS;
    }
    prev_idle = idle;
    prev_cuts = cuts;
    prev_t = now;
    prev_tick = tick;
  }
}

void rb_test_idle_occupancy(const struct rb_test* t) {
  const uint32_t n = t->samples;
  rb_io_total = t->warmup + n;
  rb_io_warmup = t->warmup;
  rb_io_elapsed = 0;
  rb_io_idle = 0;
  rb_io_span = 0;
  rb_io_bad = 0;
  rb_io_work_done = 0;
  rb_io_cut_total = 0;

  /* Calibration: the shortest idle pass, nothing counted yet. */
  rb_io_gap = 0;
  rb_io_min = 0xFFFFFFFFu;
  rb_io_time = 0;
  /* The first interval the probe sees runs from here to the idle task's
   * first pass, which resumes wherever it was preempted: it can be shorter
   * than a pass (bare under QEMU: 102 against passes of about 230, so no
   * pass counted as idle and idle_time read 0). Half the counter's range
   * back makes it no candidate for the shortest pass. */
  rb_io_last = rb_counter_now() + 0x80000000u;
  rb_idle_probe_on = 1;
  rbp_port.delay(2);
  const uint32_t pass = rb_io_min;
  rb_io_gap = pass < 0x7FFFFFF0u ? 2u * pass + 16u : 0u;

  /* Quiet share: no load. */
  const uint32_t q_idle0 = rb_io_time;
  const uint32_t q_t0 = rb_counter_now();
  rbp_port.delay(RB_IO_QUIET_TICKS);
  const uint32_t q_idle = rb_io_time - q_idle0;
  const uint32_t q_elapsed = rb_counter_now() - q_t0;
  const uint32_t q_ppm = q_elapsed > 0u ? (uint32_t)rb_muldiv(q_idle, 1000000u, q_elapsed) : 0u;

  rb_team_start(RB_T_MED, rb_io_load);
  rb_team_join(RB_T_MED);
  rb_idle_probe_on = 0;

  if (rb_io_span != RB_IO_TICKS_PER_WAKE) {
    rb_io_bad = n; /* med's sleep did not span two ticks */
  }
  /* The resolution: an interval that held an interruption is either longer
   * than idle_gap (a cut: the pass it cut, at most idle_gap, is lost) or not
   * (the interruption, shorter than idle_gap, counts as idle: bare's tick
   * interrupt under QEMU). Either way an interruption misclassifies at most
   * idle_gap counter ticks, and every tick holds at least its tick
   * interrupt: the figure per tick is uncertain by max(cuts, ticks) *
   * idle_gap / ticks, rounded up. */
  const uint64_t kept_ticks = (uint64_t)n * RB_IO_TICKS_PER_WAKE;
  const uint64_t interruptions = rb_io_cut_total > kept_ticks ? rb_io_cut_total : kept_ticks;
  const uint64_t cut_cost = interruptions * rb_io_gap;
  const uint64_t resolution =
      kept_ticks > 0u ? rb_muldiv(cut_cost + kept_ticks - 1u, 1u, kept_ticks) : 0u;
  const uint64_t idle = rb_io_idle;
  const uint64_t share = rb_io_elapsed > 0u ? rb_muldiv(idle, 1000000u, rb_io_elapsed) : 0u;
  rb_emit_series("idle_time", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);

  rb_rec_begin("CHECK,idle_occupancy");
  rb_rec_kv_u32("rounds", n);
  rb_rec_kv_u32("pass", n - rb_io_bad);
  rb_rec_kv_u32("fail", rb_io_bad);
  rb_rec_kv("status", rb_io_bad == 0u ? "OK" : "FAIL");
  rb_rec_kv_u64("idle", idle);
  rb_rec_kv_u64("elapsed", rb_io_elapsed);
  rb_rec_kv_u64("share_ppm", share);
  rb_rec_kv_u32("idle_pass", pass);
  rb_rec_kv_u32("idle_gap", rb_io_gap);
  rb_rec_kv_u32("work", rb_io_work_done);
  rb_rec_kv_u32("ticks_per_wake", rb_io_span);
  rb_rec_kv_u32("cuts", rb_io_cut_total);
  rb_rec_kv_u64("resolution", resolution);
  rb_rec_end();

  const int quiet_ok = q_ppm >= RB_IO_QUIET_MIN_PPM;
  rb_rec_begin("CHECK,idle_quiet");
  rb_rec_kv_u32("rounds", 1);
  rb_rec_kv_u32("pass", quiet_ok ? 1u : 0u);
  rb_rec_kv_u32("fail", quiet_ok ? 0u : 1u);
  rb_rec_kv("status", quiet_ok ? "OK" : "FAIL");
  rb_rec_kv_u32("share_ppm", q_ppm);
  rb_rec_kv_u32("ticks", RB_IO_QUIET_TICKS);
  rb_rec_end();
}
