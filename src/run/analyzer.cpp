#include "run/analyzer.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <thread>

namespace rb::run {

std::vector<std::string> analyzer_argv(const matrix::Analyzer& a, const std::filesystem::path& out,
                                       std::chrono::milliseconds limit) {
  std::string driver = a.driver;
  if (!a.conn.empty()) driver += ":conn=" + a.conn;
  std::vector<std::string> argv{"sigrok-cli",
                                "-d",
                                driver,
                                "--config",
                                fmt::format("samplerate={}", a.samplerate),
                                "--channels",
                                fmt::format("{}=MK,{}=EV,{}=TK", a.mk, a.ev, a.tk)};
  if (!a.trigger.empty()) argv.insert(argv.end(), {"--triggers", a.trigger});
  argv.insert(argv.end(), {"--time", std::to_string(std::max<int64_t>(1, limit.count())), "-o",
                           out.string(), "-O", "srzip"});
  return argv;
}

const char* to_string(AnalyzerOutcome o) {
  switch (o) {
    case AnalyzerOutcome::kOk:
      return "ok";
    case AnalyzerOutcome::kMissing:
      return "missing";
    case AnalyzerOutcome::kOverflow:
      return "overflow";
  }
  return "?";
}

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// What sigrok-cli says when the driver finds no device (`No devices
// found.`), has no such driver (`Driver X not found.`) or cannot load the
// device's firmware (fx2lafw: sigrok-firmware-fx2lafw).
bool says_missing(const std::string& out) {
  const std::string l = lower(out);
  return l.find("no devices found") != std::string::npos ||
         (l.find("driver ") != std::string::npos && l.find(" not found") != std::string::npos) ||
         l.find("firmware") != std::string::npos;
}

}  // namespace

AnalyzerResult judge_analyzer(const ProcessResult& r, bool stopped, bool file_ok) {
  const std::string tail = r.tail(4);
  auto with_tail = [&](std::string m) { return tail.empty() ? m : m + ": " + tail; };
  if (!r.started)
    return {AnalyzerOutcome::kMissing,
            "sigrok-cli could not start: " + r.error + " (Debian: sigrok-cli)"};
  if (lower(r.output).find("overflow") != std::string::npos)
    return {AnalyzerOutcome::kOverflow, with_tail("sigrok-cli reports an overflow")};
  if (!stopped) {
    if (!r.ok() && says_missing(r.output))
      return {AnalyzerOutcome::kMissing,
              with_tail(fmt::format("sigrok-cli found no device ({})", r.describe()))};
    return {AnalyzerOutcome::kOverflow,
            with_tail(fmt::format("sigrok-cli ended before the capture did ({})", r.describe()))};
  }
  // sigrok-cli 0.7.2 has no SIGINT handler: the signal ends it. Its srzip
  // output adds each packet to the archive as it comes (libzip closes the
  // archive after each), so the file holds every packet written before it.
  // A later sigrok-cli that stops its session on SIGINT exits 0.
  const bool by_our_signal = r.signal == SIGINT && r.exit_code <= 0;
  if (!by_our_signal && (r.exit_code != 0 || r.signal != 0))
    return {AnalyzerOutcome::kOverflow,
            with_tail(fmt::format("sigrok-cli aborted the capture ({})", r.describe()))};
  if (!file_ok) return {AnalyzerOutcome::kOverflow, with_tail("sigrok-cli wrote no capture file")};
  return {AnalyzerOutcome::kOk, ""};
}

AnalyzerCapture::AnalyzerCapture(ProcessRunner& processes, matrix::Analyzer analyzer,
                                 std::filesystem::path attempt_dir)
    : processes_(processes),
      analyzer_(std::move(analyzer)),
      dir_(std::move(attempt_dir)),
      file_(dir_ / "edges.sr"),
      log_(dir_ / "analyzer.log") {}

AnalyzerCapture::~AnalyzerCapture() {
  if (child_) child_->stop(std::chrono::milliseconds(500));
}

namespace {
bool nonempty_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && std::filesystem::file_size(p, ec) > 0 && !ec;
}
}  // namespace

bool AnalyzerCapture::start(std::chrono::milliseconds limit) {
  std::error_code ec;
  std::filesystem::remove(file_, ec);
  if (find_in_path("sigrok-cli").empty()) {
    early_ = AnalyzerResult{AnalyzerOutcome::kMissing,
                            "sigrok-cli is not installed (Debian: sigrok-cli); the bench names "
                            "an analyzer (driver " +
                                analyzer_.driver + ")"};
    return false;
  }
  ProcessSpec spec;
  spec.argv = analyzer_argv(analyzer_, file_, limit);
  spec.log = log_;
  auto child = processes_.spawn(spec);
  if (!child.ok()) {
    early_ = AnalyzerResult{AnalyzerOutcome::kMissing,
                            "sigrok-cli could not start: " + child.error().message};
    return false;
  }
  child_ = std::move(*child);
  const auto t0 = std::chrono::steady_clock::now();
  const auto timeout =
      std::chrono::milliseconds(static_cast<int64_t>(analyzer_.start_timeout_s * 1000));
  while (true) {
    if (!child_->running()) {
      early_ = judge_analyzer(child_->result(), false, nonempty_file(file_));
      child_.reset();
      return false;
    }
    const auto waited = std::chrono::steady_clock::now() - t0;
    // The srzip file appears with the first samples; a trigger holds them
    // back until it fires, so with one a second alive is enough.
    if (nonempty_file(file_) || (!analyzer_.trigger.empty() && waited >= std::chrono::seconds(1)))
      return true;
    if (waited >= timeout || interrupt_requested()) return true;  // stop() says what it got
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

AnalyzerResult AnalyzerCapture::stop() {
  if (early_) return *early_;
  if (!child_) return {AnalyzerOutcome::kMissing, "sigrok-cli was not started"};
  bool stopped = false;
  if (child_->running()) {
    stopped = true;
    // The last packets of the device reach the file first.
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ::kill(child_->pid(), SIGINT);
    if (!child_->wait_for(std::chrono::seconds(30))) child_->stop(std::chrono::seconds(2));
  }
  AnalyzerResult r = judge_analyzer(child_->result(), stopped, nonempty_file(file_));
  child_.reset();
  early_ = r;
  return r;
}

}  // namespace rb::run
