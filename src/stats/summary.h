#pragma once
// The statistics of one series of samples, with the exact integer rules of
// docs/protocol.md section 4 (nearest rank, floored means, 128-bit ns
// conversion), so that host and firmware agree to the last digit.
#include <cstdint>
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

// `value - base`, floored at 0 (baseline subtraction, section 5).
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

// Summarises `samples`, leaving them in an unspecified order (sorted, or
// untouched when a histogram is cheaper); `scratch` is reusable workspace. An
// empty vector gives a Summary with n == 0.
Summary summarize(std::vector<uint64_t>& samples, std::vector<uint64_t>& scratch);

// The same when the caller already knows the smallest and largest sample
// (tracked while the samples arrived): saves a pass over them. `min` and `max`
// must be exact; `samples` must not be empty.
Summary summarize(std::vector<uint64_t>& samples, std::vector<uint64_t>& scratch, uint64_t min,
                  uint64_t max);

// Ascending sort of sample values: LSD radix sort on (value - min) with as
// many 11-bit passes as the value range needs (usually one or two).
void sort_samples(std::vector<uint64_t>& samples, std::vector<uint64_t>& scratch);

}  // namespace rb::stats
