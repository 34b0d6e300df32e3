#pragma once
// The samples of one series, collected as they arrive, with the exact
// statistics of summary.h at the end. A long series of timing samples sits in
// a narrow band, so once a series is long enough its samples are counted in a
// histogram around that band instead of being stored: no copy, no second
// pass over memory, and memory that does not grow with the series. Samples
// outside the band are kept and sorted, so every statistic stays exact.
#include <cstdint>
#include <span>
#include <vector>

#include "stats/summary.h"

namespace rb::stats {

class SampleAccumulator {
 public:
  // Samples kept as a plain list up to this count; beyond it the histogram
  // is used (if `allow_histogram`).
  static constexpr uint64_t kListLimit = 4096;
  // Width of the histogram band in ticks (counters of 8 bytes each).
  static constexpr uint64_t kBand = 16384;
  static constexpr uint64_t kKeepCapacity = 65536;

  // Forgets every sample; keeps the memory for the next series (up to
  // kKeepCapacity stored samples: a series that held more gives it back).
  void clear();
  // Appends samples. With `allow_histogram` false the samples are always
  // stored (the caller bounds how many accumulators may hold a histogram).
  void add(std::span<const uint64_t> values, bool allow_histogram = true);

  uint64_t count() const { return n_; }
  // Samples held one by one (8 bytes each): every sample in list mode, those
  // outside the band in histogram mode. The caller bounds their total.
  uint64_t stored() const { return values_.size(); }
  bool uses_histogram() const { return histogram_; }

  // The statistics of every sample added since clear(), identical to
  // summarize() over the same samples.
  Summary summarize();

 private:
  void place_band(uint64_t centre);  // histogram mode, the band around centre
  void start_histogram();

  uint64_t n_ = 0;
  uint64_t lo_ = UINT64_MAX, hi_ = 0;
  bool histogram_ = false;
  uint64_t base_ = 0;             // first value of the band
  std::vector<uint64_t> counts_;  // kBand counters, all zero outside a series
  std::vector<uint64_t> values_;  // every sample (list mode) or those outside the band
};

}  // namespace rb::stats
