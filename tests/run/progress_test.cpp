#include "run/progress.h"

#include <gtest/gtest.h>

namespace rb::run {
namespace {

class FakeClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override { return t; }
  void advance(double s) {
    t += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(s));
  }
  std::chrono::steady_clock::time_point t{};
};

TEST(Progress, PlainLinesWhenNotATerminal) {
  FakeClock clock;
  std::string out;
  Progress p(
      clock, false, [&](std::string_view s) { out += s; }, 4, 1);
  p.stage("qemu-0", "bare-O2-tick1000-fpu0", "capture");
  clock.advance(2);
  p.finished("bare-O2-tick1000-fpu0", "OK", "medians: wake_latency 82", 2.0);
  EXPECT_EQ(out,
            "[1/4] bare-O2-tick1000-fpu0: capture (qemu-0)\n"
            "[2/4] OK bare-O2-tick1000-fpu0 (2.0 s): medians: wake_latency 82\n");
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

TEST(Progress, LiveLineShowsCountsElapsedEtaAndBoards) {
  FakeClock clock;
  std::string out;
  Progress p(
      clock, true, [&](std::string_view s) { out += s; }, 5, 0);
  EXPECT_LT(p.eta_seconds(), 0);  // unknown before the first job
  p.stage("qemu-0", "a", "flash");
  clock.advance(10);
  p.finished("a", "OK", "", 10);
  p.stage("qemu-0", "b", "capture");
  // 10 s per job so far, 4 left.
  EXPECT_DOUBLE_EQ(p.eta_seconds(), 40);
  EXPECT_EQ(p.status_line(), "[1/5] 0:10 elapsed, ETA 0:40 | qemu-0: b capture");
  EXPECT_NE(out.find("\r[0/5]"), std::string::npos);
  EXPECT_NE(out.find("[1/5] OK a (10.0 s)\n"), std::string::npos);
  p.close();
  EXPECT_EQ(out.back(), '\r');
}

TEST(Progress, JobsWithoutBenchTimeStayOutOfTheEta) {
  FakeClock clock;
  Progress p(
      clock, false, [](std::string_view) {}, 3, 0);
  p.finished("zephyr", "PORT_MISSING", "no port", 0, false);
  EXPECT_LT(p.eta_seconds(), 0);
}

TEST(Durations, Format) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(65.4), "1:05");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_duration(-1), "?");
}

}  // namespace
}  // namespace rb::run
