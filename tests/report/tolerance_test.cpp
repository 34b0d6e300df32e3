#include "report/tolerance.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

#include "report/snapshot.h"
#include "run_fixture.h"

namespace rb::report {
namespace {

TEST(ReportTolerance, AllowedIsTheLargerOfAbsoluteAndRelative) {
  Tolerance t{2, 5, false};
  EXPECT_DOUBLE_EQ(t.allowed(10), 2);     // 5 % of 10 is 0.5
  EXPECT_DOUBLE_EQ(t.allowed(1000), 50);  // 5 % of 1000
  EXPECT_DOUBLE_EQ(t.allowed(-1000), 50);
  EXPECT_EQ(t.describe(), "abs 2, 5%");
  EXPECT_EQ((Tolerance{0, 0, true}).describe(), "off");
}

TEST(ReportTolerance, DefaultsCoverEveryStatistic) {
  Tolerances t = Tolerances::defaults();
  EXPECT_EQ(t.origin(), "built-in defaults");
  for (const auto& m : metric_defs()) {
    Tolerance x = t.lookup("api_overhead", "api_overhead", m.name);
    EXPECT_FALSE(x.off) << m.name;
  }
  EXPECT_DOUBLE_EQ(t.lookup("x", "x", "median").abs, 2);
  EXPECT_DOUBLE_EQ(t.lookup("x", "x", "median").pct, 2);
  EXPECT_DOUBLE_EQ(t.lookup("x", "x", "n").abs, 0);
}

TEST(ReportTolerance, OverridesMergeFieldByFieldSeriesOverTestOverDefault) {
  Tolerances t = Tolerances::defaults();
  auto s = t.merge_yaml(YAML::Load(R"(
default:
  median: {abs: 3}
  stddev: off
tests:
  irq_latency:
    median: {pct: "10%"}
    p99: {abs: 7, pct: 8}
  busy/event_to_task:
    median: {abs: 50}
)"),
                        "m.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(t.origin(), "m.yaml (tolerances:)");
  Tolerance d = t.lookup("api_overhead", "api_overhead", "median");
  EXPECT_DOUBLE_EQ(d.abs, 3);  // default abs replaced
  EXPECT_DOUBLE_EQ(d.pct, 2);  // default pct kept
  Tolerance irq = t.lookup("irq_latency", "idle/event_to_task", "median");
  EXPECT_DOUBLE_EQ(irq.abs, 3);
  EXPECT_DOUBLE_EQ(irq.pct, 10);
  Tolerance busy = t.lookup("irq_latency", "busy/event_to_task", "median");
  EXPECT_DOUBLE_EQ(busy.abs, 50);
  EXPECT_DOUBLE_EQ(busy.pct, 10);
  EXPECT_TRUE(t.lookup("x", "x", "stddev").off);
  // Giving values switches an `off` statistic back on for that test.
  ASSERT_TRUE(t.merge_yaml(YAML::Load("tests: {queue: {stddev: {abs: 9}}}"), "m.yaml").ok());
  EXPECT_FALSE(t.lookup("queue", "queue", "stddev").off);
  EXPECT_TRUE(t.lookup("mutex", "mutex_lock_unlock", "stddev").off);
}

TEST(ReportTolerance, ProblemsAreAllReportedWithTheirPlace) {
  Tolerances t = Tolerances::defaults();
  auto s = t.merge_yaml(YAML::Load(R"(default:
  median: {abs: 9}
  medain: {abs: 1}
  p99: {abs: -1, pcnt: 3}
tests:
  wake_latency: {max: {off: maybe}}
limits: 1
)"),
                        "m.yaml");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_NE(m.find("m.yaml:3:3: unknown statistic 'medain'"), std::string::npos) << m;
  EXPECT_NE(m.find("tolerances.default.p99.abs must be a non-negative number, not '-1'"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("unknown key 'pcnt'"), std::string::npos) << m;
  EXPECT_NE(m.find("off must be true or false"), std::string::npos) << m;
  EXPECT_NE(m.find("m.yaml:7:1: unknown key 'limits' in tolerances"), std::string::npos) << m;
  // Nothing of a rejected mapping is merged.
  EXPECT_DOUBLE_EQ(t.lookup("wake_latency", "wake_latency", "median").abs, 2);
  EXPECT_EQ(t.origin(), "built-in defaults");
}

TEST(ReportTolerance, FromMatrixFileAndFromTolerancesFile) {
  auto dir = testrun::temp_dir("tolerance");
  std::ofstream(dir / "matrix.yaml")
      << "matrix: x\nkernels: [{name: bare}]\ntolerances:\n  default:\n    median: {pct: 7}\n";
  auto m = tolerances_from_matrix(dir / "matrix.yaml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ(m->lookup("a", "a", "median").pct, 7);
  std::ofstream(dir / "plain.yaml") << "matrix: x\n";
  auto p = tolerances_from_matrix(dir / "plain.yaml");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->origin(), "built-in defaults");
  std::ofstream(dir / "tol.yaml") << "tests:\n  wake_latency:\n    median: {abs: 0, pct: 0}\n";
  auto f = load_tolerances_file(dir / "tol.yaml");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_DOUBLE_EQ(f->lookup("wake_latency", "wake_latency", "median").abs, 0);
  EXPECT_DOUBLE_EQ(f->lookup("wake_latency", "wake_latency", "median").pct, 0);
  auto missing = load_tolerances_file(dir / "nope.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot read"), std::string::npos);
  std::ofstream(dir / "broken.yaml") << "tests: [\n";
  auto broken = load_tolerances_file(dir / "broken.yaml");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("broken.yaml:"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::report
