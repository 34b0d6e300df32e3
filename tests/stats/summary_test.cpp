#include "stats/summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace {

using rb::stats::nearest_rank;
using rb::stats::summarize;

TEST(NearestRank, CeilOfPTimesNClamped) {
  EXPECT_EQ(nearest_rank(0, 50, 100), 0u);
  EXPECT_EQ(nearest_rank(1, 50, 100), 1u);
  EXPECT_EQ(nearest_rank(1, 999, 1000), 1u);
  EXPECT_EQ(nearest_rank(2, 50, 100), 1u);  // even n: lower middle
  EXPECT_EQ(nearest_rank(4, 50, 100), 2u);
  EXPECT_EQ(nearest_rank(5, 50, 100), 3u);
  EXPECT_EQ(nearest_rank(100, 99, 100), 99u);
  EXPECT_EQ(nearest_rank(101, 99, 100), 100u);      // 99.99 -> 100
  EXPECT_EQ(nearest_rank(2048, 99, 100), 2028u);    // 2027.52 -> 2028
  EXPECT_EQ(nearest_rank(2048, 999, 1000), 2046u);  // 2045.952 -> 2046
  EXPECT_EQ(nearest_rank(10000, 90, 100), 9000u);
  EXPECT_EQ(nearest_rank(10, 0, 100), 1u);                                // clamped up
  EXPECT_EQ(nearest_rank(UINT64_MAX, 999, 1000), 18428297329635842064u);  // no overflow
}

TEST(Ns, FloorOfTicksTimesBillionOverHz) {
  EXPECT_EQ(rb::stats::ticks_to_ns(373, 250000000), 1492u);
  EXPECT_EQ(rb::stats::ticks_to_ns(1, 168000000), 5u);  // 5.95 -> 5
  EXPECT_EQ(rb::stats::ticks_to_ns(21, 168000000), 125u);
  EXPECT_EQ(rb::stats::ticks_to_ns(UINT64_MAX, 1000000000), UINT64_MAX);
  EXPECT_EQ(rb::stats::ticks_to_ns(UINT64_MAX, 1), UINT64_MAX);  // saturates
  EXPECT_EQ(rb::stats::ticks_to_ns(5, 0), 0u);
}

TEST(Ns, SeedThreeMeanOf466AndAHalf) {
  // Seed 003, protocol.md 4: a mean of 466.5 ticks at 250 MHz is avg_ticks=466,
  // avg_ns=1866 (from the exact mean: 1866.0), not 466*4 = 1864.
  std::vector<uint64_t> v;
  for (int i = 0; i < 1024; ++i) {
    v.push_back(466);
    v.push_back(467);
  }
  auto s = summarize(v);
  EXPECT_EQ(s.n, 2048u);
  EXPECT_DOUBLE_EQ(s.mean, 466.5);
  EXPECT_EQ(s.avg_ticks, 466u);
  EXPECT_EQ(rb::stats::mean_ns(s.sum, s.n, 250000000), 1866u);
  EXPECT_EQ(rb::stats::ticks_to_ns(s.avg_ticks, 250000000), 1864u);
  EXPECT_EQ(s.median, 466u);  // lower middle of an even count
  EXPECT_EQ(s.p99, 467u);
}

TEST(Ns, MeanNsIsExactForHugeSums) {
  const unsigned __int128 sum = static_cast<unsigned __int128>(UINT64_MAX) * 3;
  // floor(sum * 1e9 / (3 * 1e9)) = UINT64_MAX exactly, though sum * 1e9 needs 94 bits.
  EXPECT_EQ(rb::stats::mean_ns(sum, 3, 1000000000), UINT64_MAX);
  EXPECT_EQ(rb::stats::mean_ns(7, 2, 3), 1166666666u);  // 3.5 ticks at 3 Hz
  EXPECT_EQ(rb::stats::mean_ns(1, 0, 3), 0u);
}

TEST(Summarize, SmallHandComputedSeries) {
  std::vector<uint64_t> v = {9, 1, 5, 3, 7, 2, 8, 4, 6, 10};
  auto s = summarize(v);
  EXPECT_EQ(s.n, 10u);
  EXPECT_EQ(s.min, 1u);
  EXPECT_EQ(s.median, 5u);
  EXPECT_EQ(s.p90, 9u);
  EXPECT_EQ(s.p99, 10u);
  EXPECT_EQ(s.p999, 10u);
  EXPECT_EQ(s.max, 10u);
  EXPECT_EQ(static_cast<uint64_t>(s.sum), 55u);
  EXPECT_EQ(s.avg_ticks, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(s.stddev, std::sqrt(8.25), 1e-12);  // population: sum((x-5.5)^2)/10
  EXPECT_NEAR(s.jitter, 2.0, 1e-12);
}

// The histogram path (narrow band, many samples) and the sorting path must
// agree with a plain std::sort and the rank formula on the same data.
TEST(Summarize, HistogramAndSortPathsAgreeWithTheDefinition) {
  std::mt19937_64 rng(11);
  for (uint64_t band : {1ull, 2ull, 30ull, 170ull, 4000ull, 65535ull, 70000ull, 1ull << 40}) {
    for (size_t n : {1u, 3u, 7u, 100u, 4096u, 100003u, 300000u}) {
      std::vector<uint64_t> v(n);
      for (uint64_t& x : v) x = 466 + rng() % band + (rng() % 100 == 0 ? 166 : 0);
      std::vector<uint64_t> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      auto at = [&](uint64_t num, uint64_t den) {
        uint64_t r = (num * n + den - 1) / den;
        return sorted[std::max<uint64_t>(r, 1) - 1];
      };
      unsigned __int128 sum = 0;
      for (uint64_t x : sorted) sum += x;
      long double mean = static_cast<long double>(sum) / n, acc = 0;
      for (uint64_t x : sorted) acc += (x - mean) * (x - mean);
      const auto s = summarize(v);
      SCOPED_TRACE("band " + std::to_string(band) + " n " + std::to_string(n));
      EXPECT_EQ(s.min, sorted.front());
      EXPECT_EQ(s.max, sorted.back());
      EXPECT_EQ(s.median, at(50, 100));
      EXPECT_EQ(s.p90, at(90, 100));
      EXPECT_EQ(s.p99, at(99, 100));
      EXPECT_EQ(s.p999, at(999, 1000));
      EXPECT_TRUE(s.sum == sum);
      EXPECT_EQ(s.avg_ticks, static_cast<uint64_t>(sum / n));
      EXPECT_NEAR(s.stddev, static_cast<double>(std::sqrt(acc / n)), 1e-6 * (1 + s.stddev));
    }
  }
}

TEST(Summarize, EmptySingleAndAllZero) {
  std::vector<uint64_t> empty;
  EXPECT_EQ(summarize(empty).n, 0u);
  std::vector<uint64_t> one = {42};
  auto s = summarize(one);
  EXPECT_EQ(s.min, 42u);
  EXPECT_EQ(s.median, 42u);
  EXPECT_EQ(s.p999, 42u);
  EXPECT_EQ(s.stddev, 0.0);
  std::vector<uint64_t> zeros(500, 0);
  auto z = summarize(zeros);
  EXPECT_EQ(z.max, 0u);
  EXPECT_TRUE(std::isnan(z.jitter));
}

TEST(Summarize, HugeValuesUseTheLongDoublePath) {
  std::vector<uint64_t> v = {UINT64_MAX, UINT64_MAX - 2};
  auto s = summarize(v);
  EXPECT_EQ(s.avg_ticks, UINT64_MAX - 1);
  EXPECT_NEAR(s.stddev, 1.0, 1e-6);
}

TEST(Summarize, StddevMatchesTwoPassDefinition) {
  std::mt19937 rng(9);
  std::vector<uint64_t> v(9999);
  for (uint64_t& x : v) x = 400 + rng() % 300;
  double mean = 0;
  for (uint64_t x : v) mean += static_cast<double>(x);
  mean /= static_cast<double>(v.size());
  double acc = 0;
  for (uint64_t x : v) acc += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  const double want = std::sqrt(acc / static_cast<double>(v.size()));
  EXPECT_NEAR(summarize(v).stddev, want, 1e-9);
}

}  // namespace
