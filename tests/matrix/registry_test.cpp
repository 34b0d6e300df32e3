// Boards and harness tests are discovered from the firmware tree, not listed
// in the host: the registry must hold exactly what firmware/ holds.
#include "matrix/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "matrix/load.h"

namespace rb::matrix {
namespace {

const std::filesystem::path kFirmware = std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "firmware";

TEST(Registry, EveryBoardDirectoryIsABoard) {
  std::vector<std::string> dirs;
  for (const auto& e : std::filesystem::directory_iterator(kFirmware / "boards")) {
    if (std::filesystem::exists(e.path() / "board.cmake"))
      dirs.push_back(e.path().filename().string());
  }
  std::sort(dirs.begin(), dirs.end());
  EXPECT_EQ(board_names(), dirs);
  ASSERT_FALSE(dirs.empty());
}

TEST(Registry, BoardFactsComeFromBoardCmake) {
  const BoardInfo* q = find_board("qemu-netduinoplus2");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->flashers, std::vector<std::string>{"qemu"});
  EXPECT_EQ(q->emulator, "qemu");
  EXPECT_EQ(q->qemu_machine, "netduinoplus2");
  const BoardInfo* d = find_board("stm32f407-disco");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->flashers, (std::vector<std::string>{"openocd", "pyocd"}));
  EXPECT_EQ(d->emulator, "");
  EXPECT_EQ(d->targets.at("openocd"), "target/stm32f4x.cfg");
  EXPECT_EQ(find_board("nosuchboard"), nullptr);
}

// RB_BOARD_NOT_MEASURED_<series>: QEMU cannot measure interrupt entry (of
// the test timer, after WFI, at the zero-latency level) or a time slice; the
// F407 measures everything.
TEST(Registry, SeriesNotMeasuredComeFromBoardCmake) {
  const BoardInfo* q = find_board("qemu-netduinoplus2");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->not_measured.size(), 5u);
  for (const char* s : {"sleep_wake_entry", "zli_entry_idle", "zli_entry_critical"})
    EXPECT_NE(not_measured_reason("qemu-netduinoplus2", s).find("entry"), std::string::npos) << s;
  EXPECT_EQ(not_measured_reason("qemu-netduinoplus2", "sleep_wake"), "");
  EXPECT_NE(not_measured_reason("qemu-netduinoplus2", "irq_entry").find("QEMU"), std::string::npos);
  EXPECT_NE(not_measured_reason("qemu-netduinoplus2", "time_slice"), "");
  EXPECT_EQ(not_measured_reason("qemu-netduinoplus2", "event_to_task"), "");
  EXPECT_EQ(not_measured_reason("qemu-netduinoplus2", "tick_overhead"), "");
  const BoardInfo* d = find_board("stm32f407-disco");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->not_measured.empty());
  EXPECT_EQ(not_measured_reason("stm32f407-disco", "irq_entry"), "");
  EXPECT_EQ(not_measured_reason("nosuchboard", "irq_entry"), "");
}

// The names in firmware/harness/rb_tests.h's table, read independently of
// the X-macro, and a test source file for each.
TEST(Registry, HarnessTestsAreTheFirmwareTable) {
  std::ifstream in(kFirmware / "harness" / "rb_tests.h");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::regex entry("\n  X\\(([a-z0-9_]+),");
  std::vector<std::string> names;
  for (std::sregex_iterator it(s.begin(), s.end(), entry), end; it != end; ++it)
    names.push_back((*it)[1]);
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(known_tests(), names);
  for (const auto& t : harness_tests()) {
    EXPECT_TRUE(std::filesystem::exists(kFirmware / "harness" / "tests" / (t.name + ".c")))
        << t.name;
    EXPECT_FALSE(t.series.empty()) << t.name;
  }
  EXPECT_EQ(harness_tests()[4].name, "irq_latency");
  EXPECT_EQ(harness_tests()[4].series, (std::vector<std::string>{"irq_entry", "event_to_task"}));
}

TEST(Registry, BenchFlasherMustBeOneTheBoardNames) {
  auto b = parse_bench(R"(bench: lab
boards:
  - {id: a, board: stm32f407-disco, flasher: qemu}
  - {id: b, board: qemu-netduinoplus2, flasher: openocd, serial: {port: /dev/ttyACM0}}
)",
                       "lab.yaml");
  ASSERT_FALSE(b.ok());
  ASSERT_EQ(b.errors.size(), 2u);
  EXPECT_NE(
      b.errors[0].message.find(
          "board stm32f407-disco is not flashed by 'qemu' (its board.cmake names: openocd, pyocd)"),
      std::string::npos)
      << b.errors[0].format();
  EXPECT_EQ(b.errors[0].line, 3);
  EXPECT_NE(b.errors[1].message.find("not flashed by 'openocd'"), std::string::npos);
}

}  // namespace
}  // namespace rb::matrix
