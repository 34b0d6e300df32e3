#include "matrix/expand.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "matrix/load.h"

namespace rb::matrix {
namespace {

TEST(OptId, TakesTheOptimisationLevel) {
  EXPECT_EQ(opt_id("-O2 -g0"), "O2");
  EXPECT_EQ(opt_id("-g0 -Os"), "Os");
  EXPECT_EQ(opt_id("-O3"), "O3");
  EXPECT_EQ(opt_id("-flto -g0"), "fltog0");
}

class ExpandJobs : public ::testing::Test {
 protected:
  void SetUp() override {
    fw_ = std::filesystem::temp_directory_path() / ("rb-expand-" + std::to_string(::getpid()));
    std::filesystem::create_directories(fw_ / "ports" / "freertos");
    std::ofstream(fw_ / "ports" / "freertos" / "port.cmake") << "# port\n";
  }
  void TearDown() override { std::filesystem::remove_all(fw_); }
  std::filesystem::path fw_;
};

TEST_F(ExpandJobs, VariantsExpandInMatrixOrderWithStableIds) {
  auto m = parse_matrix(R"(matrix: m
board: stm32f407-disco
kernels:
  - name: freertos
    version: "1.2.3"
    git: https://github.com/FreeRTOS/FreeRTOS-Kernel
    tag: V1.2.3
  - name: zephyr
variants:
  opt: ["-O2 -g0", "-Os -g0"]
  tick_hz: [1000, 100]
)",
                        "m.yaml");
  ASSERT_TRUE(m.ok());
  m.value.firmware = fw_;
  auto jobs = expand_jobs(m.value);
  ASSERT_EQ(jobs.size(), 8u);
  EXPECT_EQ(jobs[0].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(jobs[1].id, "freertos-O2-tick100-fpu0");
  EXPECT_EQ(jobs[2].id, "freertos-Os-tick1000-fpu0");
  EXPECT_EQ(jobs[4].id, "zephyr-O2-tick1000-fpu0");
  EXPECT_TRUE(jobs[0].port_exists);
  EXPECT_FALSE(jobs[4].port_exists);
  EXPECT_NE(jobs[4].port_missing_reason.find("no firmware port 'zephyr'"), std::string::npos);
  EXPECT_EQ(jobs[2].opt, "-Os -g0");
  EXPECT_EQ(jobs[1].tick_hz, 100);
}

TEST_F(ExpandJobs, ChecksIsTheLastAxisAndOnlyOnNamesItself) {
  auto m = parse_matrix(R"(matrix: m
board: stm32f407-disco
kernels: [{name: freertos}, {name: threadx}]
variants:
  tick_hz: [1000, 100]
  checks: [off, on]
)",
                        "m.yaml");
  ASSERT_TRUE(m.ok());
  m.value.firmware = fw_;
  auto jobs = expand_jobs(m.value);
  ASSERT_EQ(jobs.size(), 8u);
  // The default (off) keeps the ids runs had before the axis existed.
  EXPECT_EQ(jobs[0].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(jobs[0].checks, "off");
  EXPECT_EQ(jobs[1].id, "freertos-O2-tick1000-fpu0-checks");
  EXPECT_EQ(jobs[1].checks, "on");
  EXPECT_EQ(jobs[1].build_id, jobs[1].id);  // another image
  EXPECT_EQ(jobs[2].id, "freertos-O2-tick100-fpu0");
  EXPECT_EQ(jobs[7].id, "threadx-O2-tick100-fpu0-checks");
  std::set<std::string> ids;
  for (const auto& j : jobs) EXPECT_TRUE(ids.insert(j.id).second) << j.id;
}

TEST_F(ExpandJobs, ChecksDefaultsToOff) {
  auto m =
      parse_matrix("matrix: m\nboard: stm32f407-disco\nkernels: [{name: freertos}]\n", "m.yaml");
  ASSERT_TRUE(m.ok());
  m.value.firmware = fw_;
  auto jobs = expand_jobs(m.value);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].checks, "off");
  EXPECT_EQ(job_id("k", "Os", 100, 1, "off"), "k-Os-tick100-fpu1");
  EXPECT_EQ(job_id("k", "Os", 100, 1, "on"), "k-Os-tick100-fpu1-checks");
  EXPECT_EQ(job_id("k", "O2", 1000, 0, "off", 1), "k-O2-tick1000-fpu0-ram");
  EXPECT_EQ(job_id("k", "O2", 1000, 0, "on", 1), "k-O2-tick1000-fpu0-checks-ram");
  EXPECT_EQ(job_id("k", "O2", 1000, 0, "off", 0, 1), "k-O2-tick1000-fpu0-tickless");
  EXPECT_EQ(job_id("k", "O2", 1000, 0, "on", 1, 1), "k-O2-tick1000-fpu0-checks-ram-tickless");
}

TEST_F(ExpandJobs, TicklessIsTheLastAxisAndReachesTheJob) {
  auto m = parse_matrix(
      "matrix: m\nboard: stm32f407-disco\nkernels: [{name: freertos}]\n"
      "variants: {tick_hz: [1000, 100], tickless: [0, 1]}\n",
      "m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors.front().format();
  m.value.firmware = fw_;
  std::vector<std::string> ids;
  std::vector<int> tickless;
  for (const auto& j : expand_jobs(m.value)) {
    ids.push_back(j.id);
    tickless.push_back(j.tickless);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "freertos-O2-tick1000-fpu0", "freertos-O2-tick1000-fpu0-tickless",
                     "freertos-O2-tick100-fpu0", "freertos-O2-tick100-fpu0-tickless"}));
  EXPECT_EQ(tickless, (std::vector<int>{0, 1, 0, 1}));
}

TEST_F(ExpandJobs, RepeatsAreLoadsInsideOneJob) {
  auto m = parse_matrix(
      "matrix: m\nboard: stm32f407-disco\nkernels: [{name: freertos}]\nrepeats: 3\n", "m.yaml");
  ASSERT_TRUE(m.ok());
  m.value.firmware = fw_;
  auto jobs = expand_jobs(m.value);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(jobs[0].build_id, jobs[0].id);
  EXPECT_EQ(m.value.repeats, 3);
}

TEST_F(ExpandJobs, OnlyAndExcludeSelectByIdGlob) {
  auto m = parse_matrix(
      "matrix: m\nboard: stm32f407-disco\nkernels: [{name: freertos}, {name: zephyr}]\n"
      "variants: {opt: ['-O2', '-Os'], tick_hz: [1000, 100]}\n",
      "m.yaml");
  ASSERT_TRUE(m.ok());
  m.value.firmware = fw_;
  auto ids = [&] {
    std::vector<std::string> out;
    for (const auto& j : expand_jobs(m.value)) out.push_back(j.id);
    return out;
  };
  EXPECT_EQ(ids().size(), 8u);
  m.value.only = {"zephyr-*"};
  EXPECT_EQ(ids(), (std::vector<std::string>{"zephyr-O2-tick1000-fpu0", "zephyr-O2-tick100-fpu0",
                                             "zephyr-Os-tick1000-fpu0", "zephyr-Os-tick100-fpu0"}));
  m.value.exclude = {"*-tick100-*", "*-Os-*"};
  EXPECT_EQ(ids(), (std::vector<std::string>{"zephyr-O2-tick1000-fpu0"}));
  m.value.only.clear();
  EXPECT_EQ(ids(),
            (std::vector<std::string>{"freertos-O2-tick1000-fpu0", "zephyr-O2-tick1000-fpu0"}));
  m.value.only = {"[fz]*-O2-tick1000-fpu?"};
  m.value.exclude = {"f*"};
  EXPECT_EQ(ids(), (std::vector<std::string>{"zephyr-O2-tick1000-fpu0"}));
  m.value.only = {"nothing"};
  EXPECT_TRUE(ids().empty());
}

}  // namespace
}  // namespace rb::matrix
