// Ports, boards and harness tests are discovered from the firmware tree at
// run time, not listed in the host: the catalog must hold exactly what
// firmware/ holds, read from the one file each fact lives in.
#include "catalog/catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "matrix/load.h"
#include "util/temp_dir.h"

namespace rb::catalog {
namespace {

namespace fs = std::filesystem;
const fs::path kFirmware = fs::path(RTOSBENCH_SOURCE_DIR) / "firmware";

Catalog tree() {
  std::vector<Diagnostic> d;
  auto c = load(kFirmware, d);
  EXPECT_TRUE(c.ok()) << (d.empty() ? c.error().message : d.front().format());
  return c.ok() ? *c : Catalog{};
}

TEST(Catalog, EveryBoardDirectoryIsABoard) {
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(kFirmware / "boards")) {
    if (fs::exists(e.path() / "board.cmake")) dirs.push_back(e.path().filename().string());
  }
  std::sort(dirs.begin(), dirs.end());
  EXPECT_EQ(tree().board_names(), dirs);
  ASSERT_FALSE(dirs.empty());
}

TEST(Catalog, EveryPortDirectoryIsAKernelReferenceFirst) {
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(kFirmware / "ports")) {
    if (fs::exists(e.path() / "port.cmake")) dirs.push_back(e.path().filename().string());
  }
  const Catalog c = tree();
  ASSERT_EQ(c.kernels.size(), dirs.size());
  EXPECT_EQ(c.kernels.front().name, "bare");
  EXPECT_TRUE(c.kernels.front().reference);
  for (const auto& k : c.kernels) {
    EXPECT_NE(std::find(dirs.begin(), dirs.end(), k.name), dirs.end()) << k.name;
    // Every port but the template is discovered and declares its version.
    EXPECT_EQ(k.discover, k.name != "template") << k.name;
    if (k.discover && k.name != "bare") EXPECT_NE(k.version, "n/a") << k.name;
  }
}

TEST(Catalog, KernelFactsComeFromKernelYaml) {
  const Catalog c = tree();
  const auto* t = c.kernel("tencentos");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->commit, "1a4f91ab8e99fcc5a9db214ae6ba0d996de25498");
  EXPECT_EQ(t->expect.at("checks"), "partial");
  EXPECT_EQ(t->defects.count("mutex_pi"), 1u);
  EXPECT_EQ(t->na.count("notify"), 1u);
  const auto* u = c.kernel("ucos3");
  ASSERT_NE(u, nullptr);
  ASSERT_EQ(u->extra_sources.size(), 2u);
  EXPECT_EQ(u->extra_sources[0].name, "uc_cpu");
  const auto* z = c.kernel("zephyr");
  ASSERT_NE(z, nullptr);
  EXPECT_FALSE(z->footprint.files.empty());
  EXPECT_EQ(c.kernel("liteos_m")->checks_series, "wake_latency");
  EXPECT_EQ(c.kernel("freertos")->checks_series, "api_overhead");
  EXPECT_EQ(c.kernel("nosuchkernel"), nullptr);
}

// A recipe's one-line RB_PORT_CPUS, as firmware/CMakeLists.txt reads it.
TEST(Catalog, CpuPortsComeFromTheRecipesOneLine) {
  EXPECT_EQ(read_port_cpus("# x\nset(RB_PORT_CPUS cortex-m3=a/m3 cortex-m4)\n"),
            (std::map<std::string, std::string>{{"cortex-m3", "a/m3"}, {"cortex-m4", ""}}));
  EXPECT_EQ(read_port_cpus("set(RB_PORT_CPUS \"cortex-m33=RTX T/irq\" cortex-m4=b)"),
            (std::map<std::string, std::string>{{"cortex-m33", "RTX T/irq"}, {"cortex-m4", "b"}}));
  // Not at the start of a line (a comment): no line, the Cortex-M4 default.
  EXPECT_EQ(read_port_cpus("#   set(RB_PORT_CPUS cortex-m3=x)\n"),
            (std::map<std::string, std::string>{{"cortex-m4", ""}}));
  const Catalog c = tree();
  EXPECT_EQ(c.kernel("rtthread")->cpu_ports.at("cortex-m33"), "libcpu/arm/cortex-m33");
  EXPECT_EQ(c.kernel("mbedos")->cpu_ports.at("cortex-m3"), "RTX TARGET_M3/irq_cm3");
  EXPECT_EQ(c.kernel("ucos3")->cpu_ports.count("cortex-m33"), 0u);
  EXPECT_EQ(c.kernel("bare")->cpu_ports.at("cortex-m4"), "");
  // A defect of one core's CPU port names its cores.
  EXPECT_EQ(c.kernel("tencentos")->defect_cpus.at("tick_prio"),
            std::vector<std::string>{"cortex-m3"});
  EXPECT_EQ(c.kernel("tencentos")->defect_cpus.count("mutex_pi"), 0u);
}

TEST(Catalog, UnequalWorkComesFromKernelYaml) {
  const Catalog c = tree();
  const auto* l = c.kernel("liteos_m");
  ASSERT_NE(l, nullptr);
  ASSERT_FALSE(l->unequal.empty());
  EXPECT_NE(l->unequal[0].what.find("CPACR"), std::string::npos);
  EXPECT_NE(std::find(l->unequal[0].series.begin(), l->unequal[0].series.end(), "yield"),
            l->unequal[0].series.end());
  EXPECT_FALSE(l->unequal[0].note.empty());
  EXPECT_TRUE(c.kernel("freertos")->unequal.empty());

  std::vector<Diagnostic> d;
  model::KernelSpec k;
  EXPECT_TRUE(
      parse_kernel_yaml("unequal:\n  - {what: w, series: [yield], note: n}\n", "k.yaml", k, d));
  ASSERT_EQ(k.unequal.size(), 1u);
  EXPECT_EQ(k.unequal[0].series, std::vector<std::string>{"yield"});
  // Each item needs its three keys.
  model::KernelSpec k2;
  EXPECT_FALSE(parse_kernel_yaml("unequal:\n  - {what: w, series: [yield]}\n", "k.yaml", k2, d));
}

TEST(Catalog, ABoardIncludesOnlyAFileOfTheBoardsDirectory) {
  auto tmp = make_owned_temp_dir("rtosbench-catalog-include");
  ASSERT_TRUE(tmp.ok());
  const fs::path fw = *tmp / "firmware";
  fs::create_directories(fw / "ports");
  fs::copy(kFirmware / "harness", fw / "harness", fs::copy_options::recursive);
  fs::copy(kFirmware / "ports" / "bare", fw / "ports" / "bare", fs::copy_options::recursive);
  fs::create_directories(fw / "boards" / "b1");
  fs::create_directories(fw / "boards" / "common");
  std::ofstream(*tmp / "outside.cmake") << "set(RB_BOARD_FLASHERS qemu)\n";
  std::ofstream(fw / "boards" / "common" / "nested.cmake")
      << "include(\"${RB_BOARD_DIR}/../common/x.cmake\")\n";
  std::ofstream(fw / "boards" / "b1" / "board.cmake")
      << "include(\"${RB_BOARD_DIR}/../../../outside.cmake\")\n"
      << "include(\"${RB_BOARD_DIR}/../common/nested.cmake\")\n";
  std::vector<Diagnostic> d;
  auto c = load(fw, d);
  ASSERT_FALSE(c.ok());
  int refused = 0;
  bool no_flasher = false;
  for (const auto& x : d) {
    refused += x.format().find("may include only a file of firmware/boards/") != std::string::npos;
    no_flasher |= x.format().find("names no flasher") != std::string::npos;
  }
  EXPECT_EQ(refused, 2);    // the file outside, and the shared file's own include
  EXPECT_TRUE(no_flasher);  // the outside file's setting was not read
  fs::remove_all(*tmp);
}

TEST(Catalog, UnequalWorkNamesSeriesTheHarnessWrites) {
  // A copy of the tree whose LiteOS-M port names a series no test writes.
  auto tmp = make_owned_temp_dir("rtosbench-catalog-unequal");
  ASSERT_TRUE(tmp.ok());
  const fs::path fw = *tmp / "firmware";
  fs::create_directories(fw / "boards");
  fs::create_directories(fw / "ports");
  fs::copy(kFirmware / "harness", fw / "harness", fs::copy_options::recursive);
  for (const char* port : {"bare", "liteos_m"})
    fs::copy(kFirmware / "ports" / port, fw / "ports" / port, fs::copy_options::recursive);
  {
    std::ofstream y(fw / "ports" / "liteos_m" / "kernel.yaml", std::ios::app);
    y << "  - {what: typo, series: [no_such_series], note: n}\n";
  }
  std::vector<Diagnostic> d;
  auto c = load(fw, d);
  ASSERT_FALSE(c.ok());
  bool found = false;
  for (const auto& x : d) found |= x.format().find("no_such_series") != std::string::npos;
  EXPECT_TRUE(found);
  fs::remove_all(*tmp);
}

TEST(Catalog, BoardFactsComeFromBoardCmake) {
  const Catalog c = tree();
  const auto* q = c.board("qemu-netduinoplus2");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->flashers, std::vector<std::string>{"qemu"});
  EXPECT_EQ(q->emulator, "qemu");
  EXPECT_EQ(q->qemu_machine, "netduinoplus2");
  EXPECT_EQ(q->cpu, "cortex-m4");  // RB_BOARD_CPU_FLAGS' -mcpu=
  EXPECT_EQ(q->expect.at("unit"), "instructions");
  const auto* m3 = c.board("qemu-netduino2");
  ASSERT_NE(m3, nullptr);
  EXPECT_EQ(m3->qemu_machine, "netduino2");
  EXPECT_EQ(m3->cpu, "cortex-m3");
  // The QEMU boards' shared declarations come through their include of
  // boards/common/qemu-stm32.cmake, the board's own settings after them.
  EXPECT_EQ(m3->flashers, std::vector<std::string>{"qemu"});
  EXPECT_EQ(m3->not_measured, q->not_measured);
  EXPECT_EQ(m3->unstable, q->unstable);
  EXPECT_TRUE(q->not_measured.count("irq_entry"));
  EXPECT_EQ(m3->expect.at("core"), "120000000");
  EXPECT_EQ(q->expect.count("core"), 0u);
  const auto* d = c.board("stm32f407-disco");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->flashers, (std::vector<std::string>{"openocd", "pyocd"}));
  EXPECT_EQ(d->emulator, "");
  EXPECT_EQ(d->targets.at("openocd"), "target/stm32f4x.cfg");
  EXPECT_EQ(d->dev_id, 0x413u);
  EXPECT_EQ(d->revisions.at(0x1007), "1");
  EXPECT_EQ(d->expect.at("core"), "168000000");
  // Seed 001's GD32F103C8: a Cortex-M3 at 72 MHz driven as an STM32F1, its
  // clocks and wait states pinned apart from the F407's.
  const auto* g = c.board("gd32f103c8");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->cpu, "cortex-m3");
  EXPECT_EQ(g->flashers, (std::vector<std::string>{"openocd", "pyocd"}));
  EXPECT_EQ(g->targets.at("openocd"), "target/stm32f1x.cfg");
  EXPECT_EQ(g->dev_id, 0x410u);
  EXPECT_EQ(g->expect.at("core"), "72000000");
  EXPECT_EQ(g->expect.at("irq_hz_measured"), "72000000");
  EXPECT_EQ(g->expect.at("flash_ws"), "2");
  EXPECT_EQ(g->expect.at("counter"), "dwt");
  EXPECT_EQ(g->lower_bounds.at("irq_entry").cycles, 12u);
  EXPECT_TRUE(g->not_measured.empty());
  // The addresses the flashers use are the part's: RCU_RSTSCK on the GD32,
  // RCC_CSR on the F407; the QEMU boards verify flash at 0x08000000 and run
  // at shift 0.
  EXPECT_EQ(d->target.flash_base, 0x08000000u);
  EXPECT_EQ(d->target.dbgmcu_base, 0xE0042000u);
  EXPECT_EQ(d->target.reset_flags_clear.address, 0x40023874u);
  EXPECT_EQ(d->target.reset_flags_clear.value, 0x01000000u);
  EXPECT_EQ(g->target.reset_flags_clear.address, 0x40021024u);
  EXPECT_EQ(q->target.flash_base, 0x08000000u);
  EXPECT_EQ(q->target.reset_flags_clear.address, 0u);
  EXPECT_EQ(q->target.qemu_icount_shift, 0u);
  EXPECT_EQ(c.board("nosuchboard"), nullptr);
}

// A board a probe flashes names its part's addresses; none is assumed.
TEST(Catalog, ABoardWithoutItsAddressesIsADiagnostic) {
  auto tmp = make_owned_temp_dir("rtosbench-catalog-target");
  ASSERT_TRUE(tmp.ok());
  const fs::path fw = *tmp / "firmware";
  fs::create_directories(fw);
  fs::copy(kFirmware, fw, fs::copy_options::recursive);
  const fs::path file = fw / "boards" / "stm32f407-disco" / "board.cmake";
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  std::string kept, line;
  for (std::istringstream in(text.str()); std::getline(in, line);)
    if (line.find("RB_BOARD_RESET_FLAGS_CLEAR") == std::string::npos &&
        line.find("RB_BOARD_FLASH_BASE") == std::string::npos)
      kept += line + "\n";
  std::ofstream(file) << kept << "set(RB_BOARD_DBGMCU_BASE E0042000)\n";
  std::vector<Diagnostic> d;
  (void)load(fw, d);
  std::string all;
  for (const auto& x : d) all += x.format() + "\n";
  EXPECT_NE(all.find("RB_BOARD_DBGMCU_BASE: expected an address 0x..."), std::string::npos) << all;
  EXPECT_NE(all.find("sets no RB_BOARD_FLASH_BASE"), std::string::npos) << all;
  EXPECT_NE(all.find("so it sets RB_BOARD_DBGMCU_BASE and RB_BOARD_RESET_FLAGS_CLEAR"),
            std::string::npos)
      << all;
  fs::remove_all(*tmp);
}

// RB_BOARD_NOT_MEASURED_<series>: QEMU cannot measure interrupt entry (of
// the test timer, after WFI, at the zero-latency level), a time slice or a
// tickless sleep against TIM2; the F407 measures everything. RB_BOARD_UNSTABLE_<series>: what QEMU
// itself moves.
TEST(Catalog, SeriesNotMeasuredAndUnstableComeFromBoardCmake) {
  const Catalog c = tree();
  const auto* q = c.board("qemu-netduinoplus2");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->not_measured.size(), 6u);
  EXPECT_NE(q->not_measured_reason("tick_sleep").find("factor of 2"), std::string::npos);
  for (const char* s : {"sleep_wake_entry", "zli_entry_idle", "zli_entry_critical"})
    EXPECT_NE(q->not_measured_reason(s).find("entry"), std::string::npos) << s;
  EXPECT_EQ(q->not_measured_reason("event_to_task"), "");
  EXPECT_NE(q->unjudged_reason("sleep_wake").find("2703"), std::string::npos);
  const auto* d = c.board("stm32f407-disco");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->not_measured.empty());
  EXPECT_TRUE(d->unstable.empty());
}

// The F407 declares the Cortex-M4's architectural lower bounds in core
// cycles; the emulated board, whose unit is instructions, declares none.
TEST(Catalog, LowerBoundsComeFromBoardCmake) {
  const Catalog c = tree();
  const auto* q = c.board("qemu-netduinoplus2");
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(q->lower_bounds.empty());
  const auto* d = c.board("stm32f407-disco");
  ASSERT_NE(d, nullptr);
  for (const char* s : {"irq_entry", "zli_entry_idle", "zli_entry_critical", "sleep_wake_entry"}) {
    ASSERT_TRUE(d->lower_bounds.count(s)) << s;
    EXPECT_EQ(d->lower_bounds.at(s).cycles, 12u) << s;
    EXPECT_NE(d->lower_bounds.at(s).why.find("DDI 0439"), std::string::npos) << s;
  }
  for (const char* s : {"event_to_task", "tick_irq_empty"}) {
    ASSERT_TRUE(d->lower_bounds.count(s)) << s;
    EXPECT_EQ(d->lower_bounds.at(s).cycles, 22u) << s;  // entry 12 + return 10
  }
  EXPECT_FALSE(d->lower_bounds.count("api_overhead"));
}

TEST(Catalog, AMalformedLowerBoundIsADiagnostic) {
  auto tmp = make_owned_temp_dir("rtosbench-catalog-bound");
  ASSERT_TRUE(tmp.ok());
  const fs::path fw = *tmp / "firmware";
  fs::create_directories(fw);
  fs::copy(kFirmware, fw, fs::copy_options::recursive);
  std::ofstream(fw / "boards" / "stm32f407-disco" / "board.cmake", std::ios::app)
      << "set(RB_BOARD_LOWER_BOUND_round_trip many cycles)\n"
      << "set(RB_BOARD_LOWER_BOUND_yield 0 nothing)\n";
  std::vector<Diagnostic> d;
  auto c = load(fw, d);
  ASSERT_EQ(d.size(), 2u) << (d.empty() ? "" : d.front().format());
  for (const auto& x : d) {
    EXPECT_NE(x.message.find("expected `<cycles> <why>`"), std::string::npos) << x.format();
    EXPECT_EQ(x.file, "firmware/boards/stm32f407-disco/board.cmake") << x.format();
  }
  if (c.ok()) {
    const auto* b = c->board("stm32f407-disco");
    ASSERT_NE(b, nullptr);
    EXPECT_FALSE(b->lower_bounds.count("round_trip"));
    EXPECT_FALSE(b->lower_bounds.count("yield"));
  }
}

// The names in firmware/harness/rb_tests.h's table, read independently of
// the catalog, and a test source file for each.
TEST(Catalog, HarnessTestsAreTheFirmwareTable) {
  std::ifstream in(kFirmware / "harness" / "rb_tests.h");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::regex entry("\n  X\\(([a-z0-9_]+),");
  std::vector<std::string> names;
  for (std::sregex_iterator it(s.begin(), s.end(), entry), end; it != end; ++it)
    names.push_back((*it)[1]);
  ASSERT_GE(names.size(), 2u);
  const Catalog c = tree();
  EXPECT_EQ(c.test_names(), names);
  for (const auto& t : c.tests) {
    EXPECT_TRUE(fs::exists(kFirmware / "harness" / "tests" / (t.name + ".c"))) << t.name;
    EXPECT_FALSE(t.series.empty()) << t.name;
    EXPECT_TRUE(t.pacing == "free" || t.pacing == "event" || t.pacing == "tick") << t.name;
  }
  const auto* irq = c.test("irq_latency");
  ASSERT_NE(irq, nullptr);
  ASSERT_EQ(irq->series.size(), 2u);
  EXPECT_EQ(irq->series[1].name, "event_to_task");
  EXPECT_EQ(c.series_unit("heap_free_bytes", "cycles"), "bytes");
  EXPECT_EQ(c.series_unit("heap_frag_permille", "cycles"), "per-mille");
  EXPECT_EQ(c.series_unit("wake_latency", "cycles"), "cycles");
  EXPECT_EQ(c.test("time_slice")->pacing, "tick");
  const auto bases = c.series_baselines();
  EXPECT_EQ(bases.at("round_trip"), "ruler_round");
  EXPECT_EQ(bases.at("api_overhead"), "ruler_loop2");
  EXPECT_EQ(bases.at("mixed_load"), "");
  EXPECT_EQ(bases.at("wake_latency"), "ruler_loop");
  EXPECT_EQ(bases.at("event_to_task"), "");
  EXPECT_EQ(c.series_unit("heap_alloc", "cycles"), "cycles");  // `@base` is not part of the unit
}

// The table's `@base` and the emit calls' RB_BASE_* say the same for every
// series a test file emits under a literal name.
TEST(Catalog, TableBaselinesMatchTheEmitCalls) {
  const Catalog c = tree();
  const auto bases = c.series_baselines();
  std::regex emit(
      R"re(rb_emit_series(?:_calls)?\("([a-z0-9_]+)",[^;]*?,\s*(RB_NO_BASE|RB_BASE_LOOP1|RB_BASE_LOOP2|RB_BASE_ROUND|RB_WITH_BASE)\s*[,)])re");
  int seen = 0;
  std::set<std::string> names;
  for (const auto& f : fs::directory_iterator(kFirmware / "harness" / "tests")) {
    std::ifstream in(f.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), emit), end; it != end; ++it) {
      const std::string name = (*it)[1], base = (*it)[2];
      const std::string want = base == "RB_BASE_LOOP2"                             ? "ruler_loop2"
                               : base == "RB_BASE_ROUND"                           ? "ruler_round"
                               : base == "RB_BASE_LOOP1" || base == "RB_WITH_BASE" ? "ruler_loop"
                                                                                   : "";
      ASSERT_TRUE(bases.count(name)) << name << " (" << f.path() << ") is not in rb_tests.h";
      EXPECT_EQ(bases.at(name), want) << name << " in " << f.path().filename();
      names.insert(name);
      ++seen;
    }
  }
  EXPECT_GE(seen, 15);
  // The heap test's allocations go through rb_emit_series_calls (calls=, refused=).
  EXPECT_TRUE(names.count("heap_alloc_mixed"));
}

// A broken kernel.yaml is a diagnostic with its file, line and column.
TEST(Catalog, BadKernelYamlIsADiagnostic) {
  model::KernelSpec k;
  std::vector<Diagnostic> d;
  EXPECT_FALSE(
      parse_kernel_yaml("version: \"1.0\"\ngit: https://x.org/k\ntag: v1\nnote: ok\n"
                        "colour: blue\n",
                        "ports/k/kernel.yaml", k, d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 5);
  EXPECT_NE(d[0].message.find("unknown key 'colour'"), std::string::npos) << d[0].format();
  d.clear();
  EXPECT_FALSE(parse_kernel_yaml("version: \"1.0\"\ngit: https://x.org/k\n", "k.yaml", k, d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("needs a 'tag' or a 'commit'"), std::string::npos);
  d.clear();
  EXPECT_FALSE(
      parse_kernel_yaml("version: \"1.0\"\ngit: -oProxyCommand=x\ntag: v1\n", "k.yaml", k, d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 2);
}

// A port directory copied into a scratch tree is a kernel of that tree,
// with nothing else changed.
TEST(Catalog, ANewPortDirectoryIsDiscovered) {
  auto tmp = make_owned_temp_dir("rtosbench-catalog-test");
  ASSERT_TRUE(tmp.ok());
  const fs::path fw = *tmp / "firmware";
  fs::copy(kFirmware, fw, fs::copy_options::recursive);
  fs::copy(fw / "ports" / "template", fw / "ports" / "myos", fs::copy_options::recursive);
  std::ofstream(fw / "ports" / "myos" / "kernel.yaml") << "version: n/a\nnote: my kernel\n";
  std::vector<Diagnostic> d;
  auto c = load(fw, d);
  fs::remove_all(*tmp);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto* k = c->kernel("myos");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->discover);
  EXPECT_EQ(k->note, "my kernel");
}

// The reference port is the one kernel.yaml names: renaming its directory
// needs no host change, and a tree must name exactly one.
TEST(Catalog, ExactlyOnePortIsTheReference) {
  const Catalog today = tree();
  ASSERT_NE(today.reference(), nullptr);
  EXPECT_EQ(today.reference(), &today.kernels.front());
  EXPECT_EQ(today.reference()->name, "bare");
  auto tmp = make_owned_temp_dir("rtosbench-catalog-test");
  ASSERT_TRUE(tmp.ok());
  const fs::path fw = *tmp / "firmware";
  fs::create_directories(fw);
  fs::copy(kFirmware / "ports", fw / "ports", fs::copy_options::recursive);
  fs::rename(fw / "ports" / "bare", fw / "ports" / "refsched");
  std::vector<Diagnostic> d;
  auto renamed = load(fw, d);
  ASSERT_TRUE(renamed.ok()) << (d.empty() ? renamed.error().message : d.front().format());
  ASSERT_NE(renamed->reference(), nullptr);
  EXPECT_EQ(renamed->reference()->port, "refsched");
  EXPECT_EQ(renamed->kernels.front().name, "refsched");
  EXPECT_EQ(renamed->kernel("bare"), nullptr);

  // Two references.
  std::ofstream(fw / "ports" / "template" / "kernel.yaml", std::ios::app) << "reference: true\n";
  d.clear();
  auto two = load(fw, d);
  EXPECT_FALSE(two.ok());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].file, "firmware/ports");
  EXPECT_EQ(d[0].message, "2 ports say 'reference: true' (refsched, template); exactly one may");

  // None.
  fs::copy_file(kFirmware / "ports" / "template" / "kernel.yaml",
                fw / "ports" / "template" / "kernel.yaml", fs::copy_options::overwrite_existing);
  std::ofstream(fw / "ports" / "refsched" / "kernel.yaml") << "version: n/a\n";
  d.clear();
  auto none = load(fw, d);
  EXPECT_FALSE(none.ok());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("no port's kernel.yaml says 'reference: true'"), std::string::npos)
      << d[0].format();
  fs::remove_all(*tmp);
}

}  // namespace
}  // namespace rb::catalog
