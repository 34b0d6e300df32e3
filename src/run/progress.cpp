#include "run/progress.h"

#include <fmt/core.h>

#include <cmath>

namespace rb::run {

std::string format_duration(double seconds) {
  if (seconds < 0) return "?";
  long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

Progress::Progress(const Clock& clock, bool live, Sink sink, int total_jobs, int already_done)
    : clock_(clock),
      live_(live),
      sink_(std::move(sink)),
      total_(total_jobs),
      done_(already_done),
      start_(clock.now()) {}

double Progress::eta_seconds() const {
  int left = total_ - done_;
  if (left <= 0) return 0;
  if (counted_done_ == 0) return -1;
  // Wall time per finished job so far, which already folds in the
  // parallelism of boards and builds.
  double elapsed = std::chrono::duration<double>(clock_.now() - start_).count();
  return elapsed / counted_done_ * left;
}

std::string Progress::status_line_locked() const {
  double elapsed = std::chrono::duration<double>(clock_.now() - start_).count();
  std::string line = fmt::format("[{}/{}] {} elapsed, ETA {}", done_, total_,
                                 format_duration(elapsed), format_duration(eta_seconds()));
  for (const auto& [slot, js] : busy_)
    line += fmt::format(" | {}: {} {}", slot, js.first, js.second);
  return line;
}

std::string Progress::status_line() const {
  std::lock_guard lock(mu_);
  return status_line_locked();
}

void Progress::redraw_locked() {
  if (!live_) return;
  std::string line = status_line_locked();
  if (line.size() > 200) line = line.substr(0, 197) + "...";
  std::string out = "\r" + line;
  if (line.size() < last_width_) out += std::string(last_width_ - line.size(), ' ');
  last_width_ = line.size();
  sink_(out);
}

void Progress::emit_locked(const std::string& line) {
  if (live_) {
    sink_("\r" + std::string(last_width_, ' ') + "\r");
    last_width_ = 0;
  }
  sink_(line + "\n");
  redraw_locked();
}

void Progress::stage(const std::string& slot, const std::string& job, const std::string& stage) {
  std::lock_guard lock(mu_);
  busy_[slot] = {job, stage};
  if (live_)
    redraw_locked();
  else
    emit_locked(fmt::format("[{}/{}] {}: {} ({})", done_, total_, job, stage, slot));
}

void Progress::idle(const std::string& slot) {
  std::lock_guard lock(mu_);
  busy_.erase(slot);
  redraw_locked();
}

void Progress::finished(const std::string& job, const std::string& status,
                        const std::string& detail, double seconds, bool counted) {
  std::lock_guard lock(mu_);
  ++done_;
  std::erase_if(busy_, [&](const auto& b) { return b.second.first == job; });
  if (counted) ++counted_done_;
  std::string line = fmt::format("[{}/{}] {} {} ({:.1f} s)", done_, total_, status, job, seconds);
  if (!detail.empty()) line += ": " + detail;
  emit_locked(line);
}

void Progress::note(const std::string& line) {
  std::lock_guard lock(mu_);
  emit_locked(line);
}

void Progress::tick() {
  std::lock_guard lock(mu_);
  redraw_locked();
}

void Progress::close() {
  std::lock_guard lock(mu_);
  if (live_ && last_width_ > 0) {
    sink_("\r" + std::string(last_width_, ' ') + "\r");
    last_width_ = 0;
  }
  live_ = false;
}

}  // namespace rb::run
