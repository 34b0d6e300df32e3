#pragma once
// What a person watching a run sees: on a terminal one live status line
// (jobs done/total, each board's current job and stage, elapsed, ETA) with
// finished jobs printed above it; otherwise plain lines, one per event.
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace rb::run {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override {
    return std::chrono::steady_clock::now();
  }
};

// "1:05", "12:00:03"
std::string format_duration(double seconds);

class Progress {
 public:
  using Sink = std::function<void(std::string_view)>;
  // `live`: redraw a status line (terminal); otherwise print plain lines.
  Progress(const Clock& clock, bool live, Sink sink, int total_jobs, int already_done);

  // `slot` is what is busy (a board id, or "build"); `stage` e.g. "build",
  // "flash", "capture", "verify".
  void stage(const std::string& slot, const std::string& job, const std::string& stage);
  void idle(const std::string& slot);
  // A job reached its final status. `counted` false for jobs that took no
  // bench time (PORT_MISSING), kept out of the ETA.
  void finished(const std::string& job, const std::string& status, const std::string& detail,
                double seconds, bool counted = true);
  void note(const std::string& line);  // a free-form line (warnings)
  void tick();   // redraws the live line (called periodically for the elapsed time)
  void close();  // clears the live line before the closing table

  std::string status_line() const;  // as it would be drawn now (tests)
  double eta_seconds() const;       // estimated seconds left; negative when unknown

 private:
  void emit_locked(const std::string& line);
  std::string status_line_locked() const;
  void redraw_locked();

  const Clock& clock_;
  bool live_;
  Sink sink_;
  int total_, done_, counted_done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::pair<std::string, std::string>> busy_;  // slot -> (job, stage)
  mutable std::mutex mu_;
  size_t last_width_ = 0;
};

}  // namespace rb::run
