/* Series output and the firmware's own statistics, with exactly the
 * arithmetic of docs/protocol.md section 4 (the host re-derives every field
 * from RAW and compares). */
#include <stddef.h>

#include "rb_harness.h"

#define RB_RAW_PER_LINE 16u

/* In-place heapsort: O(n log n), no recursion, no extra memory. */
static void rb_sift_down(uint32_t* v, uint32_t root, uint32_t n) {
  uint32_t x = v[root];
  for (;;) {
    uint32_t child = 2u * root + 1u;
    if (child >= n) {
      break;
    }
    if (child + 1u < n && v[child + 1u] > v[child]) {
      child++;
    }
    if (v[child] <= x) {
      break;
    }
    v[root] = v[child];
    root = child;
  }
  v[root] = x;
}

void rb_sort_u32(uint32_t* v, uint32_t n) {
  if (n < 2u) {
    return;
  }
  for (uint32_t i = n / 2u; i-- > 0u;) {
    rb_sift_down(v, i, n);
  }
  for (uint32_t end = n - 1u; end > 0u; end--) {
    uint32_t t = v[0];
    v[0] = v[end];
    v[end] = t;
    rb_sift_down(v, 0, end);
  }
}

uint64_t rb_muldiv(uint64_t a, uint32_t b, uint64_t c) {
  /* p = a * b as 96 bits (hi 32 : lo 64). */
  uint64_t lo = (a & 0xFFFFFFFFu) * (uint64_t)b;
  uint64_t mid = (a >> 32) * (uint64_t)b;
  uint64_t p_lo = lo + (mid << 32);
  uint64_t p_hi = (mid >> 32) + (p_lo < lo ? 1u : 0u);
  /* Restoring binary long division; the remainder stays below c, so one
   * carry bit covers the shift. */
  uint64_t q = 0;
  uint64_t r = 0;
  for (int i = 95; i >= 0; i--) {
    uint64_t bit = (i >= 64) ? ((p_hi >> (i - 64)) & 1u) : ((p_lo >> i) & 1u);
    uint64_t carry = r >> 63;
    r = (r << 1) | bit;
    q <<= 1;
    if (carry != 0u || r >= c) {
      r -= c;
      q |= 1u;
    }
  }
  return q;
}

static uint32_t rb_gcd(uint32_t a, uint32_t b) {
  while (b != 0u) {
    uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Nearest rank of percentile P/D of n sorted samples: ceil(P*n/D) clamped
 * to [1, n], returned 0-based. */
static uint32_t rb_rank(uint32_t p, uint32_t d, uint32_t n) {
  uint64_t r = ((uint64_t)p * n + d - 1u) / d;
  if (r < 1u) {
    r = 1u;
  }
  if (r > n) {
    r = n;
  }
  return (uint32_t)(r - 1u);
}

static uint32_t rb_emit(const char* name, uint32_t* samples, uint32_t n, uint32_t hz,
                        const char* base_name, uint32_t base_ticks, const uint32_t* calls) {
  if (n == 0u) {
    rb_emit_na(name, "no samples were taken");
    return 0;
  }
  for (uint32_t first = 0; first < n; first += RB_RAW_PER_LINE) {
    rb_rec_begin("RAW,");
    rb_rec_text(name);
    rb_rec_text(",");
    rb_rec_u32(first);
    uint32_t end = first + RB_RAW_PER_LINE;
    if (end > n) {
      end = n;
    }
    for (uint32_t i = first; i < end; i++) {
      rb_rec_text(",");
      rb_rec_u32(samples[i]);
    }
    rb_rec_end();
  }

  uint64_t sum = 0;
  for (uint32_t i = 0; i < n; i++) {
    sum += samples[i];
  }
  rb_sort_u32(samples, n);
  const uint32_t min = samples[0];
  const uint32_t max = samples[n - 1u];
  const uint32_t median = samples[rb_rank(50, 100, n)];
  const uint32_t p90 = samples[rb_rank(90, 100, n)];
  const uint32_t p99 = samples[rb_rank(99, 100, n)];
  const uint32_t p999 = samples[rb_rank(999, 1000, n)];
  const uint64_t avg = sum / n;

  /* ns = ticks * 1e9 / hz with 1e9/hz reduced by their gcd (168 MHz: *125/21). */
  const uint32_t g = rb_gcd(1000000000u, hz);
  const uint32_t num = 1000000000u / g;
  const uint32_t den = hz / g;

  rb_rec_begin("RESULT,");
  rb_rec_text(name);
  rb_rec_kv_u32("n", n);
  rb_rec_kv_u32("hz", hz);
  rb_rec_kv_u32("min_ticks", min);
  rb_rec_kv_u32("median_ticks", median);
  rb_rec_kv_u64("avg_ticks", avg);
  rb_rec_kv_u32("p90_ticks", p90);
  rb_rec_kv_u32("p99_ticks", p99);
  rb_rec_kv_u32("p999_ticks", p999);
  rb_rec_kv_u32("max_ticks", max);
  rb_rec_kv_u64("min_ns", rb_muldiv(min, num, den));
  rb_rec_kv_u64("median_ns", rb_muldiv(median, num, den));
  rb_rec_kv_u64("avg_ns", rb_muldiv(sum, num, (uint64_t)n * den));
  rb_rec_kv_u64("p90_ns", rb_muldiv(p90, num, den));
  rb_rec_kv_u64("p99_ns", rb_muldiv(p99, num, den));
  rb_rec_kv_u64("p999_ns", rb_muldiv(p999, num, den));
  rb_rec_kv_u64("max_ns", rb_muldiv(max, num, den));
  if (base_name != NULL) {
    rb_rec_kv_u32("base_ticks", base_ticks);
    rb_rec_kv("base", base_name);
  }
  if (calls != NULL) {
    rb_rec_kv_u32("calls", calls[0]);
    rb_rec_kv_u32("refused", calls[1]);
  }
  rb_rec_end();
  return median;
}

static uint32_t rb_emit_base(const char* name, uint32_t* samples, uint32_t n, uint32_t hz, int base,
                             const uint32_t* calls) {
  if (base == RB_BASE_LOOP1) {
    return rb_emit(name, samples, n, hz, "ruler_loop", rb_base_ticks, calls);
  }
  if (base == RB_BASE_LOOP2) {
    return rb_emit(name, samples, n, hz, "ruler_loop2", rb_base2_ticks, calls);
  }
  if (base == RB_BASE_ROUND) {
    return rb_emit(name, samples, n, hz, "ruler_round", rb_base_round_ticks, calls);
  }
  return rb_emit(name, samples, n, hz, NULL, 0, calls);
}

uint32_t rb_emit_series(const char* name, uint32_t* samples, uint32_t n, uint32_t hz, int base) {
  return rb_emit_base(name, samples, n, hz, base, NULL);
}

uint32_t rb_emit_series_calls(const char* name, uint32_t* samples, uint32_t n, uint32_t hz,
                              int base, uint32_t calls, uint32_t refused) {
  const uint32_t c[2] = {calls, refused};
  return rb_emit_base(name, samples, n, hz, base, c);
}

uint32_t rb_emit_series_over(const char* name, uint32_t* samples, uint32_t n, uint32_t hz,
                             const char* base_name, uint32_t base_ticks) {
  return rb_emit(name, samples, n, hz, base_name, base_ticks, NULL);
}
