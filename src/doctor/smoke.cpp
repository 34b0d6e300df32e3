#include "doctor/smoke.h"

#include <fmt/core.h>

#include <algorithm>

#include "matrix/load.h"
#include "run/run_setup.h"
#include "run/runner.h"
#include "util/atomic_write.h"

namespace rb::doctor {

using namespace rb::run;

namespace {

std::string condition(const SmokeResult& r, const std::string& key) {
  auto it = r.conditions.find(key);
  return it == r.conditions.end() ? "(not reported)" : it->second;
}

// The `expect:` of the shipped matrix that runs on `board` (configs/*.yaml
// next to the firmware tree, whose bench has such a board), and that
// matrix's file; nothing when none does. The board's own pins
// (RB_BOARD_EXPECT_*) apply to every matrix anyway.
std::pair<std::map<std::string, std::string>, std::filesystem::path> shipped_expect(
    const std::filesystem::path& firmware, const std::string& board) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::directory_iterator(firmware.parent_path() / "configs", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".yaml") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto m = matrix::load_matrix(f);
    if (!m.ok() || m.value.bench.empty()) continue;
    auto b = matrix::load_bench(m.value.bench);
    if (!b.ok()) continue;
    for (const auto& inst : b.value.boards) {
      if (inst.board == board) return {m.value.expect, f};
    }
  }
  return {};
}

// The matrix of one smoke job: the bare port, the ruler, a few samples, and
// the pins of the board's shipped matrix.
std::string smoke_matrix(const std::string& board, const std::filesystem::path& firmware,
                         const std::map<std::string, std::string>& expect) {
  std::string pins;
  for (const auto& [k, v] : expect) {
    std::string quoted;
    for (char ch : v) quoted += ch == '\'' ? std::string("''") : std::string(1, ch);
    pins += fmt::format("{}{}: '{}'", pins.empty() ? "" : ", ", k, quoted);
  }
  return fmt::format(
      "matrix: smoke\nfirmware: '{}'\nboard: {}\nkernels: [{{name: bare}}]\ntests: [ruler]\n"
      "samples: 200\nwarmup: 20\n"
      "timeouts: {{build: 600, flash: 120, capture: 60, inactivity: 15}}\n"
      "retries: {{build: 0, flash: 0, capture: 0}}\n{}",
      firmware.string(), board, pins.empty() ? "" : "expect: {" + pins + "}\n");
}

}  // namespace

std::string describe_idcode(const std::string& idcode) {
  unsigned long v = 0;
  try {
    v = std::stoul(idcode, nullptr, 16);
  } catch (...) {
    return idcode;
  }
  if (v == 0) return "not readable on this board";
  const unsigned dev = v & 0xFFFu, rev = (v >> 16) & 0xFFFFu;
  const char* name = dev == 0x413   ? " (STM32F405/407/415/417)"
                     : dev == 0x419 ? " (STM32F42x/43x)"
                                    : "";
  return fmt::format("device 0x{:03x}{} revision 0x{:04x}", dev, name, rev);
}

std::vector<std::string> smoke_hints(const SmokeResult& r) {
  std::vector<std::string> hints;
  const model::BoardInfo* info = matrix::default_catalog().board(r.board);
  const bool emulated = info && !info->emulator.empty();
  if (r.status == store::JobStatus::kTimeout || r.status == store::JobStatus::kProtocolError) {
    if (r.bytes == 0) {
      hints.push_back(fmt::format(
          "no byte arrived on {}: check the wiring of the console ({}) to the adapter (its RX to "
          "the board's TX, and GND), and that the port is this board's (docs/lab.md; `rtosbench "
          "doctor --bench`)",
          r.serial_port.empty() ? "the port" : r.serial_port,
          info && !info->console.empty() ? info->console : "see the board's docs"));
    } else if (r.reason.find("no firmware banner") != std::string::npos ||
               r.status == store::JobStatus::kProtocolError) {
      hints.push_back(fmt::format(
          "bytes arrived but no firmware banner: the port is not at the firmware's {} baud, or "
          "the board runs another image (compare serial.baud in the bench file with "
          "RB_BOARD_UART_BAUD in firmware/boards/{}/board.cmake)",
          info ? info->uart_baud : 0u, r.board));
    }
  }
  if (condition(r, "debugger") == "1") {
    hints.push_back(
        "debugger=1: the core ran with C_DEBUGEN set when it started: close an IDE or "
        "debugger attached to the probe, and power-cycle the board once");
  }
  if (!emulated) {
    const std::string measured = condition(r, "core_measured");
    const std::string nominal = condition(r, "core");
    if (measured != "(not reported)" && measured != nominal) {
      hints.push_back(fmt::format(
          "the core runs at {} Hz, not {} Hz: the crystal or the PLL did not start (seed 000 "
          "section 6.2); check the board's crystal (hse={})",
          measured, nominal, condition(r, "hse")));
    }
  }
  return hints;
}

Result<std::vector<SmokeResult>> run_smoke(const SmokeRequest& req, ProcessRunner& processes,
                                           const Clock& clock, const Progress::Sink& sink) {
  auto lb = matrix::load_bench(req.bench);
  if (!lb.ok()) {
    std::string lines;
    for (const auto& d : lb.errors) lines += "\n" + d.format();
    return make_error(ErrorKind::kUsage,
                      fmt::format("{} error(s) in the bench file:{}", lb.errors.size(), lines));
  }
  const std::filesystem::path firmware = std::filesystem::absolute(req.firmware).lexically_normal();
  if (!std::filesystem::exists(firmware / "CMakeLists.txt")) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("{} is not the firmware project (no CMakeLists.txt); give "
                                  "--firmware DIR",
                                  firmware.string()));
  }
  std::vector<SmokeResult> out;
  bool found = false;
  for (const auto& inst : lb.value.boards) {
    if (!req.board.empty() && inst.id != req.board) continue;
    found = true;
    // The matrix is a file like any run's: the run directory keeps its copy.
    const std::filesystem::path matrix_file =
        std::filesystem::absolute(req.out) / ("smoke-" + inst.board + ".yaml");
    std::error_code ec;
    std::filesystem::create_directories(matrix_file.parent_path(), ec);
    const auto [expect, shipped] = shipped_expect(firmware, inst.board);
    if (auto w = write_file_atomic(matrix_file, smoke_matrix(inst.board, firmware, expect));
        !w.ok()) {
      return make_error(ErrorKind::kCannotWrite, w.error().message);
    }
    auto lm = matrix::load_matrix(matrix_file);
    if (!lm.ok()) {
      return make_error(ErrorKind::kInternal,
                        fmt::format("the smoke matrix for {} does not load: {}", inst.board,
                                    lm.errors.front().format()));
    }
    RunInputs in;
    in.matrix = lm.value;
    in.bench = lb.value;
    in.bench.boards = {inst};
    in.original_matrix = "(rtosbench smoke)";
    in.original_bench = lb.value.file.string();
    RunRequest rr;
    rr.out = req.out;
    rr.build_cache = req.build_cache;
    auto prepared = prepare_run(rr, std::move(in), processes);
    if (!prepared.ok()) return prepared.error();
    Progress progress(clock, false, sink, prepared->jobs_total, 0);
    Runner runner(processes, progress, clock);
    RunOutcome o = runner.run(prepared->config, prepared->dir);
    progress.close();
    SmokeResult r;
    r.board_id = inst.id;
    r.board = inst.board;
    r.flasher = inst.flasher;
    r.serial_port = inst.serial_port;
    r.baud = inst.baud;
    r.run_dir = prepared->dir.root();
    r.pins_from = shipped;
    if (o.results.empty()) {
      r.status = store::JobStatus::kInterrupted;
      r.reason = "interrupted";
    } else {
      const store::JobResult& j = o.results.front();
      r.status = j.status;
      r.reason = j.reason;
      r.conditions = j.conditions;
      r.pins = j.expect;
      if (!j.attempts.empty()) r.bytes = j.attempts.back().capture_bytes;
    }
    r.hints = smoke_hints(r);
    out.push_back(std::move(r));
    if (o.interrupted) break;
  }
  if (!found) {
    return make_error(ErrorKind::kUsage, fmt::format("no board '{}' in {}", req.board, req.bench));
  }
  return out;
}

std::string format_smoke(const std::vector<SmokeResult>& results) {
  std::string s;
  for (const auto& r : results) {
    s += fmt::format("{} ({}, {}): {}{}\n", r.board_id, r.board, r.flasher,
                     store::to_string(r.status), r.reason.empty() ? "" : " - " + r.reason);
    auto row = [&](const char* what, const std::string& v) {
      s += fmt::format("  {:<14} {}\n", what, v);
    };
    if (!r.conditions.empty()) {
      row("debugger", condition(r, "debugger"));
      row("core",
          condition(r, "core_measured") + " Hz measured, " + condition(r, "core") + " Hz nominal");
      row("flash_ws", condition(r, "flash_ws"));
      row("reset_cause", condition(r, "reset_cause"));
      row("chip", describe_idcode(condition(r, "idcode")));
      row("serial", fmt::format("{} baud (firmware: {}){}", r.baud, condition(r, "baud"),
                                r.serial_port.empty() ? "" : " on " + r.serial_port));
      row("start", condition(r, "start"));
    }
    row("pinned", fmt::format("{} conditions (the board's{})", r.pins.size(),
                              r.pins_from.empty() ? "" : " and " + r.pins_from.string() + "'s"));
    row("bytes", std::to_string(r.bytes));
    row("run", r.run_dir.string());
    for (const auto& h : r.hints) s += "  hint: " + h + "\n";
  }
  return s;
}

}  // namespace rb::doctor
