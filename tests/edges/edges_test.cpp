// rb::edges: the VCD reader and the pairing of EDGE PROTOCOL v1 (grid
// positions, missing and extra edges, overflow), on hand-made captures.
#include "edges/edges.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

using rb::edges::Capture;
using rb::edges::Edge;
using rb::edges::Job;
using rb::edges::Status;

constexpr int64_t kNs = 1000;  // ps per ns

using rb::edges::Kind;

// A job of one event series (hz 1 GHz) with the given samples: wake_latency
// (kOrdered) or event_to_task@idle (kGrid).
Job event_job(std::vector<uint64_t> samples, Kind kind = Kind::kOrdered) {
  Job j;
  j.config = {{"edges", "on"}, {"core", "168000000"}};
  if (kind == Kind::kOrdered)
    j.series.push_back({"", "wake_latency", kind, 1000000000, std::move(samples)});
  else
    j.series.push_back({"idle", "event_to_task", kind, 1000000000, std::move(samples)});
  return j;
}

// EV rises every 10 us from 20 us (plus `wobble` ns * (i % 3): off any
// grid), TK `lat + 30` ns later; both fall at +5 us.
Capture event_capture(const std::vector<uint64_t>& lat, int skip_ev = -1, int extra_after = -1,
                      int64_t wobble = 0) {
  Capture c;
  c.samplerate = 100000000;
  c.mk.push_back({1000 * kNs, true});
  for (size_t i = 0; i < lat.size(); ++i) {
    const int64_t ev =
        (20000 + 10000 * static_cast<int64_t>(i) + wobble * static_cast<int64_t>(i % 3)) * kNs;
    if (static_cast<int>(i) != skip_ev) c.ev.push_back({ev, true});
    c.tk.push_back({ev + static_cast<int64_t>(lat[i] + 30) * kNs, true});
    if (static_cast<int>(i) != skip_ev) c.ev.push_back({ev + 5000 * kNs, false});
    c.tk.push_back({ev + 5000 * kNs, false});
    if (static_cast<int>(i) == extra_after) {
      c.ev.push_back({ev + 6000 * kNs, true});
      c.ev.push_back({ev + 6100 * kNs, false});
    }
  }
  const int64_t end = (20000 + 10000 * static_cast<int64_t>(lat.size())) * kNs;
  c.mk.push_back({end, false});
  c.end_ps = end + 1000 * kNs;
  return c;
}

TEST(Edges, AgreeingCaptureAgrees) {
  std::vector<uint64_t> lat(50, 200);
  auto a = rb::edges::analyze(event_capture(lat), event_job(lat), {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->series.size(), 1u);
  EXPECT_EQ(a->status, Status::kAgree);
  EXPECT_EQ(a->series[0].paired, 50u);
  EXPECT_DOUBLE_EQ(a->series[0].diff_ns.median, 30.0);
  EXPECT_DOUBLE_EQ(a->series[0].diff_median_cycles, 30.0 * 0.168);
  EXPECT_DOUBLE_EQ(a->tolerance_ns, 2 * 10.0 + 50.0);  // 2 samples at 100 MHz + GPIO latency
}

TEST(Edges, OneSampleBeyondToleranceDisagreesWithBothFigures) {
  std::vector<uint64_t> lat(50, 200), dwt = lat;
  dwt[17] = 100;  // the DWT saw 130 ns less than the pins
  auto a = rb::edges::analyze(event_capture(lat), event_job(dwt), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kDisagree);
  EXPECT_EQ(a->series[0].beyond, 1u);
  EXPECT_EQ(a->series[0].worst_seq, 17);
  EXPECT_DOUBLE_EQ(a->series[0].worst_diff_ns, 130.0);
}

TEST(Edges, MissingEvEdgeIsFoundByGridPositionNotByShifting) {
  std::vector<uint64_t> lat(50);
  for (size_t i = 0; i < lat.size(); ++i) lat[i] = 100 + 10 * i;  // shifting would show up
  auto a = rb::edges::analyze(event_capture(lat, 20), event_job(lat), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kSequence);
  EXPECT_EQ(a->series[0].missing, std::vector<int64_t>{20});
  EXPECT_EQ(a->series[0].paired, 49u);
  EXPECT_EQ(a->series[0].beyond, 0u);
}

TEST(Edges, MissingFirstEvEdgeKeepsTheOthersInPlace) {
  std::vector<uint64_t> lat(30);
  for (size_t i = 0; i < lat.size(); ++i) lat[i] = 100 + 10 * i;
  auto a = rb::edges::analyze(event_capture(lat, 0), event_job(lat), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->series[0].missing, std::vector<int64_t>{0});
  EXPECT_EQ(a->series[0].beyond, 0u);
}

TEST(Edges, ExtraEvEdgeIsListedAndIgnored) {
  std::vector<uint64_t> lat(50, 200);
  auto a = rb::edges::analyze(event_capture(lat, -1, 7), event_job(lat), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kSequence);
  ASSERT_EQ(a->series[0].extra.size(), 1u);
  EXPECT_EQ(a->series[0].extra[0].seq, 8);  // 0.6 periods after slot 7: nearest slot 8
  EXPECT_EQ(a->series[0].paired, 50u);
}

TEST(Edges, CaptureEndingInsideMkIsOverflow) {
  std::vector<uint64_t> lat(10, 200);
  Capture c = event_capture(lat);
  c.mk.pop_back();
  auto a = rb::edges::analyze(c, event_job(lat), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kOverflow);
  EXPECT_TRUE(a->series.empty());
}

TEST(Edges, NotAnEdgesBuildIsRefused) {
  std::vector<uint64_t> lat(10, 200);
  Job j = event_job(lat);
  j.config.erase("edges");
  auto a = rb::edges::analyze(event_capture(lat), j, {});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().kind, rb::ErrorKind::kBadInput);
}

TEST(Edges, PeriodicIntervalsPairWithSamples) {
  Job j;
  j.config = {{"edges", "on"}, {"core", "1000000000"}};
  std::vector<uint64_t> p(20, 1000000);
  p[5] = 1100000;  // the DWT says 1.1 ms where the pin toggled after 1 ms
  j.series.push_back({"", "tick_period", Kind::kPeriodic, 1000000000, p});
  Capture c;
  c.samplerate = 1000000;
  c.mk.push_back({0, true});
  for (int i = 0; i <= 20; ++i) c.tk.push_back({(1 + i) * 1000000 * kNs, i % 2 == 0});
  c.mk.push_back({30000000 * kNs, false});
  auto a = rb::edges::analyze(c, j, {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kDisagree);
  EXPECT_EQ(a->series[0].paired, 20u);
  EXPECT_EQ(a->series[0].beyond, 1u);
  EXPECT_EQ(a->series[0].worst_seq, 5);
}

TEST(Edges, TheMappingIsWakeEventToTaskPhasesTickPeriod) {
  EXPECT_EQ(rb::edges::edge_kind("wake_latency", ""), Kind::kOrdered);
  for (const char* p : {"idle", "busy", "critical"})
    EXPECT_EQ(rb::edges::edge_kind("event_to_task", p), Kind::kGrid) << p;
  EXPECT_EQ(rb::edges::edge_kind("tick_period", ""), Kind::kPeriodic);
  EXPECT_FALSE(rb::edges::edge_kind("irq_entry", "idle"));
  EXPECT_FALSE(rb::edges::edge_kind("tick_sleep", ""));
  EXPECT_FALSE(rb::edges::edge_kind("event_to_task", "other"));
}

TEST(Edges, OrderedPairsEvOffAnyGrid) {
  std::vector<uint64_t> lat(40, 300);
  const Capture c = event_capture(lat, -1, -1, 3100);  // EV spacing 10, 13.1, 16.2 us ...
  auto a = rb::edges::analyze(c, event_job(lat), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kAgree);
  EXPECT_EQ(a->series[0].paired, 40u);
  EXPECT_DOUBLE_EQ(a->series[0].diff_ns.max, 30.0);
  // The grid pairing of event_to_task does not accept such EV edges.
  auto g = rb::edges::analyze(c, event_job(lat, Kind::kGrid), {});
  ASSERT_TRUE(g.ok());
  EXPECT_NE(g->status, Status::kAgree);
}

TEST(Edges, OrderedMissingTkIsItsSample) {
  std::vector<uint64_t> lat(30, 200);
  Capture c = event_capture(lat);
  c.tk.erase(c.tk.begin() + 2 * 12);  // sample 12's TK rise
  auto a = rb::edges::analyze(c, event_job(lat), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kSequence);
  EXPECT_EQ(a->series[0].missing, std::vector<int64_t>{12});
  EXPECT_EQ(a->series[0].paired, 29u);
}

TEST(Edges, GridMissingAndExtraEvEdges) {
  std::vector<uint64_t> lat(50);
  for (size_t i = 0; i < lat.size(); ++i) lat[i] = 100 + 10 * i;
  auto m = rb::edges::analyze(event_capture(lat, 20), event_job(lat, Kind::kGrid), {});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->status, Status::kSequence);
  EXPECT_EQ(m->series[0].missing, std::vector<int64_t>{20});
  EXPECT_EQ(m->series[0].beyond, 0u);
  std::vector<uint64_t> flat(50, 200);
  auto x = rb::edges::analyze(event_capture(flat, -1, 7), event_job(flat, Kind::kGrid), {});
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->status, Status::kSequence);
  ASSERT_EQ(x->series[0].extra.size(), 1u);
  EXPECT_EQ(x->series[0].paired, 50u);
}

TEST(Edges, GridPeriodAgainstConfigFlagsAClockError) {
  std::vector<uint64_t> lat(30, 200);
  Job j = event_job(lat, Kind::kGrid);
  j.config["irq_hz"] = "1000000000";
  j.config["irq_period_ticks"] = "10000";  // 10 us: the capture's period
  auto ok = rb::edges::analyze(event_capture(lat), j, {});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, Status::kAgree);
  j.config["irq_period_ticks"] = "11000";
  auto bad = rb::edges::analyze(event_capture(lat), j, {});
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status, Status::kDisagree);
  EXPECT_TRUE(bad->series[0].period_disagrees);
}

// event_to_task's TK rises the firmware's measured lag after the read that
// ends the window (PHASE tk_lag_min..tk_lag_max): here 100 to 110 ns.
std::vector<uint64_t> with_lag(const std::vector<uint64_t>& lat) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < lat.size(); ++i) out.push_back(lat[i] + 100 + i % 11);
  return out;
}

TEST(Edges, TkLagTheFirmwareMeasuredIsSubtracted) {
  std::vector<uint64_t> lat(50, 200);
  Job j = event_job(lat, Kind::kGrid);
  j.series[0].tk_lag = std::make_pair(uint64_t{100}, uint64_t{110});
  auto a = rb::edges::analyze(event_capture(with_lag(lat)), j, {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->status, Status::kAgree);
  const auto& s = a->series[0];
  ASSERT_TRUE(s.tk_lag_ns);
  EXPECT_DOUBLE_EQ(s.tk_lag_ns->first, 100.0);
  EXPECT_DOUBLE_EQ(s.tk_lag_ns->second, 110.0);
  EXPECT_DOUBLE_EQ(s.tolerance_ns, a->tolerance_ns + 10.0);  // widened by the spread
  EXPECT_GE(s.diff_ns.median, 30.0);
  EXPECT_LE(s.diff_ns.max, 40.0);
  EXPECT_EQ(rb::edges::to_json(*a)["series"][0]["tk_lag_ns"]["max"], 110.0);
}

TEST(Edges, WithoutAReportedTkLagTheLagStaysInTheFigures) {
  std::vector<uint64_t> lat(50, 200);
  auto a = rb::edges::analyze(event_capture(with_lag(lat)), event_job(lat, Kind::kGrid), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, Status::kDisagree);
  EXPECT_FALSE(a->series[0].tk_lag_ns);
  EXPECT_GE(a->series[0].diff_ns.median, 130.0);
  ASSERT_FALSE(a->series[0].notes.empty());
  EXPECT_NE(a->series[0].notes[0].find("reported no TK lag"), std::string::npos);
}

TEST(Edges, ReadJobKeepsTheEdgeMappedSeriesInLogOrder) {
  // A real edges=on capture of the emulated bench (FreeRTOS, wake_latency,
  // irq_latency, tick_drift): irq_entry and the ruler are not edge-mapped.
  std::ifstream in(std::string(RTOSBENCH_TEST_DATA) + "/edges/freertos-qemu-edges.raw");
  ASSERT_TRUE(in);
  auto j = rb::edges::read_job(in);
  ASSERT_TRUE(j.ok()) << j.error().message;
  const std::vector<std::pair<std::string, std::string>> want{{"", "wake_latency"},
                                                              {"idle", "event_to_task"},
                                                              {"busy", "event_to_task"},
                                                              {"critical", "event_to_task"},
                                                              {"", "tick_period"}};
  ASSERT_EQ(j->series.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(j->series[i].phase, want[i].first);
    EXPECT_EQ(j->series[i].name, want[i].second);
    EXPECT_EQ(j->series[i].samples.size(), 60u);
    EXPECT_GT(j->series[i].hz, 0u);
  }
  EXPECT_EQ(j->series[0].kind, Kind::kOrdered);
  EXPECT_EQ(j->series[2].kind, Kind::kGrid);
  EXPECT_EQ(j->series[4].kind, Kind::kPeriodic);
  EXPECT_EQ(j->config.at("edges"), "on");
  // The firmware's TK lag, from each irq_latency PHASE record, on
  // event_to_task only.
  for (size_t i = 1; i <= 3; ++i) {
    ASSERT_TRUE(j->series[i].tk_lag) << j->series[i].phase;
    EXPECT_EQ(*j->series[i].tk_lag, std::make_pair(uint64_t{26}, uint64_t{26}));
  }
  EXPECT_FALSE(j->series[0].tk_lag);
  EXPECT_FALSE(j->series[4].tk_lag);
}

TEST(Edges, VerifyJsonCarriesBothFiguresAndTheVerdict) {
  std::vector<uint64_t> lat(50, 200), dwt = lat;
  dwt[3] = 20;
  auto a = rb::edges::analyze(event_capture(lat), event_job(dwt), {});
  ASSERT_TRUE(a.ok());
  nlohmann::json v{{"series",
                    {{{"phase", ""}, {"name", "wake_latency"}, {"median_ticks", 200}},
                     {{"phase", ""}, {"name", "ruler_loop"}}}}};
  rb::edges::attach_to_verify(v, rb::edges::to_json(*a));
  ASSERT_TRUE(v["series"][0].contains("edges"));
  EXPECT_FALSE(v["series"][1].contains("edges"));
  const auto& e = v["series"][0]["edges"];
  EXPECT_EQ(e["status"], "disagree");
  EXPECT_DOUBLE_EQ(e["dwt_ns"]["median"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(e["edge_ns"]["median"].get<double>(), 230.0);
  EXPECT_EQ(v["edges"]["disagree"], nlohmann::json::array({"wake_latency"}));
}

TEST(Edges, ParsesSigrokVcd) {
  std::istringstream in(
      "META samplerate: 25000000\n$date x $end\n$comment\n  Acquisition\n$end\n"
      "$timescale 10 ns $end\n$scope module libsigrok $end\n$var wire 1 ! MK $end\n"
      "$var wire 1 \" EV $end\n$var wire 1 # TK $end\n$upscope $end\n$enddefinitions $end\n"
      "#0 0! 0\" 0#\n#100 1!\n#2800 1\"\n#2828 1#\n#3300 0\" 0#\n#5000 0!\n#5100\n");
  auto c = rb::edges::parse_vcd(in, {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->samplerate, 25000000u);
  EXPECT_EQ(c->end_ps, 5100 * 10 * kNs);
  ASSERT_EQ(c->mk.size(), 2u);
  ASSERT_EQ(c->ev.size(), 2u);
  EXPECT_EQ(c->tk[0].t_ps, 28280 * kNs);
  EXPECT_TRUE(c->tk[0].rising);
}

TEST(Edges, VcdWithoutARoleIsBadInput) {
  std::istringstream in(
      "$timescale 1 ns $end\n$var wire 1 ! MK $end\n$enddefinitions $end\n#0 0!\n");
  auto c = rb::edges::parse_vcd(in, {});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, rb::ErrorKind::kBadInput);
}

}  // namespace
