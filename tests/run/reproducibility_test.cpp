// Repeated loads judged against the reproducibility tolerance, with fake
// loads (the real three loads under QEMU: tests/run/e2e/repeat.sh).
#include "run/reproducibility.h"

#include <gtest/gtest.h>

#include "matrix/load.h"
#include "run/runner.h"

namespace rb::run {
namespace {

using nlohmann::json;
using store::JobStatus;

json series(const std::string& phase, const std::string& name, uint64_t median,
            uint64_t max = 200) {
  return json{{"phase", phase},       {"name", name},           {"n", 300},
              {"min_ticks", 80},      {"median_ticks", median}, {"avg_ticks", median},
              {"p90_ticks", median},  {"p99_ticks", median},    {"p999_ticks", median},
              {"max_ticks", max},     {"stddev_ticks", 1.5},    {"jitter", 1.1},
              {"base_ticks", nullptr}};
}

// The typed series of a result.json `series` array.
std::vector<store::SeriesRecord> typed(const json& a) {
  std::vector<store::SeriesRecord> out;
  for (const auto& s : a) {
    auto r = store::series_from_json(s);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (r.ok()) out.push_back(*r);
  }
  return out;
}

// The result's reproducibility and spread as written to result.json.
json rep(const store::JobResult& r) {
  return r.reproducibility ? json(*r.reproducibility) : json();
}
json spread(const store::JobResult& r) {
  return r.spread ? json(*r.spread) : json();
}

LoadOutcome ok_load(int k, json s) {
  LoadOutcome l;
  l.load = k;
  l.status = JobStatus::kOk;
  l.series = typed(s);
  l.unit = "instructions";
  l.raw_sha256 = "same";
  store::AttemptRecord a;
  a.number = 1;
  a.load = k;
  a.status = JobStatus::kOk;
  l.attempts.push_back(a);
  l.headline.push_back(store::Headline{"wake_latency", "", 82, 82, "instructions"});
  return l;
}

matrix::BoardInstance qemu_board() {
  matrix::BoardInstance b;
  b.id = "qemu-0";
  b.flasher = "qemu";
  b.emulated = true;
  return b;
}

matrix::BoardInstance disco_board() {
  matrix::BoardInstance b;
  b.id = "disco-1";
  b.flasher = "openocd";
  b.emulated = false;
  return b;
}

matrix::Matrix matrix_with(const std::string& extra) {
  auto m = matrix::parse_matrix(
      "matrix: m\nboard: qemu-netduinoplus2\nkernels: [{name: bare}]\n" + extra, "m.yaml");
  EXPECT_TRUE(m.ok()) << (m.errors.empty() ? "" : m.errors.front().format());
  return m.value;
}

TEST(Reproducibility, IdenticalLoadsAreOk) {
  auto policy = reproducibility_policy(matrix_with(""), qemu_board());
  store::JobResult r;
  std::vector<LoadOutcome> loads;
  for (int k = 1; k <= 3; ++k)
    loads.push_back(ok_load(k, json::array({series("", "wake_latency", 82)})));
  fill_from_loads(r, loads, 3, policy);
  EXPECT_EQ(r.status, JobStatus::kOk);
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(rep(r)["verdict"], "identical");
  EXPECT_EQ(rep(r)["reproducible"], true);
  EXPECT_EQ(rep(r)["raw_captures_identical"], true);
  EXPECT_EQ(r.loads->size(), 3u);
  EXPECT_EQ(r.attempts.size(), 3u);
  EXPECT_EQ(r.attempts[2].load, 3);
  EXPECT_EQ(spread(r)[0]["statistics"]["median"]["range"], 0.0);
  EXPECT_EQ(spread(r)[0]["statistics"]["median"]["values"], json::array({82.0, 82.0, 82.0}));
  EXPECT_EQ(r.headline.size(), 1u);
  EXPECT_EQ(json(r.series), json(loads[0].series));
}

TEST(Reproducibility, LoadsThatDifferOnTheEmulatedBenchAreNotReproducible) {
  auto policy = reproducibility_policy(matrix_with(""), qemu_board());
  EXPECT_EQ(policy.origin, "emulated bench default: identical loads");
  store::JobResult r;
  fill_from_loads(r,
                  {ok_load(1, json::array({series("idle", "event_to_task", 157)})),
                   ok_load(2, json::array({series("idle", "event_to_task", 160)})),
                   ok_load(3, json::array({series("idle", "event_to_task", 157)}))},
                  3, policy);
  EXPECT_EQ(r.status, JobStatus::kNotReproducible);
  EXPECT_STREQ(store::to_string(r.status), "NOT_REPRODUCIBLE");
  EXPECT_EQ(rep(r)["verdict"], "beyond_tolerance");
  EXPECT_EQ(rep(r)["reproducible"], false);
  // median, avg, p90, p99, p999 all moved.
  ASSERT_EQ(rep(r)["beyond"].size(), 5u);
  const json b = rep(r)["beyond"][0];
  EXPECT_EQ(b["series"], "idle/event_to_task");
  EXPECT_EQ(b["statistic"], "median");
  EXPECT_EQ(b["min"], 157.0);
  EXPECT_EQ(b["max"], 160.0);
  EXPECT_EQ(b["range"], 3.0);
  EXPECT_NEAR(b["rel_pct"].get<double>(), 300.0 / 157.0, 1e-9);
  EXPECT_NE(r.reason.find("3 loads differ beyond the reproducibility tolerance: idle/event_to_task "
                          "median 157..160"),
            std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("(+2 more)"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.headline.empty());  // numbers of a job that is not OK are not headlined
  EXPECT_FALSE(r.series.empty());   // but kept, like every verified capture's
  // A measurement failure: exit code 1.
  EXPECT_EQ(exit_code_for({r}, 1, false), 1);
}

TEST(Reproducibility, HardwareAllowsWhatDiffAllows) {
  auto policy = reproducibility_policy(matrix_with(""), disco_board());
  store::JobResult r;
  // Median 157 vs 160: 3 ticks <= max(2, 2% of 157 = 3.14): within.
  fill_from_loads(r,
                  {ok_load(1, json::array({series("", "wake_latency", 157)})),
                   ok_load(2, json::array({series("", "wake_latency", 160)}))},
                  2, policy);
  EXPECT_EQ(r.status, JobStatus::kOk) << r.reason;
  EXPECT_EQ(rep(r)["verdict"], "within_tolerance");
  EXPECT_EQ(rep(r)["summary"], "2 loads within the reproducibility tolerance");
  // 150 vs 160: 10 > 3: beyond.
  store::JobResult r2;
  fill_from_loads(r2,
                  {ok_load(1, json::array({series("", "wake_latency", 150)})),
                   ok_load(2, json::array({series("", "wake_latency", 160)}))},
                  2, policy);
  EXPECT_EQ(r2.status, JobStatus::kNotReproducible);
}

TEST(Reproducibility, MatrixToleranceWinsOverTheBenchDefault) {
  auto m = matrix_with("reproducibility:\n  default: 5%\n  max: off\n  median: {abs: 1, pct: 0}\n");
  auto policy = reproducibility_policy(m, qemu_board());
  EXPECT_NE(policy.origin.find("matrix reproducibility:"), std::string::npos);
  EXPECT_EQ(policy.of("p99").pct, 5);
  EXPECT_TRUE(policy.of("max").off);
  EXPECT_EQ(policy.of("median").abs, 1);
  EXPECT_EQ(policy.of("median").pct, 0);
  store::JobResult r;
  // median 100 vs 101 (abs 1: within), max 200 vs 900 (off), the rest within 5%.
  fill_from_loads(r,
                  {ok_load(1, json::array({series("", "wake_latency", 100, 200)})),
                   ok_load(2, json::array({series("", "wake_latency", 101, 900)}))},
                  2, policy);
  EXPECT_EQ(r.status, JobStatus::kOk) << r.reason;
  EXPECT_EQ(spread(r)[0]["statistics"]["max"]["allowed"], "off");
  // median 100 vs 102: beyond abs 1.
  store::JobResult r2;
  fill_from_loads(r2,
                  {ok_load(1, json::array({series("", "wake_latency", 100)})),
                   ok_load(2, json::array({series("", "wake_latency", 102)}))},
                  2, policy);
  EXPECT_EQ(r2.status, JobStatus::kNotReproducible);
  EXPECT_NE(r2.reason.find("wake_latency median 100..102 (2%) > 1"), std::string::npos)
      << r2.reason;
}

TEST(Reproducibility, SeriesTheEmulatedBoardExemptsAreRecordedButNotJudged) {
  // qemu-netduinoplus2's board.cmake: sleep_wake is unstable under QEMU (its
  // WFI time warp), sleep_wake_entry not a measurement there.
  auto board = qemu_board();
  board.board = "qemu-netduinoplus2";
  auto policy = reproducibility_policy(matrix_with(""), board);
  EXPECT_EQ(policy.board.name, "qemu-netduinoplus2");
  store::JobResult r;
  fill_from_loads(
      r,
      {ok_load(1, json::array({series("", "wake_latency", 82), series("wfi", "sleep_wake", 285),
                               series("wfi", "sleep_wake_entry", 5)})),
       ok_load(2, json::array({series("", "wake_latency", 82), series("wfi", "sleep_wake", 300),
                               series("wfi", "sleep_wake_entry", 77)}))},
      2, policy);
  EXPECT_EQ(r.status, JobStatus::kOk) << r.reason;
  EXPECT_EQ(rep(r)["verdict"], "identical");
  EXPECT_NE(rep(r)["summary"].get<std::string>().find(
                "not judged, differing: wfi/sleep_wake (QEMU 7.2 may warp virtual time"),
            std::string::npos)
      << rep(r)["summary"];
  EXPECT_NE(rep(r)["summary"].get<std::string>().find("wfi/sleep_wake_entry (QEMU charges"),
            std::string::npos);
  // The spread is still recorded for the reader.
  EXPECT_EQ(spread(r)[1]["statistics"]["median"]["range"], 15.0);
  // A judged series that differs still fails the job, exempt ones or not.
  store::JobResult r2;
  fill_from_loads(
      r2,
      {ok_load(1, json::array({series("", "wake_latency", 82), series("wfi", "sleep_wake", 285)})),
       ok_load(2, json::array({series("", "wake_latency", 83), series("wfi", "sleep_wake", 285)}))},
      2, policy);
  EXPECT_EQ(r2.status, JobStatus::kNotReproducible);
  // Another board (or none) exempts nothing.
  store::JobResult r3;
  fill_from_loads(r3,
                  {ok_load(1, json::array({series("wfi", "sleep_wake", 285)})),
                   ok_load(2, json::array({series("wfi", "sleep_wake", 300)}))},
                  2, reproducibility_policy(matrix_with(""), qemu_board()));
  EXPECT_EQ(r3.status, JobStatus::kNotReproducible);
}

TEST(Reproducibility, ASeriesMissingFromOneLoadIsADifference) {
  auto policy =
      reproducibility_policy(matrix_with("reproducibility: {default: off}\n"), qemu_board());
  store::JobResult r;
  fill_from_loads(
      r,
      {ok_load(1, json::array({series("", "wake_latency", 82), series("", "round_trip", 236)})),
       ok_load(2, json::array({series("", "wake_latency", 82)}))},
      2, policy);
  EXPECT_EQ(r.status, JobStatus::kNotReproducible);
  EXPECT_NE(r.reason.find("round_trip missing in load(s) 2"), std::string::npos) << r.reason;
}

TEST(Reproducibility, AFailedLoadDecidesTheJobAndIsNotJudged) {
  auto policy = reproducibility_policy(matrix_with(""), qemu_board());
  auto bad = ok_load(2, json::array());
  bad.status = JobStatus::kProtocolError;
  bad.reason = "protocol_error: line 9: lost line(s)";
  store::JobResult r;
  fill_from_loads(r, {ok_load(1, json::array({series("", "wake_latency", 82)})), bad}, 3, policy);
  EXPECT_EQ(r.status, JobStatus::kProtocolError);
  EXPECT_EQ(r.reason, "load 2 of 3: protocol_error: line 9: lost line(s) (load 3 not run)");
  EXPECT_EQ(rep(r)["verdict"], "not_judged");
  EXPECT_TRUE(rep(r)["reproducible"].is_null());
  EXPECT_FALSE(r.spread.has_value());
  EXPECT_EQ(r.loads->size(), 2u);
  auto first = bad;
  first.load = 1;
  store::JobResult r1;
  fill_from_loads(r1, {first}, 3, policy);
  EXPECT_EQ(r1.reason, "load 1 of 3: protocol_error: line 9: lost line(s) (loads 2..3 not run)");
  // An infrastructure failure in a later load wins over a measurement one.
  auto flash = ok_load(3, json::array());
  flash.status = JobStatus::kFlashError;
  flash.reason = "openocd: Error: open failed";
  store::JobResult r2;
  fill_from_loads(r2, {ok_load(1, json::array()), bad, flash}, 3, policy);
  EXPECT_EQ(r2.status, JobStatus::kFlashError);
  EXPECT_EQ(exit_code_for({r2}, 1, false), 2);
}

TEST(Reproducibility, OneLoadIsTheJobItself) {
  auto policy = reproducibility_policy(matrix_with(""), qemu_board());
  store::JobResult r;
  fill_from_loads(r, {ok_load(1, json::array({series("", "wake_latency", 82)}))}, 1, policy);
  EXPECT_EQ(r.status, JobStatus::kOk);
  EXPECT_FALSE(r.loads.has_value());
  EXPECT_FALSE(r.spread.has_value());
  EXPECT_FALSE(r.reproducibility.has_value());
  EXPECT_EQ(store::to_json(r).count("loads"), 0u);  // a single-load result is as before
}

TEST(Reproducibility, LoadOutcomeRoundTrips) {
  auto l = ok_load(2, json::array({series("", "wake_latency", 82)}));
  l.conditions = {{"unit", "instructions"}};
  l.target_run_seconds = 3.5;
  auto back = store::load_from_json(json(l));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->load, 2);
  EXPECT_EQ(back->status, JobStatus::kOk);
  EXPECT_EQ(back->attempts.at(0).load, 2);
  EXPECT_EQ(json(back->series), json(l.series));
  EXPECT_EQ(back->headline.at(0).median_ticks, 82u);
  EXPECT_EQ(back->target_run_seconds, 3.5);
  EXPECT_FALSE(
      store::load_from_json(json{{"load", 1}, {"status", "MAYBE"}, {"attempts", json::array()}})
          .ok());
  EXPECT_FALSE(store::load_from_json(json{{"status", "OK"}}).ok());
}

TEST(Reproducibility, ClosingTableShowsTheVerdict) {
  auto policy = reproducibility_policy(matrix_with(""), qemu_board());
  store::JobResult r;
  r.job_id = "bare-O2-tick1000-fpu0";
  fill_from_loads(r,
                  {ok_load(1, json::array({series("", "wake_latency", 82)})),
                   ok_load(2, json::array({series("", "wake_latency", 82)}))},
                  2, policy);
  std::string t = format_table({r});
  EXPECT_NE(t.find("2 loads identical"), std::string::npos) << t;
}

}  // namespace
}  // namespace rb::run
