/* heap: the kernel's own general-purpose allocator (RBP_HAS_HEAP) on its
 * RB_HEAP_BYTES arena, in ctl, every call timed by a one-blx window
 * (rb_window1_alloc, rb_window1_free; baseline ruler_loop).
 *
 * Phase 1, seed 001 section 3.3's pattern: allocate 8 bytes, free, 16, free,
 * 32, free, round after round (warm-up + samples calls of each):
 *   heap_alloc, heap_free.
 * The pattern never keeps a block alive, so a coalescing allocator ends every
 * round as it started: it times the allocator's fast path and cannot show
 * fragmentation (docs/method.md "heap").
 *
 * Phase 2, a fragmenting mixed pattern: RB_HEAP_SLOTS slots; each step draws
 * a number from a fixed linear congruential generator (the same sequence on
 * every kernel), picks a slot, frees the slot's block if it holds one, else
 * allocates 8..256 bytes into it. Blocks so live for a random number of steps
 * (geometric lifetimes) and up to RB_HEAP_SLOTS x 256 = 8 KiB are live at
 * once, half the arena: a sane allocator never fails. A failed allocation is
 * data, counted per round (heap_alloc_ok_permille below), its time not kept;
 * the RESULTs of heap_alloc and heap_alloc_mixed carry calls= (every
 * allocation the pattern made, warm-up included) and refused= (those that
 * returned no block), so a figure is read beside its success rate. The phase runs rounds
 * of RB_HEAP_ROUND_STEPS steps until both series have warm-up + samples calls (at most
 * RB_HEAP_MAX_ROUNDS rounds): heap_alloc_mixed, heap_free_mixed (time per call); and per round,
 * from the port's heap_stats after the round (sample 0: before the first round), bytes and
 * per-mille with hz=1000000000 so the _ns fields equal the values: heap_free_bytes,
 * heap_largest_free, heap_frag_permille (1000 - floor(1000 * largest / free); 0 when free is 0),
 *   heap_alloc_ok_permille (floor(1000 * served / requested) allocations of
 *   the round; 1000 when none failed: a per-round count of failures would be
 *   all 0, which the host rejects as a stopped counter).
 * heap_largest_free and heap_frag_permille are NA where the port knows no
 * largest free block.
 *
 * CHECK heap_integrity, one round per successful allocation of both phases:
 * the block is 8-byte aligned, overlaps no other live block, is written over
 * its whole size after the allocation and still holds what was written when
 * it is freed. CHECK heap_leak, one round per phase: after everything is
 * freed, the allocator's free bytes equal those before the phase. */
#include "rb_harness.h"

#define RB_HEAP_SLOTS 32u
#define RB_HEAP_ROUND_STEPS 256u
/* 128, or the board's RB_BOARD_HEAP_ROUNDS (a small RAM: three words per round). */
#define RB_HEAP_MAX_ROUNDS RB_CFG_HEAP_ROUNDS
#define RB_HEAP_SEED 0x2545F491u
#define RB_HEAP_HZ 1000000000u

struct rb_heap_block {
  uint8_t* p;
  uint32_t size;
  uint8_t tag;
};

static struct rb_heap_block rb_heap_live[RB_HEAP_SLOTS];
static uint32_t rb_heap_round_free[RB_HEAP_MAX_ROUNDS + 1u];
static uint32_t rb_heap_round_largest[RB_HEAP_MAX_ROUNDS + 1u];
static uint32_t rb_heap_round_ok[RB_HEAP_MAX_ROUNDS + 1u];
static uint32_t rb_heap_checked, rb_heap_good;
static uint32_t rb_heap_rng;

static uint32_t rb_heap_next(void) {
  rb_heap_rng = rb_heap_rng * 1664525u + 1013904223u;
  return rb_heap_rng;
}

static void rb_heap_fill(const struct rb_heap_block* b) {
  for (uint32_t i = 0; i < b->size; i++) {
    b->p[i] = (uint8_t)(b->tag + i * 7u);
  }
}

static int rb_heap_intact(const struct rb_heap_block* b) {
  for (uint32_t i = 0; i < b->size; i++) {
    if (b->p[i] != (uint8_t)(b->tag + i * 7u)) {
      return 0;
    }
  }
  return 1;
}

/* Alignment and overlap with every other live block; 1 when sound. */
static int rb_heap_placed(const struct rb_heap_block* b, uint32_t self) {
  if (((uintptr_t)b->p & 7u) != 0u) {
    return 0;
  }
  const uintptr_t lo = (uintptr_t)b->p;
  const uintptr_t hi = lo + b->size;
  for (uint32_t k = 0; k < RB_HEAP_SLOTS; k++) {
    const struct rb_heap_block* o = &rb_heap_live[k];
    if (k == self || o->p == 0) {
      continue;
    }
    if (lo < (uintptr_t)o->p + o->size && (uintptr_t)o->p < hi) {
      return 0;
    }
  }
  return 1;
}

/* Frees slot k's block through the window; returns the time. The block
 * counts for heap_integrity here: placed soundly at allocation (ok) and
 * intact now. */
static uint32_t rb_heap_release(uint32_t k, int placed_ok, struct rb_stamp* s) {
  struct rb_heap_block* b = &rb_heap_live[k];
  const int intact = rb_heap_intact(b);
  uint32_t d = rb_window1_free(b->p, rbp_port.heap_free, s);
  rb_heap_checked++;
  if (placed_ok && intact) {
    rb_heap_good++;
  }
  b->p = 0;
  return d;
}

static uint32_t rb_heap_free_now(void) {
  struct rbp_heap_stats st;
  rb_check(rbp_port.heap_stats(&st), "heap: heap_stats");
  return st.free_bytes;
}

/* Phase 1: seed 001's 8/16/32 pattern. */
static void rb_heap_seed(const struct rb_test* t, uint32_t* leak_pass) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  struct rb_stamp fs = {0, 0, RBP_OK};
  struct rb_stamp_ptr as = {0, 0, 0};
  uint32_t kept = 0, refused = 0;
  const uint32_t before = rb_heap_free_now();
  for (uint32_t i = 0; i < w + n; i++) {
    const uint32_t size = 8u << (i % 3u);
    uint32_t da = rb_window1_alloc(size, rbp_port.heap_alloc, &as);
    if (as.ptr == 0) {
      rb_heap_checked++; /* an allocation the empty arena refuses: unsound */
      refused++;
      continue;
    }
    struct rb_heap_block* b = &rb_heap_live[0];
    b->p = as.ptr;
    b->size = size;
    b->tag = (uint8_t)i;
    const int ok = rb_heap_placed(b, 0u);
    rb_heap_fill(b);
    uint32_t df = rb_heap_release(0u, ok, &fs);
    if (i >= w && kept < n) {
      rb_buf_a[kept] = da;
      rb_buf_b[kept] = df;
      kept++;
    }
  }
  rb_check(fs.rc, "heap: heap_free");
  const uint32_t after = rb_heap_free_now();
  *leak_pass += (after == before) ? 1u : 0u;
  rb_emit_series_calls("heap_alloc", rb_buf_a, kept, RB_COUNTER_HZ, RB_BASE_LOOP1, w + n, refused);
  rb_emit_series("heap_free", rb_buf_b, kept, RB_COUNTER_HZ, RB_BASE_LOOP1);
}

static void rb_heap_round_stats(uint32_t r, int* largest_known) {
  struct rbp_heap_stats st;
  rb_check(rbp_port.heap_stats(&st), "heap: heap_stats");
  rb_heap_round_free[r] = st.free_bytes;
  rb_heap_round_largest[r] = st.largest_free;
  if (st.largest_free == RBP_HEAP_UNKNOWN) {
    *largest_known = 0;
  }
}

/* Phase 2: the mixed pattern. */
static void rb_heap_mixed(const struct rb_test* t, uint32_t* leak_pass) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  struct rb_stamp fs = {0, 0, RBP_OK};
  struct rb_stamp_ptr as = {0, 0, 0};
  uint8_t placed[RB_HEAP_SLOTS];
  uint32_t allocs = 0, frees = 0, serial = 0, calls = 0, refused = 0;
  int largest_known = 1;
  rb_heap_rng = RB_HEAP_SEED;
  const uint32_t before = rb_heap_free_now();
  rb_heap_round_stats(0u, &largest_known);
  uint32_t rounds = 0;
  const uint32_t max_rounds =
      RB_CFG_BUF_SAMPLES - 1u < RB_HEAP_MAX_ROUNDS ? RB_CFG_BUF_SAMPLES - 1u : RB_HEAP_MAX_ROUNDS;
  while (rounds < max_rounds && (allocs < w + n || frees < w + n)) {
    uint32_t failed = 0, tried = 0;
    for (uint32_t step = 0; step < RB_HEAP_ROUND_STEPS; step++) {
      const uint32_t r = rb_heap_next();
      const uint32_t k = (r >> 8) % RB_HEAP_SLOTS;
      if (rb_heap_live[k].p != 0) {
        uint32_t d = rb_heap_release(k, placed[k], &fs);
        if (frees >= w && frees - w < n) {
          rb_buf_b[frees - w] = d;
        }
        frees++;
        continue;
      }
      const uint32_t size = 8u + (r >> 16) % 249u;
      tried++;
      uint32_t d = rb_window1_alloc(size, rbp_port.heap_alloc, &as);
      if (as.ptr == 0) {
        failed++;
        continue;
      }
      struct rb_heap_block* b = &rb_heap_live[k];
      b->p = as.ptr;
      b->size = size;
      b->tag = (uint8_t)(serial++ * 13u);
      placed[k] = (uint8_t)rb_heap_placed(b, k);
      rb_heap_fill(b);
      if (allocs >= w && allocs - w < n) {
        rb_buf_a[allocs - w] = d;
      }
      allocs++;
    }
    rounds++;
    calls += tried;
    refused += failed;
    rb_heap_round_ok[rounds] =
        tried == 0u ? 1000u : (uint32_t)rb_muldiv(tried - failed, 1000u, tried);
    rb_heap_round_stats(rounds, &largest_known);
  }
  rb_heap_round_ok[0] = 1000u;
  /* Everything still live is freed (outside any window), then the leak check. */
  for (uint32_t k = 0; k < RB_HEAP_SLOTS; k++) {
    if (rb_heap_live[k].p != 0) {
      const int intact = rb_heap_intact(&rb_heap_live[k]);
      fs.rc |= rbp_port.heap_free(rb_heap_live[k].p);
      rb_heap_checked++;
      rb_heap_good += (placed[k] && intact) ? 1u : 0u;
      rb_heap_live[k].p = 0;
    }
  }
  rb_check(fs.rc, "heap: heap_free");
  const uint32_t after = rb_heap_free_now();
  *leak_pass += (after == before) ? 1u : 0u;

  const uint32_t na = allocs > w ? (allocs - w < n ? allocs - w : n) : 0u;
  const uint32_t nf = frees > w ? (frees - w < n ? frees - w : n) : 0u;
  rb_emit_series_calls("heap_alloc_mixed", rb_buf_a, na, RB_COUNTER_HZ, RB_BASE_LOOP1, calls,
                       refused);
  rb_emit_series("heap_free_mixed", rb_buf_b, nf, RB_COUNTER_HZ, RB_BASE_LOOP1);

  const uint32_t m = rounds + 1u;
  for (uint32_t i = 0; i < m; i++) {
    rb_buf_a[i] = rb_heap_round_free[i];
  }
  rb_emit_series("heap_free_bytes", rb_buf_a, m, RB_HEAP_HZ, RB_NO_BASE);
  if (largest_known) {
    for (uint32_t i = 0; i < m; i++) {
      const uint32_t f = rb_heap_round_free[i];
      const uint32_t l = rb_heap_round_largest[i];
      rb_buf_a[i] = l;
      rb_buf_b[i] = (f == 0u || l >= f) ? 0u : 1000u - (uint32_t)rb_muldiv(l, 1000u, f);
    }
    rb_emit_series("heap_largest_free", rb_buf_a, m, RB_HEAP_HZ, RB_NO_BASE);
    rb_emit_series("heap_frag_permille", rb_buf_b, m, RB_HEAP_HZ, RB_NO_BASE);
  } else {
    rb_emit_na("heap_largest_free", "the port's allocator reports no largest free block");
    rb_emit_na("heap_frag_permille", "the port's allocator reports no largest free block");
  }
  for (uint32_t i = 0; i < m; i++) {
    rb_buf_a[i] = rb_heap_round_ok[i];
  }
  rb_emit_series("heap_alloc_ok_permille", rb_buf_a, m, RB_HEAP_HZ, RB_NO_BASE);
}

void rb_test_heap(const struct rb_test* t) {
  uint32_t leak_pass = 0;
  rb_heap_checked = 0;
  rb_heap_good = 0;
  for (uint32_t k = 0; k < RB_HEAP_SLOTS; k++) {
    rb_heap_live[k].p = 0;
  }
  rb_heap_seed(t, &leak_pass);
  rb_heap_mixed(t, &leak_pass);
  rb_emit_check("heap_integrity", rb_heap_checked, rb_heap_good, rb_heap_checked - rb_heap_good);
  rb_emit_check("heap_leak", 2u, leak_pass, 2u - leak_pass);
}
