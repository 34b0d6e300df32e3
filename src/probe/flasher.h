#pragma once
// Flash backends behind one small interface, one file each (qemu.cpp,
// openocd.cpp, pyocd.cpp) and one registration line each (flasher.cpp).
// A backend programs and verifies an image and leaves the target held before
// its first instruction; the runner then opens the serial capture and
// releases the target, so the first line is never lost. Released targets run
// with the debugger detached (DHCSR.C_DEBUGEN cleared or power-on reset).
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "matrix/model.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::probe {

struct FlashContext {
  matrix::BoardInstance board;
  std::filesystem::path elf;
  std::filesystem::path bin;
  std::filesystem::path dir;  // the attempt directory: flash.log (and qemu.log) go here
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
};

// A programmed target held in reset (or halted), waiting to be released.
class TargetSession {
 public:
  virtual ~TargetSession() = default;
  // The port to capture from (QEMU: its socket or the pty it made), also
  // what logs and results name.
  virtual std::filesystem::path serial_port() const = 0;
  // A stream the backend already connected to the target's serial output
  // (QEMU's socket chardev, connected before the guest can run), handed
  // over once; the caller owns it. -1: open serial_port() as a tty.
  virtual int take_serial_stream() { return -1; }
  // False when releasing makes the port disappear and come back (power
  // cycle): the runner then opens the port after release().
  virtual bool port_survives_release() const { return true; }
  // Starts the target from reset with the debugger detached. The error
  // carries the tool's own message.
  virtual Status release() = 0;
  // "" while the target's end of the port is alive; otherwise why it is not
  // (e.g. "QEMU exited with status 134").
  virtual std::string liveness() { return {}; }
  // Called once the capture is over (QEMU: quit).
  virtual void stop() {}
  // The commands run so far, for the flash log and the result JSON.
  virtual std::vector<std::string> commands() const = 0;
};

// What `doctor` found about one thing, and how to fix it when it is wrong.
struct Finding {
  enum class Level { kOk, kInfo, kWarning, kError };
  Level level = Level::kOk;
  std::string topic;   // "arm-none-eabi-gcc", "serial of disco-1", "kernel freertos", ...
  std::string detail;  // what was found
  std::string fix;     // how to fix it (empty when nothing to fix)
};
const char* to_string(Finding::Level l);

// A tool run for `doctor`, as it was run.
struct ToolRun {
  std::string command;  // quoted_command of its argv
  ProcessResult result;
};

struct ToolCheck {
  bool present = false;
  std::string path;
  std::string version;
  std::string problem;  // what is wrong and how to fix it (empty when fine)
};

class Flasher {
 public:
  virtual ~Flasher() = default;
  virtual const char* name() const = 0;
  // Programs and verifies ctx.elf on ctx.board. Error (reported as
  // FLASH_ERROR) carries the tool's message and how to fix what is missing.
  virtual Result<std::unique_ptr<TargetSession>> program(const FlashContext& ctx) = 0;
  // The next cold start of an image program() already wrote on this board
  // (the next load of a repeated job, or a retry): the target is held again
  // without programming, so the image is flashed once per job. The default
  // programs again, for backends where programming is the cold start
  // (QEMU: a new process). Errors as program().
  virtual Result<std::unique_ptr<TargetSession>> reload(const FlashContext& ctx) {
    return program(ctx);
  }
  // Is the tool installed, which version.
  virtual ToolCheck check_tool() = 0;

  // doctor's questions. Is the tool installed at a version that works, and
  // can it serve `boards` (the bench's boards that name this flasher)?
  // `required`: the bench uses it, so a problem is an error (else info).
  // The default: check_tool() as one finding on `tool`.
  virtual std::vector<Finding> check(const std::string& tool,
                                     const std::vector<const matrix::BoardInstance*>& boards,
                                     bool required);
  // What a board instance served by this flasher needs besides the tool
  // (OpenOCD: its scripts); none by default.
  virtual std::vector<Finding> check_board(const matrix::BoardInstance&) { return {}; }
  // doctor --probe: DBGMCU_IDCODE (RB_BOARD_DBGMCU_BASE) read through the probe;
  // nullopt when this backend has no such read.
  virtual std::optional<ToolRun> read_idcode(const matrix::BoardInstance&) { return std::nullopt; }
  // True when the tool matches probe.serial exactly (OpenOCD's `adapter
  // serial`), so a lowercase hex form does not find the probe.
  virtual bool serial_matched_exactly() const { return false; }
};

// The registry: every backend by name (flasher.cpp, one line each). A bench
// names a flasher; the board's board.cmake says which flashers may program it
// (tests/probe checks that each is registered here).
struct FlasherRegistration {
  std::string name;  // as a bench and RB_BOARD_FLASHERS name it
  std::string tool;  // the program it runs (what `doctor` checks)
  std::unique_ptr<Flasher> (*make)(ProcessRunner& runner);
};
const std::vector<FlasherRegistration>& registered_flashers();
// The boards of `bench` that name flasher `name`.
std::vector<const matrix::BoardInstance*> boards_using(const matrix::Bench& bench,
                                                       const std::string& name);

// For `run`: each flash tool the bench's non-emulated boards use is
// installed at a working version (Flasher::check). The error
// (kUnavailable) names the tool and the fix.
Status check_flash_tools_for_run(const matrix::Bench& bench, ProcessRunner& processes);
// nullptr when no backend has that name.
std::unique_ptr<Flasher> make_flasher(std::string_view name, ProcessRunner& runner);

// Shared by the probe backends (openocd, pyocd): a target held through a
// debug probe. release() power-cycles the board when its bench entry says
// so (a power-on reset clears C_DEBUGEN and the DEMCR catch bits), and
// otherwise runs the backend's release command line in the image's
// directory ("<tool> release failed" with the tool's message).
class ProbeSession final : public TargetSession {
 public:
  ProbeSession(ProcessRunner& runner, FlashContext ctx, std::vector<std::string> commands,
               std::string tool, std::vector<std::string> release_argv)
      : runner_(runner),
        ctx_(std::move(ctx)),
        commands_(std::move(commands)),
        tool_(std::move(tool)),
        release_argv_(std::move(release_argv)) {}
  std::filesystem::path serial_port() const override { return ctx_.board.serial_port; }
  bool port_survives_release() const override {
    return ctx_.board.reset != matrix::ResetMethod::kPowerCycle;
  }
  Status release() override;
  std::vector<std::string> commands() const override { return commands_; }

 private:
  ProcessRunner& runner_;
  FlashContext ctx_;
  std::vector<std::string> commands_;
  std::string tool_;
  std::vector<std::string> release_argv_;
};

// Shared by the probe backends: the image as a tool is given it. The tool
// runs in `dir` (the directory holding ctx.elf and ctx.bin) and sees only
// the fixed file names, so no character of the run directory's path ever
// reaches its command parser (OpenOCD's Tcl: `program` re-evaluates its
// file name with `eval`; pyOCD's split_command splits at whitespace and at
// ;!@#$%^&*()+=[]{}|<>,?). Error when a name holds anything but
// [A-Za-z0-9_.-] or the two files are in different directories.
struct ImageFiles {
  std::filesystem::path dir;
  std::string elf;
  std::string bin;
};

// The plumbing the probe backends share: the tool's check, the attempt's
// flash.log, the logged steps run in the image's directory, and reload (the
// core halted again, not flashed).
class ProbeFlasher : public Flasher {
 public:
  ToolCheck check_tool() override;
  Result<std::unique_ptr<TargetSession>> reload(const FlashContext& ctx) override;

 protected:
  ProbeFlasher(ProcessRunner& runner, const char* tool, std::chrono::seconds version_timeout)
      : runner_(runner), tool_(tool), version_timeout_(version_timeout) {}
  // What to install when the tool is not in PATH.
  virtual std::string missing() const = 0;
  // The step that halts the core at its reset vector (reload), and the
  // release; both run in `dir`.
  virtual std::vector<std::string> reset_halt_argv(const matrix::BoardInstance& b,
                                                   const std::filesystem::path& dir) const = 0;
  virtual std::vector<std::string> release_argv(const matrix::BoardInstance& b,
                                                const std::filesystem::path& dir) const = 0;
  // The attempt's flash.log (its directory made) and the image; the error
  // is `missing()` (also logged) when the tool is not in PATH.
  struct Start {
    std::filesystem::path log;
    ImageFiles image;
  };
  Result<Start> start(const FlashContext& ctx);
  // `argv` run in `s.image.dir`, logged; error "<tool> <what> failed (...)".
  Result<ProcessResult> step(const FlashContext& ctx, const Start& s, std::vector<std::string> argv,
                             const char* what, std::vector<std::string>& commands);
  std::unique_ptr<TargetSession> session(const FlashContext& ctx, const Start& s,
                                         std::vector<std::string> commands) const;

  ProcessRunner& runner_;
  const char* tool_;
  std::chrono::seconds version_timeout_;
};

// Shared by the backends' checks: `argv` run once (no log); a tool that
// cannot start comes back not started.
ProcessResult run_tool(ProcessRunner& runner, std::vector<std::string> argv,
                       std::chrono::seconds timeout);
// " (/usr/bin/tool)" when `tool` is in PATH, else "".
std::string where(const std::string& tool);
// The first line of `s`, trailing blanks cut.
std::string first_line(const std::string& s);

// OpenOCD's version from `openocd --version` ("Open On-Chip Debugger
// 0.12.0", "... 0.12.0+dev-00123-g..."); nullopt when there is none.
struct ToolVersion {
  int major = 0, minor = 0, patch = 0;
  std::string text;  // "0.12.0"
};
std::optional<ToolVersion> parse_openocd_version(const std::string& output);
// OpenOCD 0.12 or later (`adapter serial`, the ST-LINK driver rtosbench's
// release sequence was checked against).
bool openocd_version_ok(const ToolVersion& v);

// Shared by the probe backends: `argv` as one line, arguments holding a
// space in double quotes (what flash.log and result.json show).
std::string quoted_command(const std::vector<std::string>& argv);

// Shared by the probe backends: `p` made absolute when it names a file
// relative to rtosbench's working directory (a bench's own script or pack),
// as the tool runs in the image's directory; otherwise unchanged (a name
// the tool finds in its own search path).
std::string outside_path(const std::string& p);

// `s` as one word of OpenOCD's Tcl: every character but [A-Za-z0-9_.:-]
// escaped with a backslash, so no substitution or command separator survives
// (the bench loader already allows only those characters in a serial).
std::string tcl_word(const std::string& s);

// Lines of a tool's output that explain a failure ("Error: ...", "** ... **",
// "error: ..."), joined with "; ", at most `max` of them; falls back to the
// last lines.
std::string failure_lines(const ProcessResult& r, size_t max = 4);

}  // namespace rb::probe
