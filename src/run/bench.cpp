#include "run/bench.h"

#include <fmt/core.h>

#include <chrono>
#include <thread>

#include "run/analyzer.h"
#include "run/run_directory.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace rb::run {

using store::JobStatus;

void fail_attempt(store::AttemptRecord& a, JobStatus s, std::string reason) {
  a.status = interrupt_requested() ? JobStatus::kInterrupted : s;
  a.reason = interrupt_requested() ? "interrupted" : std::move(reason);
}

int BenchLane::next_attempt(const std::filesystem::path& base) {
  return RunDirectory::next_attempt_in(base);
}

namespace {

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
}

// The real capture: the stream the backend connected (QEMU's socket), else
// the tty once it appears (after a power cycle it comes back).
Result<std::unique_ptr<serial::Capture>> open_capture(probe::TargetSession& target,
                                                      const matrix::BoardInstance& board,
                                                      const std::filesystem::path& raw) {
  Result<std::unique_ptr<serial::SerialCapture>> c = make_error(ErrorKind::kInternal, "");
  if (int fd = target.take_serial_stream(); fd >= 0) {
    c = serial::SerialCapture::adopt_stream(fd, target.serial_port().string(), raw);
  } else if (!serial::wait_for_port(target.serial_port(), ms(board.port_wait_s))) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("serial port {} did not appear within {:.0f} s",
                                  target.serial_port().string(), board.port_wait_s));
  } else {
    c = serial::SerialCapture::open(target.serial_port(), board.baud, raw);
  }
  if (!c.ok()) return c.error();
  return std::unique_ptr<serial::Capture>(std::move(*c));
}

// A board on this machine: its flasher programs the image (once per job,
// later loads and retries only hold the target again) and the capture reads
// its console.
class LocalLane final : public BenchLane {
 public:
  LocalLane(const BenchParts& parts, const Clock& clock, const matrix::BoardInstance& board,
            const std::optional<matrix::Analyzer>& analyzer)
      : parts_(parts), clock_(clock), analyzer_(analyzer), flasher_(parts.flasher(board)) {}

  void new_job() override { programmed_ = false; }
  bool capture(BenchAttempt& a) override {
    auto target = flash(a);
    return target && capture_from(a, *target);
  }

 private:
  // Programs the image (or, once the board holds it, holds the target
  // again: QEMU starts a new process for both). nullptr on FLASH_ERROR.
  std::unique_ptr<probe::TargetSession> flash(BenchAttempt& a) {
    a.stage("flash");
    probe::FlashContext ctx{a.board, a.job_dir / "firmware" / "rtosbench-fw.elf",
                            a.job_dir / "firmware" / "rtosbench-fw.bin", a.dir,
                            ms(a.matrix.timeouts.flash_s)};
    auto tf = clock_.now();
    auto session = programmed_ ? flasher_->reload(ctx) : flasher_->program(ctx);
    a.record.flash_seconds = std::chrono::duration<double>(clock_.now() - tf).count();
    if (!session.ok()) {
      (void)append_to_file(a.dir / "flash.log", "FLASH_ERROR: " + session.error().message + "\n");
      fail_attempt(a.record, JobStatus::kFlashError, session.error().message);
      return nullptr;
    }
    programmed_ = true;
    a.record.serial_port = (*session)->serial_port().string();
    return std::move(*session);
  }

  // Opens the capture, releases the target, captures until a stop
  // condition and stops the target. True when the capture reached END;
  // otherwise the attempt's status is set.
  bool capture_from(BenchAttempt& a, probe::TargetSession& target) {
    const auto raw = a.dir / "capture.raw";
    a.record.raw_file = std::filesystem::relative(raw, a.job_dir).string();
    std::unique_ptr<serial::Capture> capture;
    auto open_port = [&]() -> bool {
      auto opened = parts_.capture(target, a.board, raw);
      if (!opened.ok()) {
        fail_attempt(a.record,
                     opened.error().kind == ErrorKind::kStore ? JobStatus::kStoreError
                                                              : JobStatus::kPortError,
                     opened.error().message);
        return false;
      }
      capture = std::move(*opened);
      return true;
    };
    auto stop_target = [&] {
      target.stop();
      a.record.flash_commands = target.commands();
      return false;
    };
    // The port is open before the target leaves reset, so no line is lost;
    // only a power cycle takes the port away and needs it opened after.
    if (target.port_survives_release() && !open_port()) return stop_target();
    // The analyzer captures before the target leaves reset, so it sees the
    // first edge; it stops once the serial capture ended.
    std::unique_ptr<AnalyzerCapture> analyzer;
    if (analyzer_ && parts_.analyzer_processes) {
      a.stage("analyzer");
      analyzer = std::make_unique<AnalyzerCapture>(*parts_.analyzer_processes, *analyzer_, a.dir);
      a.record.analyzer_file = std::filesystem::relative(analyzer->file(), a.job_dir).string();
      const auto limit = ms(a.matrix.timeouts.capture_s + a.matrix.timeouts.flash_s + 60);
      if (!analyzer->start(limit)) a.log("analyzer: " + analyzer->stop().message);
    }
    auto stop_analyzer = [&] {
      if (!analyzer) return;
      AnalyzerResult ar = analyzer->stop();
      a.record.analyzer_outcome = to_string(ar.outcome);
      a.record.analyzer_message = ar.message;
      if (ar.outcome == AnalyzerOutcome::kMissing) a.record.analyzer_file.clear();  // none made
      analyzer.reset();
    };
    auto t_release = clock_.now();
    if (auto s = target.release(); !s.ok()) {
      fail_attempt(a.record, JobStatus::kFlashError, s.error().message);
      stop_analyzer();
      return stop_target();
    }
    if (!target.port_survives_release() && !open_port()) {
      stop_analyzer();
      return stop_target();
    }
    double release_s = std::chrono::duration<double>(clock_.now() - t_release).count();
    a.stage("capture");
    serial::CaptureOptions opts;
    opts.overall = ms(a.matrix.timeouts.capture_s);
    opts.inactivity = ms(a.matrix.timeouts.inactivity_s);
    opts.liveness = [&target] { return target.liveness(); };
    if (auto nonce = a.expect.find("nonce"); nonce != a.expect.end())
      opts.start_line = "START " + nonce->second + "\n";
    serial::CaptureResult cr = capture->run(opts);
    capture.reset();
    stop_analyzer();
    std::string dead;
    if (cr.reason == serial::StopReason::kPortError) {
      // The port can hang up a moment before the process behind it (QEMU)
      // is gone: give it a second to say why.
      for (int i = 0; i < 20 && dead.empty(); ++i) {
        dead = target.liveness();
        if (dead.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    stop_target();
    if (!record_capture(a, cr, raw, dead)) return false;
    a.record.target_run_seconds = release_s + cr.seconds_to_end;
    return true;
  }

  // The capture's figures into the record, and its stop reason as the
  // attempt's status; true when it reached END.
  static bool record_capture(BenchAttempt& a, const serial::CaptureResult& cr,
                             const std::filesystem::path& raw, const std::string& dead) {
    store::AttemptRecord& r = a.record;
    r.capture_stop = serial::to_string(cr.reason);
    r.capture_bytes = cr.bytes;
    r.capture_lines = cr.lines;
    r.start_sends = cr.starts_sent;
    if (cr.reason == serial::StopReason::kEnd && cr.seconds_to_begin >= 0) {
      r.transfer_bytes = cr.bytes_after_begin;
      r.transfer_seconds = cr.seconds_to_end - cr.seconds_to_begin;
    }
    if (auto h = sha256_file(raw); h.ok()) r.raw_sha256 = *h;
    using serial::StopReason;
    switch (cr.reason) {
      case StopReason::kEnd:
        return true;
      case StopReason::kOverallTimeout:
      case StopReason::kInactivityTimeout:
        fail_attempt(r, JobStatus::kTimeout, cr.message);
        break;
      case StopReason::kPortError:
        fail_attempt(r, JobStatus::kPortError,
                     dead.empty() || cr.message.find(dead) != std::string::npos
                         ? cr.message
                         : cr.message + "; " + dead);
        break;
      case StopReason::kWriteError:
        fail_attempt(r, JobStatus::kStoreError, cr.message);
        break;
      case StopReason::kInterrupted:
        fail_attempt(r, JobStatus::kInterrupted, "interrupted");
        break;
    }
    return false;
  }

  const BenchParts& parts_;
  const Clock& clock_;
  const std::optional<matrix::Analyzer>& analyzer_;
  std::unique_ptr<probe::Flasher> flasher_;
  bool programmed_ = false;  // the board holds this job's image: reload, do not program
};

class LocalBench final : public Bench {
 public:
  LocalBench(const BenchParts& parts, const Clock& clock, std::optional<matrix::Analyzer> analyzer)
      : parts_(parts), clock_(clock), analyzer_(std::move(analyzer)) {}
  std::unique_ptr<BenchLane> lane(const matrix::BoardInstance& board) override {
    return std::make_unique<LocalLane>(parts_, clock_, board, analyzer_);
  }

 private:
  const BenchParts& parts_;
  const Clock& clock_;
  std::optional<matrix::Analyzer> analyzer_;
};

}  // namespace

void fill_real_bench_parts(BenchParts& p, ProcessRunner& processes) {
  if (!p.flasher) {
    p.flasher = [&processes](const matrix::BoardInstance& b) {
      return probe::make_flasher(b.flasher, processes);
    };
  }
  if (!p.capture) p.capture = open_capture;
  if (!p.analyzer_processes) p.analyzer_processes = &processes;
  if (!p.lava) {
    p.lava = [](const matrix::LavaServer& server) -> Result<std::unique_ptr<lava::Api>> {
      auto token = lava::read_token(server);
      if (!token.ok()) return token.error();
      return lava::make_http_api(server, std::move(*token));
    };
  }
}

std::unique_ptr<Bench> make_bench(const matrix::Bench& bench, const BenchParts& parts,
                                  const Clock& clock) {
  auto local = std::make_unique<LocalBench>(parts, clock, bench.analyzer);
  if (!bench.lava) return local;
  return make_lava_bench(*bench.lava, parts.lava(*bench.lava), std::move(local));
}

}  // namespace rb::run
