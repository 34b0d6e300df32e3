#include "report/diff.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "report/snapshot.h"
#include "report/tolerance.h"
#include "run_fixture.h"

namespace rb::report {
namespace {

SeriesValues series(const std::string& phase, const std::string& name,
                    std::map<std::string, double> values, uint64_t hz = 1000000000) {
  SeriesValues s;
  s.phase = phase;
  s.name = name;
  s.test = test_of_series(name);
  s.hz = hz;
  s.values = std::move(values);
  return s;
}

JobSnapshot job(const std::string& id, std::vector<SeriesValues> s) {
  JobSnapshot j;
  j.id = id;
  j.kernel = id.substr(0, id.find('-'));
  j.status = "OK";
  j.unit = "instructions";
  j.conditions = {{"compiler", "12.2.1"}, {"opt", "-O2 -g0"},       {"core", "168000000"},
                  {"tick", "1000"},       {"unit", "instructions"}, {"harness", "abc"},
                  {"nonce", "1"}};
  j.series = std::move(s);
  return j;
}

RunSnapshot run(const std::string& id, std::vector<JobSnapshot> jobs) {
  RunSnapshot r;
  r.id = id;
  r.source = "/runs/" + id;
  r.jobs = std::move(jobs);
  return r;
}

RunSnapshot basic(double median = 120, double p99 = 150, double n = 100) {
  return run("r",
             {job("freertos-O2",
                  {series("", "wake_latency", {{"n", n}, {"median", median}, {"p99", p99}}),
                   series("idle", "event_to_task", {{"n", n}, {"median", 300}, {"max", 900}})})});
}

const MetricDiff& metric(const DiffReport& r, const std::string& series_key, const std::string& m) {
  for (const auto& j : r.jobs) {
    for (const auto& s : j.series) {
      if (s.key() != series_key) continue;
      for (const auto& d : s.metrics) {
        if (d.def->name == m) return d;
      }
    }
  }
  throw std::runtime_error("no " + series_key + " " + m);
}

TEST(ReportDiff, IdenticalRunsExitZero) {
  DiffReport r = diff_runs(basic(), basic(), Tolerances::defaults(), {});
  EXPECT_EQ(r.verdict, Verdict::kIdentical);
  EXPECT_EQ(exit_code(r), kDiffIdentical);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].series.size(), 2u);
  EXPECT_EQ(metric(r, "wake_latency", "median").verdict, Verdict::kIdentical);
}

TEST(ReportDiff, ChangeWithinToleranceExitsOne) {
  // Default median tolerance: abs 2, 2 %: 120 -> 122 is within.
  DiffReport r = diff_runs(basic(120), basic(122), Tolerances::defaults(), {});
  const MetricDiff& d = metric(r, "wake_latency", "median");
  EXPECT_EQ(d.verdict, Verdict::kWithin);
  EXPECT_DOUBLE_EQ(d.delta, 2);
  ASSERT_TRUE(d.pct);
  EXPECT_NEAR(*d.pct, 1.6667, 1e-3);
  EXPECT_EQ(exit_code(r), kDiffWithin);
}

TEST(ReportDiff, ChangeBeyondToleranceExitsTwoEitherDirection) {
  DiffReport up = diff_runs(basic(120), basic(130), Tolerances::defaults(), {});
  EXPECT_EQ(metric(up, "wake_latency", "median").verdict, Verdict::kBeyond);
  EXPECT_TRUE(metric(up, "wake_latency", "median").worse());
  EXPECT_EQ(exit_code(up), kDiffBeyond);
  DiffReport down = diff_runs(basic(130), basic(120), Tolerances::defaults(), {});
  EXPECT_EQ(metric(down, "wake_latency", "median").verdict, Verdict::kBeyond);
  EXPECT_FALSE(metric(down, "wake_latency", "median").worse());
  EXPECT_EQ(exit_code(down), kDiffBeyond);
  std::string text = to_text(up, false);
  EXPECT_NE(text.find("wake_latency"), std::string::npos);
  EXPECT_NE(text.find("+10"), std::string::npos);
  EXPECT_NE(text.find("+8.33%"), std::string::npos);
  EXPECT_NE(text.find("BEYOND"), std::string::npos);
  // Unchanged rows are left out unless asked for.
  EXPECT_EQ(text.find("event_to_task"), std::string::npos);
  EXPECT_NE(to_text(up, true).find("event_to_task"), std::string::npos);
}

TEST(ReportDiff, RelativeToleranceScalesWithTheValue) {
  // p99: abs 5, 5 %. At 1000, 5 % is 50: +40 is within, +60 beyond.
  EXPECT_EQ(metric(diff_runs(basic(120, 1000), basic(120, 1040), Tolerances::defaults(), {}),
                   "wake_latency", "p99")
                .verdict,
            Verdict::kWithin);
  EXPECT_EQ(metric(diff_runs(basic(120, 1000), basic(120, 1060), Tolerances::defaults(), {}),
                   "wake_latency", "p99")
                .verdict,
            Verdict::kBeyond);
}

TEST(ReportDiff, SampleCountChangeIsBeyond) {
  DiffReport r = diff_runs(basic(120, 150, 100), basic(120, 150, 99), Tolerances::defaults(), {});
  EXPECT_EQ(metric(r, "wake_latency", "n").verdict, Verdict::kBeyond);
  EXPECT_TRUE(metric(r, "wake_latency", "n").worse());  // any change of n is wrong
}

TEST(ReportDiff, PerTestAndPerSeriesOverrides) {
  Tolerances t = Tolerances::defaults();
  YAML::Node n = YAML::Load(R"(
tests:
  wake_latency: {median: {pct: 10}}
  idle/event_to_task: {max: off}
)");
  ASSERT_TRUE(t.merge_yaml(n, "t.yaml").ok());
  RunSnapshot a = basic(120), b = basic(130);
  b.jobs[0].series[1].values["max"] = 5000;
  DiffReport r = diff_runs(a, b, t, {});
  EXPECT_EQ(metric(r, "wake_latency", "median").verdict, Verdict::kWithin);  // 10 <= 12
  EXPECT_EQ(metric(r, "idle/event_to_task", "max").verdict,
            Verdict::kWithin);  // off: changed, not checked
  EXPECT_EQ(exit_code(r), kDiffWithin);
  EXPECT_NE(to_text(r, false).find("changed (not checked)"), std::string::npos);
}

TEST(ReportDiff, MixedConditionsAreRefusedNamingTheKey) {
  RunSnapshot a = basic(), b = basic(200);
  b.jobs[0].conditions["compiler"] = "13.2.1";
  b.jobs[0].conditions["nonce"] = "2";  // not pinned: never a reason to refuse
  DiffReport r = diff_runs(a, b, Tolerances::defaults(), {});
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(exit_code(r), kDiffRefusedMixed);
  ASSERT_EQ(r.jobs[0].mismatches.size(), 1u);
  EXPECT_EQ(r.jobs[0].mismatches[0].key, "compiler");
  EXPECT_TRUE(r.jobs[0].series.empty());  // not compared
  std::string text = to_text(r, false);
  EXPECT_NE(text.find("REFUSED"), std::string::npos);
  EXPECT_NE(text.find("compiler: A '12.2.1' vs B '13.2.1'"), std::string::npos);

  DiffOptions allow;
  allow.allow_mixed = true;
  DiffReport m = diff_runs(a, b, Tolerances::defaults(), allow);
  EXPECT_FALSE(m.refused);
  EXPECT_EQ(exit_code(m), kDiffBeyond);
  EXPECT_NE(to_text(m, false).find("mixed (allowed): compiler"), std::string::npos);
}

TEST(ReportDiff, EveryPinnedKeyIsChecked) {
  for (const std::string& key :
       {"harness", "compiler", "opt", "core", "tick", "kernel_version", "board", "unit", "fpu"}) {
    RunSnapshot a = basic(), b = basic();
    a.jobs[0].conditions[key] = "x";
    b.jobs[0].conditions[key] = "y";
    DiffReport r = diff_runs(a, b, Tolerances::defaults(), {});
    EXPECT_EQ(exit_code(r), kDiffRefusedMixed) << key;
    ASSERT_FALSE(r.jobs[0].mismatches.empty()) << key;
    EXPECT_EQ(r.jobs[0].mismatches[0].key, key);
  }
}

TEST(ReportDiff, CounterFrequencyIsACondition) {
  RunSnapshot a = basic(), b = basic();
  b.jobs[0].series[0].hz = 168000000;
  DiffReport r = diff_runs(a, b, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kDiffRefusedMixed);
  EXPECT_EQ(r.jobs[0].mismatches[0].key, "hz");
}

TEST(ReportDiff, JobsOnOneSideAreListed) {
  RunSnapshot a = basic(), b = basic();
  b.jobs.push_back(job("threadx-O2", {}));
  a.jobs.push_back(job("nuttx-O2", {}));
  DiffReport r = diff_runs(a, b, Tolerances::defaults(), {});
  EXPECT_EQ(r.only_in_b, std::vector<std::string>{"threadx-O2"});
  EXPECT_EQ(r.only_in_a, std::vector<std::string>{"nuttx-O2"});
  EXPECT_EQ(exit_code(r), kDiffWithin);
  std::string text = to_text(r, false);
  EXPECT_NE(text.find("jobs only in A: nuttx-O2"), std::string::npos);
  EXPECT_NE(text.find("jobs only in B: threadx-O2"), std::string::npos);
}

// Two runs without a job in common compare nothing: no verdict, exit 4.
TEST(ReportDiff, NoJobInCommonIsNotAVerdict) {
  RunSnapshot a = basic(), b = run("s", {job("threadx-O2", {})});
  DiffReport r = diff_runs(a, b, Tolerances::defaults(), {});
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(exit_code(r), kDiffNothingCompared);
  EXPECT_NE(to_text(r, false).find("result: nothing compared, no job is in both runs (exit 4)"),
            std::string::npos);
  EXPECT_EQ(to_json(r)["exit_code"], kDiffNothingCompared);
  EXPECT_EQ(exit_code(diff_runs(run("x", {}), run("y", {}), Tolerances::defaults(), {})),
            kDiffNothingCompared);
}

TEST(ReportDiff, StatusChangeAndVanishedSeriesAreBeyond) {
  RunSnapshot a = basic(), b = basic();
  b.jobs[0].status = "INVALID";
  EXPECT_EQ(exit_code(diff_runs(a, b, Tolerances::defaults(), {})), kDiffBeyond);
  RunSnapshot c = basic();
  c.jobs[0].series.pop_back();
  DiffReport r = diff_runs(a, c, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kDiffBeyond);
  EXPECT_NE(to_text(r, false).find("series only in A"), std::string::npos);
  RunSnapshot d = basic();
  d.jobs[0].series[0].values.erase("p99");
  DiffReport rd = diff_runs(a, d, Tolerances::defaults(), {});
  EXPECT_EQ(metric(rd, "wake_latency", "p99").verdict, Verdict::kBeyond);
}

TEST(ReportDiff, ZeroReferenceHasNoPercentage) {
  RunSnapshot a = basic(0), b = basic(1);
  const DiffReport r = diff_runs(a, b, Tolerances::defaults(), {});
  const MetricDiff& d = metric(r, "wake_latency", "median");
  EXPECT_FALSE(d.pct);
  EXPECT_EQ(d.verdict, Verdict::kWithin);  // abs 2
  EXPECT_EQ(format_pct(d.pct), "-");
}

TEST(ReportDiff, LoadsAreKeptPerLoadForTheSpread) {
  // Two real run directories whose jobs carry a `loads` array.
  auto dir = testrun::temp_dir("diff-loads");
  testrun::RunSpec spec;
  spec.id = "a";
  testrun::JobSpec j{"bare-O2-tick1000-fpu0", "bare"};
  j.series = testrun::kernel_series(1, 10, 32);
  j.loads = nlohmann::json::array({testrun::load_entry(1, {{"wake_latency", 118}}),
                                   testrun::load_entry(2, {{"wake_latency", 125}})});
  spec.jobs = {j};
  auto a = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(a.ok()) << a.error().message;
  spec.id = "b";
  spec.jobs[0].loads[1] = testrun::load_entry(2, {{"wake_latency", 131}});
  auto b = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(b.ok()) << b.error().message;
  DiffReport r = diff_runs(snapshot_of(*a), snapshot_of(*b), Tolerances::defaults(), {});
  EXPECT_EQ(r.jobs[0].loads_a, 2u);
  const MetricDiff& d = metric(r, "wake_latency", "median");
  EXPECT_EQ(d.verdict, Verdict::kIdentical);  // the job's own figures did not move
  EXPECT_EQ(d.a_loads, (std::vector<double>{118, 125}));
  EXPECT_EQ(d.b_loads, (std::vector<double>{118, 131}));
  nlohmann::json js = to_json(r);
  EXPECT_EQ(js["jobs"][0]["loads"]["a"], 2);
  bool found = false;
  for (const auto& s : js["jobs"][0]["series"]) {
    for (const auto& m : s["statistics"]) {
      if (s["name"] == "wake_latency" && m["statistic"] == "median") {
        EXPECT_EQ(m["loads"]["b"][1], 131);
        found = true;
      }
    }
  }
  EXPECT_TRUE(found);
  std::filesystem::remove_all(dir);
}

// A series the board cannot measure is compared and shown, but its change
// never decides the verdict.
TEST(ReportDiff, NotMeasuredSeriesNeverDecideTheVerdict) {
  auto make = [](double entry, double wake) {
    SeriesValues e = series("idle", "irq_entry", {{"n", 100}, {"median", entry}});
    e.unjudged = "not a measurement on this bench: QEMU charges nothing for exception entry";
    return run(
        "r", {job("freertos-O2", {series("", "wake_latency", {{"n", 100}, {"median", wake}}), e})});
  };
  const Tolerances tol = Tolerances::defaults();
  DiffReport r = diff_runs(make(5, 120), make(500, 120), tol, {});
  EXPECT_EQ(r.verdict, Verdict::kIdentical);
  EXPECT_EQ(exit_code(r), kDiffIdentical);
  EXPECT_EQ(metric(r, "idle/irq_entry", "median").verdict, Verdict::kBeyond);
  EXPECT_EQ(r.jobs.front().series.back().unjudged,
            "not a measurement on this bench: QEMU charges nothing for exception entry");
  std::string text = to_text(r, false);
  EXPECT_NE(text.find("idle/irq_entry"), std::string::npos);
  EXPECT_NE(
      text.find("not judged (changed): not a measurement on this bench: QEMU charges nothing"),
      std::string::npos);
  // Unchanged, it is left out unless every row is asked for.
  DiffReport same = diff_runs(make(5, 120), make(5, 120), tol, {});
  EXPECT_EQ(to_text(same, false).find("not a measurement"), std::string::npos);
  EXPECT_NE(to_text(same, true).find("idle/irq_entry"), std::string::npos);
  EXPECT_EQ(to_json(r)["jobs"][0]["series"][1]["unjudged"],
            "not a measurement on this bench: QEMU charges nothing for exception entry");
  // The measured series still decides.
  DiffReport w = diff_runs(make(5, 120), make(500, 200), tol, {});
  EXPECT_EQ(w.verdict, Verdict::kBeyond);
}

// UNSTABLE (issue 29 item 3): a series the bench itself moves, however far
// it moved, is shown with its medians and marked, never a verdict.
TEST(ReportDiff, UnstableSeriesAreShownMarkedAndNeverJudged) {
  auto make = [](double wake_wfi) {
    SeriesValues u = series("wfi", "sleep_wake", {{"n", 100}, {"median", wake_wfi}, {"p99", 900}});
    u.unjudged = "unstable on this bench: QEMU 7.2 may warp virtual time";
    return run("r",
               {job("mbedos-O2", {series("", "wake_latency", {{"n", 100}, {"median", 120}}), u})});
  };
  const Tolerances tol = Tolerances::defaults();
  for (double b : {996.0, 100.0}) {  // far worse, then far better
    DiffReport r = diff_runs(make(296), make(b), tol, {});
    EXPECT_EQ(r.verdict, Verdict::kIdentical) << b;
    EXPECT_EQ(exit_code(r), kDiffIdentical);
    const std::string text = to_text(r, false);
    EXPECT_NE(text.find("not judged (changed): unstable on this bench"), std::string::npos) << text;
    // Its median A and B are shown.
    const size_t at = text.find("  wfi/sleep_wake ");
    ASSERT_NE(at, std::string::npos) << text;
    const std::string row = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(row.find(" median "), std::string::npos) << row;
    EXPECT_NE(row.find(" 296 "), std::string::npos) << row;
    EXPECT_NE(row.find(fmt::format(" {} ", b)), std::string::npos) << row;
    EXPECT_EQ(text.find("BEYOND"), std::string::npos) << text;
    // Not counted among the statistics judged.
    EXPECT_NE(text.find("statistics: 2 identical, 0 within, 0 beyond"), std::string::npos) << text;
    const auto js = to_json(r);
    EXPECT_EQ(js["verdict"], "identical");
    EXPECT_EQ(js["jobs"][0]["verdict"], "identical");
    EXPECT_EQ(js["jobs"][0]["series"][1]["verdict"], "not judged");
    EXPECT_EQ(js["jobs"][0]["series"][1]["changed"], true);
    for (const auto& m : js["jobs"][0]["series"][1]["statistics"])
      EXPECT_EQ(m["verdict"], "not judged");
    EXPECT_EQ(js["jobs"][0]["series"][0]["verdict"], "identical");
  }
  // The same change on a series the board measures decides.
  RunSnapshot a = make(296), b = make(996);
  a.jobs[0].series[1].unjudged.clear();
  b.jobs[0].series[1].unjudged.clear();
  EXPECT_EQ(diff_runs(a, b, tol, {}).verdict, Verdict::kBeyond);
  // Marked in either run is enough: the record of each run is its truth.
  RunSnapshot only_b = make(996);
  EXPECT_EQ(diff_runs(a, only_b, tol, {}).verdict, Verdict::kIdentical);
  EXPECT_EQ(diff_runs(only_b, a, tol, {}).verdict, Verdict::kIdentical);
}

TEST(ReportDiff, JsonCarriesVerdictsAndExitCode) {
  nlohmann::json j = to_json(diff_runs(basic(120), basic(130), Tolerances::defaults(), {}));
  EXPECT_EQ(j["exit_code"], kDiffBeyond);
  EXPECT_EQ(j["verdict"], "beyond tolerance");
  EXPECT_EQ(j["jobs"][0]["series"][0]["statistics"][1]["statistic"], "median");
  EXPECT_EQ(j["jobs"][0]["series"][0]["statistics"][1]["a"], 120);
  EXPECT_EQ(j["jobs"][0]["series"][0]["statistics"][1]["b"], 130);
}

}  // namespace
}  // namespace rb::report
