#include "serial/capture.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/serial_port.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>

#include "protocol/line.h"
#include "util/posix_file.h"
#include "util/process.h"

namespace rb::serial {

const char* to_string(StopReason r) {
  constexpr const char* kNames[] = {"end",        "overall_timeout", "inactivity_timeout",
                                    "port_error", "interrupted",     "write_error"};
  return kNames[static_cast<size_t>(r)];
}

struct SerialCapture::State {
  boost::asio::io_context io;
  boost::asio::serial_port port{io};                 // a tty, or
  boost::asio::posix::stream_descriptor stream{io};  // an adopted stream
  bool is_stream = false;
  std::filesystem::path port_path;
  std::filesystem::path raw_path;
  int raw_fd = -1;
  ~State() {
    if (raw_fd >= 0) ::close(raw_fd);
  }
  // `f` applied to the stream or the port, whichever this capture reads.
  template <typename F>
  auto with_io(F&& f) {
    return is_stream ? f(stream) : f(port);
  }
  boost::system::error_code send(const std::string& text) {
    boost::system::error_code ec;
    with_io([&](auto& io) { boost::asio::write(io, boost::asio::buffer(text), ec); });
    return ec;
  }
  void cancel() {
    boost::system::error_code ignored;
    with_io([&](auto& io) { io.cancel(ignored); });
  }
};

SerialCapture::SerialCapture(std::unique_ptr<State> s) : s_(std::move(s)) {}
SerialCapture::~SerialCapture() = default;

Result<std::unique_ptr<SerialCapture>> SerialCapture::open(const std::filesystem::path& port,
                                                           unsigned baud,
                                                           const std::filesystem::path& raw_file) {
  auto s = std::make_unique<State>();
  s->port_path = port;
  s->raw_path = raw_file;
  auto in_use = [&](const std::vector<std::string>& holders) {
    std::string who;
    for (const auto& h : holders) who += (who.empty() ? "" : ", ") + h;
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("serial port {} is in use by {}: a second reader would take "
                                  "bytes from the capture; close it first",
                                  port.string(), who));
  };
  if (auto holders = port_holders(port); !holders.empty()) return in_use(holders);
  boost::system::error_code ec;
  s->port.open(port.string(), ec);
  if (ec) {
    std::string hint;
    if (ec == boost::system::errc::permission_denied)
      hint = " (add the user to group dialout, or fix the udev rule)";
    if (ec == boost::system::errc::no_such_file_or_directory)
      hint = " (board unplugged or wrong port in the bench file)";
    if (ec == boost::system::errc::device_or_resource_busy) {
      if (auto holders = port_holders(port); !holders.empty()) return in_use(holders);
      hint = " (another program opened it for itself alone)";
    }
    return make_error(ErrorKind::kUnavailable, fmt::format("cannot open serial port {}: {}{}",
                                                           port.string(), ec.message(), hint));
  }
  // This process alone from now on: a terminal program opened later is
  // refused (EBUSY) instead of stealing bytes (tty_ioctl(4): TIOCEXCL).
  ::ioctl(s->port.native_handle(), TIOCEXCL);
  using base = boost::asio::serial_port_base;
  auto set = [&](const auto& option) {
    if (!ec) s->port.set_option(option, ec);
  };
  set(base::baud_rate(baud));
  set(base::character_size(8));
  set(base::parity(base::parity::none));
  set(base::stop_bits(base::stop_bits::one));
  set(base::flow_control(base::flow_control::none));
  if (ec) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("cannot configure serial port {} ({} 8N1): {}", port.string(),
                                  baud, ec.message()));
  }
  // Whatever the port buffered before now belongs to an earlier image or
  // run: it must not be read as this capture's. The kernel's buffer is
  // flushed; what a USB adapter still holds arrives over the next
  // milliseconds and is read off until the port is quiet.
  ::tcflush(s->port.native_handle(), TCIFLUSH);
  std::string drained = drain(s->port.native_handle());
  auto c = SerialCapture::with_raw_file(std::move(s), raw_file);
  if (c.ok() && !drained.empty()) {
    (void)append_to_file(raw_file.string() + ".drained", drained);
  }
  return c;
}

std::string SerialCapture::drain(int fd) {
  using clock = std::chrono::steady_clock;
  const auto give_up = clock::now() + std::chrono::seconds(1);
  std::string out;
  char buf[4096];
  while (clock::now() < give_up) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0 || !(p.revents & POLLIN)) break;  // 100 ms quiet
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// The capture file (raw bytes on disk before anything parses them), then
// the capture.
Result<std::unique_ptr<SerialCapture>> SerialCapture::with_raw_file(
    std::unique_ptr<State> s, const std::filesystem::path& raw_file) {
  std::error_code ec;
  std::filesystem::create_directories(raw_file.parent_path(), ec);
  s->raw_fd = ::open(raw_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (s->raw_fd < 0) {
    return make_error(ErrorKind::kStore, fmt::format("cannot create capture file {}: {}",
                                                     raw_file.string(), std::strerror(errno)));
  }
  return std::unique_ptr<SerialCapture>(new SerialCapture(std::move(s)));
}

Result<std::unique_ptr<SerialCapture>> SerialCapture::adopt_stream(
    int fd, const std::string& name, const std::filesystem::path& raw_file) {
  auto s = std::make_unique<State>();
  s->is_stream = true;
  s->port_path = name;
  s->raw_path = raw_file;
  boost::system::error_code ec;
  s->stream.assign(fd, ec);
  if (ec) {
    ::close(fd);
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("cannot read {}: {}", name, ec.message()));
  }
  return SerialCapture::with_raw_file(std::move(s), raw_file);
}

// One capture's event loop: the reader (raw bytes to the file, then lines),
// the start handshake and the 50 ms timer (timeouts, interrupts, liveness).
struct SerialCapture::Loop {
  using clock = std::chrono::steady_clock;
  State& s;
  const CaptureOptions& options;
  CaptureResult result;
  const clock::time_point start = clock::now();
  clock::time_point last_data = start;
  bool done = false;
  // The start handshake: the first banner line triggers the start line,
  // repeated until a record shows the firmware started.
  bool started = false;
  std::optional<clock::time_point> next_start;
  std::chrono::milliseconds inactivity;
  std::string line;
  std::array<char, 4096> buf{};
  boost::asio::steady_timer tick;

  Loop(State& st, const CaptureOptions& o)
      : s(st), options(o), inactivity(o.inactivity), tick(st.io) {}

  void finish(StopReason reason, std::string message) {
    if (done) return;
    done = true;
    result.reason = reason;
    result.message = std::move(message);
    s.cancel();
    s.io.stop();
  }
  void read_more() {
    s.with_io([this](auto& io) {
      io.async_read_some(boost::asio::buffer(buf),
                         [this](const boost::system::error_code& ec, size_t n) { on_read(ec, n); });
    });
  }
  void tick_later() {
    tick.expires_after(std::chrono::milliseconds(50));
    tick.async_wait([this](const boost::system::error_code& ec) { on_tick(ec); });
  }
  void send_start() {
    if (auto ec = s.send(options.start_line)) {
      finish(StopReason::kPortError, fmt::format("cannot send the start line to {}: {}",
                                                 s.port_path.string(), ec.message()));
      return;
    }
    ++result.starts_sent;
    next_start = clock::now() + std::chrono::milliseconds(500);
  }
  void on_line(const std::string& l);
  void on_read(const boost::system::error_code& ec, size_t n);
  void on_tick(const boost::system::error_code& ec);
  bool write_raw(size_t n);
  std::string silence_message() const;
};

void SerialCapture::Loop::on_line(const std::string& l) {
  ++result.lines;
  result.last_line = l.size() > 200 ? l.substr(0, 200) + "..." : l;
  // A record's kind, then ',', its suffix's '|' or nothing.
  const auto kind = protocol::record_kind(std::string_view(l).substr(0, l.find('|')));
  const bool record = kind != protocol::RecordKind::kOther;
  if (record) ++result.protocol_lines_seen;
  if (record && !started) {
    started = true;
    result.seconds_to_begin = std::chrono::duration<double>(clock::now() - start).count();
    result.bytes_after_begin = l.size() + 1;
  }
  if (!started && !options.start_line.empty() && !next_start &&
      l.compare(0, std::strlen(kBannerPrefix), kBannerPrefix) == 0) {
    send_start();
  }
  if (l.compare(0, 5, "TEST,") == 0) {
    inactivity = options.inactivity;
    const auto at = l.find(",quiet_ms=");
    if (at != std::string::npos) {
      uint64_t ms = 0;
      const char* p = l.data() + at + 10;
      const char* e = l.data() + l.size();
      auto [end, ec] = std::from_chars(p, e, ms);
      if (ec == std::errc() && ms < (uint64_t{1} << 40)) {
        result.longest_quiet_ms = std::max(result.longest_quiet_ms, static_cast<double>(ms));
        inactivity = std::max(options.inactivity, std::chrono::milliseconds(ms + ms / 4 + 5000));
      }
    }
  }
  if (kind == protocol::RecordKind::kEnd) {
    result.seconds_to_end = std::chrono::duration<double>(clock::now() - start).count();
    finish(StopReason::kEnd, "END received");
  }
}

// Bytes reach the file before anything is parsed: a crash of the host leaves
// the capture as received. False (the capture finished) when they did not.
bool SerialCapture::Loop::write_raw(size_t n) {
  size_t off = 0;
  while (off < n) {
    ssize_t w = ::write(s.raw_fd, buf.data() + off, n - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      finish(StopReason::kWriteError,
             fmt::format("cannot write {}: {}", s.raw_path.string(), std::strerror(errno)));
      return false;
    }
    off += static_cast<size_t>(w);
  }
  return true;
}

void SerialCapture::Loop::on_read(const boost::system::error_code& ec, size_t n) {
  if (done) return;
  if (n > 0) {
    last_data = clock::now();
    if (!write_raw(n)) return;
    result.bytes += n;
    for (size_t i = 0; i < n && !done; ++i) {
      if (started) ++result.bytes_after_begin;
      char c = buf[i];
      if (c == '\n' || c == '\r') {
        if (!line.empty()) on_line(line);
        line.clear();
      } else if (line.size() < 4200) {
        line += c;
      }
    }
    if (done) return;
  }
  if (ec) {
    finish(StopReason::kPortError,
           fmt::format("{} {} failed after {} bytes: {}{}",
                       s.is_stream ? "serial stream" : "serial port", s.port_path.string(),
                       result.bytes, ec.message(),
                       ec == boost::asio::error::eof ? " (hang-up: the other end closed)" : ""));
    return;
  }
  read_more();
}

// Why the port fell silent, for the inactivity timeout's message.
std::string SerialCapture::Loop::silence_message() const {
  std::string why;
  if (result.bytes == 0) {
    why = "; no byte at all: check the wiring and the port (docs/lab.md)";
  } else if (!started && result.starts_sent == 0 && !options.start_line.empty()) {
    why = "; no firmware banner seen: a wrong baud rate, or not this firmware";
  } else if (!started && result.starts_sent > 0) {
    why = fmt::format("; the start line was sent {} times without an answer", result.starts_sent);
  }
  return fmt::format(
      "port silent for {:.0f} s before END ({} bytes, {} lines received; last "
      "line: '{}'){}",
      std::chrono::duration<double>(inactivity).count(), result.bytes, result.lines,
      result.last_line, why);
}

void SerialCapture::Loop::on_tick(const boost::system::error_code& ec) {
  if (ec || done) return;
  auto now = clock::now();
  if (interrupt_requested()) return finish(StopReason::kInterrupted, "interrupted");
  if (now - start >= options.overall) {
    return finish(StopReason::kOverallTimeout,
                  fmt::format("no END within {:.0f} s ({} bytes, {} lines received; last line: "
                              "'{}')",
                              std::chrono::duration<double>(options.overall).count(), result.bytes,
                              result.lines, result.last_line));
  }
  if (now - last_data >= inactivity)
    return finish(StopReason::kInactivityTimeout, silence_message());
  if (next_start && !started && now >= *next_start) send_start();
  if (options.liveness) {
    std::string dead = options.liveness();
    // Give the reader a moment to drain what the dying end wrote.
    if (!dead.empty() && now - last_data >= std::chrono::milliseconds(200)) {
      return finish(StopReason::kPortError,
                    fmt::format("{} after {} bytes, before END (last line: '{}')", dead,
                                result.bytes, result.last_line));
    }
  }
  tick_later();
}

CaptureResult SerialCapture::run(const CaptureOptions& options) {
  Loop loop(*s_, options);
  loop.read_more();
  loop.tick_later();
  s_->io.run();
  CaptureResult& result = loop.result;
  if (!loop.done) {
    result.reason = StopReason::kPortError;
    result.message = "capture loop ended unexpectedly";
  }
  const std::string& line = loop.line;
  if (!line.empty()) result.last_line = line.size() > 200 ? line.substr(0, 200) + "..." : line;
  if (::fsync(s_->raw_fd) != 0 && result.reason != StopReason::kWriteError) {
    result.reason = StopReason::kWriteError;
    result.message =
        fmt::format("cannot write {}: fsync: {}", s_->raw_path.string(), std::strerror(errno));
  }
  result.seconds = std::chrono::duration<double>(Loop::clock::now() - loop.start).count();
  return result;
}

std::vector<std::string> port_holders(const std::filesystem::path& port) {
  std::error_code ec;
  const auto target = std::filesystem::canonical(port, ec);
  std::vector<std::string> out;
  if (ec) return out;
  const std::string self = std::to_string(::getpid());
  for (auto it = std::filesystem::directory_iterator("/proc", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid == self)
      continue;
    std::error_code fe;
    for (auto fd = std::filesystem::directory_iterator(it->path() / "fd", fe);
         !fe && fd != std::filesystem::directory_iterator(); fd.increment(fe)) {
      std::error_code le;
      if (std::filesystem::read_symlink(fd->path(), le) == target && !le) {
        std::ifstream comm(it->path() / "comm");
        std::string name;
        std::getline(comm, name);
        out.push_back(fmt::format("process {} ({})", pid, name));
        break;
      }
    }
  }
  return out;
}

bool wait_for_port(const std::filesystem::path& port, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::error_code ec;
    if (std::filesystem::exists(port, ec)) return true;
    if (interrupt_requested() || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace rb::serial
