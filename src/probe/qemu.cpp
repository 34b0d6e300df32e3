// The emulated bench: QEMU's netduinoplus2 (STM32F405) with deterministic
// instruction counting. The guest is started halted (-S) with a monitor
// socket; "verify" reads the start of flash back through the monitor and
// compares it with the image; release is the monitor's `cont`.
//
// USART1 reaches the capture through a Unix socket chardev with
// server=on,wait=on (the default): QEMU does not finish starting until this
// backend has connected, and from then on a guest write blocks while the
// reader lags, so no byte can be lost. The pty chardev (`qemu.serial: pty`)
// is kept for the tty code path, but QEMU 7.2 treats a pty as unconnected
// until a once-a-second poll has seen its slave open, and meanwhile writes
// each byte at most once, dropping it when the pty's ~20 KB buffer is full
// (docs/run.md, "Capture transport"): release() waits that poll out.
#include <fmt/core.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "probe/flasher.h"
#include "probe/qemu_monitor.h"
#include "util/posix_file.h"
#include "util/temp_dir.h"

namespace rb::probe {

namespace {

// Longer than QEMU's 1 s pty reconnect poll, with margin for a loaded host.
constexpr std::chrono::milliseconds kPtySettle{1500};

void append_log(const std::filesystem::path& log, const std::string& text) {
  (void)append_to_file(log, text + "\n");
}

Error exited_early(ChildProcess& child) {
  auto r = child.result();
  return Error{fmt::format("QEMU exited before starting ({}): {}", r.describe(), failure_lines(r))};
}

class QemuSession final : public TargetSession {
 public:
  QemuSession(std::unique_ptr<ChildProcess> child, std::filesystem::path tmpdir,
              std::filesystem::path flash_log, std::string cmdline)
      : child_(std::move(child)),
        tmpdir_(std::move(tmpdir)),
        flash_log_(std::move(flash_log)),
        commands_{std::move(cmdline)} {}
  ~QemuSession() override {
    stop();
    if (stream_fd_ >= 0) ::close(stream_fd_);
    std::error_code ec;
    std::filesystem::remove_all(tmpdir_, ec);
  }
  std::filesystem::path serial_port() const override { return port_; }

  int take_serial_stream() override {
    int fd = stream_fd_;
    stream_fd_ = -1;
    return fd;
  }

  Status release() override {
    if (pty_) {
      // The runner opened the pty just before this call; QEMU drops output
      // until its next poll notices (see the top of this file).
      auto until = std::chrono::steady_clock::now() + kPtySettle;
      while (std::chrono::steady_clock::now() < until && !interrupt_requested()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      append_log(flash_log_,
                 fmt::format("waited {} ms for QEMU to notice the open pty", kPtySettle.count()));
    }
    commands_.push_back("(monitor) cont");
    auto r = monitor_.command("cont", std::chrono::seconds(5));
    if (!r.ok()) return Error{fmt::format("QEMU monitor `cont` failed: {}", r.error().message)};
    append_log(flash_log_, "released: monitor `cont`");
    return {};
  }

  std::string liveness() override {
    if (child_->running()) return {};
    return fmt::format("QEMU exited ({})", child_->result().describe());
  }

  void stop() override {
    if (stopped_) return;
    stopped_ = true;
    if (child_->running() && monitor_.connected()) {
      (void)monitor_.send("quit");
      child_->wait_for(std::chrono::seconds(2));
    }
    child_->stop(std::chrono::milliseconds(500));
  }

  std::vector<std::string> commands() const override { return commands_; }

  std::unique_ptr<ChildProcess> child_;
  std::filesystem::path tmpdir_;
  std::filesystem::path flash_log_;
  std::vector<std::string> commands_;
  std::filesystem::path port_;
  int stream_fd_ = -1;
  QemuMonitor monitor_;
  bool pty_ = false;

 private:
  bool stopped_ = false;
};

class QemuFlasher final : public Flasher {
 public:
  explicit QemuFlasher(ProcessRunner& runner) : runner_(runner) {}
  const char* name() const override { return "qemu"; }

  ToolCheck check_tool() override {
    ToolCheck t;
    auto path = find_in_path("qemu-system-arm");
    if (path.empty()) {
      t.problem = "qemu-system-arm not found in PATH; install the Debian package qemu-system-arm";
      return t;
    }
    t.present = true;
    t.path = path.string();
    ProcessSpec spec;
    spec.argv = {"qemu-system-arm", "--version"};
    spec.timeout = std::chrono::seconds(10);
    auto r = runner_.run(spec);
    t.version = r.ok() ? r.output.substr(0, r.output.find('\n')) : "";
    return t;
  }

  Result<std::unique_ptr<TargetSession>> program(const FlashContext& ctx) override {
    const std::filesystem::path flash_log = ctx.dir / "flash.log";
    const std::filesystem::path qemu_log = ctx.dir / "qemu.log";
    const bool pty = ctx.board.qemu.serial == matrix::QemuSerial::kPty;
    std::error_code ec;
    std::filesystem::create_directories(ctx.dir, ec);
    if (find_in_path("qemu-system-arm").empty()) {
      return Error{"qemu-system-arm not found in PATH; install the Debian package qemu-system-arm"};
    }
    // The sockets live in a short private directory: Unix socket paths are
    // limited to 107 bytes and run directories can be deep.
    // Named with this pid: a killed run's folder is removed by the next one.
    auto owned = make_owned_temp_dir("rtosbench-qemu");
    if (!owned.ok()) return owned.error();
    std::filesystem::path tmpdir = *owned;
    std::filesystem::path sock = tmpdir / "monitor.sock";
    std::filesystem::path serial_sock = tmpdir / "serial.sock";

    ProcessSpec spec;
    spec.argv = qemu_argv(ctx, pty, serial_sock, sock);
    spec.log = qemu_log;
    std::string cmdline = fmt::format("{}", fmt::join(spec.argv, " "));
    append_log(flash_log, "$ " + cmdline);
    auto child = runner_.spawn(spec);
    if (!child.ok()) {
      std::filesystem::remove_all(tmpdir, ec);
      return Error{child.error().message};
    }
    // From here the session owns QEMU and the directory.
    auto session = std::make_unique<QemuSession>(std::move(*child), tmpdir, flash_log, cmdline);
    session->pty_ = pty;
    ChildProcess& qemu = *session->child_;
    if (pty) {
      // QEMU announces the pty it made for serial slot 0.
      static const std::regex kPty("char device redirected to (\\S+) \\(label serial0\\)");
      auto deadline = std::chrono::steady_clock::now() + ctx.timeout;
      while (session->port_.empty()) {
        std::smatch m;
        std::string text = read_whole_file(qemu_log).value_or("");
        if (std::regex_search(text, m, kPty)) {
          session->port_ = m[1].str();
          break;
        }
        if (!qemu.running()) return exited_early(qemu);
        if (std::chrono::steady_clock::now() >= deadline || interrupt_requested()) {
          return Error{fmt::format("QEMU did not announce its serial pty within {} ms",
                                   ctx.timeout.count())};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    } else {
      // QEMU blocks in its start-up until this connection is made (wait=on).
      auto fd = connect_unix_socket(serial_sock, "QEMU's serial socket", ctx.timeout,
                                    [&]() -> std::optional<Error> {
                                      if (qemu.running()) return std::nullopt;
                                      return exited_early(qemu);
                                    });
      if (!fd.ok()) return fd.error();
      session->stream_fd_ = *fd;
      session->port_ = serial_sock;
    }
    if (auto s = session->monitor_.connect(sock, std::chrono::seconds(5)); !s.ok())
      return s.error();

    auto words = verify_flash(*session, ctx);
    if (!words.ok()) return words.error();
    append_log(flash_log,
               fmt::format("verified: the first {} words of flash match {}; serial {} {}", *words,
                           ctx.bin.filename().string(), pty ? "pty" : "socket (connected)",
                           session->port_.string()));
    return std::unique_ptr<TargetSession>(std::move(session));
  }

 private:
  // QEMU held before its first instruction (-S), counting instructions,
  // its serial on a pty or on a socket the capture connects to.
  static std::vector<std::string> qemu_argv(const FlashContext& ctx, bool pty,
                                            const std::filesystem::path& serial_sock,
                                            const std::filesystem::path& sock) {
    std::vector<std::string> argv{
        "qemu-system-arm",
        "-M",
        ctx.board.qemu.machine,
        "-nographic",
        "-icount",
        fmt::format("shift={},align=off,sleep=off", ctx.board.target.qemu_icount_shift),
        "-S"};
    if (pty) {
      argv.insert(argv.end(), {"-serial", "pty"});
    } else {
      // Before the monitor: QEMU creates chardevs in this order and blocks
      // on this one until the capture is connected.
      argv.insert(argv.end(), {"-chardev",
                               fmt::format("socket,id=rbserial,path={},server=on,wait=on",
                                           serial_sock.string()),
                               "-serial", "chardev:rbserial"});
    }
    argv.insert(argv.end(), {"-monitor", fmt::format("unix:{},server=on,wait=off", sock.string()),
                             "-kernel", ctx.elf.string()});
    argv.insert(argv.end(), ctx.board.qemu.extra_args.begin(), ctx.board.qemu.extra_args.end());
    return argv;
  }

  // Verify: the first words of flash must be the image's first words. The
  // number of words compared.
  static Result<size_t> verify_flash(QemuSession& session, const FlashContext& ctx) {
    std::string bin = read_whole_file(ctx.bin).value_or("");
    size_t words = std::min<size_t>(16, bin.size() / 4);
    if (words == 0)
      return Error{fmt::format("cannot verify: image {} is empty or missing", ctx.bin.string())};
    const uint32_t base = ctx.board.target.flash_base;
    auto xp = session.monitor_.command(fmt::format("xp /{}wx 0x{:08x}", words, base),
                                       std::chrono::seconds(5));
    if (!xp.ok()) return Error{fmt::format("verify: {}", xp.error().message)};
    std::vector<uint32_t> got = parse_xp_words(*xp);
    for (size_t i = 0; i < words; ++i) {
      uint32_t want = 0;
      std::memcpy(&want, bin.data() + 4 * i, 4);
      if (i >= got.size() || got[i] != want) {
        return Error{fmt::format(
            "verify failed: flash word {} at 0x{:08x} is {} but the image has 0x{:08x}", i,
            base + 4 * i, i < got.size() ? fmt::format("0x{:08x}", got[i]) : "unreadable", want)};
      }
    }
    return words;
  }

  ProcessRunner& runner_;
};

}  // namespace

std::unique_ptr<Flasher> make_qemu_flasher(ProcessRunner& runner) {
  return std::make_unique<QemuFlasher>(runner);
}

}  // namespace rb::probe
