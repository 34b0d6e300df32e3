#pragma once
// What the firmware tree provides, discovered rather than listed here:
// - boards: one per firmware/boards/<name>/board.cmake, read at the host's
//   build (src/matrix/boards.cmake): the flashers a bench may name for it,
//   the one that emulates it, its QEMU machine, probes' default targets,
//   the series that are no measurement on it (and why);
// - harness tests: firmware/harness/rb_tests.h, the table the firmware
//   compiles (names in run order, and the series each test writes).
// Flashers are registered by name in src/probe (flasher.cpp); a test checks
// that every flasher a board names is registered there.
#include <map>
#include <string>
#include <vector>

namespace rb::matrix {

struct BoardInfo {
  std::string name;                   // firmware/boards/<name>
  std::vector<std::string> flashers;  // RB_BOARD_FLASHERS
  std::string emulator;      // RB_BOARD_EMULATOR: the flasher that emulates it; empty: hardware
  std::string qemu_machine;  // RB_BOARD_QEMU_MACHINE
  std::map<std::string, std::string> targets;  // RB_BOARD_TARGET_<flasher>
  unsigned uart_baud = 0;  // RB_BOARD_UART_BAUD: the console's rate in the image; 0: unknown
  std::string console;     // RB_BOARD_CONSOLE: where the console is wired (hints)
  // RB_BOARD_NOT_MEASURED_<series>: series name -> why the board cannot
  // measure it (every phase of the series). Still captured and verified;
  // reports show it as "not a measurement on this bench", never rank it, and
  // diff/regress never hold it against a tolerance.
  std::map<std::string, std::string> not_measured;
  // RB_BOARD_UNSTABLE_<series>: series name -> why the bench itself can move
  // it between two runs of one image (QEMU's time warp in WFI). Measured and
  // reported; repeated loads are not judged on it, nor on not_measured.
  std::map<std::string, std::string> unstable;
};

const std::vector<BoardInfo>& known_boards();
// nullptr when no board has that name.
const BoardInfo* find_board(const std::string& name);
std::vector<std::string> board_names();
// Every flasher some board names, sorted, once each.
std::vector<std::string> board_flashers();
// Why `series` is no measurement on `board`; "" when it is one (or the board
// is unknown).
std::string not_measured_reason(const std::string& board, const std::string& series);
// Why repeated loads on `board` are not judged on `series`: its
// not_measured or unstable reason; empty when they are.
std::string unjudged_reason(const std::string& board, const std::string& series);

struct HarnessTest {
  std::string name;
  std::vector<std::string> series;
};
// firmware/harness/rb_tests.h, in run order.
const std::vector<HarnessTest>& harness_tests();

}  // namespace rb::matrix
