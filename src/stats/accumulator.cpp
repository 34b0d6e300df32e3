#include "stats/accumulator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rb::stats {
namespace {

using u128 = unsigned __int128;

}  // namespace

void SampleAccumulator::clear() {
  if (histogram_ && n_ > 0) {
    // Zero only the counters this series touched (between its min and max).
    const uint64_t first = std::max(lo_, base_) - base_;
    const uint64_t last = std::min(hi_, base_ + kBand - 1) - base_;
    if (lo_ < base_ + kBand && hi_ >= base_) {
      std::fill(counts_.begin() + static_cast<std::ptrdiff_t>(first),
                counts_.begin() + static_cast<std::ptrdiff_t>(last) + 1, 0);
    }
  }
  n_ = 0;
  lo_ = UINT64_MAX;
  hi_ = 0;
  histogram_ = false;
  base_ = 0;
  values_.clear();
}

void SampleAccumulator::place_band(uint64_t centre) {
  base_ = centre > kBand / 2 ? centre - kBand / 2 : 0;
  if (base_ > UINT64_MAX - kBand) base_ = UINT64_MAX - kBand;
  if (counts_.size() != kBand) counts_.assign(kBand, 0);
  histogram_ = true;
}

void SampleAccumulator::start_histogram() {
  // Centre the band on the median of the samples so far: a first sample that
  // is an outlier (a cold cache) must not place it.
  std::vector<uint64_t> head(values_);
  std::nth_element(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(head.size() / 2),
                   head.end());
  place_band(head[head.size() / 2]);
  size_t kept = 0;
  for (uint64_t v : values_) {
    const uint64_t off = v - base_;
    if (off < kBand) {
      ++counts_[off];
    } else {
      values_[kept++] = v;
    }
  }
  values_.resize(kept);
}

void SampleAccumulator::add(std::span<const uint64_t> values, bool allow_histogram) {
  if (values.empty()) return;
  uint64_t lo = lo_, hi = hi_;
  for (uint64_t v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  lo_ = lo;
  hi_ = hi;
  n_ += values.size();
  if (!histogram_) {
    values_.insert(values_.end(), values.begin(), values.end());
    if (allow_histogram && n_ > kListLimit) start_histogram();
    return;
  }
  uint64_t* const counts = counts_.data();
  const uint64_t base = base_;
  for (uint64_t v : values) {
    const uint64_t off = v - base;
    if (off < kBand) {
      ++counts[off];
    } else {
      values_.push_back(v);
    }
  }
}

Summary SampleAccumulator::summarize(std::vector<uint64_t>& scratch) {
  if (n_ == 0) return Summary{};
  if (!histogram_) return stats::summarize(values_, scratch, lo_, hi_);

  Summary s;
  const uint64_t n = n_;
  s.n = n;
  s.min = lo_;
  s.max = hi_;
  sort_samples(values_, scratch);
  // Samples in ascending order are: the outliers below the band, the band,
  // the outliers above it.
  const auto split = std::lower_bound(values_.begin(), values_.end(), base_);
  const uint64_t below = static_cast<uint64_t>(split - values_.begin());
  const uint64_t ranks[4] = {nearest_rank(n, 50, 100), nearest_rank(n, 90, 100),
                             nearest_rank(n, 99, 100), nearest_rank(n, 999, 1000)};
  uint64_t* const out[4] = {&s.median, &s.p90, &s.p99, &s.p999};
  int next = 0;
  while (next < 4 && ranks[next] <= below) {
    *out[next] = values_[ranks[next] - 1];
    ++next;
  }
  const bool exact = hi_ < (uint64_t{1} << 32) && n < (uint64_t{1} << 31);
  u128 sum = 0, sumsq = 0;
  for (uint64_t v : values_) {
    sum += v;
    if (exact) sumsq += u128{v * v};
  }
  // The band, between this series' smallest and largest sample inside it.
  uint64_t seen = below;
  if (lo_ < base_ + kBand && hi_ >= base_) {
    const uint64_t first = std::max(lo_, base_) - base_;
    const uint64_t last = std::min(hi_, base_ + kBand - 1) - base_;
    for (uint64_t b = first; b <= last; ++b) {
      const uint64_t count = counts_[b];
      if (count == 0) continue;
      const uint64_t v = base_ + b;
      sum += u128{v} * count;
      if (exact) sumsq += u128{v * v} * count;
      seen += count;
      while (next < 4 && ranks[next] <= seen) *out[next++] = v;
    }
  }
  while (next < 4) {
    // In the outliers above the band: rank r is values_[r - 1 - band count].
    const uint64_t in_band = seen - below;
    *out[next] = values_[ranks[next] - 1 - in_band];
    ++next;
  }
  s.sum = sum;
  s.avg_ticks = sum / n > std::numeric_limits<uint64_t>::max()
                    ? std::numeric_limits<uint64_t>::max()
                    : static_cast<uint64_t>(sum / n);
  s.mean = static_cast<double>(static_cast<long double>(sum) / static_cast<long double>(n));
  if (exact) {
    const u128 scaled = u128{n} * sumsq - sum * sum;
    s.stddev = static_cast<double>(std::sqrt(static_cast<long double>(scaled)) /
                                   static_cast<long double>(n));
  } else {
    const long double mean = static_cast<long double>(sum) / static_cast<long double>(n);
    long double acc = 0;
    for (uint64_t v : values_)
      acc += (static_cast<long double>(v) - mean) * (static_cast<long double>(v) - mean);
    if (lo_ < base_ + kBand && hi_ >= base_) {
      const uint64_t first = std::max(lo_, base_) - base_;
      const uint64_t last = std::min(hi_, base_ + kBand - 1) - base_;
      for (uint64_t b = first; b <= last; ++b) {
        if (counts_[b] == 0) continue;
        const long double d = static_cast<long double>(base_ + b) - mean;
        acc += d * d * static_cast<long double>(counts_[b]);
      }
    }
    s.stddev = static_cast<double>(std::sqrt(acc / static_cast<long double>(n)));
  }
  s.jitter = s.median == 0 ? std::numeric_limits<double>::quiet_NaN()
                           : static_cast<double>(s.p99) / static_cast<double>(s.median);
  return s;
}

}  // namespace rb::stats
