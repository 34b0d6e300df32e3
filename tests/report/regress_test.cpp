#include "report/regress.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "report/snapshot.h"
#include "run_fixture.h"

namespace rb::report {
namespace {

SeriesValues series(const std::string& name, std::map<std::string, double> values) {
  SeriesValues s;
  s.name = name;
  s.test = test_of_series(name);
  s.hz = 1000000000;
  s.values = std::move(values);
  return s;
}

JobSnapshot job(const std::string& id, std::vector<SeriesValues> s,
                const std::string& status = "OK") {
  JobSnapshot j;
  j.id = id;
  j.status = status;
  j.unit = "instructions";
  j.conditions = {{"compiler", "12.2.1"}, {"opt", "-O2 -g0"}, {"unit", "instructions"}};
  j.series = std::move(s);
  return j;
}

RunSnapshot run(const std::string& id, std::vector<JobSnapshot> jobs) {
  RunSnapshot r;
  r.id = id;
  r.source = id;
  r.jobs = std::move(jobs);
  return r;
}

RunSnapshot one(double median, double max = 200, double n = 100) {
  return run("r", {job("freertos",
                       {series("wake_latency", {{"n", n}, {"median", median}, {"max", max}})})});
}

const RegressCase* find(const RegressReport& r, const std::string& job, const std::string& name) {
  for (const auto& c : r.cases) {
    if (c.job_id == job && c.name == name) return &c;
  }
  return nullptr;
}

TEST(ReportRegress, IdenticalPasses) {
  RegressReport r = regress(one(120), one(120), Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressPass);
  EXPECT_EQ(r.failures(), 0u);
  // One case for the job's status, one per checked statistic present.
  EXPECT_EQ(r.cases.size(), 4u);
  EXPECT_TRUE(find(r, "freertos", "status"));
  EXPECT_TRUE(find(r, "freertos", "wake_latency.median"));
}

TEST(ReportRegress, WorseBeyondToleranceFails) {
  RegressReport r = regress(one(120), one(140), Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressFail);
  const RegressCase* c = find(r, "freertos", "wake_latency.median");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->outcome, CaseOutcome::kRegression);
  EXPECT_EQ(*c->baseline, 120);
  EXPECT_EQ(*c->current, 140);
  EXPECT_NE(c->message.find("120 instructions -> 140 instructions (+20, +16.67%)"),
            std::string::npos)
      << c->message;
}

TEST(ReportRegress, BetterBeyondToleranceIsReportedButPasses) {
  RegressReport r = regress(one(140), one(120), Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressPass);
  EXPECT_EQ(find(r, "freertos", "wake_latency.median")->outcome, CaseOutcome::kImproved);
  EXPECT_NE(to_markdown(r).find("Improved beyond tolerance"), std::string::npos);
}

TEST(ReportRegress, WithinTolerancePasses) {
  RegressReport r =
      regress(one(120, 200), one(122, 240), Tolerances::defaults(), {});  // max: 25 % of 200 = 50
  EXPECT_EQ(exit_code(r), kRegressPass);
  EXPECT_EQ(find(r, "freertos", "wake_latency.max")->outcome, CaseOutcome::kPass);
}

TEST(ReportRegress, FewerSamplesIsARegression) {
  RegressReport r = regress(one(120, 200, 100), one(120, 200, 90), Tolerances::defaults(), {});
  EXPECT_EQ(find(r, "freertos", "wake_latency.n")->outcome, CaseOutcome::kRegression);
}

TEST(ReportRegress, OffStatisticsAreNotCases) {
  Tolerances t = Tolerances::defaults();
  ASSERT_TRUE(t.merge_yaml(YAML::Load("default: {max: off}"), "t").ok());
  RegressReport r = regress(one(120, 200), one(120, 900), t, {});
  EXPECT_EQ(exit_code(r), kRegressPass);
  EXPECT_FALSE(find(r, "freertos", "wake_latency.max"));
}

TEST(ReportRegress, MissingAndInvalidJobsFail) {
  RunSnapshot base = run("b", {job("freertos", {series("wake_latency", {{"median", 1}})}),
                               job("threadx", {series("wake_latency", {{"median", 1}})}),
                               job("zephyr", {series("wake_latency", {{"median", 1}})})});
  RunSnapshot cur = run("c", {job("freertos", {}, "INVALID"), job("nuttx", {})});
  cur.jobs[0].reason = "PHASE idle: irq=64 but task=61";
  cur.unfinished = {"zephyr"};
  RegressReport r = regress(base, cur, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressFail);
  EXPECT_EQ(find(r, "freertos", "status")->outcome, CaseOutcome::kInvalid);
  EXPECT_NE(find(r, "freertos", "status")->message.find("INVALID: PHASE idle"), std::string::npos);
  EXPECT_NE(find(r, "threadx", "status")->message.find("missing"), std::string::npos);
  EXPECT_NE(find(r, "zephyr", "status")->message.find("did not finish"), std::string::npos);
  EXPECT_EQ(r.new_jobs, std::vector<std::string>{"nuttx"});
}

TEST(ReportRegress, KnownAbsenceAndBaselineFailures) {
  RunSnapshot base = run("b", {job("px5", {}, "PORT_MISSING"), job("threadx", {}, "TIMEOUT")});
  RunSnapshot cur = run("c", {job("px5", {}, "PORT_MISSING"),
                              job("threadx", {series("wake_latency", {{"median", 1}})})});
  // With a job that has figures in the baseline, the others are skipped or pass.
  base.jobs.push_back(one(120).jobs[0]);
  cur.jobs.push_back(one(120).jobs[0]);
  RegressReport r = regress(base, cur, Tolerances::defaults(), {});
  EXPECT_EQ(find(r, "px5", "status")->outcome, CaseOutcome::kPass);
  EXPECT_EQ(find(r, "threadx", "status")->outcome, CaseOutcome::kSkipped);
  EXPECT_EQ(exit_code(r), kRegressPass);
  EXPECT_NE(to_junit(r).find("<skipped message="), std::string::npos);
}

// A job whose logic analyzer failed (its DWT capture verified OK) fails the
// gate by its status, and its figures are still compared, both ways.
TEST(ReportRegress, AnalyzerFailureFailsAndStillComparesTheFigures) {
  RunSnapshot base = one(120);
  RunSnapshot cur = one(200);
  cur.jobs[0].status = "ANALYZER_MISSING";
  cur.jobs[0].reason = "sigrok-cli found no fx2lafw device";
  RegressReport r = regress(base, cur, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressFail);
  ASSERT_TRUE(find(r, "freertos", "status"));
  EXPECT_EQ(find(r, "freertos", "status")->outcome, CaseOutcome::kInvalid);
  EXPECT_NE(find(r, "freertos", "status")->message.find("ANALYZER_MISSING"), std::string::npos);
  const RegressCase* m = find(r, "freertos", "wake_latency.median");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->outcome, CaseOutcome::kRegression);  // 120 -> 200
  // As a baseline, such a job has figures to compare against.
  RegressReport back = regress(cur, one(200), Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(back), kRegressPass);
  EXPECT_TRUE(has_figures(cur));
}

// A baseline without a single OK job with figures checks nothing: that is a
// failure of its own, never a pass.
TEST(ReportRegress, AnEmptyBaselineFails) {
  RunSnapshot base = run("b", {job("px5", {}, "PORT_MISSING"), job("threadx", {}, "TIMEOUT")});
  RunSnapshot cur = run("c", {job("px5", {}, "PORT_MISSING"),
                              job("threadx", {series("wake_latency", {{"median", 1}})})});
  RegressReport r = regress(base, cur, Tolerances::defaults(), {});
  EXPECT_TRUE(r.empty_baseline);
  EXPECT_EQ(exit_code(r), kRegressEmptyBaseline);
  EXPECT_NE(to_text(r).find("FAIL, the baseline has no job with figures (exit 4)"),
            std::string::npos)
      << to_text(r);
  EXPECT_NE(to_markdown(r).find("# rtosbench regress: FAIL"), std::string::npos);
  RegressReport none = regress(run("b", {}), cur, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(none), kRegressEmptyBaseline);
  EXPECT_FALSE(has_figures(base));
  EXPECT_TRUE(has_figures(cur));
}

TEST(ReportRegress, VanishedSeriesNamesTheNotApplicableReason) {
  RunSnapshot base = one(120);
  RunSnapshot cur = run("c", {job("freertos", {})});
  cur.jobs[0].not_applicable = {{"wake_latency", "no preemption in this build"}};
  RegressReport r = regress(base, cur, Tolerances::defaults(), {});
  const RegressCase* c = find(r, "freertos", "wake_latency");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->outcome, CaseOutcome::kRegression);
  EXPECT_NE(c->message.find("n/a: no preemption in this build"), std::string::npos);
}

// Not a measurement on this bench: one case not judged, with the reason,
// never a regression, however far its figures move.
TEST(ReportRegress, NotMeasuredSeriesAreNotJudgedNotRegressions) {
  auto make = [](double slice) {
    SeriesValues s = series("time_slice", {{"n", 200}, {"median", slice}});
    s.unjudged = "not a measurement on this bench: QEMU ends every slice on the tick";
    return run("r", {job("freertos", {series("wake_latency", {{"n", 100}, {"median", 120}}), s})});
  };
  const Tolerances tol = Tolerances::defaults();
  RegressReport r = regress(make(1000000), make(2000000), tol, {});
  EXPECT_EQ(exit_code(r), kRegressPass);
  EXPECT_EQ(r.count(CaseOutcome::kRegression), 0u);
  const RegressCase* c = find(r, "freertos", "time_slice");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outcome, CaseOutcome::kNotJudged);
  EXPECT_NE(c->message.find("not judged: not a measurement on this bench: QEMU ends"),
            std::string::npos);
  EXPECT_EQ(find(r, "freertos", "time_slice.median"), nullptr);
  EXPECT_NE(to_junit(r).find("<skipped message=\"not judged: not a measurement"),
            std::string::npos);
  // Without the mark the same change is a regression.
  RunSnapshot a = make(1000000), b = make(2000000);
  a.jobs[0].series[1].unjudged.clear();
  b.jobs[0].series[1].unjudged.clear();
  EXPECT_EQ(exit_code(regress(a, b, tol, {})), kRegressFail);
}

// UNSTABLE (issue 29 item 3): never judged, neither a failure nor a pass,
// shown as not judged with both medians in every rendering.
TEST(ReportRegress, UnstableSeriesAreShownAsNotJudged) {
  auto make = [](double wake) {
    SeriesValues s = series("sleep_wake", {{"n", 100}, {"median", wake}});
    s.phase = "wfi";
    s.unjudged = "unstable on this bench: QEMU 7.2 may warp virtual time";
    return run("r", {job("mbedos", {series("wake_latency", {{"n", 100}, {"median", 120}}), s})});
  };
  const Tolerances tol = Tolerances::defaults();
  for (double now : {996.0, 100.0, 296.0}) {  // worse, better, equal
    RegressReport r = regress(make(296), make(now), tol, {});
    EXPECT_EQ(exit_code(r), kRegressPass) << now;
    EXPECT_EQ(r.count(CaseOutcome::kRegression), 0u);
    EXPECT_EQ(r.count(CaseOutcome::kImproved), 0u);
    EXPECT_EQ(r.count(CaseOutcome::kNotJudged), 1u);
    const RegressCase* c = find(r, "mbedos", "wfi/sleep_wake");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->outcome, CaseOutcome::kNotJudged);
    EXPECT_FALSE(is_failure(c->outcome));
    EXPECT_NE(c->outcome, CaseOutcome::kPass);
    ASSERT_TRUE(c->baseline && c->current);
    EXPECT_EQ(*c->baseline, 296);
    EXPECT_EQ(*c->current, now);
    // No statistic case of it: it is judged on none of them.
    EXPECT_EQ(find(r, "mbedos", "wfi/sleep_wake.median"), nullptr);
    const std::string md = to_markdown(r);
    EXPECT_NE(md.find("| not judged |"), std::string::npos) << md;
    EXPECT_NE(md.find("## Not judged"), std::string::npos) << md;
    EXPECT_NE(
        md.find(fmt::format("| mbedos | wfi/sleep_wake | 296 instructions | {} instructions", now)),
        std::string::npos)
        << md;
    EXPECT_EQ(md.find("## Regressions"), std::string::npos);
    EXPECT_EQ(md.find("## Improved"), std::string::npos);
    EXPECT_NE(to_text(r).find("NOT JUDGED  mbedos wfi/sleep_wake: not judged: unstable"),
              std::string::npos)
        << to_text(r);
    const std::string junit = to_junit(r);
    EXPECT_NE(junit.find("<skipped message=\"not judged: unstable on this bench"),
              std::string::npos);
    EXPECT_EQ(junit.find("<failure"), std::string::npos);
  }
}

TEST(ReportRegress, MixedConditionsAreRefused) {
  RunSnapshot cur = one(120);
  cur.jobs[0].conditions["opt"] = "-Os -g0";
  RegressReport r = regress(one(120), cur, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressRefusedMixed);
  const RegressCase* c = find(r, "freertos", "conditions");
  ASSERT_TRUE(c);
  EXPECT_NE(c->message.find("opt: baseline '-O2 -g0' vs run '-Os -g0'"), std::string::npos);
  RegressOptions allow;
  allow.allow_mixed = true;
  RegressReport m = regress(one(120), cur, Tolerances::defaults(), allow);
  EXPECT_EQ(exit_code(m), kRegressPass);
}

TEST(ReportRegress, JunitHoldsOneCasePerStatisticAndBothValuesOnFailure) {
  RegressReport r = regress(one(120), one(140), Tolerances::defaults(), {});
  std::string x = to_junit(r);
  size_t cases = 0;
  for (size_t p = x.find("<testcase "); p != std::string::npos; p = x.find("<testcase ", p + 1))
    ++cases;
  EXPECT_EQ(cases, r.cases.size());
  EXPECT_NE(x.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(x.find("name=\"wake_latency.median\""), std::string::npos);
  EXPECT_NE(x.find("<failure type=\"regression\""), std::string::npos);
  EXPECT_NE(x.find("baseline=120\ncurrent=140"), std::string::npos);
  // Names with XML specials stay well formed.
  RunSnapshot weird = one(120);
  weird.jobs[0].id = "a<b>&\"c\"";
  std::string w = to_junit(regress(weird, weird, Tolerances::defaults(), {}));
  EXPECT_NE(w.find("a&lt;b&gt;&amp;&quot;c&quot;"), std::string::npos);
  EXPECT_EQ(w.find("a<b>"), std::string::npos);
}

TEST(ReportRegress, BaselineFileRoundTrip) {
  auto dir = testrun::temp_dir("regress-baseline");
  auto root = testrun::write_run(
      dir, testrun::standard_run("20260101T000000Z-fixture", "2026-01-01T00:00:00Z"));
  auto snap = load_run_or_baseline(root);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  std::ofstream(dir / "baseline.json") << baseline_json(*snap, "2026-01-02T00:00:00Z").dump(2);
  auto base = load_run_or_baseline(dir / "baseline.json");
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_TRUE(base->is_baseline);
  EXPECT_EQ(base->id, "20260101T000000Z-fixture");
  ASSERT_EQ(base->jobs.size(), snap->jobs.size());
  for (size_t i = 0; i < base->jobs.size(); ++i) {
    EXPECT_EQ(base->jobs[i].series.size(), snap->jobs[i].series.size());
    for (size_t s = 0; s < base->jobs[i].series.size(); ++s) {
      EXPECT_EQ(base->jobs[i].series[s].values, snap->jobs[i].series[s].values);
    }
  }
  // The same run against its own baseline: only the job that never built fails.
  RegressReport r = regress(*base, *snap, Tolerances::defaults(), {});
  EXPECT_EQ(r.count(CaseOutcome::kRegression), 0u);
  EXPECT_EQ(r.count(CaseOutcome::kInvalid), 1u);
  EXPECT_EQ(find(r, "nuttx-O2-tick1000-fpu0", "status")->outcome, CaseOutcome::kInvalid);

  // A baseline file from the future, or with an unknown statistic, is refused.
  nlohmann::json j = baseline_json(*snap, "x");
  j["schema_version"] = 99;
  std::ofstream(dir / "future.json") << j.dump();
  auto f = load_run_or_baseline(dir / "future.json");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("newer"), std::string::npos);
  j = baseline_json(*snap, "x");
  j["jobs"][0]["series"][0]["values"]["p42"] = 1;
  std::ofstream(dir / "odd.json") << j.dump();
  auto o = load_run_or_baseline(dir / "odd.json");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("unknown statistic 'p42'"), std::string::npos);
  EXPECT_EQ(o.error().kind, ErrorKind::kBadInput);
  j = baseline_json(*snap, "x");
  j["jobs"][0]["series"][0]["values"]["median"] = "fast";
  std::ofstream(dir / "text.json") << j.dump();
  auto t = load_run_or_baseline(dir / "text.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("statistic 'median' is not a number"), std::string::npos)
      << t.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::report
