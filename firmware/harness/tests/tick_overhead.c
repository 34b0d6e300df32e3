/* tick_overhead: cycles the kernel's own tick work takes from a running task.
 * bg_a (the only ready task; the test timer is off) reads the counter in a
 * tight loop. A pass that takes much longer than the loop's own pass was
 * interrupted: a gap. Two runs of the same loop routine:
 * - ticks: no empty interrupts; every gap is a tick;
 * - calibration: the board's empty interrupts (rb_empty_start: a handler
 *   that acknowledges its timer and counts) fire during the loop; a gap in
 *   which the handler's count moved by one and the tick's did not is one
 *   empty interrupt. Series
 *   tick_irq_empty: each such gap minus the loop's own pass (the shortest
 *   pass seen): the interrupt's entry and exit and the handler's acknowledge
 *   and count (on hardware: mostly exception entry/exit; under QEMU, which
 *   charges nothing for them: the handler's instructions).
 *   The calibration runs on the raw vector: the harness puts the board's
 *   handler into the active vector table's entry for the empty interrupt
 *   (rb_to_vector_raw), so the figure is the same code on every kernel,
 *   whether the kernel's own connection of that interrupt goes through a
 *   dispatcher (LiteOS-M's HalInterrupt, NuttX's irq_attach, Zephyr's
 *   _isr_wrapper) or not.
 * Series irq_dispatch: the same calibration through the kernel's own
 *   connection of the interrupt (the vector table the port set up), each gap
 *   minus the pass, with tick_irq_empty as its baseline (base=, its median
 *   in base_ticks=): net of it, what the kernel's interrupt dispatcher adds
 *   to every interrupt it connects; 0 where the board's handler is the
 *   vector.
 * Series tick_overhead: each tick gap minus the pass minus the median of
 * tick_irq_empty, floored at 0: the kernel's tick work alone, its dispatcher
 * included where the tick goes through one, on every board alike.
 * CHECK tick_gaps matches the tick run's gaps to the ticks rb_tick_hook
 * counted (a gap no tick explains, a tick no gap showed) and counts gaps no
 * longer than two passes; CHECK empty_gaps matches the calibration's gaps to
 * the empty handler's count (rb_empty_irqs) the same way. */
#include "cm4_regs.h"
#include "rb_harness.h"

void RB_EMPTY_ISR(void); /* the board's empty handler (rb_board_hw.h) */

#define RB_TO_TICKS 0
#define RB_TO_EMPTY 1

static uint32_t rb_to_samples;
static uint32_t rb_to_warmup;
static uint32_t rb_to_threshold;
static int rb_to_mode;
static uint32_t* rb_to_buf;
static volatile uint32_t rb_to_pass;   /* shortest uninterrupted pass */
static volatile uint32_t rb_to_kept;   /* gaps stored */
static volatile uint32_t rb_to_false;  /* kept-span gaps no interrupt explains */
static volatile uint32_t rb_to_unseen; /* kept-span interrupts no gap showed */

/* One loop for both runs: the passes between gaps are the same code. A gap's
 * bookkeeping is left out of the next pass (the counter is read again after
 * it), so the pass after a gap is shorter than an ordinary one: it has its
 * own shortest pass and threshold, and a gap in it is counted but not a
 * sample. What a gap was is told by the count it belongs to (RB_TO_TICKS:
 * the tick hook's, RB_TO_EMPTY: the empty handler's), read just before that
 * second read:
 * - moved by one: one interrupt in the pass, a sample;
 * - not moved: no interrupt explains the gap, a false one (rb_to_false);
 * - moved by more: no sample. Either an interrupt fell into the previous
 *   gap's bookkeeping (which then took longer than the shortest bookkeeping
 *   by more than a gap's margin: not an error), or one interrupt went
 *   unseen in a pass (rb_to_unseen).
 * In RB_TO_EMPTY a gap during which the tick moved is skipped (not an empty
 * interrupt alone), and the run gives up after `total + 16` ticks. */
/* Built at -O2 whatever RB_OPT: at -O0 its ordinary passes are not of one
 * length (they differ by more than QEMU's empty interrupt takes), so gaps
 * could not be told from passes; the loop is the ruler here, not the code
 * under test, whose interrupt paths keep RB_OPT. */
__attribute__((optimize("O2"), noinline)) static void rb_to_loop(void) {
  const uint32_t total = rb_to_warmup + rb_to_samples;
  const uint32_t threshold = rb_to_threshold;
  const int empty = rb_to_mode == RB_TO_EMPTY;
  volatile uint32_t* const count = empty ? &rb_empty_irqs : &rb_tick_hook_count;
  uint32_t* const buf = rb_to_buf;
  uint32_t pass = 0xFFFFFFFFu; /* shortest ordinary pass */
  uint32_t post = 0xFFFFFFFFu; /* shortest pass right after a gap */
  uint32_t post_threshold = threshold;
  int after_gap = 0;
  uint32_t book_min = 0xFFFFFFFFu; /* shortest bookkeeping of a gap */
  uint32_t gap_at = 0;             /* the last gap's end */
  uint32_t resumed = 0;            /* the counter read after its bookkeeping */
  uint32_t gaps = 0;
  uint32_t false_gaps = 0;
  uint32_t unseen = 0;
  uint32_t tick_seen = rb_tick_hook_count;
  const uint32_t tick_limit = tick_seen + total + 16u;
  uint32_t seen = *count;
  uint32_t prev = rb_counter_now();
  while (gaps < total) {
    const uint32_t now = rb_counter_now();
    const uint32_t d = now - prev;
    if (d > (after_gap ? post_threshold : threshold)) {
      const uint32_t moved = *count - seen;
      /* The margin by which a gap exceeds its pass: judges the last
       * bookkeeping (interrupted?) and the pass after a gap. Judged here,
       * so that nothing but the loop runs between the counter read below
       * and the next. */
      const uint32_t margin = threshold > pass ? threshold - pass : 1u;
      const uint32_t book = resumed - gap_at;
      const int book_hit = book_min != 0xFFFFFFFFu && book > book_min + margin;
      if (gap_at != 0u && book < book_min) {
        book_min = book;
      }
      if (post != 0xFFFFFFFFu) {
        post_threshold = post + margin;
      }
      int sample = moved == 1u && !after_gap;
      int ticked = 0; /* RB_TO_EMPTY: the tick explains (part of) the gap */
      if (empty) {
        const uint32_t tick = rb_tick_hook_count;
        if (tick != tick_seen) {
          tick_seen = tick;
          ticked = 1;
          sample = 0;
          if ((int32_t)(tick - tick_limit) >= 0) {
            break; /* no empty interrupts */
          }
        }
      }
      /* The first pass after a gap that is over the ordinary threshold with
       * no interrupt in it is the post-gap pass's own length (longer than
       * an ordinary pass in some layouts, -Os): learnt, not a false gap. */
      const int learnt = after_gap && moved == 0u && !ticked && post == 0xFFFFFFFFu;
      if (learnt) {
        post = d;
        post_threshold = post + margin;
      }
      if (gaps >= rb_to_warmup && !learnt) {
        false_gaps += moved == 0u && !ticked;
        unseen += moved > 1u && !book_hit && !ticked;
      }
      if (sample) {
        if (gaps >= rb_to_warmup) {
          buf[gaps - rb_to_warmup] = d;
        }
        gaps++;
      }
      gap_at = now | 1u; /* never 0: 0 means no gap yet */
      after_gap = 1;
      seen = *count;
      prev = rb_counter_now();
      resumed = prev;
    } else {
      if (after_gap) {
        if (d < post) {
          post = d;
        }
      } else if (d < pass) {
        pass = d;
      }
      after_gap = 0;
      prev = now;
    }
  }
  rb_to_kept = gaps > rb_to_warmup ? gaps - rb_to_warmup : 0u;
  rb_to_pass = pass;
  rb_to_false = false_gaps;
  rb_to_unseen = unseen;
}

/* The raw vector of the empty interrupt. Where the active vector table's
 * entry is already the board's handler (the board's own table), nothing
 * changes. A table in RAM (the kernel's own, as LiteOS-M's) gets the board's
 * handler in place. A kernel's table in flash (NuttX, Zephyr) is copied to
 * RAM the port names (RB_PORT_RAM_VECTORS_AT in its RB_PORT_DEFINITIONS: a
 * 512-aligned block of RB_VECTOR_COUNT words its image leaves unused), which
 * VTOR points to for the run; without one the calibration cannot run (0).
 * rb_to_vector_restore puts back the entry and VTOR. Both run with the empty
 * interrupt off; no other interrupt needs masking: the copied entries are
 * the table's own, complete before VTOR moves. */
_Static_assert(RB_VECTOR_COUNT * 4u <= 512u, "the RAM vector table's alignment covers its size");
static uint32_t rb_to_saved_vtor;
static uint32_t rb_to_saved_entry;
static int rb_to_patched; /* rb_to_vector_raw changed the table or VTOR */

static int rb_to_in_ram(uint32_t address) {
  return address >= 0x20000000u && address < 0x40000000u;
}

static int rb_to_vector_raw(void) {
  rb_to_saved_vtor = SCB_VTOR;
  volatile uint32_t* table = (volatile uint32_t*)(uintptr_t)rb_to_saved_vtor;
  const uint32_t raw = (uint32_t)(uintptr_t)&RB_EMPTY_ISR;
  rb_to_saved_entry = table[16u + RB_EMPTY_IRQN];
  rb_to_patched = 0;
  if ((rb_to_saved_entry & ~1u) == (raw & ~1u)) {
    return 1;
  }
  if (!rb_to_in_ram(rb_to_saved_vtor)) {
#ifdef RB_PORT_RAM_VECTORS_AT
    volatile uint32_t* copy = (volatile uint32_t*)(uintptr_t)(RB_PORT_RAM_VECTORS_AT);
    for (uint32_t i = 0; i < RB_VECTOR_COUNT; i++) {
      copy[i] = table[i];
    }
    table = copy;
#else
    return 0;
#endif
  }
  table[16u + RB_EMPTY_IRQN] = raw;
  __asm volatile("dsb" ::: "memory");
  SCB_VTOR = (uint32_t)(uintptr_t)table;
  __asm volatile("dsb\n\tisb" ::: "memory");
  rb_to_patched = 1;
  return 1;
}

static void rb_to_vector_restore(void) {
  if (!rb_to_patched) {
    return;
  }
  volatile uint32_t* table = (volatile uint32_t*)(uintptr_t)SCB_VTOR;
  table[16u + RB_EMPTY_IRQN] = rb_to_saved_entry;
  __asm volatile("dsb" ::: "memory");
  SCB_VTOR = rb_to_saved_vtor;
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* Runs the loop on bg_a; returns the shortest pass. */
static uint32_t rb_to_run(int mode, uint32_t* buf) {
  rb_to_mode = mode;
  rb_to_buf = buf;
  rb_team_start(RB_T_BG_A, rb_to_loop);
  rb_team_join(RB_T_BG_A);
  rb_quiesce();
  return rb_to_pass;
}

void rb_test_tick_overhead(const struct rb_test* t) {
  const uint32_t n = t->samples;
  /* Classification only: well above a loop pass, well below any interrupt
   * entry + exit. The value subtracted is the pass measured in the loop. */
  uint32_t t0 = rb_counter_now();
  uint32_t t1 = rb_counter_now();
  const uint32_t threshold = 4u * (t1 - t0) + 24u;
  rb_to_threshold = threshold;
  rb_to_samples = n;
  rb_to_warmup = t->warmup == 0u ? 1u : t->warmup; /* the first gap starts the count */

  /* Ticks, in rb_buf_a. */
  const uint32_t pass = rb_to_run(RB_TO_TICKS, rb_buf_a);
  const uint32_t tick_bad = rb_to_false + rb_to_unseen;

  /* Calibration: the empty interrupt, in rb_buf_b. A board whose passes are
   * exact and whose empty interrupt costs less than the threshold (QEMU:
   * entry and exit are free) classifies by the tick run's pass instead. */
#ifdef RB_EMPTY_ABOVE_PASS
  rb_to_threshold = pass + RB_EMPTY_ABOVE_PASS < threshold ? pass + RB_EMPTY_ABOVE_PASS : threshold;
#endif
  if (!rb_to_vector_raw()) {
    rb_emit_na("tick_irq_empty",
               "the kernel's vector table is in flash and its port names no RAM "
               "for a copy (RB_PORT_RAM_VECTORS_AT)");
    rb_emit_na("irq_dispatch", "no calibration of the empty interrupt");
    rb_emit_na("tick_overhead", "no calibration of the empty interrupt");
    return;
  }
  rb_empty_start();
  const uint32_t empty_pass = rb_to_run(RB_TO_EMPTY, rb_buf_b);
  rb_empty_stop();
  rb_to_vector_restore();
  uint32_t empty_bad_gaps = rb_to_false + rb_to_unseen;
  if (rb_to_kept != n) {
    rb_emit_na("tick_irq_empty", "the board's empty interrupts were not seen");
    rb_emit_na("irq_dispatch", "no calibration of the empty interrupt");
    rb_emit_na("tick_overhead", "no calibration of the empty interrupt");
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    rb_buf_b[i] -= empty_pass;
  }
  const uint32_t empty_irq =
      rb_emit_series("tick_irq_empty", rb_buf_b, n, RB_COUNTER_HZ, RB_NO_BASE);

  /* The same through the kernel's own connection of the interrupt. */
  rb_empty_start();
  const uint32_t kernel_pass = rb_to_run(RB_TO_EMPTY, rb_buf_b);
  rb_empty_stop();
  empty_bad_gaps += rb_to_false + rb_to_unseen;
  if (rb_to_kept != n) {
    rb_emit_na("irq_dispatch", "the board's empty interrupts were not seen through the kernel");
  } else {
    for (uint32_t i = 0; i < n; i++) {
      rb_buf_b[i] -= kernel_pass;
    }
    rb_emit_series_over("irq_dispatch", rb_buf_b, n, RB_COUNTER_HZ, "tick_irq_empty", empty_irq);
  }
  /* The calibrations' gaps are the handler's interrupts: a gap that none
   * explains, or an interrupt that no gap showed, is bad. */
  const uint32_t empty_bad = empty_bad_gaps < n ? empty_bad_gaps : n;
  rb_emit_check("empty_gaps", n, n - empty_bad, empty_bad);

  uint32_t short_gaps = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (rb_buf_a[i] <= 2u * pass) {
      short_gaps++;
    }
    const uint32_t gross = rb_buf_a[i] - pass;
    rb_buf_a[i] = gross > empty_irq ? gross - empty_irq : 0u;
  }
  rb_emit_series("tick_overhead", rb_buf_a, n, RB_COUNTER_HZ, RB_NO_BASE);
  uint32_t fail = tick_bad + short_gaps;
  if (fail > n) {
    fail = n;
  }
  rb_emit_check("tick_gaps", n, n - fail, fail);
}
