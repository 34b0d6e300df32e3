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

// A run directory from elsewhere is checked on read as `history import`
// checks it (issue 35 item 8): its captures are the ones the run hashed, its
// figures hang together, and every path it names stays inside it.
nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}
void write_json(const std::filesystem::path& p, const nlohmann::json& j) {
  std::ofstream(p) << j.dump(2) << "\n";
}

TEST(ReportSnapshot, RefusesACaptureThatIsNotTheOneHashed) {
  auto dir = testrun::temp_dir("snapshot-raw");
  auto root = testrun::write_run(dir, testrun::standard_run("r", "2026-01-01T00:00:00Z"));
  ASSERT_TRUE(load_run(root).ok());
  std::ofstream(root / "jobs" / "bare-O2-tick1000-fpu0" / "attempt-1" / "capture.raw",
                std::ios::app)
      << "RAW,wake_latency,0,1\n";
  auto run = load_run(root);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(run.error().message.find("not its raw_sha256"), std::string::npos)
      << run.error().message;
  EXPECT_NE(run.error().message.find("bare-O2-tick1000-fpu0"), std::string::npos);
  // A capture that is not there is nothing to trust, and no error here.
  std::filesystem::remove(root / "jobs" / "bare-O2-tick1000-fpu0" / "attempt-1" / "capture.raw");
  EXPECT_TRUE(load_run(root).ok());
  std::filesystem::remove_all(dir);
}

TEST(ReportSnapshot, RefusesFiguresThatDoNotHangTogether) {
  auto dir = testrun::temp_dir("snapshot-order");
  auto root = testrun::write_run(dir, testrun::standard_run("r", "2026-01-01T00:00:00Z"));
  const auto file = root / "jobs" / "freertos-O2-tick1000-fpu0" / "result.json";
  auto j = read_json(file);
  for (auto& s : j["series"]) {
    if (s["name"] == "wake_latency") s["median_ticks"] = s["min_ticks"].get<uint64_t>() - 1;
  }
  write_json(file, j);
  auto run = load_run(root);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(run.error().message.find("series wake_latency: median_ticks"), std::string::npos)
      << run.error().message;
  EXPECT_NE(run.error().message.find("< min_ticks"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ReportSnapshot, RefusesPathsThatLeaveTheRun) {
  auto dir = testrun::temp_dir("snapshot-paths");
  const std::string job = "bare-O2-tick1000-fpu0";
  const std::pair<std::string, std::string> cases[] = {
      {"/dev/zero", "is an absolute path"},
      {"../../../../../../../../etc/passwd", "has a '..' part"},
      {"attempt-1", "is not a regular file"},
  };
  for (const auto& [raw_file, why] : cases) {
    auto root = testrun::write_run(dir, testrun::standard_run("r", "2026-01-01T00:00:00Z"));
    const auto file = root / "jobs" / job / "result.json";
    auto j = read_json(file);
    j["attempts"][0]["capture"]["raw_file"] = raw_file;
    write_json(file, j);
    auto run = load_run(root);
    ASSERT_FALSE(run.ok()) << raw_file;
    EXPECT_EQ(run.error().kind, ErrorKind::kBadInput);
    EXPECT_NE(run.error().message.find(why), std::string::npos) << run.error().message;
    std::filesystem::remove_all(root);
  }
  auto root = testrun::write_run(dir, testrun::standard_run("r", "2026-01-01T00:00:00Z"));
  const auto raw = root / "jobs" / job / "attempt-1" / "capture.raw";
  std::filesystem::remove(raw);
  std::filesystem::create_symlink("/etc/passwd", raw);
  auto linked = load_run(root);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find("leads through a symbolic link"), std::string::npos)
      << linked.error().message;
  // A job id of run.json that is a path: refused, not read.
  root = testrun::write_run(dir, testrun::standard_run("r2", "2026-01-01T00:00:00Z"));
  auto summary = read_json(root / "run.json");
  summary["jobs"].push_back({{"id", "../../elsewhere"}, {"status", "OK"}});
  write_json(root / "run.json", summary);
  auto escaped = load_run(root);
  ASSERT_FALSE(escaped.ok());
  EXPECT_NE(escaped.error().message.find("has a '..' part"), std::string::npos)
      << escaped.error().message;
  std::filesystem::remove_all(dir);
}

TEST(ReportSnapshot, RefusesABaselineWhoseFiguresDoNotHangTogether) {
  auto dir = testrun::temp_dir("snapshot-baseline-order");
  std::filesystem::create_directories(dir);
  nlohmann::json b{{"schema", kBaselineSchema},
                   {"schema_version", kBaselineSchemaVersion},
                   {"jobs",
                    {{{"job_id", "bare"},
                      {"series",
                       {{{"name", "wake_latency"},
                         {"values", {{"min", 100}, {"median", 90}, {"max", 120}}}}}}}}}};
  write_json(dir / "baseline.json", b);
  auto bad = load_baseline(dir / "baseline.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(bad.error().message.find("median 90 < min 100"), std::string::npos)
      << bad.error().message;
  b["jobs"][0]["series"][0]["values"]["median"] = 110;
  write_json(dir / "baseline.json", b);
  EXPECT_TRUE(load_baseline(dir / "baseline.json").ok());
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
