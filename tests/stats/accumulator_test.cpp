#include "stats/accumulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {

using rb::stats::SampleAccumulator;
using rb::stats::Summary;

void expect_same(const Summary& a, const Summary& b) {
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.median, b.median);
  EXPECT_EQ(a.p90, b.p90);
  EXPECT_EQ(a.p99, b.p99);
  EXPECT_EQ(a.p999, b.p999);
  EXPECT_EQ(a.max, b.max);
  EXPECT_TRUE(a.sum == b.sum);
  EXPECT_EQ(a.avg_ticks, b.avg_ticks);
  EXPECT_DOUBLE_EQ(a.mean, b.mean);
  EXPECT_NEAR(a.stddev, b.stddev, 1e-9 * (1 + b.stddev));
}

// One accumulator reused across every case: clear() must leave no trace.
TEST(SampleAccumulator, AgreesWithSummarizeOnEveryShape) {
  std::mt19937_64 rng(5);
  SampleAccumulator acc;
  struct Shape {
    const char* what;
    uint64_t base, spread, outlier_every, outlier_size;
  };
  const Shape shapes[] = {
      {"narrow", 466, 9, 0, 0},
      {"narrow with spikes above", 26, 8, 50, 5000},
      {"spikes far above the band", 466, 30, 20, 1000000},
      {"wide, wider than the band", 1000, 100000, 0, 0},
      {"near zero", 0, 3, 100, 40000},
      {"constant", 250000, 1, 0, 0},
      {"huge values", UINT64_MAX - 5000, 4000, 0, 0},
  };
  for (const Shape& shape : shapes) {
    for (size_t n : {0u, 1u, 5u, 4096u, 4097u, 5000u, 40000u}) {
      std::vector<uint64_t> all;
      acc.clear();
      // The first sample an outlier below: the band must not be placed by it.
      if (n > 0 && shape.outlier_every) all.push_back(shape.base / 2);
      while (all.size() < n) {
        uint64_t v = shape.base + rng() % shape.spread;
        if (shape.outlier_every && rng() % shape.outlier_every == 0) v += shape.outlier_size;
        all.push_back(v);
      }
      for (size_t i = 0; i < all.size();) {
        const size_t k = std::min<size_t>(all.size() - i, 1 + rng() % 20);
        acc.add(std::span<const uint64_t>(all.data() + i, k));
        i += k;
      }
      SCOPED_TRACE(std::string(shape.what) + " n=" + std::to_string(n));
      EXPECT_EQ(acc.count(), n);
      EXPECT_EQ(acc.uses_histogram(), n > SampleAccumulator::kListLimit);
      expect_same(acc.summarize(), rb::stats::summarize(all));
    }
  }
}

// Samples added in chunks of any size (sometimes more than the list holds
// at once, sometimes none) give the statistics of all of them, in list
// mode, in histogram mode, outside the band, and without a histogram.
TEST(SampleAccumulator, ChunksOfAnySizeAgreeWithSummarize) {
  std::mt19937_64 rng(11);
  SampleAccumulator acc;
  for (bool allow : {true, false}) {
    for (size_t n : {1u, 30u, 4096u, 5000u, 60000u}) {
      for (uint64_t spread : {1u, 9u, 40000u}) {
        acc.clear();
        std::vector<uint64_t> all;
        while (all.size() < n) {
          // Sometimes more than the list holds at once.
          const size_t k = std::min<size_t>(n - all.size(), 1 + rng() % (rng() % 2 ? 3000 : 12000));
          std::vector<uint64_t> chunk;
          for (size_t i = 0; i < k; ++i) {
            uint64_t v = 466 + rng() % spread;
            if (rng() % 50 == 0) v += 30000;  // outside a band centred near 466
            chunk.push_back(v);
          }
          all.insert(all.end(), chunk.begin(), chunk.end());
          acc.add(chunk, allow);
          if (rng() % 7 == 0) acc.add({}, allow);
        }
        SCOPED_TRACE("allow=" + std::to_string(allow) + " n=" + std::to_string(n) +
                     " spread=" + std::to_string(spread));
        EXPECT_EQ(acc.count(), n);
        EXPECT_EQ(acc.uses_histogram(), allow && n > SampleAccumulator::kListLimit);
        expect_same(acc.summarize(), rb::stats::summarize(all));
      }
    }
  }
  acc.clear();
  acc.add({});
  EXPECT_EQ(acc.count(), 0u);
}

TEST(SampleAccumulator, WithoutHistogramKeepsAList) {
  SampleAccumulator acc;
  std::vector<uint64_t> v(10000, 7);
  acc.add(v, false);
  EXPECT_FALSE(acc.uses_histogram());
  EXPECT_EQ(acc.summarize().median, 7u);
}

}  // namespace
