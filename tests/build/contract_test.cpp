#include "build/contract.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../util/fake_process_runner.h"
#include "catalog/catalog.h"

namespace rb::build {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::filesystem::path(RTOSBENCH_TEST_DATA) / "build" / "contract" / name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  for (const auto& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

TEST(Contract, NmKeepsDefinedSymbolsOnly) {
  const auto syms = parse_nm(fixture("nm.txt"));
  EXPECT_TRUE(syms.count("xTaskCreateStatic"));
  EXPECT_TRUE(syms.count("ucHeap"));
  EXPECT_FALSE(syms.count("__libc_init_array"));  // U
  EXPECT_FALSE(syms.count("weak_unused"));        // w
  EXPECT_EQ(syms.size(), 6u);
}

TEST(Contract, EverySymbolDriftIsListed) {
  model::ContractSymbols rule;
  rule.present = {"xTaskCreateStatic", "pvPortMalloc", "xTimerCreateTimerTask"};
  rule.absent = {"rb_fatal", "vAssertCalled", "PendSV_Handler"};
  std::vector<std::string> drifts;
  EXPECT_EQ(compare_symbols(rule, parse_nm(fixture("nm.txt")), drifts), 6);
  ASSERT_EQ(drifts.size(), 4u);
  EXPECT_TRUE(mentions(drifts, "pvPortMalloc is not in the image"));
  EXPECT_TRUE(mentions(drifts, "xTimerCreateTimerTask is not in the image"));
  EXPECT_TRUE(mentions(drifts, "rb_fatal is in the image, the contract says absent"));
  EXPECT_TRUE(mentions(drifts, "PendSV_Handler is in the image"));
  EXPECT_FALSE(mentions(drifts, "vAssertCalled"));
}

TEST(Contract, KconfigValuesAndNotSet) {
  const auto c = parse_kconfig(fixture("dot.config"));
  EXPECT_EQ(c.at("CONFIG_ASSERT"), "n");
  EXPECT_EQ(c.at("CONFIG_MULTITHREADING"), "y");
  EXPECT_EQ(c.at("CONFIG_BOARD"), "rtosbench_f407");
  EXPECT_EQ(c.at("CONFIG_TIMESLICE_SIZE"), "1");
  EXPECT_FALSE(c.count("Zephyr"));
}

TEST(Contract, KconfigDriftsAllListedAndAnUnwrittenOptionIsNotSet) {
  model::ContractConfig rule;
  rule.file = "zephyr-app/zephyr/.config";
  rule.format = "kconfig";
  rule.require = {{"CONFIG_ASSERT", "n"},         {"CONFIG_THREAD_MONITOR", "n"},
                  {"CONFIG_TRACING", "n"},        {"CONFIG_MULTITHREADING", "y"},
                  {"CONFIG_STACK_SENTINEL", "y"}, {"CONFIG_BOARD", "rtosbench_f407"},
                  {"CONFIG_TIMESLICE_SIZE", "10"}};
  std::vector<std::string> drifts;
  EXPECT_EQ(compare_kconfig(rule, parse_kconfig(fixture("dot.config")), drifts), 7);
  ASSERT_EQ(drifts.size(), 3u);
  EXPECT_TRUE(mentions(drifts, "CONFIG_THREAD_MONITOR is y, the contract requires n"));
  EXPECT_TRUE(mentions(drifts, "CONFIG_STACK_SENTINEL is n (not written)"));
  EXPECT_TRUE(mentions(drifts, "CONFIG_TIMESLICE_SIZE is 1, the contract requires 10"));
}

TEST(Contract, HeaderProbeRoundTrip) {
  model::ContractConfig rule;
  rule.file = "rtconfig.h";
  rule.format = "header";
  rule.require = {{"RT_DEBUG", "undefined"},
                  {"RT_USING_HOOK", "defined"},
                  {"RT_TICK_PER_SECOND", "1000"},
                  {"RT_NAME_MAX", "8"}};
  const std::string src = header_probe_source(rule);
  EXPECT_NE(src.find("#include \"rtconfig.h\""), std::string::npos);
  EXPECT_NE(src.find("#ifdef RT_DEBUG"), std::string::npos);
  const std::string pre = fixture("probe.i");
  const auto macros = parse_header_probe(pre);
  EXPECT_FALSE(macros.count("RT_DEBUG"));
  EXPECT_EQ(macros.at("RT_USING_HOOK"), "");
  EXPECT_EQ(macros.at("RT_TICK_PER_SECOND"), "(1000U)");
  EXPECT_EQ(included_header(pre, "rtconfig.h"), "/src/firmware/ports/rtthread/rtconfig.h");
  std::vector<std::string> drifts;
  // (1000U) is 1000: the expansion is compared without its parentheses and suffix.
  EXPECT_EQ(compare_header(rule, macros, drifts), 4);
  EXPECT_TRUE(drifts.empty()) << drift_message(drifts);
  rule.require = {{"RT_DEBUG", "defined"},
                  {"RT_USING_HOOK", "undefined"},
                  {"RT_TICK_PER_SECOND", "100"},
                  {"RT_NAME_MAX", "8"},
                  {"RT_USING_OVERFLOW_CHECK", "1"}};
  EXPECT_EQ(compare_header(rule, macros, drifts), 5);
  EXPECT_EQ(drifts.size(), 4u) << drift_message(drifts);
  EXPECT_TRUE(mentions(drifts, "RT_TICK_PER_SECOND is '(1000U)', the contract requires 100"));
  EXPECT_TRUE(mentions(drifts, "RT_USING_OVERFLOW_CHECK is undefined"));
}

TEST(Contract, SplitCommandAndProbeArgv) {
  const auto argv = split_command(
      R"(/usr/bin/arm-none-eabi-gcc -DRB_X=\"a\ b\" -I/w/fw/ports/rtthread "-I/with space" )"
      R"(-O2 -MD -MT o/x.o -MF o/x.o.d -o o/x.o -c /w/fw/ports/rtthread/rb_port_rtthread.c)");
  ASSERT_GE(argv.size(), 5u);
  EXPECT_EQ(argv[1], "-DRB_X=\"a b\"");
  EXPECT_EQ(argv[3], "-I/with space");
  const auto probe = probe_argv(argv, "/w/fw/ports/rtthread/rb_port_rtthread.c", "/b/probe.c");
  const std::vector<std::string> want{"/usr/bin/arm-none-eabi-gcc",
                                      "-DRB_X=\"a b\"",
                                      "-I/w/fw/ports/rtthread",
                                      "-I/with space",
                                      "-O2",
                                      "-E",
                                      "-x",
                                      "c",
                                      "/b/probe.c"};
  EXPECT_EQ(probe, want);
}

TEST(Contract, WhenHoldsOnEveryNamedAxis) {
  auto v = model::default_variant();
  EXPECT_TRUE(when_holds({}, v));
  EXPECT_TRUE(when_holds({{"checks", {"off"}}}, v));
  EXPECT_FALSE(when_holds({{"checks", {"on"}}}, v));
  EXPECT_TRUE(when_holds({{"checks", {"on", "off"}}, {"tickless", {"0"}}}, v));
  EXPECT_FALSE(when_holds({{"checks", {"off"}}, {"tickless", {"1"}}}, v));
}

// check_contract with a scripted nm: symbol drifts, a .config drift and a
// configuration file the build did not write, all in one list; rules whose
// `when` does not hold are counted as skipped, not compared.
TEST(Contract, CheckCollectsEveryDrift) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rb-contract-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "zephyr");
  std::filesystem::copy_file(
      std::filesystem::path(RTOSBENCH_TEST_DATA) / "build" / "contract" / "dot.config",
      dir / "zephyr" / ".config");
  model::Contract c;
  c.symbols.push_back({{}, {"xTaskCreateStatic"}, {"rb_fatal"}});
  c.symbols.push_back({{{"checks", {"on"}}}, {"vAssertCalled"}, {}});
  c.config.push_back({{}, "zephyr/.config", "kconfig", "", {{"CONFIG_THREAD_MONITOR", "n"}}});
  c.config.push_back({{}, "nuttx/.config", "kconfig", "", {{"CONFIG_DEBUG", "n"}}});
  testing::FakeProcessRunner runner;
  runner.on("arm-none-eabi-nm", "--defined-only", 0, fixture("nm.txt"));
  auto r = check_contract(runner, c, model::default_variant(),
                          ContractInputs{dir / "x.elf", dir, "freertos"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->drifts.size(), 3u) << drift_message(r->drifts);
  EXPECT_TRUE(mentions(r->drifts, "rb_fatal is in the image"));
  EXPECT_TRUE(mentions(r->drifts, "CONFIG_THREAD_MONITOR is y"));
  EXPECT_TRUE(mentions(r->drifts, "nuttx/.config: the build wrote no such file"));
  EXPECT_EQ(r->summary.symbols, 2);
  EXPECT_EQ(r->summary.config, 1);
  EXPECT_EQ(r->summary.skipped, 1);
  EXPECT_EQ(r->summary.files, std::vector<std::string>{"zephyr/.config"});
  EXPECT_EQ(drift_message(r->drifts).rfind("3 drift(s)", 0), 0u);
  // nm that does not run is an error of the check, not a drift.
  testing::FakeProcessRunner broken;
  broken.on_missing("arm-none-eabi-nm");
  EXPECT_FALSE(check_contract(broken, c, model::default_variant(),
                              ContractInputs{dir / "x.elf", dir, "freertos"})
                   .ok());
  std::filesystem::remove_all(dir);
}

// A malformed contract in kernel.yaml is a diagnostic with its place, never a crash.
TEST(Contract, HostileKernelYamlIsADiagnostic) {
  struct Case {
    std::string yaml, says;
  };
  const std::vector<Case> cases{
      {"contract: {symbols: [{when: {colour: red}, absent: [x]}]}\n", "not a variant axis"},
      {"contract: {symbols: [{}]}\n", "names no 'present' or 'absent'"},
      {"contract: {symbols: [{present: [a], absent: [a]}]}\n", "both present and absent"},
      {"contract: {symbols: [{absent: [\"a b\"]}]}\n", "symbol"},
      {"contract: {symbols: {absent: [x]}}\n", "contract"},
      {"contract: {config: [{file: ../../etc/passwd, format: kconfig, require: {CONFIG_A: y}}]}\n",
       "file"},
      {"contract: {config: [{file: /etc/passwd, format: kconfig, require: {CONFIG_A: y}}]}\n",
       "file"},
      {"contract: {config: [{file: a/.config, format: ini, require: {CONFIG_A: y}}]}\n", "format"},
      {"contract: {config: [{file: a/.config, format: kconfig, require: {}}]}\n", "require"},
      {"contract: {config: [{file: a/.config, format: kconfig, require: {ASSERT: y}}]}\n",
       "starts with CONFIG_"},
      {"contract: {config: [{file: a/.config, format: kconfig, unit: '*.c', require: "
       "{CONFIG_A: y}}]}\n",
       "header only"},
      {"contract: {config: [{file: a.h, format: header, require: {A: [1, 2]}}]}\n", "require"},
      {"contract: {config: [{format: header, require: {A: 1}}]}\n", "file"},
      {"contract: {colour: red}\n", "colour"},
      {"contract: [1, 2]\n", "contract"},
  };
  for (const auto& c : cases) {
    model::KernelSpec k;
    std::vector<Diagnostic> d;
    EXPECT_FALSE(catalog::parse_kernel_yaml(c.yaml, "kernel.yaml", k, d)) << c.yaml;
    ASSERT_FALSE(d.empty()) << c.yaml;
    std::string all;
    for (const auto& x : d) all += x.message + " | ";
    EXPECT_NE(all.find(c.says), std::string::npos) << c.yaml << " -> " << all;
    EXPECT_GT(d.front().line, 0) << c.yaml << " -> " << all;
  }
  model::KernelSpec k;
  std::vector<Diagnostic> d;
  ASSERT_TRUE(catalog::parse_kernel_yaml(
      "contract:\n  symbols:\n    - {when: {checks: \"on\", fpu_context: [0, 1]}, present: [a]}\n"
      "  config:\n    - {file: rtconfig.h, format: header, require: {RT_DEBUG: undefined, "
      "RT_NAME_MAX: 8}}\n",
      "kernel.yaml", k, d))
      << (d.empty() ? "" : d.front().message);
  ASSERT_EQ(k.contract.symbols.size(), 1u);
  EXPECT_EQ(k.contract.symbols[0].when.at("fpu_context"), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(k.contract.config[0].require.at("RT_NAME_MAX"), "8");
}

}  // namespace
}  // namespace rb::build
