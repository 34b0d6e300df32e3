#include "stats/summary.h"

#include <algorithm>
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

Summary summarize(std::vector<uint64_t>& samples) {
  std::sort(samples.begin(), samples.end());
  const uint64_t n = samples.size();
  return summarize_runs(n, n ? samples.front() : 0, n ? samples.back() : 0, [&](auto visit) {
    for (uint64_t v : samples) visit(v, 1);
  });
}

}  // namespace rb::stats
