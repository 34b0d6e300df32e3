#include "stats/accumulator.h"

#include <algorithm>

namespace rb::stats {
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
  if (values_.capacity() > kKeepCapacity) std::vector<uint64_t>().swap(values_);
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

Summary SampleAccumulator::summarize() {
  if (n_ == 0) return Summary{};
  if (!histogram_) return stats::summarize(values_);
  // In ascending order: the outliers below the band, the band (between this
  // series' smallest and largest sample inside it), the outliers above it.
  std::sort(values_.begin(), values_.end());
  const auto split = std::lower_bound(values_.begin(), values_.end(), base_);
  return summarize_runs(n_, lo_, hi_, [&](auto visit) {
    for (auto it = values_.begin(); it != split; ++it) visit(*it, 1);
    if (lo_ < base_ + kBand && hi_ >= base_) {
      const uint64_t first = std::max(lo_, base_) - base_;
      const uint64_t last = std::min(hi_, base_ + kBand - 1) - base_;
      for (uint64_t b = first; b <= last; ++b) {
        if (counts_[b] != 0) visit(base_ + b, counts_[b]);
      }
    }
    for (auto it = split; it != values_.end(); ++it) visit(*it, 1);
  });
}

}  // namespace rb::stats
