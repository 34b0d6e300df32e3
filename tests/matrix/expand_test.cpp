#include "matrix/expand.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "matrix/load.h"

namespace rb::matrix {
namespace {

TEST(OptId, TakesTheOptimisationLevel) {
  EXPECT_EQ(model::opt_id("-O2 -g0"), "O2");
  EXPECT_EQ(model::opt_id("-g0 -Os"), "Os");
  EXPECT_EQ(model::opt_id("-O3"), "O3");
  EXPECT_EQ(model::opt_id("-flto -g0"), "fltog0");
}

// A matrix of the firmware tree's ports; newos has no port directory.
Matrix load(const std::string& text) {
  auto m = parse_matrix(text, "/m.yaml");
  EXPECT_TRUE(m.ok()) << (m.errors.empty() ? "" : m.errors.front().format());
  return m.value;
}

std::vector<std::string> ids_of(const Matrix& m) {
  std::vector<std::string> out;
  for (const auto& j : expand_jobs(m)) out.push_back(j.id);
  return out;
}

TEST(ExpandJobs, VariantsExpandInTableOrderWithStableIds) {
  auto m = load(R"(matrix: m
board: stm32f407-disco
kernels:
  - freertos
  - {name: newos, version: "1.0", git: https://example.org/newos.git, tag: v1.0}
variants:
  opt: ["-O2 -g0", "-Os -g0"]
  tick_hz: [1000, 100]
)");
  auto jobs = expand_jobs(m);
  ASSERT_EQ(jobs.size(), 8u);
  EXPECT_EQ(jobs[0].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(jobs[1].id, "freertos-O2-tick100-fpu0");
  EXPECT_EQ(jobs[2].id, "freertos-Os-tick1000-fpu0");
  EXPECT_EQ(jobs[4].id, "newos-O2-tick1000-fpu0");
  EXPECT_TRUE(jobs[0].port_exists);
  EXPECT_FALSE(jobs[4].port_exists);
  EXPECT_NE(jobs[4].port_missing_reason.find("no firmware port 'newos'"), std::string::npos);
  EXPECT_EQ(jobs[2].axis("opt"), "-Os -g0");
  EXPECT_EQ(jobs[1].axis_int("tick_hz"), 100);
  EXPECT_EQ(jobs[0].board, "stm32f407-disco");
  // Every axis of the table is in every job.
  for (const auto& a : model::axes()) EXPECT_EQ(jobs[0].variant.count(std::string(a.key)), 1u);
}

TEST(ExpandJobs, LaterAxesNameThemselvesOnlyOffTheirDefault) {
  auto m = load(R"(matrix: m
board: stm32f407-disco
kernels: [freertos, threadx]
variants:
  tick_hz: [1000, 100]
  checks: [off, on]
)");
  auto jobs = expand_jobs(m);
  ASSERT_EQ(jobs.size(), 8u);
  // The default (off) keeps the ids runs had before the axis existed.
  EXPECT_EQ(jobs[0].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(jobs[1].id, "freertos-O2-tick1000-fpu0-checks");
  EXPECT_EQ(jobs[1].axis("checks"), "on");
  EXPECT_EQ(jobs[1].build_id, jobs[1].id);  // another image
  EXPECT_EQ(jobs[7].id, "threadx-O2-tick100-fpu0-checks");
  std::set<std::string> ids;
  for (const auto& j : jobs) EXPECT_TRUE(ids.insert(j.id).second) << j.id;
  auto v = model::default_variant();
  EXPECT_EQ(model::job_id("k", v), "k-O2-tick1000-fpu0");
  v["checks"] = "on";
  v["ramfunc"] = "1";
  v["tickless"] = "1";
  EXPECT_EQ(model::job_id("k", v), "k-O2-tick1000-fpu0-checks-ram-tickless");
  v["edges"] = "on";
  EXPECT_EQ(model::job_id("k", v), "k-O2-tick1000-fpu0-checks-ram-tickless-edges");
}

TEST(ExpandJobs, EdgesIsAPinnedAxisOffByDefault) {
  const auto* a = model::find_axis("edges");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->define, "RB_EDGES");
  EXPECT_EQ(a->config, "edges");
  EXPECT_EQ(a->default_value, "off");
  EXPECT_TRUE(a->pinned);  // a build with edges is another experiment
  auto m = load(
      "matrix: m\nboard: stm32f407-disco\nkernels: [freertos]\n"
      "variants: {edges: [off, on]}\n");
  auto jobs = expand_jobs(m);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "freertos-O2-tick1000-fpu0");
  EXPECT_EQ(jobs[1].id, "freertos-O2-tick1000-fpu0-edges");
  EXPECT_EQ(jobs[1].axis("edges"), "on");
  EXPECT_EQ(jobs[1].build_id, jobs[1].id);  // another image
}

TEST(ExpandJobs, OneValueNeedsNoBrackets) {
  auto m = load(
      "matrix: m\nboard: stm32f407-disco\nkernels: [freertos]\n"
      "variants: {tick_hz: 100, tickless: [0, 1]}\n");
  EXPECT_EQ(ids_of(m), (std::vector<std::string>{"freertos-O2-tick100-fpu0",
                                                 "freertos-O2-tick100-fpu0-tickless"}));
}

TEST(ExpandJobs, RepeatsAreLoadsInsideOneJob) {
  auto m = load("matrix: m\nboard: stm32f407-disco\nkernels: [freertos]\nrepeats: 3\n");
  auto jobs = expand_jobs(m);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].build_id, jobs[0].id);
  EXPECT_EQ(m.repeats, 3);
}

// `loads:` is the documented name, `repeats:` its earlier one; not both.
TEST(Loads, RepeatsIsTheEarlierNameOfLoads) {
  EXPECT_EQ(load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\nloads: 4\n").repeats, 4);
  EXPECT_EQ(load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\nrepeats: 4\n").repeats, 4);
  auto both = parse_matrix(
      "matrix: m\nboard: stm32f407-disco\nkernels: [bare]\nloads: 4\nrepeats: 4\n", "/m.yaml");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.errors.front().format().find("'repeats' is the earlier name of 'loads'"),
            std::string::npos)
      << both.errors.front().format();
  EXPECT_FALSE(
      parse_matrix("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\nloads: 0\n", "/m.yaml")
          .ok());
}

// Without `loads:`, 5 loads on a bench whose board for the matrix is real
// hardware, 1 on an emulated one; a matrix's own `loads:` is kept.
TEST(Loads, DefaultIsFiveOnHardwareAndOneEmulated) {
  BoardInstance disco{"d", "stm32f407-disco"};
  disco.flasher = "openocd";
  disco.emulated = false;
  const BoardInstance qemu{"q", "qemu-netduinoplus2"};
  Bench hardware;
  hardware.boards = {disco};
  Bench emulated;
  emulated.boards = {qemu};
  Bench both;
  both.boards = {qemu, disco};

  auto on_disco = load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\n");
  ASSERT_TRUE(for_boards(on_disco, hardware).ok());
  EXPECT_EQ(on_disco.repeats, 5);
  EXPECT_EQ(on_disco.repeats, kHardwareLoads);

  auto on_qemu = load("matrix: m\nboard: qemu-netduinoplus2\nkernels: [bare]\n");
  ASSERT_TRUE(for_boards(on_qemu, emulated).ok());
  EXPECT_EQ(on_qemu.repeats, 1);

  // The bench's hardware board is not one the matrix runs on.
  auto qemu_of_both = load("matrix: m\nboard: qemu-netduinoplus2\nkernels: [bare]\n");
  ASSERT_TRUE(for_boards(qemu_of_both, both).ok());
  EXPECT_EQ(qemu_of_both.repeats, 1);
  // No board named: every board type of the bench, the hardware one included.
  auto every = load("matrix: m\nkernels: [bare]\n");
  ASSERT_TRUE(for_boards(every, both).ok());
  EXPECT_EQ(every.repeats, 5);

  auto own = load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\nloads: 2\n");
  ASSERT_TRUE(for_boards(own, hardware).ok());
  EXPECT_EQ(own.repeats, 2);
  auto one = load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\nrepeats: 1\n");
  ASSERT_TRUE(for_boards(one, hardware).ok());
  EXPECT_EQ(one.repeats, 1);
}

// Without a board of its own the matrix takes the bench's board types; with
// several, the board ends every id.
TEST(ExpandJobs, BoardsComeFromTheBench) {
  auto m = load("matrix: m\nkernels: [bare]\n");
  Bench bench;
  bench.boards.push_back(BoardInstance{"q", "qemu-netduinoplus2"});
  bench.boards.push_back(BoardInstance{"d", "stm32f407-disco"});
  ASSERT_TRUE(for_boards(m, bench).ok());
  EXPECT_EQ(ids_of(m), (std::vector<std::string>{"bare-O2-tick1000-fpu0-qemu-netduinoplus2",
                                                 "bare-O2-tick1000-fpu0-stm32f407-disco"}));
  auto one = load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\n");
  Bench qemu;
  qemu.boards.push_back(BoardInstance{"q", "qemu-netduinoplus2"});
  auto s = for_boards(one, qemu);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no board instance of board 'stm32f407-disco'"),
            std::string::npos);
}

// `all`: every port of the tree but the template, the reference first; an
// entry after it replaces that port's pin.
TEST(ExpandJobs, AllIsEveryDiscoveredPort) {
  auto m = load("matrix: m\nboard: qemu-netduinoplus2\nkernels: all\n");
  ASSERT_FALSE(m.kernels.empty());
  EXPECT_EQ(m.kernels.front().name, "bare");
  for (const auto& k : m.kernels) EXPECT_NE(k.name, "template");
  auto o = load(
      "matrix: m\nboard: qemu-netduinoplus2\nkernels:\n  - all\n"
      "  - {name: zephyr, git: https://github.com/zephyrproject-rtos/zephyr, tag: v3.5.0}\n");
  ASSERT_EQ(o.kernels.size(), m.kernels.size());
  for (size_t i = 0; i < o.kernels.size(); ++i) {
    EXPECT_EQ(o.kernels[i].name, m.kernels[i].name);
    if (o.kernels[i].name != "zephyr") continue;
    EXPECT_EQ(o.kernels[i].tag, "v3.5.0");
    EXPECT_EQ(o.kernels[i].commit, "");                // a new pin replaces the whole pin
    EXPECT_EQ(o.kernels[i].extra_sources.size(), 2u);  // the port's modules stay
  }
}

TEST(ExpandJobs, DeclaredPinsLayerBoardMatrixJobKernel) {
  auto m = load(
      "matrix: m\nboard: stm32f407-disco\nkernels: [nuttx, tencentos]\n"
      "expect: {lookup: clz, core: \"100\"}\n");
  auto nuttx = declared_pins(m, m.kernels[0], "stm32f407-disco", {{"tick", "1000"}});
  EXPECT_EQ(nuttx.at("counter"), "dwt");     // the board's
  EXPECT_EQ(nuttx.at("core"), "100");        // the matrix over the board
  EXPECT_EQ(nuttx.at("tick"), "1000");       // the job's
  EXPECT_EQ(nuttx.at("lookup"), "generic");  // the kernel's over the matrix
  EXPECT_EQ(nuttx.at("tick_prio"), "14");    // the kernel's over the board
  auto tos = declared_pins(m, m.kernels[1], "stm32f407-disco", {{"checks", "off"}});
  EXPECT_EQ(tos.at("checks"), "partial");  // over the job's
  EXPECT_EQ(tos.at("tick_prio"), "15");
  // partial is what an `off` build is: a job built with checks on pins on.
  auto tos_on = declared_pins(m, m.kernels[1], "stm32f407-disco", {{"checks", "on"}});
  EXPECT_EQ(tos_on.at("checks"), "on");
  EXPECT_EQ(nuttx.at("checks"), "partial");  // the kernel's, with no job pin
  // The CPU port its recipe names for the board's core (RB_PORT_CPUS).
  EXPECT_EQ(nuttx.at("port_variant"), "arch/arm/src/armv7-m");
  EXPECT_EQ(tos.at("port_variant"), "arch/arm/arm-v7m/cortex-m4/gcc");
  EXPECT_EQ(declared_pins(m, m.kernels[1], "qemu-mps2-an505", {}).at("port_variant"),
            "arch/arm/arm-v8m/cortex-m33/gcc");
  // The reference port names none: no pin.
  auto b = load("matrix: m\nboard: stm32f407-disco\nkernels: [bare]\n");
  EXPECT_EQ(declared_pins(b, b.kernels[0], "stm32f407-disco", {}).count("port_variant"), 0u);
}

TEST(ExpandJobs, OnlyAndExcludeSelectByIdGlob) {
  auto m = load(
      "matrix: m\nboard: stm32f407-disco\nkernels: [freertos, zephyr]\n"
      "variants: {opt: ['-O2', '-Os'], tick_hz: [1000, 100]}\n");
  EXPECT_EQ(ids_of(m).size(), 8u);
  m.only = {"zephyr-*"};
  EXPECT_EQ(ids_of(m),
            (std::vector<std::string>{"zephyr-O2-tick1000-fpu0", "zephyr-O2-tick100-fpu0",
                                      "zephyr-Os-tick1000-fpu0", "zephyr-Os-tick100-fpu0"}));
  m.exclude = {"*-tick100-*", "*-Os-*"};
  EXPECT_EQ(ids_of(m), (std::vector<std::string>{"zephyr-O2-tick1000-fpu0"}));
  m.only.clear();
  EXPECT_EQ(ids_of(m),
            (std::vector<std::string>{"freertos-O2-tick1000-fpu0", "zephyr-O2-tick1000-fpu0"}));
  m.only = {"[fz]*-O2-tick1000-fpu?"};
  m.exclude = {"f*"};
  EXPECT_EQ(ids_of(m), (std::vector<std::string>{"zephyr-O2-tick1000-fpu0"}));
  m.only = {"nothing"};
  EXPECT_TRUE(ids_of(m).empty());
}

}  // namespace
}  // namespace rb::matrix
