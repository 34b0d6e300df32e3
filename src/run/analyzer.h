#pragma once
// The bench's logic analyzer during one attempt (docs/lab.md, "Wiring the
// analyzer"): sigrok-cli started before the target is released, capturing
// to attempt-N/edges.sr (srzip), stopped by SIGINT once the serial capture
// ended, its exit status and output judged. Every value of the bench's
// `analyzer:` is one argument of sigrok-cli (src/util/process), never a
// shell's.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "util/process.h"

namespace rb::run {

// sigrok-cli's argument vector: the driver spec (`driver[:conn=...]`), the
// sample rate, the roles' channels renamed MK, EV and TK, the trigger, a
// time limit (`--time`: sigrok-cli's `--continuous` stops at once when its
// standard input is not a terminal; the limit is the attempt's longest
// capture, and SIGINT ends it before), srzip to `out`.
std::vector<std::string> analyzer_argv(const matrix::Analyzer& a, const std::filesystem::path& out,
                                       std::chrono::milliseconds limit);

enum class AnalyzerOutcome { kOk, kMissing, kOverflow };
const char* to_string(AnalyzerOutcome o);  // "ok", "missing", "overflow"

struct AnalyzerResult {
  AnalyzerOutcome outcome = AnalyzerOutcome::kOk;
  std::string message;  // why it is missing or overflowed; sigrok-cli's last lines
};

// Reads how sigrok-cli ended: `stopped` says whether it was still running
// when SIGINT stopped it (false: it ended on its own, before the capture
// did), `file_ok` whether the srzip file exists and is not empty.
AnalyzerResult judge_analyzer(const ProcessResult& r, bool stopped, bool file_ok);

// One attempt's capture. start() spawns sigrok-cli and waits until its
// acquisition runs (the srzip file appears; with a trigger, the device may
// hold it back: then a second alive is enough) or it ended (the outcome is
// then known); stop() sends SIGINT, waits and judges.
class AnalyzerCapture {
 public:
  AnalyzerCapture(ProcessRunner& processes, matrix::Analyzer analyzer,
                  std::filesystem::path attempt_dir);
  ~AnalyzerCapture();
  // The capture file: attempt-N/edges.sr.
  const std::filesystem::path& file() const { return file_; }
  // False when sigrok-cli is not installed or did not start; result() says why.
  bool start(std::chrono::milliseconds limit);
  AnalyzerResult stop();

 private:
  ProcessRunner& processes_;
  matrix::Analyzer analyzer_;
  std::filesystem::path dir_, file_, log_;
  std::unique_ptr<ChildProcess> child_;
  std::optional<AnalyzerResult> early_;  // known before stop (not started, ended)
};

}  // namespace rb::run
