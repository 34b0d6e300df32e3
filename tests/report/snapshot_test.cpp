#include "report/snapshot.h"

#include <gtest/gtest.h>

#include <fstream>

#include "run_fixture.h"

namespace rb::report {
namespace {

TEST(ReportSnapshot, LoadsEveryFinishedJobInRunOrder) {
  auto dir = testrun::temp_dir("snapshot");
  auto spec = testrun::standard_run("20260101T000000Z-fixture", "2026-01-01T00:00:00Z");
  spec.pending = {"zephyr-O2-tick1000-fpu0"};
  auto root = testrun::write_run(dir, spec);
  auto run = load_run(root);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->id(), "20260101T000000Z-fixture");
  ASSERT_EQ(run->results.size(), 4u);
  EXPECT_EQ(run->unfinished, std::vector<std::string>{"zephyr-O2-tick1000-fpu0"});
  RunSnapshot s = snapshot_of(*run);
  EXPECT_EQ(s.started_at, "2026-01-01T00:00:00Z");
  ASSERT_EQ(s.jobs.size(), 4u);
  EXPECT_EQ(s.jobs[1].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(s.jobs[1].kernel, "freertos");
  EXPECT_EQ(s.jobs[1].unit, "instructions");
  EXPECT_EQ(s.jobs[1].conditions.at("kernel_version"), "10.5.1");
  EXPECT_EQ(s.jobs[3].status, "BUILD_ERROR");
  EXPECT_TRUE(s.jobs[3].series.empty());
  const SeriesValues* e = s.jobs[1].find("idle", "event_to_task");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->test, "irq_latency");
  EXPECT_EQ(e->key(), "idle/event_to_task");
  EXPECT_EQ(e->hz, 1000000000u);
  EXPECT_TRUE(e->has_raw);
  EXPECT_EQ(e->values.count("base"), 0u);  // null base_ticks is no value
  const SeriesValues* w = s.jobs[1].find("", "wake_latency");
  ASSERT_TRUE(w);
  for (const char* m :
       {"n", "min", "median", "avg", "p90", "p99", "p999", "max", "stddev", "jitter", "base"}) {
    EXPECT_EQ(w->values.count(m), 1u) << m;
  }
  EXPECT_EQ(w->values.at("n"), 64);
  EXPECT_EQ(s.jobs[2].not_applicable.size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(ReportSnapshot, UnreadableRunsSayWhy) {
  auto dir = testrun::temp_dir("snapshot-bad");
  auto missing = load_run(dir / "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("not a run directory"), std::string::npos);
  std::filesystem::create_directories(dir / "empty");
  auto empty = load_run(dir / "empty");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("run.json"), std::string::npos);
  std::filesystem::create_directories(dir / "other");
  std::ofstream(dir / "other" / "run.json") << R"({"schema": "something.else"})";
  auto other = load_run(dir / "other");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("schema: is 'something.else', not rtosbench.run"),
            std::string::npos)
      << other.error().message;
  EXPECT_EQ(other.error().kind, ErrorKind::kBadInput);
  auto root = testrun::write_run(dir, testrun::standard_run("r", "2026-01-01T00:00:00Z"));
  std::ofstream(root / "jobs" / "bare-O2-tick1000-fpu0" / "result.json") << "{ truncated";
  auto broken = load_run(root);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("bare-O2-tick1000-fpu0/result.json"), std::string::npos);
  auto neither = load_run_or_baseline(dir / "nothing-here");
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.error().message.find("does not exist"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ReportSnapshot, FormatsValuesAsReportsPrintThem) {
  EXPECT_EQ(format_value(*find_metric("median"), 149), "149");
  EXPECT_EQ(format_value(*find_metric("jitter"), 1.0769), "1.077");
  EXPECT_EQ(format_value(*find_metric("stddev"), 0.774), "0.77");
  EXPECT_EQ(find_metric("p42"), nullptr);
  EXPECT_EQ(test_of_series("event_to_task"), "irq_latency");
  EXPECT_EQ(test_of_series("mutex_lock_unlock"), "mutex");
  EXPECT_EQ(test_of_series("ruler_loop"), "ruler");
  EXPECT_EQ(test_of_series("queue"), "queue");
  EXPECT_EQ(test_of_series("mutex_pi"), "mutex");  // a CHECK named after its test
  EXPECT_EQ(test_of_series("no_such_series"), "no_such_series");
}

}  // namespace
}  // namespace rb::report
