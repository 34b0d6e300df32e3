// The probe backends' command sequences and failure messages, driven by a
// scripted process runner. OpenOCD and QEMU are also run for real by the
// end-to-end tests (tests/run/tests.cmake).
#include "probe/flasher.h"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "../util/fake_process_runner.h"
#include "matrix/load.h"
#include "probe/qemu_monitor.h"

namespace rb::probe {
namespace {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

class ProbeBackends : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("rb-probe-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "bin");
    ctx_.board.id = "disco-1";
    ctx_.board.board = "stm32f407-disco";
    // The addresses the release writes, as the board's board.cmake declares them.
    ctx_.board.target = matrix::default_catalog().board("stm32f407-disco")->target;
    ctx_.board.probe.serial = "066AFF";
    ctx_.board.probe.target = "target/stm32f4x.cfg";
    ctx_.board.serial_port = "/dev/serial/by-id/usb-STM-if02";
    ctx_.elf = dir_ / "fw.elf";
    ctx_.bin = dir_ / "fw.bin";
    ctx_.dir = dir_ / "attempt-1";
    saved_path_ = std::getenv("PATH");
  }
  void TearDown() override {
    setenv("PATH", saved_path_.c_str(), 1);
    std::filesystem::remove_all(dir_);
  }
  // Puts an executable stub named `tool` first in PATH (the fake runner
  // answers for it; the stub only makes the tool "installed").
  void install_stub(const std::string& tool) {
    auto p = dir_ / "bin" / tool;
    std::ofstream(p) << "#!/bin/sh\nexit 99\n";
    std::filesystem::permissions(p, std::filesystem::perms::owner_all);
    setenv("PATH", ((dir_ / "bin").string() + ":" + saved_path_).c_str(), 1);
  }
  std::filesystem::path dir_;
  FlashContext ctx_;
  std::string saved_path_;
};

TEST_F(ProbeBackends, OpenocdProgramsVerifiesThenReleasesWithDebugDisabled) {
  testing::FakeProcessRunner fake;
  fake.on("openocd", "program", 0, "** Programming Finished **\n** Verified OK **\n");
  fake.on("openocd", "mww", 0, "shutdown command invoked\n");
  auto flasher = make_flasher("openocd", fake);
  install_stub("openocd");
  auto session = flasher->program(ctx_);
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_EQ(joined(fake.calls.at(0)),
            "openocd -c gdb_port disabled -c tcl_port disabled -c telnet_port disabled -f "
            "interface/stlink.cfg -c adapter serial 066AFF -f target/stm32f4x.cfg -c "
            "program fw.elf verify -c reset halt -c shutdown");
  EXPECT_EQ(fake.cwds.at(0), dir_);  // the image by its name, in its directory
  EXPECT_EQ((*session)->serial_port(), ctx_.board.serial_port);
  EXPECT_TRUE((*session)->port_survives_release());
  ASSERT_TRUE((*session)->release().ok());
  std::string release = joined(fake.calls.at(1));
  EXPECT_NE(release.find("-c init -c halt -c mww 0x40023874 0x01000000 -c reset halt -c mww "
                         "0xE0042004 0 -c mww 0xE000EDFC 0 -c mww 0xE000EDF0 0xA05F0000 -c "
                         "shutdown"),
            std::string::npos)
      << release;
  EXPECT_EQ((*session)->commands().size(), 2u);
}

TEST_F(ProbeBackends, OpenocdHardwareResetUsesSrst) {
  testing::FakeProcessRunner fake;
  fake.on("openocd", "program", 0, "** Verified OK **\n");
  fake.on("openocd", "mww", 0, "");
  ctx_.board.reset = matrix::ResetMethod::kHardware;
  install_stub("openocd");
  auto session = make_flasher("openocd", fake)->program(ctx_);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->release().ok());
  EXPECT_NE(joined(fake.calls.at(1)).find("reset_config srst_only srst_nogate"), std::string::npos);
}

TEST_F(ProbeBackends, OpenocdReloadHaltsWithoutProgramming) {
  // The next load of a repeated job: flashed once, only held and reset again.
  testing::FakeProcessRunner fake;
  fake.on("openocd", "reset halt", 0, "");
  install_stub("openocd");
  auto session = make_flasher("openocd", fake)->reload(ctx_);
  ASSERT_TRUE(session.ok()) << session.error().message;
  ASSERT_EQ(fake.calls.size(), 1u);
  EXPECT_EQ(joined(fake.calls.at(0)),
            "openocd -c gdb_port disabled -c tcl_port disabled -c telnet_port disabled -f "
            "interface/stlink.cfg -c adapter serial 066AFF -f target/stm32f4x.cfg -c init -c "
            "reset halt -c shutdown");
  fake.on("openocd", "mww", 0, "");
  ASSERT_TRUE((*session)->release().ok());
  EXPECT_NE(joined(fake.calls.at(1)).find("mww 0xE000EDF0 0xA05F0000"), std::string::npos);
  std::ifstream log(ctx_.dir / "flash.log");
  std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("not flashed again"), std::string::npos) << text;
}

TEST_F(ProbeBackends, OpenocdFailureCarriesItsErrorLines) {
  testing::FakeProcessRunner fake;
  fake.on("openocd", "program", 1,
          "Open On-Chip Debugger 0.12.0\nInfo : clock speed 2000 kHz\nError: open failed\nin "
          "procedure 'program'\n"
          "** OpenOCD init failed **\nshutdown command invoked\n");
  install_stub("openocd");
  auto session = make_flasher("openocd", fake)->program(ctx_);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().message,
            "openocd program failed (exit status 1): Error: open failed; in procedure 'program'; "
            "** OpenOCD init failed **");
}

TEST_F(ProbeBackends, OpenocdWithoutVerifiedOkIsAFailure) {
  testing::FakeProcessRunner fake;
  fake.on("openocd", "program", 0, "** Programming Finished **\n");
  install_stub("openocd");
  auto session = make_flasher("openocd", fake)->program(ctx_);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("Verified OK"), std::string::npos);
}

TEST_F(ProbeBackends, PowerCycleTakesThePortAwayAndRunsTheCommand) {
  testing::FakeProcessRunner fake;
  fake.on("openocd", "program", 0, "** Verified OK **\n");
  fake.on("uhubctl", "cycle", 0, "Sent power cycle request\n");
  ctx_.board.reset = matrix::ResetMethod::kPowerCycle;
  ctx_.board.power_cycle = "uhubctl -l 1-1 -p 2 -a cycle -d 3";
  install_stub("openocd");
  auto session = make_flasher("openocd", fake)->program(ctx_);
  ASSERT_TRUE(session.ok());
  EXPECT_FALSE((*session)->port_survives_release());
  ASSERT_TRUE((*session)->release().ok());
  EXPECT_EQ(fake.calls.at(1).size(), 9u);  // no shell: the program and its eight arguments
  EXPECT_EQ(joined(fake.calls.at(1)), "uhubctl -l 1-1 -p 2 -a cycle -d 3");
}

TEST_F(ProbeBackends, PyocdMissingSaysHowToInstall) {
  setenv("PATH", (dir_ / "bin").string().c_str(), 1);
  testing::FakeProcessRunner fake;
  auto flasher = make_flasher("pyocd", fake);
  auto session = flasher->program(ctx_);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("no `pyocd` command in PATH"), std::string::npos);
  EXPECT_NE(session.error().message.find("pipx install pyocd"), std::string::npos);
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_FALSE(flasher->check_tool().present);
}

TEST_F(ProbeBackends, PyocdOldDebianPackageIsNamed) {
  setenv("PATH", (dir_ / "bin").string().c_str(), 1);
  auto p = dir_ / "bin" / "pyocd-flashtool";
  std::ofstream(p) << "#!/bin/sh\n";
  std::filesystem::permissions(p, std::filesystem::perms::owner_all);
  testing::FakeProcessRunner fake;
  auto session = make_flasher("pyocd", fake)->program(ctx_);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("python3-pyocd 0.13, which is too old"),
            std::string::npos);
}

TEST_F(ProbeBackends, PyocdLoadsComparesAndResets) {
  install_stub("pyocd");
  testing::FakeProcessRunner fake;
  fake.on("pyocd", "load", 0, "[====================] 100%\n");
  fake.on("pyocd", "compare", 0, "All 4096 bytes match.\n");
  fake.on("pyocd", "write32", 0, "");
  ctx_.board.probe.target = "stm32f407vgtx";
  ctx_.board.reset = matrix::ResetMethod::kHardware;
  auto session = make_flasher("pyocd", fake)->program(ctx_);
  ASSERT_TRUE(session.ok()) << session.error().message;
  const std::string j = " -j " + dir_.string();
  EXPECT_EQ(joined(fake.calls.at(0)), "pyocd load -t stm32f407vgtx -u 066AFF" + j + " fw.elf");
  EXPECT_EQ(joined(fake.calls.at(1)), "pyocd cmd -t stm32f407vgtx -u 066AFF" + j +
                                          " -c compare 0x08000000 fw.bin -c reset halt");
  ASSERT_TRUE((*session)->release().ok());
  EXPECT_EQ(joined(fake.calls.at(2)),
            "pyocd cmd -t stm32f407vgtx -u 066AFF" + j +
                " -c halt -c write32 0x40023874 0x01000000 -c reset halt hardware -c write32 "
                "0xE0042004 0 -c write32 0xE000EDFC 0 -c write32 0xE000EDF0 0xA05F0000");
  EXPECT_EQ(fake.cwds, (std::vector<std::filesystem::path>{dir_, dir_, dir_}));
}

TEST_F(ProbeBackends, PyocdReloadHaltsWithoutLoading) {
  install_stub("pyocd");
  testing::FakeProcessRunner fake;
  fake.on("pyocd", "reset halt", 0, "");
  ctx_.board.probe.target = "stm32f407vgtx";
  auto session = make_flasher("pyocd", fake)->reload(ctx_);
  ASSERT_TRUE(session.ok()) << session.error().message;
  ASSERT_EQ(fake.calls.size(), 1u);
  EXPECT_EQ(joined(fake.calls.at(0)),
            "pyocd cmd -t stm32f407vgtx -u 066AFF -j " + dir_.string() + " -c reset halt");
}

TEST_F(ProbeBackends, PyocdCompareMismatchIsAFailureDespiteExitZero) {
  install_stub("pyocd");
  testing::FakeProcessRunner fake;
  fake.on("pyocd", "load", 0, "");
  fake.on("pyocd", "compare", 0, "Mismatch at 0x08000010\n");
  auto session = make_flasher("pyocd", fake)->program(ctx_);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("did not report 'All N bytes match.'"), std::string::npos);
}

// Every command line each probe backend runs, for each reset kind: program,
// release and reload, against tests/data/probe/sequences.golden (paths
// shown as ELF and BIN). Checked by hand against OpenOCD 0.12's and pyOCD's
// command references (docs/matrix.md, "What each flasher does"); written
// afresh with RB_UPDATE_GOLDEN=1.
TEST_F(ProbeBackends, SequencesMatchTheGoldenFile) {
  install_stub("openocd");
  install_stub("pyocd");
  std::string text;
  // "(in DIR)": the tool runs in the image's directory.
  auto show = [&](const std::vector<std::string>& argv, const std::filesystem::path& cwd) {
    std::string line = (cwd.empty() ? "" : "(in " + cwd.string() + ") ") + joined(argv);
    for (size_t at; (at = line.find(dir_.string())) != std::string::npos;)
      line.replace(at, dir_.string().size(), "DIR");
    return line;
  };
  struct Case {
    const char* flasher;
    const char* target;
    matrix::ResetMethod reset;
    bool under_reset;
    const char* board = "stm32f407-disco";
  };
  for (const Case& k :
       {Case{"openocd", "target/stm32f4x.cfg", matrix::ResetMethod::kSystem, false},
        Case{"openocd", "target/stm32f4x.cfg", matrix::ResetMethod::kHardware, false},
        Case{"openocd", "target/stm32f4x.cfg", matrix::ResetMethod::kSystem, true},
        Case{"openocd", "target/stm32f4x.cfg", matrix::ResetMethod::kHardware, true},
        Case{"pyocd", "stm32f407vgtx", matrix::ResetMethod::kSystem, false},
        Case{"pyocd", "stm32f407vgtx", matrix::ResetMethod::kHardware, false},
        Case{"pyocd", "stm32f407vgtx", matrix::ResetMethod::kSystem, true},
        // Other parts' addresses, from their board.cmake: the GD32F103's RCU_RSTSCK,
        Case{"openocd", "target/stm32f1x.cfg", matrix::ResetMethod::kSystem, false, "gd32f103c8"},
        Case{"pyocd", "gd32f103c8", matrix::ResetMethod::kSystem, false, "gd32f103c8"},
        // The STM32H563's RCC_RSR and DBGMCU at 0x44024000.
        Case{"openocd", "target/stm32h5x.cfg", matrix::ResetMethod::kSystem, false, "nucleo-h5"},
        Case{"pyocd", "stm32h563zitx", matrix::ResetMethod::kSystem, false, "nucleo-h5"}}) {
    testing::FakeProcessRunner fake;
    fake.on(k.flasher, "", 0, "** Verified OK **\nAll 4096 bytes match.\n");
    ctx_.board.board = k.board;
    ctx_.board.target = matrix::default_catalog().board(k.board)->target;
    ctx_.board.probe.target = k.target;
    ctx_.board.reset = k.reset;
    ctx_.board.probe.connect_under_reset = k.under_reset;
    auto flasher = make_flasher(k.flasher, fake);
    text +=
        fmt::format("## {} reset={}{}{}\n", k.flasher, matrix::to_string(k.reset),
                    k.under_reset ? " connect_under_reset" : "",
                    k.board == std::string("stm32f407-disco") ? "" : std::string(" ") + k.board);
    auto session = flasher->program(ctx_);
    ASSERT_TRUE(session.ok()) << session.error().message;
    ASSERT_TRUE((*session)->release().ok());
    auto again = flasher->reload(ctx_);
    ASSERT_TRUE(again.ok()) << again.error().message;
    for (size_t i = 0; i < fake.calls.size(); ++i)
      text += show(fake.calls[i], fake.cwds.at(i)) + "\n";
  }
  const std::filesystem::path golden =
      std::filesystem::path(RTOSBENCH_TEST_DATA) / "probe" / "sequences.golden";
  if (std::getenv("RB_UPDATE_GOLDEN")) std::ofstream(golden) << text;
  std::ifstream in(golden);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(text, want.str()) << "run with RB_UPDATE_GOLDEN=1 to rewrite " << golden;
}

TEST(QemuMonitorText, ParsesXpWords) {
  auto words = parse_xp_words(
      "xp /8wx 0x08000000\r\n0000000008000000: 0x20020000 0x08000431 0x08000041 0x08000041\r\n"
      "0000000008000010: 0x08000041 0x08000041 0x08000041 0x00000000\r\n");
  ASSERT_EQ(words.size(), 8u);
  EXPECT_EQ(words[0], 0x20020000u);
  EXPECT_EQ(words[1], 0x08000431u);
  EXPECT_EQ(words[7], 0u);
  EXPECT_TRUE(parse_xp_words("Cannot access memory\r\n").empty());
}

TEST(FailureLines, FallsBackToTheLastLines) {
  ProcessResult r;
  r.started = true;
  r.exit_code = 2;
  r.output = "starting\nsomething odd\n";
  EXPECT_EQ(failure_lines(r), "starting;something odd");
}

}  // namespace
}  // namespace rb::probe

namespace rb::probe {
namespace {

// Boards name their flashers (board.cmake); each must be a registered backend
// whose own name is the registered one, and each backend must serve a board.
TEST(FlasherRegistry, EveryFlasherABoardNamesIsRegistered) {
  rb::testing::FakeProcessRunner runner;
  std::set<std::string> registered;
  for (const auto& r : registered_flashers()) {
    registered.insert(r.name);
    auto f = make_flasher(r.name, runner);
    ASSERT_NE(f, nullptr) << r.name;
    EXPECT_EQ(f->name(), r.name);
  }
  for (const auto& name : matrix::default_catalog().flashers())
    EXPECT_TRUE(registered.count(name)) << name;
  auto named = matrix::default_catalog().flashers();
  for (const auto& name : registered) {
    EXPECT_NE(std::find(named.begin(), named.end(), name), named.end())
        << name << " serves no board";
  }
  EXPECT_EQ(make_flasher("jlink", runner), nullptr);
}

}  // namespace
}  // namespace rb::probe

namespace rb::probe {
namespace {

// Issue 30: a run directory whose path holds a space, `+`, `[`, `$` and `@`.
// No character of it reaches a tool's command parser (OpenOCD's Tcl in every
// `-c`, pyOCD's split_command in every commander `-c`): the tools run in the
// image's directory and see its fixed names. The only argument holding the
// path is pyOCD's -j, which argparse takes whole. run.e2e.probes runs the
// real openocd's Tcl on the same command line.
TEST_F(ProbeBackends, AnOddRunDirectoryReachesNoCommandParser) {
  install_stub("openocd");
  install_stub("pyocd");
  const auto odd = dir_ / "My Bench+[1]$HOME@lab" / "jobs" / "j" / "firmware";
  ctx_.elf = odd / "rtosbench-fw.elf";
  ctx_.bin = odd / "rtosbench-fw.bin";
  for (const char* flasher : {"openocd", "pyocd"}) {
    SCOPED_TRACE(flasher);
    testing::FakeProcessRunner fake;
    fake.on(flasher, "", 0, "** Verified OK **\nAll 4096 bytes match.\n");
    ctx_.board.probe.target =
        std::string(flasher) == "openocd" ? "target/stm32f4x.cfg" : "stm32f407vgtx";
    auto f = make_flasher(flasher, fake);
    auto session = f->program(ctx_);
    ASSERT_TRUE(session.ok()) << session.error().message;
    ASSERT_TRUE((*session)->release().ok());
    ASSERT_TRUE(f->reload(ctx_).ok());
    ASSERT_EQ(fake.calls.size(), std::string(flasher) == "openocd" ? 3u : 4u);
    for (size_t i = 0; i < fake.calls.size(); ++i) {
      EXPECT_EQ(fake.cwds.at(i), odd);
      const auto& argv = fake.calls[i];
      for (size_t k = 1; k < argv.size(); ++k) {
        if (argv[k - 1] == "-j") {
          EXPECT_EQ(argv[k], odd.string());
          continue;
        }
        EXPECT_EQ(argv[k].find("My Bench"), std::string::npos) << joined(argv);
        if (argv[k - 1] == "-c") {
          // Nothing either parser treats as syntax: words split at spaces only.
          EXPECT_EQ(argv[k].find_first_of(";!@#$%^&*()+=[]{}|<>,?\"'\\"), std::string::npos)
              << argv[k];
        }
      }
    }
    const auto& first = joined(fake.calls.at(0));
    EXPECT_NE(first.find(std::string(flasher) == "openocd" ? "program rtosbench-fw.elf verify"
                                                           : " rtosbench-fw.elf"),
              std::string::npos)
        << first;
  }
}

TEST_F(ProbeBackends, AnImageNameAParserWouldSplitIsRefused) {
  install_stub("openocd");
  testing::FakeProcessRunner fake;
  ctx_.elf = dir_ / "fw [1].elf";
  auto session = make_flasher("openocd", fake)->program(ctx_);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("must be [A-Za-z0-9_.-]"), std::string::npos);
  EXPECT_TRUE(fake.calls.empty());
}

TEST(OpenocdTcl, ASerialIsOneTclWordWhateverItHolds) {
  EXPECT_EQ(tcl_word("066AFF"), "066AFF");
  EXPECT_EQ(tcl_word("x; exec touch FILE"), "x\\;\\ exec\\ touch\\ FILE");
  EXPECT_EQ(tcl_word("[exec id]$a{b}\\"), "\\[exec\\ id\\]\\$a\\{b\\}\\\\");
}

}  // namespace
}  // namespace rb::probe
