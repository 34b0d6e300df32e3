// The checker on logs built in memory: valid logs of every shape, one defect
// at a time, and hostile input (megabyte lines, NULs, mixed line ends).
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "log_builder.h"
#include "verify/verify.h"

namespace {

using rb::testlog::LogBuilder;
using rb::verify::Outcome;
using rb::verify::Report;

Report check(const std::string& text, rb::verify::Options opt = {}) {
  std::istringstream in(text);
  return rb::verify::verify_stream(in, opt);
}

std::set<std::string> problems(const Report& r) {
  std::set<std::string> s;
  for (const auto& v : r.verdicts) {
    if (v.severity != Outcome::kValid) s.insert(v.check);
  }
  return s;
}

const rb::verify::SeriesStats* find(const Report& r, const std::string& phase,
                                    const std::string& name) {
  for (const auto& s : r.series) {
    if (s.phase == phase && s.name == name) return &s;
  }
  return nullptr;
}

TEST(Checker, ValidLogIsValidAndEveryFigureIsReDerived) {
  const Report r = check(rb::testlog::valid_log().str());
  EXPECT_EQ(r.outcome, Outcome::kValid) << problems(r).size();
  EXPECT_TRUE(problems(r).empty());
  EXPECT_TRUE(r.integrity_checked);
  EXPECT_EQ(r.protocol, "RTOS_BENCH_V2");
  EXPECT_EQ(r.unit, "cycles");
  EXPECT_EQ(r.series.size(), 8u);
  for (const auto& s : r.series) {
    EXPECT_TRUE(s.has_raw) << s.name;
    EXPECT_TRUE(s.has_result) << s.name;
    EXPECT_EQ(s.n, 40u);
  }
  EXPECT_EQ(r.tests, (std::vector<std::string>{"ruler", "api_overhead", "irq_latency", "mutex",
                                               "time_slice"}));
  ASSERT_EQ(r.not_applicable.size(), 1u);
  EXPECT_EQ(r.not_applicable[0].first, "time_slice");
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].pass, 100u);
  const auto* busy = find(r, "busy", "irq_entry");
  ASSERT_NE(busy, nullptr);
  EXPECT_EQ(busy->test, "irq_latency");
  ASSERT_TRUE(busy->base_ticks.has_value());
  EXPECT_EQ(*busy->base_ticks, find(r, "", "ruler_loop")->median);
}

TEST(Checker, StatisticsMatchTheBuildersIndependentArithmetic) {
  // 100003 samples with spikes: the builder's RESULT (std::sort + nearest
  // rank written out) must equal what the checker derives.
  LogBuilder b;
  b.rec("BEGIN,RTOS_BENCH_V2");
  b.rec("CONFIG,unit=cycles");
  b.series("big", rb::testlog::samples(77, 100003, 1000, 4000, 90000), 168000000);
  b.series("wide", rb::testlog::samples(78, 5000, 1ull << 40, 1ull << 35), 1000000000);
  b.rec("END,RTOS_BENCH_V2");
  const Report r = check(b.str(true, "\n"));
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_TRUE(problems(r).empty()) << r.verdicts.front().message;
  EXPECT_EQ(find(r, "", "big")->n, 100003u);
}

TEST(Checker, EachDerivedResultFieldIsCompared) {
  const LogBuilder base = rb::testlog::valid_log();
  const size_t at = base.find("RESULT,api_overhead,");
  const std::string rec = base.entries[at].text;
  for (const char* key :
       {"n", "min_ticks", "median_ticks", "avg_ticks", "p90_ticks", "p99_ticks", "p999_ticks",
        "max_ticks", "min_ns", "median_ns", "avg_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"}) {
    const std::string needle = std::string(",") + key + "=";
    const size_t pos = rec.find(needle);
    ASSERT_NE(pos, std::string::npos) << key;
    const size_t vstart = pos + needle.size();
    const size_t vend = rec.find(',', vstart);
    const uint64_t v = std::stoull(rec.substr(vstart, vend - vstart));
    LogBuilder b = base;
    b.entries[at].text = rec.substr(0, vstart) + std::to_string(v + 1) + rec.substr(vend);
    const Report r = check(b.str());
    EXPECT_EQ(problems(r), (std::set<std::string>{"result_matches_raw"})) << key;
    bool named = false;
    for (const auto& verdict : r.verdicts) {
      named |= verdict.message.find(std::string(key) + "=" + std::to_string(v + 1) +
                                    " (RAW gives " + std::to_string(v) + ")") != std::string::npos;
    }
    EXPECT_TRUE(named) << key;
  }
}

TEST(Checker, UnknownResultFieldsAreKeptNotChecked) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("RESULT,api_overhead,")].text += ",cache_misses=12";
  const Report r = check(b.str());
  EXPECT_EQ(r.outcome, Outcome::kValid);
  const auto* s = find(r, "", "api_overhead");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->not_checked, std::vector<std::string>{"cache_misses"});
  EXPECT_NE(rb::verify::to_text(r).find("not checked (unknown RESULT fields): cache_misses"),
            std::string::npos);
}

// A board's architectural lower bound (RB_BOARD_LOWER_BOUND_*): a synthetic
// F407 capture (cycles, 168 MHz) with a sample below it is INVALID, the
// verdict naming the series and the bound; at the bound it is valid.
TEST(Checker, ASampleBelowTheBoardsLowerBoundIsARulerBroken) {
  const std::string log = rb::testlog::valid_log().str();
  const Report plain = check(log);
  ASSERT_EQ(plain.outcome, Outcome::kValid);
  uint64_t least = UINT64_MAX;  // the smallest irq_entry sample over both phases
  for (const auto& s : plain.series)
    if (s.name == "irq_entry") least = std::min(least, s.min);
  ASSERT_GT(least, 1u);

  rb::verify::Options at;
  at.lower_bounds["irq_entry"] = {least, "exception entry: 12 cycles - ARM Cortex-M4 TRM"};
  const Report ok = check(log, at);
  EXPECT_EQ(ok.outcome, Outcome::kValid);
  EXPECT_FALSE(problems(ok).count("lower_bound"));

  rb::verify::Options above = at;
  above.lower_bounds["irq_entry"].cycles = least + 1;
  const Report bad = check(log, above);
  EXPECT_EQ(bad.outcome, Outcome::kInvalid);
  EXPECT_EQ(problems(bad), (std::set<std::string>{"lower_bound"}));
  bool named = false;
  for (const auto& v : bad.verdicts) {
    if (v.check != "lower_bound") continue;
    EXPECT_EQ(v.severity, Outcome::kInvalid);
    EXPECT_NE(v.message.find("ruler broken"), std::string::npos) << v.message;
    EXPECT_NE(v.message.find("irq_latency/"), std::string::npos) << v.message;
    EXPECT_NE(v.message.find(fmt::format("sample of {} cycles", least)), std::string::npos)
        << v.message;
    EXPECT_NE(v.message.find(fmt::format("lower bound of {} core cycles", least + 1)),
              std::string::npos)
        << v.message;
    EXPECT_NE(v.message.find("ARM Cortex-M4 TRM"), std::string::npos) << v.message;
    EXPECT_GT(v.line, 0u);
    named = true;
  }
  EXPECT_TRUE(named);

  // A series the bound does not name is not held against it.
  rb::verify::Options other;
  other.lower_bounds["zli_entry_idle"] = {1000000, "not in this log"};
  EXPECT_EQ(check(log, other).outcome, Outcome::kValid);
}

// The bound is in core cycles; a series counted at another rate is held
// against it converted to its own ticks (rounded down).
TEST(Checker, ALowerBoundIsConvertedToTheSeriesTicks) {
  LogBuilder b = rb::testlog::valid_log();
  const size_t config = b.find("CONFIG,core=168000000");
  ASSERT_NE(config, std::string::npos);
  // A core of twice the series' 168 MHz: a bound of C cycles is C / 2 ticks.
  b.entries[config].text.replace(0, 21, "CONFIG,core=336000000");
  const std::string log = b.str();
  const Report plain = check(log);
  ASSERT_EQ(plain.outcome, Outcome::kValid) << problems(plain).size();
  uint64_t least = UINT64_MAX;
  for (const auto& s : plain.series)
    if (s.name == "irq_entry") least = std::min(least, s.min);
  rb::verify::Options o;
  o.lower_bounds["irq_entry"] = {2 * least + 1, "x"};  // floor((2 least + 1) / 2) = least
  EXPECT_EQ(check(log, o).outcome, Outcome::kValid);
  o.lower_bounds["irq_entry"].cycles = 2 * least + 2;  // least + 1 ticks
  const Report bad = check(log, o);
  EXPECT_EQ(bad.outcome, Outcome::kInvalid);
  bool named = false;
  for (const auto& v : bad.verdicts) {
    if (v.check != "lower_bound") continue;
    EXPECT_NE(v.message.find(fmt::format("({} ticks at 168000000 Hz)", least + 1)),
              std::string::npos)
        << v.message;
    named = true;
  }
  EXPECT_TRUE(named);
}

TEST(Checker, InstructionsAreNotCalledCycles) {
  const Report r = check(rb::testlog::valid_log(40, "instructions").str());
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_EQ(r.unit, "instructions");
  const std::string text = rb::verify::to_text(r);
  EXPECT_NE(text.find("net instructions"), std::string::npos);
  // "cycles" only where the report says these are not cycles.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("cycles") != std::string::npos)
      EXPECT_EQ(line.rfind("unit: instructions", 0), 0u) << line;
  }
}

TEST(Checker, NetValuesSubtractTheBaseline) {
  const Report r = check(rb::testlog::valid_log().str());
  const auto* s = find(r, "", "api_overhead");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->base_ticks);
  const auto j = rb::verify::to_json(r);
  for (const auto& js : j["series"]) {
    if (js["name"] != "api_overhead") continue;
    EXPECT_EQ(js["net_ticks"]["min"], s->min - *s->base_ticks);
    EXPECT_EQ(js["net_ticks"]["median"], s->median - *s->base_ticks);
    EXPECT_EQ(js["net_ns"]["max"], (s->max - *s->base_ticks) * 1000000000ull / s->hz);
    EXPECT_EQ(js["ticks"]["p99"], s->p99);
  }
  EXPECT_NE(rb::verify::to_text(r).find("net cycles"), std::string::npos);
}

TEST(Checker, MegabyteLinesNulsAndMixedLineEndsAreHandled) {
  auto lines = rb::testlog::valid_log().lines();
  std::string s;
  const char* eols[] = {"\r\n", "\n", "\r"};
  for (size_t i = 0; i < lines.size(); ++i) {
    s += lines[i] + eols[i % 3];
    if (i == 10) s += std::string(3u << 20, 'A') + "\n";          // 3 MB of noise, one line
    if (i == 20) s += std::string("\0\0garbage\0", 10) + "\r\n";  // NULs in a noise line
  }
  const Report r = check(s);
  EXPECT_EQ(r.outcome, Outcome::kValid) << rb::verify::to_text(r);
  EXPECT_EQ(r.overlong_lines, 1u);
  EXPECT_EQ(r.control_lines, 1u);
  std::set<std::string> notes;
  for (const auto& v : r.verdicts) notes.insert(v.check);
  EXPECT_TRUE(notes.count("overlong"));
  EXPECT_TRUE(notes.count("control_bytes"));
}

TEST(Checker, AnOverlongProtocolLineIsALostLine) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("CHECK,")].text += ",pad=" + std::string(5000, 'x');
  const Report r = check(b.str());
  EXPECT_EQ(problems(r), (std::set<std::string>{"seq_gap"}));
}

// Memory does not grow with the input (issue 35 item 7): samples outside a
// series' histogram band are held one by one only up to max_stored_samples
// in all open series; past it the series is refused, never approximated.
TEST(Checker, SamplesHeldOneByOneAreBounded) {
  auto log = [](const std::vector<uint64_t>& v) {
    LogBuilder b;
    b.rec("BEGIN,RTOS_BENCH_V2");
    b.rec("TEST,api_overhead");
    b.series("api_overhead", v, rb::testlog::kHz);
    b.rec("END,RTOS_BENCH_V2");
    return b.str();
  };
  std::vector<uint64_t> spread, narrow;
  for (uint64_t i = 0; i < 20000; ++i) {
    spread.push_back(1000 + i * 100000);  // one per 100 000 ticks: none shares the band
    narrow.push_back(1000 + i % 500);     // a timing series: all inside the band
  }
  rb::verify::Options small;
  small.max_stored_samples = 10000;
  const Report refused = check(log(spread), small);
  EXPECT_TRUE(problems(refused).count("sample_limit")) << problems(refused).size();
  EXPECT_EQ(refused.outcome, Outcome::kProtocolError);
  bool named = false;
  for (const auto& v : refused.verdicts)
    named |=
        v.check == "sample_limit" && v.message.find("more than 10000 samples") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_FALSE(problems(check(log(narrow), small)).count("sample_limit"));
  EXPECT_FALSE(problems(check(log(spread))).count("sample_limit"));  // the default: 4 Mi
}

TEST(Checker, GarbageVerdictsAreCappedAndCounted) {
  // 20000 corrupt lines: the report keeps 50 verdicts and counts the rest.
  LogBuilder b;
  b.rec("BEGIN,RTOS_BENCH_V2");
  std::string text = b.str();
  for (int i = 0; i < 20000; ++i)
    text += "CONFIG,x=" + std::to_string(i) + "|" + std::to_string(i + 1) + "|00000000\n";
  const Report r = check(text);
  EXPECT_EQ(r.outcome, Outcome::kProtocolError);
  size_t crc = 0;
  for (const auto& v : r.verdicts) crc += v.check == "crc";
  EXPECT_EQ(crc, 50u);
  EXPECT_EQ(r.suppressed.at("crc"), 20000u - 50u);
}

TEST(Checker, UnknownRecordWithValidChecksumKeepsTheSequence) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(b.find("TEST,mutex")),
                   rb::testlog::Entry{"TEMPERATURE,31", true});
  const Report r = check(b.str());
  EXPECT_EQ(r.outcome, Outcome::kValid);
  bool noted = false;
  for (const auto& v : r.verdicts) noted |= v.check == "unknown_record";
  EXPECT_TRUE(noted);
}

TEST(Checker, BeginMustStartAtSeqZero) {
  auto lines = rb::testlog::valid_log().lines();
  lines.erase(lines.begin() + 2);  // BEGIN: the next line (seq 1) becomes the first
  const Report late = check(LogBuilder::join(lines));
  EXPECT_TRUE(problems(late).count("begin_missing"));
  const Report r = check(rb::protocol::v2_line("BEGIN,RTOS_BENCH_V2", 5) + "\n" +
                         rb::protocol::v2_line("END,RTOS_BENCH_V2", 6) + "\n");
  EXPECT_EQ(problems(r), (std::set<std::string>{"seq_gap"}));
}

TEST(Checker, RepeatedIdenticalConfigIsFineConflictingIsNot) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(b.find("TEST,ruler")),
                   rb::testlog::Entry{"CONFIG,tick=1000,core=168000000", true});
  EXPECT_EQ(check(b.str()).outcome, Outcome::kValid);
}

TEST(Checker, LinesBeforeBeginAndAfterEndThatAreNoiseAreTolerated) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries.insert(b.entries.begin(),
                   rb::testlog::Entry{"FreeRTOS V10.5.1 booting, RESULT follows", false});
  b.entries.push_back(rb::testlog::Entry{"shell> RAW,not,0,1", false});
  const Report r = check(b.str());
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_EQ(r.other_lines, 5u);
}

TEST(Checker, V2LineWithoutLineEndButValidCrcIsComplete) {
  std::string s = rb::testlog::valid_log().str();
  s.resize(s.rfind("END,"));
  s += rb::protocol::v2_line("END,RTOS_BENCH_V2,heap_free=122760,min_heap=118440", 45);  // no CRLF
  const Report r = check(s);
  EXPECT_TRUE(problems(r).empty()) << rb::verify::to_text(r);
}

TEST(Checker, CheckCountsMustAddUp) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("CHECK,")].text = "CHECK,mutex_pi,rounds=100,pass=90,fail=0,status=OK";
  EXPECT_EQ(problems(check(b.str())), (std::set<std::string>{"check_failed"}));
}

TEST(Checker, DebuggerUnknownIsANoteNotAFailure) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("CONFIG,counter=")].text = b.entries[b.find("CONFIG,counter=")].text.replace(
      b.entries[b.find("CONFIG,counter=")].text.find("debugger=0"), 10, "debugger=n/a");
  const Report r = check(b.str());
  EXPECT_EQ(r.outcome, Outcome::kValid);
}

TEST(VerifyFile, UnreadablePathsAreErrorsNotReports) {
  auto missing = rb::verify::verify_file("/nonexistent/capture.log", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/capture.log"), std::string::npos);
  EXPECT_NE(missing.error().message.find("No such file"), std::string::npos);

  auto dir = rb::verify::verify_file(std::filesystem::temp_directory_path(), {});
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("is a directory"), std::string::npos);
}

TEST(VerifyFile, PermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permission bits do not stop root";
  const auto p =
      std::filesystem::temp_directory_path() / ("rb_noperm_" + std::to_string(::getpid()) + ".log");
  { std::ofstream(p) << "BEGIN,RTOS_BENCH_V1\n"; }
  std::filesystem::permissions(p, std::filesystem::perms::none);
  auto r = rb::verify::verify_file(p, {});
  std::filesystem::remove(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("Permission denied"), std::string::npos) << r.error().message;
}

TEST(VerifyFile, FileAndStreamGiveTheSameReport) {
  const std::string path = std::string(RTOSBENCH_TEST_DATA) + "/verify/generated/valid_v2.log";
  auto f = rb::verify::verify_file(path, {});
  ASSERT_TRUE(f.ok());
  std::ifstream in(path, std::ios::binary);
  Report s = rb::verify::verify_stream(in, {});
  s.source = f->source;
  EXPECT_EQ(rb::verify::to_json(*f).dump(), rb::verify::to_json(s).dump());
}

TEST(Json, InvalidUtf8FromTheLogDoesNotBreakTheJson) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("CONFIG,core=")].text += ",note=\xff\xfe caf\xc3\xa9";
  const Report r = check(b.str());
  const std::string dumped = rb::verify::to_json(r).dump();  // throws on invalid UTF-8
  EXPECT_NE(dumped.find("caf\xc3\xa9"), std::string::npos);
}

TEST(Outcome, PrecedenceAndExitCodes) {
  using rb::verify::worst;
  EXPECT_EQ(worst(Outcome::kValid, Outcome::kUnverified), Outcome::kUnverified);
  EXPECT_EQ(worst(Outcome::kUnverified, Outcome::kInvalid), Outcome::kInvalid);
  EXPECT_EQ(worst(Outcome::kInvalid, Outcome::kProtocolError), Outcome::kProtocolError);
  EXPECT_EQ(worst(Outcome::kProtocolError, Outcome::kValid), Outcome::kProtocolError);
  EXPECT_EQ(rb::verify::exit_code(Outcome::kValid), 0);
  EXPECT_EQ(rb::verify::exit_code(Outcome::kInvalid), 1);
  EXPECT_EQ(rb::verify::exit_code(Outcome::kProtocolError), 2);
  EXPECT_EQ(rb::verify::exit_code(Outcome::kUnverified), 3);
  EXPECT_STREQ(rb::verify::to_string(Outcome::kProtocolError), "protocol_error");
}

TEST(LogChecker, FedLineByLineAsACaptureGrows) {
  const auto lines = rb::testlog::valid_log().lines();
  rb::verify::LogChecker checker({});
  for (size_t i = 0; i < lines.size(); ++i) checker.add_line(lines[i], i + 1, false, false, true);
  const Report r = checker.finish();
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_EQ(r.lines, lines.size());
}

}  // namespace

namespace {

// irq_latency's phase critical (docs/protocol.md section 6): busy, then
// critical with the delay fields written from `fields` (key -> value).
std::string critical_log(const std::vector<uint64_t>& busy_entry,
                         const std::vector<uint64_t>& busy_task,
                         const std::vector<uint64_t>& crit_entry,
                         const std::vector<uint64_t>& crit_task, const std::string& fields,
                         bool with_busy = true) {
  LogBuilder b;
  b.rec("BEGIN,RTOS_BENCH_V2");
  b.rec("CONFIG,unit=instructions");
  b.rec("TEST,irq_latency");
  const std::string n = std::to_string(crit_entry.size());
  if (with_busy) {
    b.rec("PHASE,busy,irq=" + n + ",task=" + n + ",bad=0,status=OK,expected=" + n);
    b.series("irq_entry", busy_entry, 1000000000);
    b.series("event_to_task", busy_task, 1000000000);
  }
  b.rec("PHASE,critical,irq=" + n + ",task=" + n + ",bad=0,status=OK,expected=" + n + fields);
  b.series("irq_entry", crit_entry, 1000000000);
  b.series("event_to_task", crit_task, 1000000000);
  b.rec("END,RTOS_BENCH_V2");
  return b.str(true, "\n");
}

// The fields as the firmware writes them, computed here with plain loops.
std::string delay_fields(uint64_t window, const std::string& prefix,
                         const std::vector<uint64_t>& busy, const std::vector<uint64_t>& crit) {
  const uint64_t limit = *std::max_element(busy.begin(), busy.end());
  const uint64_t worst = *std::max_element(crit.begin(), crit.end());
  uint64_t delayed = 0;
  for (uint64_t v : crit) delayed += v > limit ? 1 : 0;
  return "," + prefix + "_limit=" + std::to_string(limit) + "," + prefix +
         "_delayed=" + std::to_string(delayed) + "," + prefix + "_worst=" + std::to_string(worst) +
         "," + prefix + "_beyond=" + std::to_string(worst > window ? worst - window : 0);
}

}  // namespace

TEST(Checker, CriticalPhaseDelayFiguresAreReDerivedFromRaw) {
  const auto busy_entry = rb::testlog::samples(11, 300, 5, 0, 30);
  const auto busy_task = rb::testlog::samples(12, 300, 285, 3, 50);
  const auto crit_entry = rb::testlog::samples(13, 300, 5, 0, 19990);
  const auto crit_task = rb::testlog::samples(14, 300, 285, 3, 20100);
  const std::string fields = ",window=20000" +
                             delay_fields(20000, "entry", busy_entry, crit_entry) +
                             delay_fields(20000, "task", busy_task, crit_task);
  const Report r = check(critical_log(busy_entry, busy_task, crit_entry, crit_task, fields));
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_TRUE(problems(r).empty()) << r.verdicts.front().message;
  ASSERT_EQ(r.phases.size(), 2u);
  const auto& c = r.phases[1];
  ASSERT_TRUE(c.window.has_value());
  EXPECT_EQ(*c.window, 20000u);
  ASSERT_EQ(c.delay.size(), 2u);
  EXPECT_EQ(c.delay[0].series, "irq_entry");
  EXPECT_EQ(c.delay[0].n, 300u);
  EXPECT_GT(c.delay[0].delayed, 0u);  // the spikes
  EXPECT_LT(c.delay[0].delayed, 300u);
  EXPECT_EQ(c.delay[0].limit, *std::max_element(busy_entry.begin(), busy_entry.end()));
  EXPECT_EQ(c.delay[1].series, "event_to_task");
  EXPECT_EQ(c.delay[1].beyond, c.delay[1].worst - 20000u);
  EXPECT_TRUE(r.phases[0].delay.empty());
  const auto j = rb::verify::to_json(r);
  EXPECT_EQ(j["phases"][1]["window"], 20000);
  EXPECT_EQ(j["phases"][1]["delay"][0]["delayed"], c.delay[0].delayed);
  EXPECT_FALSE(j["phases"][0].contains("delay"));

  // One figure off by one: a protocol error naming the field.
  std::string bad = fields;
  const std::string key = ",entry_delayed=" + std::to_string(c.delay[0].delayed);
  bad.replace(bad.find(key), key.size(),
              ",entry_delayed=" + std::to_string(c.delay[0].delayed + 1));
  const Report rb = check(critical_log(busy_entry, busy_task, crit_entry, crit_task, bad));
  EXPECT_EQ(rb.outcome, Outcome::kProtocolError);
  EXPECT_EQ(problems(rb), std::set<std::string>{"critical_delay"});
  EXPECT_NE(rb.verdicts.front().message.find("entry_delayed="), std::string::npos);

  // A missing field, and no busy phase to derive the limit from.
  std::string missing = fields;
  missing.erase(missing.find(",task_beyond="));
  EXPECT_EQ(problems(check(critical_log(busy_entry, busy_task, crit_entry, crit_task, missing))),
            std::set<std::string>{"critical_delay"});
  EXPECT_EQ(
      problems(check(critical_log(busy_entry, busy_task, crit_entry, crit_task, fields, false))),
      std::set<std::string>{"critical_delay"});
  // Without window= the phase is an ordinary one: nothing to re-derive.
  const Report plain = check(critical_log(busy_entry, busy_task, crit_entry, crit_task, ""));
  EXPECT_EQ(plain.outcome, Outcome::kValid);
  EXPECT_FALSE(plain.phases[1].window.has_value());
}

TEST(Checker, StackMarginBelowTheMinimumIsInvalid) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("END,")].text =
      "END,RTOS_BENCH_V2,tests_run=9,tests_na=0,stack_min_free_words=63";
  EXPECT_EQ(problems(check(b.str())), (std::set<std::string>{"stack_margin"}));
  b.entries[b.find("END,")].text =
      "END,RTOS_BENCH_V2,tests_run=9,tests_na=0,stack_min_free_words=64";
  EXPECT_TRUE(problems(check(b.str())).empty());
  // The margin is the caller's: 0 turns the check off.
  b.entries[b.find("END,")].text =
      "END,RTOS_BENCH_V2,tests_run=9,tests_na=0,stack_min_free_words=0";
  rb::verify::Options off;
  off.stack_margin_words = 0;
  std::istringstream in(b.str());
  EXPECT_EQ(rb::verify::verify_stream(in, off).outcome, Outcome::kValid);
}

TEST(Checker, StackUnseenIsANoteAndGarbageIsMalformed) {
  LogBuilder b = rb::testlog::valid_log();
  b.entries[b.find("END,")].text =
      "END,RTOS_BENCH_V2,tests_run=9,tests_na=0,stack_min_free_words=n/a";
  const Report r = check(b.str());
  EXPECT_EQ(r.outcome, Outcome::kValid);
  bool noted = false;
  for (const auto& v : r.verdicts) noted |= v.check == "stack_unseen";
  EXPECT_TRUE(noted);
  b.entries[b.find("END,")].text =
      "END,RTOS_BENCH_V2,tests_run=9,tests_na=0,stack_min_free_words=9x";
  EXPECT_EQ(problems(check(b.str())), (std::set<std::string>{"malformed"}));
}

namespace {

// A tick_drift log: tick_period's RAW samples and the CHECK with `extra`.
std::string tick_drift_log(const std::vector<uint64_t>& periods, const std::string& extra,
                           const std::string& tick = "1000") {
  LogBuilder b;
  b.rec("BEGIN,RTOS_BENCH_V2");
  b.rec("CONFIG,unit=instructions,tick=" + tick);
  b.rec("TEST,tick_drift");
  b.series("tick_period", periods, 1000000000);
  const std::string n = std::to_string(periods.size());
  b.rec("CHECK,tick_drift,rounds=" + n + ",pass=" + n + ",fail=0,status=OK" + extra);
  b.rec("END,RTOS_BENCH_V2");
  return b.str();
}

}  // namespace

TEST(Checker, TickDriftFiguresAreReDerivedFromRaw) {
  // 1000 periods of 999999 or 1000003 ticks at 1 GHz, tick 1000 Hz:
  // nominal 1e9; the sum decides the sign of the drift.
  std::vector<uint64_t> slow(1000, 999999);
  const Report r =
      check(tick_drift_log(slow, ",elapsed=999999000,nominal=1000000000,drift_ppm=-1"));
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_TRUE(problems(r).empty()) << r.verdicts.front().message;

  std::vector<uint64_t> fast(1000, 1000003);
  EXPECT_TRUE(
      problems(check(tick_drift_log(fast, ",elapsed=1000003000,nominal=1000000000,drift_ppm=3")))
          .empty());
  // Less than one ppm either way truncates to 0, never "-0".
  std::vector<uint64_t> near(1000, 1000000);
  near[0] = 999999;
  EXPECT_TRUE(
      problems(check(tick_drift_log(near, ",elapsed=999999999,nominal=1000000000,drift_ppm=0")))
          .empty());

  // Each figure wrong on its own, one missing, and a tick rate the log lacks.
  for (const std::string& bad : {",elapsed=999999001,nominal=1000000000,drift_ppm=-1",
                                 ",elapsed=999999000,nominal=999999999,drift_ppm=-1",
                                 ",elapsed=999999000,nominal=1000000000,drift_ppm=1",
                                 ",elapsed=999999000,nominal=1000000000"}) {
    const Report rb = check(tick_drift_log(slow, bad));
    EXPECT_EQ(rb.outcome, Outcome::kProtocolError) << bad;
    EXPECT_EQ(problems(rb), std::set<std::string>{"tick_drift"}) << bad;
  }
  EXPECT_EQ(problems(check(
                tick_drift_log(slow, ",elapsed=999999000,nominal=1000000000,drift_ppm=-1", "n/a"))),
            std::set<std::string>{"tick_drift"});
  // At 100 Hz the same periods are 90 % behind.
  EXPECT_TRUE(
      problems(check(tick_drift_log(
                   slow, ",elapsed=999999000,nominal=10000000000,drift_ppm=-900000", "100")))
          .empty());
}

namespace {

// A tickless build's tick_drift log: tick_sleep's RAW samples (counter ticks
// per sleep at 1 GHz) and the CHECK with `extra` (ticks=, step=, ...).
std::string tickless_drift_log(const std::vector<uint64_t>& sleeps, const std::string& extra) {
  LogBuilder b;
  b.rec("BEGIN,RTOS_BENCH_V2");
  b.rec("CONFIG,unit=instructions,tick=1000,tickless=1");
  b.rec("TEST,tick_drift");
  b.series("tick_sleep", sleeps, 1000000000);
  const std::string n = std::to_string(sleeps.size());
  b.rec("CHECK,tick_drift,rounds=" + n + ",pass=" + n + ",fail=0,status=OK,sleep=8" + extra);
  b.rec("END,RTOS_BENCH_V2");
  return b.str();
}

}  // namespace

TEST(Checker, TicklessTickDriftIsReDerivedFromTickSleep) {
  // 100 sleeps of 8 kernel ticks, each 8000040 counter ticks at 1 GHz and
  // 1000 Hz: 800 ticks, nominal 8e8, 5 ppm ahead.
  const std::vector<uint64_t> sleeps(100, 8000040);
  const std::string good =
      ",step=8,uneven=0,ticks=800,elapsed=800004000,nominal=800000000,drift_ppm=5";
  const Report r = check(tickless_drift_log(sleeps, good));
  EXPECT_EQ(r.outcome, Outcome::kValid);
  EXPECT_TRUE(problems(r).empty()) << r.verdicts.front().message;
  for (const std::string& bad :
       {",step=8,uneven=0,ticks=800,elapsed=800004001,nominal=800000000,drift_ppm=5",
        ",step=8,uneven=0,ticks=800,elapsed=800004000,nominal=800000000,drift_ppm=-5",
        // ticks= is not step= * rounds (and nominal= follows ticks=)
        ",step=8,uneven=0,ticks=801,elapsed=800004000,nominal=801000000,drift_ppm=-1242",
        ",step=x,uneven=0,ticks=800,elapsed=800004000,nominal=800000000,drift_ppm=5"}) {
    const Report rb = check(tickless_drift_log(sleeps, bad));
    EXPECT_EQ(rb.outcome, Outcome::kProtocolError) << bad;
    EXPECT_EQ(problems(rb), std::set<std::string>{"tick_drift"}) << bad;
  }
}

TEST(SeriesUnit, TimesAreInTheCounterUnitTheHeapRoundsInBytesAndPerMille) {
  EXPECT_EQ(rb::verify::series_unit("wake_latency", "instructions"), "instructions");
  EXPECT_EQ(rb::verify::series_unit("heap_alloc_mixed", "cycles"), "cycles");
  EXPECT_EQ(rb::verify::series_unit("heap_free_bytes", "cycles"), "bytes");
  EXPECT_EQ(rb::verify::series_unit("heap_largest_free", "instructions"), "bytes");
  EXPECT_EQ(rb::verify::series_unit("heap_frag_permille", "cycles"), "per-mille");
  EXPECT_EQ(rb::verify::series_unit("heap_alloc_ok_permille", "ticks"), "per-mille");
}
