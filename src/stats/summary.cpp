#include "stats/summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace rb::stats {
namespace {

using u128 = unsigned __int128;

uint64_t saturate(u128 v) {
  return v > std::numeric_limits<uint64_t>::max() ? std::numeric_limits<uint64_t>::max()
                                                  : static_cast<uint64_t>(v);
}

}  // namespace

uint64_t nearest_rank(uint64_t n, uint64_t p_num, uint64_t p_den) {
  if (n == 0 || p_den == 0) return 0;
  u128 rank = (u128{p_num} * n + p_den - 1) / p_den;
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return static_cast<uint64_t>(rank);
}

uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz) {
  if (hz == 0) return 0;
  return saturate(u128{ticks} * 1000000000u / hz);
}

uint64_t mean_ns(u128 sum, uint64_t n, uint64_t hz) {
  if (n == 0 || hz == 0) return 0;
  // floor(sum * 1e9 / n) without overflow: sum = q*n + r with r < n, so it is
  // q*1e9 + floor(r*1e9 / n) (both terms fit in 128 bits while q < 2^64);
  // then floor(floor(a / n) / hz) == floor(a / (n * hz)).
  const u128 q = sum / n, r = sum % n;
  if (q > std::numeric_limits<uint64_t>::max()) return std::numeric_limits<uint64_t>::max();
  const u128 scaled = q * 1000000000u + r * 1000000000u / n;
  return saturate(scaled / hz);
}

void sort_samples(std::vector<uint64_t>& v, std::vector<uint64_t>& scratch) {
  const size_t n = v.size();
  if (n < 256) {
    std::sort(v.begin(), v.end());
    return;
  }
  auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  const uint64_t lo = *lo_it;
  const uint64_t range = *hi_it - lo;
  if (range == 0) return;
  constexpr int kBits = 11;
  constexpr size_t kBuckets = size_t{1} << kBits;
  const int bits = 64 - __builtin_clzll(range);
  const int passes = (bits + kBits - 1) / kBits;
  scratch.resize(n);
  uint64_t* src = v.data();
  uint64_t* dst = scratch.data();
  std::array<size_t, kBuckets> count;
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = pass * kBits;
    count.fill(0);
    for (size_t i = 0; i < n; ++i) ++count[((src[i] - lo) >> shift) & (kBuckets - 1)];
    size_t total = 0;
    for (size_t& c : count) {
      size_t k = c;
      c = total;
      total += k;
    }
    for (size_t i = 0; i < n; ++i) dst[count[((src[i] - lo) >> shift) & (kBuckets - 1)]++] = src[i];
    std::swap(src, dst);
  }
  if (src != v.data()) std::memcpy(v.data(), src, n * sizeof(uint64_t));
}

namespace {

// Sum and population standard deviation from a sum of squares that is exact
// in 128 bits: n^2 * variance = n * sumsq - sum^2.
double exact_stddev(u128 sum, u128 sumsq, uint64_t n) {
  const u128 scaled = u128{n} * sumsq - sum * sum;
  return static_cast<double>(std::sqrt(static_cast<long double>(scaled)) /
                             static_cast<long double>(n));
}

void finish(Summary& s) {
  s.avg_ticks = saturate(s.sum / s.n);
  s.mean = static_cast<double>(static_cast<long double>(s.sum) / static_cast<long double>(s.n));
  s.jitter = s.median == 0 ? std::numeric_limits<double>::quiet_NaN()
                           : static_cast<double>(s.p99) / static_cast<double>(s.median);
}

}  // namespace

Summary summarize(std::vector<uint64_t>& samples, std::vector<uint64_t>& scratch) {
  if (samples.empty()) return Summary{};
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint64_t x : samples) {
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
  }
  return summarize(samples, scratch, lo, hi);
}

Summary summarize(std::vector<uint64_t>& samples, std::vector<uint64_t>& scratch, uint64_t lo,
                  uint64_t hi) {
  Summary s;
  s.n = samples.size();
  if (s.n == 0) return s;
  const uint64_t n = s.n;
  s.min = lo;
  s.max = hi;
  const uint64_t range = hi - lo;
  const uint64_t ranks[4] = {nearest_rank(n, 50, 100), nearest_rank(n, 90, 100),
                             nearest_rank(n, 99, 100), nearest_rank(n, 999, 1000)};
  uint64_t* const out[4] = {&s.median, &s.p90, &s.p99, &s.p999};

  // Timing samples cluster in a narrow band: count them instead of sorting
  // when the band is small next to n (one pass, no data movement). Four
  // interleaved histograms keep repeated values from serialising on one counter.
  if (range < 65536 && range + 1 <= n / 4) {
    const size_t width = static_cast<size_t>(range) + 1;
    scratch.assign(4 * width, 0);
    uint64_t* c = scratch.data();
    const uint64_t* x = samples.data();
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      ++c[x[i] - lo];
      ++c[width + (x[i + 1] - lo)];
      ++c[2 * width + (x[i + 2] - lo)];
      ++c[3 * width + (x[i + 3] - lo)];
    }
    for (; i < n; ++i) ++c[x[i] - lo];
    const bool exact = hi < (uint64_t{1} << 32) && n < (uint64_t{1} << 31);
    u128 sum = 0, sumsq = 0;
    uint64_t seen = 0;
    int next = 0;
    for (size_t b = 0; b < width; ++b) {
      const uint64_t count = c[b] + c[width + b] + c[2 * width + b] + c[3 * width + b];
      if (count == 0) continue;
      const uint64_t v = lo + b;
      sum += u128{v} * count;
      if (exact) sumsq += u128{v * v} * count;
      seen += count;
      while (next < 4 && ranks[next] <= seen) *out[next++] = v;
    }
    s.sum = sum;
    if (exact) {
      s.stddev = exact_stddev(sum, sumsq, n);
    } else {
      const long double mean = static_cast<long double>(sum) / static_cast<long double>(n);
      long double acc = 0;
      for (size_t b = 0; b < width; ++b) {
        const uint64_t count = c[b] + c[width + b] + c[2 * width + b] + c[3 * width + b];
        const long double d = static_cast<long double>(lo + b) - mean;
        acc += d * d * static_cast<long double>(count);
      }
      s.stddev = static_cast<double>(std::sqrt(acc / static_cast<long double>(n)));
    }
    finish(s);
    return s;
  }

  sort_samples(samples, scratch);
  for (int k = 0; k < 4; ++k) *out[k] = samples[ranks[k] - 1];
  // Sum, and sum of squares when it is exact in 128 bits (values below 2^32
  // and fewer than 2^31 samples); otherwise a second pass in long double.
  const bool exact = s.max < (uint64_t{1} << 32) && n < (uint64_t{1} << 31);
  u128 sum = 0, sumsq = 0;
  if (exact) {
    for (uint64_t x : samples) {
      sum += x;
      sumsq += u128{x * x};
    }
  } else {
    for (uint64_t x : samples) sum += x;
  }
  s.sum = sum;
  if (exact) {
    s.stddev = exact_stddev(sum, sumsq, n);
  } else {
    const long double mean = static_cast<long double>(sum) / static_cast<long double>(n);
    long double acc = 0;
    for (uint64_t x : samples) {
      const long double d = static_cast<long double>(x) - mean;
      acc += d * d;
    }
    s.stddev = static_cast<double>(std::sqrt(acc / static_cast<long double>(n)));
  }
  finish(s);
  return s;
}

}  // namespace rb::stats
