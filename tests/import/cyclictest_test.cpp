// rb::import's cyclictest reader against the files of tests/data/import/:
// hand-made ones whose statistics are worked out below by hand, real ones
// written by Debian's rt-tests 2.4 on this kind of machine (overflow*.txt,
// overflow*.json, histofall.txt), and each refusal.
#include "import/cyclictest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/result.h"
#include "util/temp_dir.h"

namespace rb::import {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(RTOSBENCH_TEST_DATA) / "import";

Parsed parse(const std::string& name) {
  auto p = read_cyclictest(kData / name);
  EXPECT_TRUE(p.ok()) << name << ": " << (p.ok() ? "" : p.error().message);
  return p.ok() ? *p : Parsed{};
}

std::string slurp(const fs::path& f) {
  std::ifstream in(f);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// good.txt and good.json hold the same two threads:
//   t0: 2 x3, 3 x5, 4 x1, 7 x1 -> sorted 2 2 2 3 3 3 3 3 4 7: median (rank 5) 3,
//       p90 (rank 9) 4, p99 and p99.9 (rank 10) 7, sum 32, floor mean 3
//   t1: 3 x1, 4 x4, 5 x2, 8 x3 -> 3 4 4 4 4 5 5 8 8 8: median 4, p90 8, sum 53
void expect_good(const Parsed& p, uint64_t limit) {
  ASSERT_FALSE(p.refused) << p.refused->message;
  ASSERT_EQ(p.data.threads.size(), 2u);
  EXPECT_EQ(p.data.limit, limit);
  auto s0 = series_of(p.data.threads[0], p.data.limit, "idle");
  EXPECT_EQ(s0.name, "cyclictest_t0");
  EXPECT_EQ(s0.phase, "idle");
  EXPECT_EQ(s0.unit, "us");
  EXPECT_EQ(s0.source, "histogram");
  EXPECT_EQ(s0.hz, 1000000u);
  EXPECT_EQ(s0.n, 10u);
  EXPECT_EQ(s0.min_ticks, 2u);
  EXPECT_EQ(s0.median_ticks, 3u);
  EXPECT_EQ(s0.p90_ticks, 4u);
  EXPECT_EQ(s0.p99_ticks, 7u);
  EXPECT_EQ(s0.p999_ticks, 7u);
  EXPECT_EQ(s0.max_ticks, 7u);
  EXPECT_EQ(s0.sum_ticks, 32u);
  EXPECT_EQ(s0.avg_ticks, 3u);
  EXPECT_EQ(s0.median_ns, 3000u);
  ASSERT_TRUE(s0.mean_ticks);
  EXPECT_DOUBLE_EQ(*s0.mean_ticks, 3.2);
  ASSERT_TRUE(s0.histogram);
  EXPECT_EQ(s0.histogram->overflow, 0u);
  EXPECT_TRUE(s0.histogram->beyond_limit.empty());
  EXPECT_EQ(s0.histogram->buckets.size(), 4u);
  auto s1 = series_of(p.data.threads[1], p.data.limit, "");
  EXPECT_EQ(s1.name, "cyclictest_t1");
  EXPECT_EQ(s1.min_ticks, 3u);
  EXPECT_EQ(s1.median_ticks, 4u);
  EXPECT_EQ(s1.p90_ticks, 8u);
  EXPECT_EQ(s1.max_ticks, 8u);
  EXPECT_EQ(s1.sum_ticks, 53u);
}

TEST(ImportCyclictest, HistogramTextGivesTheFiguresWorkedOutByHand) {
  auto p = parse("good.txt");
  EXPECT_EQ(p.data.format, "histogram");
  expect_good(p, 10);
}

TEST(ImportCyclictest, JsonGivesTheSameFiguresAndItsConditions) {
  auto p = parse("good.json");
  EXPECT_EQ(p.data.format, "json");
  expect_good(p, 10);
  EXPECT_EQ(p.data.conditions.at("sysinfo.release"), "6.1.0-rt");
  EXPECT_EQ(p.data.conditions.at("rt_tests_version"), "2.40");
  EXPECT_EQ(p.data.threads[1].cpu, 1);
}

TEST(ImportCyclictest, SeriesMatchesItsGoldenFile) {
  // tests/data/import/good.series.json: the result.json form of good.txt's
  // first thread; regenerate by hand only after checking the figures above.
  auto p = parse("good.txt");
  ASSERT_FALSE(p.refused);
  nlohmann::json got = series_of(p.data.threads[0], p.data.limit, "idle");
  nlohmann::json want = nlohmann::json::parse(slurp(kData / "good.series.json"));
  EXPECT_EQ(got, want) << got.dump(2);
}

// Real rt-tests 2.4 output with samples beyond the last bucket: counted in
// n, flagged, and the statistics whose rank falls there named.
TEST(ImportCyclictest, OverflowBucketIsCountedAndFlagged) {
  auto p = parse("overflow.txt");
  ASSERT_FALSE(p.refused) << p.refused->message;
  ASSERT_EQ(p.data.threads.size(), 1u);
  const auto& t = p.data.threads[0];
  EXPECT_EQ(p.data.limit, 100u);
  EXPECT_EQ(t.overflow, 4u);
  EXPECT_EQ(t.n(), 1000u);  // Total 996 + Overflows 4
  auto s = series_of(t, p.data.limit, "");
  EXPECT_EQ(s.n, 1000u);
  EXPECT_EQ(s.max_ticks, 439u);
  ASSERT_TRUE(s.histogram);
  EXPECT_EQ(s.histogram->overflow, 4u);
  // 4 of 1000 beyond: rank 999 (p99.9) and 1000 fall there, p99 (rank 990) does not.
  EXPECT_EQ(s.histogram->beyond_limit, std::vector<std::string>{"p999"});
  EXPECT_EQ(s.p999_ticks, 439u);
  EXPECT_LT(s.p99_ticks, 100u);
  EXPECT_FALSE(s.stddev_ticks);  // undefined: the overflow samples' values are unknown
  ASSERT_TRUE(s.mean_ticks);
  EXPECT_DOUBLE_EQ(*s.mean_ticks, 30.0);  // cyclictest's own (floored) Avg
  store::JobResult r;
  r.series.push_back(s);
  EXPECT_TRUE(store::check_figures(r, "x").ok());

  // The same run's JSON file: the same counts.
  auto j = parse("overflow.json");
  ASSERT_FALSE(j.refused) << j.refused->message;
  EXPECT_EQ(j.data.limit, 100u);
  EXPECT_EQ(j.data.threads[0].overflow, 4u);
  EXPECT_EQ(j.data.threads[0].counts, t.counts);
  EXPECT_EQ(series_of(j.data.threads[0], 100, "").median_ticks, s.median_ticks);
}

TEST(ImportCyclictest, RealTwoThreadOutputsAndTheAllThreadsColumn) {
  for (const char* f : {"overflow2.txt", "overflow2.json", "histofall.txt"}) {
    auto p = parse(f);
    ASSERT_FALSE(p.refused) << f << ": " << p.refused->message;
    EXPECT_EQ(p.data.threads.size(), 2u) << f;
    for (const auto& t : p.data.threads) EXPECT_GT(t.overflow, 0u) << f;
  }
  // -H's column is checked: a changed all-threads overflow is refused.
  std::string text = slurp(kData / "histofall.txt");
  const std::string line = "# Histogram Overflows: 00321 00405 00726";
  ASSERT_NE(text.find(line), std::string::npos);
  text.replace(text.find(line), line.size(), "# Histogram Overflows: 00321 00405 00727");
  auto p = parse_cyclictest(text);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->refused);
  EXPECT_EQ(p->refused->kind, Refusal::kInconsistent);
}

struct RefusalCase {
  const char* file;
  Refusal kind;
  uint64_t line;     // 0: a JSON member
  const char* says;  // part of the message
};

class ImportRefusal : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(ImportRefusal, IsRefusedWithItsKindAndLine) {
  const auto& c = GetParam();
  auto p = parse(c.file);
  ASSERT_TRUE(p.refused) << c.file << " was not refused";
  EXPECT_EQ(p.refused->kind, c.kind) << p.refused->message;
  EXPECT_EQ(p.refused->line, c.line) << p.refused->message;
  EXPECT_NE(p.refused->message.find(c.says), std::string::npos) << p.refused->message;
}

INSTANTIATE_TEST_SUITE_P(
    Files, ImportRefusal,
    ::testing::Values(
        RefusalCase{"truncated.txt", Refusal::kTruncated, 10, "ends inside"},
        RefusalCase{"inconsistent-total.txt", Refusal::kInconsistent, 13, "`# Total:` says 11"},
        RefusalCase{"inconsistent-max.txt", Refusal::kInconsistent, 16,
                    "max 9 but the last non-empty bucket is 7"},
        RefusalCase{"inconsistent-avg.txt", Refusal::kInconsistent, 15, "avg 4"},
        RefusalCase{"negative.txt", Refusal::kNegative, 7, "-00001"},
        RefusalCase{"truncated.json", Refusal::kTruncated, 21, "ends before"},
        RefusalCase{"inconsistent.json", Refusal::kInconsistent, 0, "more than its cycles 9"},
        RefusalCase{"negative.json", Refusal::kNegative, 0, "thread.0.histogram.7 is -1"}));

TEST(ImportCyclictest, RefusalsHaveDistinctExitCodes) {
  EXPECT_EQ(exit_code(Refusal::kInconsistent), 1);
  EXPECT_EQ(exit_code(Refusal::kNegative), 2);
  EXPECT_EQ(exit_code(Refusal::kTruncated), 3);
}

TEST(ImportCyclictest, OtherTextIsNoCyclictestOutput) {
  auto p = parse_cyclictest("T: 0 ( 1234) P:95 I:1000 C: 10 Min: 2 Act: 3 Avg: 3 Max: 7\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind, ErrorKind::kBadInput);
  auto q = parse_cyclictest("# Histogram\n000000 abc\n# Total: 1\n");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message.find("line 2"), std::string::npos) << q.error().message;
}

TEST(ImportCyclictest, WritesARunDirectoryTheReadersAccept) {
  auto tmp = make_owned_temp_dir("rb-import-test");
  ASSERT_TRUE(tmp.ok());
  ImportOptions o;
  o.out = *tmp / "run";
  o.phase = "idle";
  auto p = parse("good.json");
  ASSERT_FALSE(p.refused);
  const std::string text = slurp(kData / "good.json");
  ASSERT_TRUE(write_import(p.data, kData / "good.json", text, o).ok());
  auto summary = store::read_run_summary(o.out / "run.json");
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->jobs.size(), 1u);
  auto r = store::read_job_result(o.out / "jobs" / "cyclictest" / "result.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->unit, "us");
  ASSERT_EQ(r->series.size(), 2u);
  EXPECT_EQ(r->series[0].source, "histogram");
  ASSERT_TRUE(r->series[0].histogram);
  EXPECT_EQ(r->series[0].histogram->buckets.size(), 4u);
  EXPECT_TRUE(store::check_figures(*r, "x").ok());
  EXPECT_EQ(slurp(o.out / "jobs" / "cyclictest" / "imported-good.json"), text);
  // A second import into the same directory is refused, never mixed in.
  auto again = write_import(p.data, kData / "good.json", text, o);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, ErrorKind::kUsage);
  // A job id is a folder of jobs/, never a path out of it.
  o.out = *tmp / "run2";
  o.job = "../escape";
  auto escape = write_import(p.data, kData / "good.json", text, o);
  ASSERT_FALSE(escape.ok());
  EXPECT_EQ(escape.error().kind, ErrorKind::kUsage);
  EXPECT_FALSE(fs::exists(*tmp / "escape"));
  fs::remove_all(*tmp);
}

TEST(ImportCyclictest, CheckFiguresRefusesBucketsThatDoNotAddUp) {
  auto p = parse("good.txt");
  store::JobResult r;
  r.series.push_back(series_of(p.data.threads[0], p.data.limit, ""));
  ASSERT_TRUE(store::check_figures(r, "x").ok());
  r.series[0].histogram->buckets[0][1] += 1;
  auto st = store::check_figures(r, "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("add up to 11"), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace rb::import
