#pragma once
// Capturing a board's serial output through Boost.Asio: serial_port for a
// tty (/dev/ttyACM*, a pty), a stream descriptor for a byte stream that is
// already connected (QEMU's socket chardev). Bytes are appended to the raw
// capture file as they arrive; the capture stops at the END record, at the
// overall or inactivity timeout, when the port fails (a board or QEMU
// vanishing), or when the run is interrupted.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "util/result.h"

namespace rb::serial {

enum class StopReason {
  kEnd,                // a complete END line arrived
  kOverallTimeout,     // the whole capture took too long
  kInactivityTimeout,  // the port was silent too long
  kPortError,          // read error or hang-up: the port vanished
  kInterrupted,        // SIGINT/SIGTERM, or the caller's stop predicate
  kWriteError,         // the raw file could not be written (a full disk): not the port's fault
};
const char* to_string(StopReason r);

struct CaptureOptions {
  std::chrono::milliseconds overall{std::chrono::minutes(10)};
  std::chrono::milliseconds inactivity{std::chrono::seconds(30)};
  // Polled every 50 ms; returning a non-empty text stops the capture as a
  // port error with that text (e.g. "QEMU exited with status 134").
  std::function<std::string()> liveness;
};

struct CaptureResult {
  StopReason reason = StopReason::kEnd;
  std::string message;  // what happened, for the job's status reason
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t protocol_lines_seen = 0;  // lines that look like records (start with a known kind)
  double seconds = 0;                // capture start to stop
  double seconds_to_end = 0;         // capture start to the END line (kEnd only)
  std::string last_line;             // last complete line, for messages
};

// One capture of a target's output into a raw file; SerialCapture is the
// real one, tests substitute scripted ones.
class Capture {
 public:
  virtual ~Capture() = default;
  // Reads until a stop condition; the raw file is on disk when it returns.
  // The clock of `seconds` starts at the call (the caller calls it right
  // after releasing the target).
  virtual CaptureResult run(const CaptureOptions& options) = 0;
};

class SerialCapture final : public Capture {
 public:
  // Opens `port` (raw 8N1 at `baud`) and creates/truncates `raw_file`. Error
  // names the port or file and the system's reason (missing, permission);
  // its kind is kStore when the raw file cannot be created, else kUnavailable.
  static Result<std::unique_ptr<SerialCapture>> open(const std::filesystem::path& port,
                                                     unsigned baud,
                                                     const std::filesystem::path& raw_file);
  // Takes ownership of `fd`, a connected stream (socket or pipe) that
  // carries the target's serial output, and creates/truncates `raw_file`;
  // `name` says what the stream is in messages. Nothing is flushed: every
  // byte on the stream belongs to this capture. Error names the file.
  static Result<std::unique_ptr<SerialCapture>> adopt_stream(int fd, const std::string& name,
                                                             const std::filesystem::path& raw_file);
  ~SerialCapture() override;

  // The raw file is fsync'ed before returning; a failed write or fsync of it
  // stops the capture as kWriteError.
  CaptureResult run(const CaptureOptions& options) override;

 private:
  struct State;
  explicit SerialCapture(std::unique_ptr<State> s);
  static Result<std::unique_ptr<SerialCapture>> with_raw_file(std::unique_ptr<State> s,
                                                              const std::filesystem::path& raw);
  std::unique_ptr<State> s_;
};

// Waits until `port` exists (after a power cycle the device node goes away
// and comes back). False on timeout or interruption.
bool wait_for_port(const std::filesystem::path& port, std::chrono::milliseconds timeout);

}  // namespace rb::serial
