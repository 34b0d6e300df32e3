#pragma once
// The statistics of one series of samples, with the exact integer rules of
// docs/protocol.md section 4 (nearest rank, floored means, 128-bit ns
// conversion), so that host and firmware agree to the last digit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rb::stats {

// 1-based nearest rank of percentile P/D over n samples: ceil(P * n / D)
// computed in integers, clamped to [1, n]. 0 when n == 0.
uint64_t nearest_rank(uint64_t n, uint64_t p_num, uint64_t p_den);

// floor(ticks * 1e9 / hz), computed in 128 bits; saturates at UINT64_MAX.
// hz must not be 0 (returns 0 then).
uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz);

// floor(sum * 1e9 / (n * hz)): the mean in ns from the exact mean, not from the
// floored mean in ticks. Saturates at UINT64_MAX; 0 when n or hz is 0.
uint64_t mean_ns(unsigned __int128 sum, uint64_t n, uint64_t hz);

// `value - base`, clamped at 0 (baseline subtraction, section 5).
inline uint64_t minus_baseline(uint64_t value, uint64_t base) {
  return value > base ? value - base : 0;
}

struct Summary {
  uint64_t n = 0;
  uint64_t min = 0, median = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  unsigned __int128 sum = 0;
  uint64_t avg_ticks = 0;  // floor(sum / n)
  double mean = 0;         // sum / n
  double stddev = 0;       // population standard deviation
  double jitter = 0;       // p99 / median; NaN when the median is 0
};

// Summarises `samples`, sorting them. An empty vector gives n == 0.
Summary summarize(std::vector<uint64_t>& samples);

// The statistics of n samples given in ascending order as runs of equal
// values: `runs(visit)` calls visit(value, count) once per run, in ascending
// order, and may be called twice (the second pass when the sum of squares is
// too large for 128 bits). `lo` and `hi` are the smallest and largest sample.
// Sums and ranks are exact integers.
template <typename Runs>
Summary summarize_runs(uint64_t n, uint64_t lo, uint64_t hi, const Runs& runs) {
  using u128 = unsigned __int128;
  Summary s;
  s.n = n;
  if (n == 0) return s;
  s.min = lo;
  s.max = hi;
  const uint64_t ranks[4] = {nearest_rank(n, 50, 100), nearest_rank(n, 90, 100),
                             nearest_rank(n, 99, 100), nearest_rank(n, 999, 1000)};
  uint64_t* const out[4] = {&s.median, &s.p90, &s.p99, &s.p999};
  // The sum of squares is exact in 128 bits for values below 2^32 and fewer
  // than 2^31 samples; otherwise a second pass around the mean.
  const bool exact = hi < (uint64_t{1} << 32) && n < (uint64_t{1} << 31);
  u128 sumsq = 0;
  uint64_t seen = 0;
  int next = 0;
  runs([&](uint64_t v, uint64_t count) {
    s.sum += u128{v} * count;
    if (exact) sumsq += u128{v * v} * count;
    seen += count;
    while (next < 4 && ranks[next] <= seen) *out[next++] = v;
  });
  if (exact) {
    const u128 n2_variance = u128{n} * sumsq - s.sum * s.sum;
    s.stddev = static_cast<double>(std::sqrt(static_cast<long double>(n2_variance)) /
                                   static_cast<long double>(n));
  } else {
    const long double mean = static_cast<long double>(s.sum) / static_cast<long double>(n);
    long double acc = 0;
    runs([&](uint64_t v, uint64_t count) {
      const long double d = static_cast<long double>(v) - mean;
      acc += d * d * static_cast<long double>(count);
    });
    s.stddev = static_cast<double>(std::sqrt(acc / static_cast<long double>(n)));
  }
  const u128 avg = s.sum / n;
  s.avg_ticks = avg > std::numeric_limits<uint64_t>::max() ? std::numeric_limits<uint64_t>::max()
                                                           : static_cast<uint64_t>(avg);
  s.mean = static_cast<double>(static_cast<long double>(s.sum) / static_cast<long double>(n));
  s.jitter = s.median == 0 ? std::numeric_limits<double>::quiet_NaN()
                           : static_cast<double>(s.p99) / static_cast<double>(s.median);
  return s;
}

}  // namespace rb::stats
