#include "run/runner.h"

#include "matrix/load.h"

#include <gtest/gtest.h>

namespace rb::run {
namespace {

using store::JobStatus;

store::JobResult result(const std::string& id, JobStatus s, std::string reason = "") {
  store::JobResult r;
  r.job_id = id;
  r.status = s;
  r.reason = std::move(reason);
  return r;
}

TEST(ExitCodes, DistinctPerKindOfFailure) {
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kOk), result("b", JobStatus::kPortMissing)}, 2, false), 0);
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kOk), result("b", JobStatus::kInvalid)}, 2, false), 1);
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kTimeout), result("b", JobStatus::kFlashError)}, 2, false), 2);
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kOk)}, 2, false), 2);  // a job never ran
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kOk)}, 2, true), 130);
}

TEST(JobExpect, JobFactsOverrideTheMatrixAndKernelOverridesBoth) {
  auto m = matrix::parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: bare
    expect: {tick: "0", kernel_commit: ~}
expect: {counter: tim2, tick: "5"}
samples: 500
)", "m.yaml");
  ASSERT_TRUE(m.ok());
  matrix::Job j;
  j.kernel = m.value.kernels[0];
  j.board = "qemu-netduinoplus2";
  j.opt = "-O2 -g0";
  j.tick_hz = 1000;
  j.samples = 500;
  j.warmup = 1000;
  auto pins = job_expect(m.value, j, "7f3a9c21", "n/a");
  EXPECT_EQ(pins.at("counter"), "tim2");
  EXPECT_EQ(pins.at("nonce"), "7f3a9c21");
  EXPECT_EQ(pins.at("port"), "bare");
  EXPECT_EQ(pins.at("opt"), "-O2 -g0");
  EXPECT_EQ(pins.at("samples"), "500");
  EXPECT_EQ(pins.at("tick"), "0");            // the kernel's own override
  EXPECT_EQ(pins.count("kernel_commit"), 0u);  // removed by the kernel
}

TEST(BenchCoverage, NeedsABoardOfTheMatrixBoard) {
  matrix::Matrix m;
  m.name = "f407";
  m.board = "stm32f407-disco";
  matrix::Bench b;
  b.name = "qemu";
  b.boards.push_back(matrix::BoardInstance{});
  b.boards[0].id = "qemu-0";
  b.boards[0].board = "qemu-netduinoplus2";
  auto s = check_bench_covers(m, b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no board instance of board 'stm32f407-disco'"), std::string::npos);
  EXPECT_NE(s.error().message.find("qemu-0 (qemu-netduinoplus2)"), std::string::npos);
  b.boards[0].board = "stm32f407-disco";
  EXPECT_TRUE(check_bench_covers(m, b).ok());
}

TEST(ClosingTable, HeadlineNumbersOnlyForOkJobsWithUnits) {
  auto ok = result("bare-O2-tick1000-fpu0", JobStatus::kOk);
  ok.unit = "instructions";
  ok.headline = {store::Headline{"wake_latency", "", 82, 82, "instructions"},
                 store::Headline{"event_to_task", "idle", 157, 157, "instructions"}};
  auto bad = result("zephyr-O2-tick1000-fpu0", JobStatus::kPortMissing, "no firmware port 'zephyr' yet");
  bad.headline = ok.headline;  // never shown for a job that is not OK
  std::string t = format_table({ok, bad});
  std::vector<std::string> lines;
  for (size_t p = 0, nl; (nl = t.find('\n', p)) != std::string::npos; p = nl + 1) lines.push_back(t.substr(p, nl - p));
  ASSERT_EQ(lines.size(), 4u) << t;
  EXPECT_EQ(lines[0].rfind("job ", 0), 0u);
  EXPECT_NE(lines[0].find("event_to_task(idle)"), std::string::npos);
  // Columns line up: every row starts its status where the header does.
  EXPECT_EQ(lines[1].find("OK"), lines[0].find("status"));
  EXPECT_EQ(lines[2].find("PORT_MISSING"), lines[0].find("status"));
  EXPECT_NE(lines[1].find(" 82 "), std::string::npos);
  EXPECT_NE(lines[1].find(" 157 "), std::string::npos);
  EXPECT_EQ(lines[2].find("82"), std::string::npos);
  EXPECT_NE(lines[2].find("no firmware port 'zephyr' yet"), std::string::npos);
  EXPECT_EQ(lines[3], "medians in instructions (QEMU -icount: instruction counts, not Cortex-M4 cycles)");
}

}  // namespace
}  // namespace rb::run
