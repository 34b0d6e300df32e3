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
#include <vector>

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
  // The port's silence that ends the capture. A TEST record announcing a
  // longer silent window (`quiet_ms=N`, docs/protocol.md section 2) raises
  // it to 1.25 N + 5 s until the next TEST or END.
  std::chrono::milliseconds inactivity{std::chrono::seconds(30)};
  // The start handshake (docs/protocol.md section 1.3): once the firmware's
  // banner line (it starts with kBannerPrefix) has arrived, this line is
  // sent, and sent again every 500 ms until a protocol record arrives.
  // Empty: nothing is sent.
  std::string start_line;
  // Polled every 50 ms; returning a non-empty text stops the capture as a
  // port error with that text (e.g. "QEMU exited with status 134").
  std::function<std::string()> liveness;
};

// The first word of the firmware's banner line.
inline constexpr const char* kBannerPrefix = "rtosbench-fw:";

struct CaptureResult {
  StopReason reason = StopReason::kEnd;
  std::string message;  // what happened, for the job's status reason
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t protocol_lines_seen = 0;  // lines that look like records (start with a known kind)
  double seconds = 0;                // capture start to stop
  double seconds_to_end = 0;         // capture start to the END line (kEnd only)
  double seconds_to_begin = -1;      // capture start to the first record; -1: none
  int starts_sent = 0;               // start lines written
  uint64_t bytes_after_begin = 0;    // bytes from the first record on: the transfer
  double longest_quiet_ms = 0;       // the longest silent window a TEST announced
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
  // Opens `port` (raw 8N1 at `baud`) for this process alone (TIOCEXCL),
  // discards what the adapter still delivers from before (read until 100 ms
  // of quiet, at most 1 s; kept in `raw_file`.drained when not empty), and
  // creates/truncates `raw_file`. Error names the port or file and the
  // system's reason (missing, permission, or the processes holding the
  // port); its kind is kStore when a file cannot be created, else kUnavailable.
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
  struct Loop;  // run()'s event loop
  explicit SerialCapture(std::unique_ptr<State> s);
  static Result<std::unique_ptr<SerialCapture>> with_raw_file(std::unique_ptr<State> s,
                                                              const std::filesystem::path& raw);
  static std::string drain(int fd);
  std::unique_ptr<State> s_;
};

// Processes other than this one that hold `port` open, as "pid (command)";
// read from /proc/*/fd (only the processes this user may inspect).
std::vector<std::string> port_holders(const std::filesystem::path& port);

// Waits until `port` exists (after a power cycle the device node goes away
// and comes back). False on timeout or interruption.
bool wait_for_port(const std::filesystem::path& port, std::chrono::milliseconds timeout);

}  // namespace rb::serial
