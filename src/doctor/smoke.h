#pragma once
// `rtosbench smoke --bench FILE`: first light for a new bench (docs/lab.md).
// Per board of the bench, a tiny image (the bare port, the ruler only) goes
// through the same pipeline as a run (build, flash, release, start
// handshake, capture, verify) into its own run directory; what the capture
// says about the bench (debugger, clock, flash wait states, reset cause,
// chip, serial rate) is shown, and a capture with no bytes or no banner gets
// the wiring or baud-rate hint for its board.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "run/progress.h"
#include "store/result.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::doctor {

using run::Clock;
using run::Progress;

struct SmokeRequest {
  std::string bench;     // the bench file
  std::string board;     // only this board id; empty: every board
  std::string firmware;  // firmware CMake project
  std::string out;       // where the run directories go
  std::string build_cache;
};

struct SmokeResult {
  std::string board_id, board, flasher, serial_port;
  unsigned baud = 0;
  store::JobStatus status = store::JobStatus::kOk;
  std::string reason;
  std::map<std::string, std::string> conditions;  // the capture's CONFIG
  uint64_t bytes = 0;                             // captured by the last attempt
  std::vector<std::string> hints;
  std::filesystem::path run_dir;
  // The CONFIG pins the capture was verified against: the board's
  // (RB_BOARD_EXPECT_*) and the `expect:` of its shipped matrix, pins_from.
  std::map<std::string, std::string> pins;
  std::filesystem::path pins_from;
};

// The hints a smoke result calls for: no byte at all (wiring, for the
// board's console pins), bytes but no banner (baud rate), a debugger left
// attached, a core clock other than the nominal one.
std::vector<std::string> smoke_hints(const SmokeResult& r);

// The chip named by a DBGMCU_IDCODE value ("0x413 (STM32F405/407) rev 0x1007").
std::string describe_idcode(const std::string& idcode);

// Errors: kUsage (bench invalid, no such board), kUnavailable (toolchain),
// kCannotWrite/kStore (run directory); a board that fails is a result, not
// an error. Progress lines go to `sink`.
Result<std::vector<SmokeResult>> run_smoke(const SmokeRequest& req, ProcessRunner& processes,
                                           const Clock& clock, const Progress::Sink& sink);

std::string format_smoke(const std::vector<SmokeResult>& results);

}  // namespace rb::doctor
