// Seed 003's protocol lines verbatim: a V1 log with RESULTs and no RAW. It
// must parse completely and be reported "unverified" (exit 3), integrity
// unchecked, with every field the article printed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "verify/verify.h"

namespace {

using rb::verify::Outcome;

const rb::verify::Report& seed() {
  static const rb::verify::Report r = [] {
    auto x = rb::verify::verify_file(std::string(RTOSBENCH_TEST_DATA) + "/verify/seed003.log", {});
    if (!x.ok()) throw std::runtime_error(x.error().message);
    return std::move(*x);
  }();
  return r;
}

std::string reported(const rb::verify::SeriesStats& s, const std::string& key) {
  for (const auto& [k, v] : s.reported) {
    if (k == key) return v;
  }
  return "<missing>";
}

TEST(Seed003, UnverifiedWithIntegrityUnchecked) {
  const auto& r = seed();
  EXPECT_EQ(r.outcome, Outcome::kUnverified);
  EXPECT_EQ(rb::verify::exit_code(r.outcome), 3);
  EXPECT_EQ(r.protocol, "RTOS_BENCH_V1");
  EXPECT_FALSE(r.integrity_checked);
  EXPECT_EQ(r.lines, 16u);
  EXPECT_EQ(r.protocol_lines, 16u);
  EXPECT_EQ(r.other_lines, 0u);
  size_t unverified = 0, unchecked = 0;
  for (const auto& v : r.verdicts) {
    EXPECT_EQ(v.severity, Outcome::kUnverified) << v.check;
    unverified += v.check == "unverified";
    unchecked += v.check == "integrity_unchecked";
  }
  EXPECT_EQ(unverified, 9u);  // one per RESULT
  EXPECT_EQ(unchecked, 1u);
}

TEST(Seed003, ConfigAndEnd) {
  const auto& r = seed();
  const std::map<std::string, std::string> want = {
      {"core", "250000000"}, {"tick", "1000"}, {"preempt", "1"},
      {"slicing", "1"},      {"fpu", "0"},     {"compiler", "14.2.1 20241119"},
      {"ICACHE", "1"}};
  EXPECT_EQ(r.config, want);
  EXPECT_EQ(r.dwt_read_pair, 1u);
  EXPECT_EQ(r.end_fields,
            (std::map<std::string, std::string>{{"heap_free", "122760"}, {"min_heap", "118440"}}));
  EXPECT_EQ(r.unit, "ticks");
}

TEST(Seed003, EverySeriesWithItsPhaseAndFields) {
  const auto& r = seed();
  struct Want {
    const char* phase;
    const char* name;
    uint64_t n, min, avg, p99, max;
    const char* min_ns;
    const char* avg_ns;
    const char* p99_ns;
    const char* max_ns;
  };
  const Want want[] = {
      {"", "slice_A_B", 2047, 249998, 250000, 250002, 250002, "999992", "1000000", "1000008",
       "1000008"},
      {"", "notify_preempt", 1000, 373, 373, 373, 508, "1492", "1493", "1492", "2032"},
      {"", "notify_block", 1000, 685, 685, 685, 834, "2740", "2742", "2740", "3336"},
      {"idle", "irq_entry", 2048, 26, 26, 26, 45, "104", "104", "104", "180"},
      {"idle", "event_to_task", 2048, 466, 466, 466, 632, "1864", "1866", "1864", "2528"},
      {"busy", "irq_entry", 2048, 21, 25, 26, 33, "84", "103", "104", "132"},
      {"busy", "event_to_task", 2048, 461, 466, 466, 602, "1844", "1866", "1864", "2408"},
      {"critical20us", "irq_entry", 2048, 26, 78, 2519, 5019, "104", "313", "10076", "20076"},
      {"critical20us", "event_to_task", 2048, 463, 517, 2956, 5456, "1852", "2068", "11824",
       "21824"},
  };
  ASSERT_EQ(r.series.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    const auto& s = r.series[i];
    const Want& w = want[i];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.phase, w.phase);
    EXPECT_EQ(s.name, w.name);
    EXPECT_FALSE(s.has_raw);
    EXPECT_TRUE(s.has_result);
    EXPECT_EQ(s.n, w.n);
    EXPECT_EQ(s.hz, 250000000u);
    EXPECT_EQ(s.min, w.min);
    EXPECT_EQ(s.avg_ticks, w.avg);
    EXPECT_EQ(s.p99, w.p99);
    EXPECT_EQ(s.max, w.max);
    EXPECT_EQ(reported(s, "min_ns"), w.min_ns);
    EXPECT_EQ(reported(s, "avg_ns"), w.avg_ns);
    EXPECT_EQ(reported(s, "p99_ns"), w.p99_ns);
    EXPECT_EQ(reported(s, "max_ns"), w.max_ns);
    EXPECT_EQ(s.reported.size(), 10u);
    EXPECT_TRUE(s.not_checked.empty());
  }
}

TEST(Seed003, PhasesAreCheckedAgainstTheirResults) {
  const auto& r = seed();
  ASSERT_EQ(r.phases.size(), 3u);
  EXPECT_EQ(r.phases[0].name, "idle");
  EXPECT_EQ(r.phases[1].name, "busy");
  EXPECT_EQ(r.phases[2].name, "critical20us");
  for (const auto& p : r.phases) {
    EXPECT_EQ(p.irq, 2048u);
    EXPECT_EQ(p.task, 2048u);
    EXPECT_EQ(p.bad, 0u);
    EXPECT_EQ(p.status, "OK");
  }
  EXPECT_EQ(r.phases[0].line, 7u);
  EXPECT_EQ(r.phases[2].line, 13u);
}

TEST(Seed003, JsonCarriesTheVerdictAndTheFirmwareFigures) {
  const auto j = rb::verify::to_json(seed());
  EXPECT_EQ(j["outcome"], "unverified");
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["integrity_checked"], false);
  EXPECT_EQ(j["series"][4]["reported"]["avg_ns"], "1866");
  EXPECT_TRUE(j["series"][4]["ticks"].is_null());  // nothing re-derived
  EXPECT_EQ(j["series"][4]["phase"], "idle");
}

}  // namespace
