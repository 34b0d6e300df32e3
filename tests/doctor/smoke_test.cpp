// The hints `rtosbench smoke` gives for what a board's capture said (the
// whole command runs end to end in tests/run/e2e/smoke.sh).
#include "doctor/smoke.h"

#include <gtest/gtest.h>

namespace rb::doctor {
namespace {

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v) {
    if (s.find(needle) != std::string::npos) return true;
  }
  return false;
}

SmokeResult disco() {
  SmokeResult r;
  r.board_id = "disco-1";
  r.board = "stm32f407-disco";
  r.serial_port = "/dev/ttyUSB0";
  r.baud = 921600;
  return r;
}

TEST(SmokeHints, NoByteAtAllPointsAtTheWiringOfTheBoardsConsole) {
  SmokeResult r = disco();
  r.status = store::JobStatus::kTimeout;
  r.bytes = 0;
  auto h = smoke_hints(r);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_NE(h[0].find("no byte arrived on /dev/ttyUSB0"), std::string::npos) << h[0];
  EXPECT_NE(h[0].find("USART2 TX PA2 RX PA3"), std::string::npos) << h[0];
}

TEST(SmokeHints, BytesWithoutABannerPointAtTheBaudRate) {
  SmokeResult r = disco();
  r.status = store::JobStatus::kTimeout;
  r.bytes = 512;
  r.reason = "port silent for 15 s before END (...); no firmware banner seen: a wrong baud rate";
  auto h = smoke_hints(r);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_NE(h[0].find("not at the firmware's 921600 baud"), std::string::npos) << h[0];
}

TEST(SmokeHints, DebuggerAndClock) {
  SmokeResult r = disco();
  r.status = store::JobStatus::kInvalid;
  r.conditions = {
      {"debugger", "1"}, {"core", "168000000"}, {"core_measured", "16000000"}, {"hse", "8000000"}};
  auto h = smoke_hints(r);
  EXPECT_TRUE(any_contains(h, "C_DEBUGEN"));
  EXPECT_TRUE(any_contains(h, "runs at 16000000 Hz, not 168000000 Hz"));
  r.conditions = {{"debugger", "0"}, {"core", "168000000"}, {"core_measured", "168000000"}};
  r.status = store::JobStatus::kOk;
  EXPECT_TRUE(smoke_hints(r).empty());
}

TEST(SmokeHints, TheEmulatedBoardHasNoClockToDoubt) {
  SmokeResult r;
  r.board = "qemu-netduinoplus2";
  r.conditions = {{"debugger", "0"}, {"core", "168000000"}, {"core_measured", "n/a"}};
  EXPECT_TRUE(smoke_hints(r).empty());
}

TEST(SmokeIdcode, NamesTheChipAndItsRevision) {
  EXPECT_EQ(describe_idcode("0x10076413"), "device 0x413 (STM32F405/407/415/417) revision 0x1007");
  EXPECT_EQ(describe_idcode("0x00000000"), "not readable on this board");
  EXPECT_EQ(describe_idcode("(not reported)"), "(not reported)");
}

}  // namespace
}  // namespace rb::doctor
