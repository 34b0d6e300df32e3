// The bench's analyzer (src/run/analyzer.h): sigrok-cli's argument vector
// and how its end is judged. The real sigrok-cli (demo driver, no device,
// a fake that overflows) runs in tests/run/e2e/analyzer.sh.
#include "run/analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

namespace rb::run {
namespace {

ProcessResult ended(int code, std::string output, int signal = 0) {
  ProcessResult r;
  r.started = true;
  r.exit_code = code;
  r.signal = signal;
  r.output = std::move(output);
  return r;
}

TEST(Analyzer, ArgvIsOneArgumentPerValue) {
  matrix::Analyzer a;
  a.driver = "fx2lafw";
  a.conn = "1.5";
  a.mk = "D3";
  a.ev = "D4";
  a.tk = "D5";
  a.samplerate = 24000000;
  a.trigger = "MK=r";
  EXPECT_EQ(analyzer_argv(a, "/a/edges.sr", std::chrono::milliseconds(90000)),
            (std::vector<std::string>{"sigrok-cli", "-d", "fx2lafw:conn=1.5", "--config",
                                      "samplerate=24000000", "--channels", "D3=MK,D4=EV,D5=TK",
                                      "--triggers", "MK=r", "--time", "90000", "-o", "/a/edges.sr",
                                      "-O", "srzip"}));
  matrix::Analyzer d;
  d.driver = "demo";
  auto argv = analyzer_argv(d, "x.sr", std::chrono::milliseconds(0));
  EXPECT_EQ(argv[2], "demo");  // no conn: the first device found
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--triggers"), 0);
  EXPECT_EQ(argv[argv.size() - 5], "1");  // --time is never 0 (0: sigrok-cli's no limit)
}

TEST(Analyzer, StoppedCleanlyWithItsFileIsOk) {
  auto r = judge_analyzer(ended(0, ""), true, true);
  EXPECT_EQ(r.outcome, AnalyzerOutcome::kOk);
  EXPECT_STREQ(to_string(r.outcome), "ok");
  // sigrok-cli 0.7.2 ends by the SIGINT that stops it (no handler of its own).
  EXPECT_EQ(judge_analyzer(ended(-1, "", SIGINT), true, true).outcome, AnalyzerOutcome::kOk);
  // The same signal before the stop is no stop of ours.
  EXPECT_EQ(judge_analyzer(ended(-1, "", SIGINT), false, true).outcome, AnalyzerOutcome::kOverflow);
}

TEST(Analyzer, NoDeviceNoDriverOrNoToolIsMissing) {
  EXPECT_EQ(judge_analyzer(ended(1, "No devices found.\n"), false, false).outcome,
            AnalyzerOutcome::kMissing);
  EXPECT_EQ(judge_analyzer(ended(1, "Driver fx2 not found.\n"), false, false).outcome,
            AnalyzerOutcome::kMissing);
  ProcessResult none;
  none.started = false;
  none.error = "No such file or directory";
  auto r = judge_analyzer(none, false, false);
  EXPECT_EQ(r.outcome, AnalyzerOutcome::kMissing);
  EXPECT_NE(r.message.find("sigrok-cli"), std::string::npos) << r.message;
}

TEST(Analyzer, OverflowEarlyEndAbortOrNoFileIsOverflow) {
  auto o = judge_analyzer(ended(1, "sr: fx2lafw: Sample buffer overflow.\n"), true, true);
  EXPECT_EQ(o.outcome, AnalyzerOutcome::kOverflow);
  EXPECT_NE(o.message.find("overflow"), std::string::npos);
  // An overflow is said even when the exit status is 0.
  EXPECT_EQ(judge_analyzer(ended(0, "overflow\n"), true, true).outcome, AnalyzerOutcome::kOverflow);
  // Ended on its own (its --time ran out) before the serial capture did.
  auto early = judge_analyzer(ended(0, ""), false, true);
  EXPECT_EQ(early.outcome, AnalyzerOutcome::kOverflow);
  EXPECT_NE(early.message.find("ended before the capture did"), std::string::npos);
  EXPECT_EQ(judge_analyzer(ended(1, "USB transfer error\n"), true, true).outcome,
            AnalyzerOutcome::kOverflow);
  EXPECT_EQ(judge_analyzer(ended(0, "", 9), true, true).outcome, AnalyzerOutcome::kOverflow);
  EXPECT_EQ(judge_analyzer(ended(0, ""), true, false).outcome, AnalyzerOutcome::kOverflow);
}

}  // namespace
}  // namespace rb::run
