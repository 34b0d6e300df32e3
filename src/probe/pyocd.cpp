// pyOCD backend (a current `pyocd` CLI; Debian's python3-pyocd 0.13 has no
// `pyocd` command). `pyocd load` does not verify, so the image is compared
// with `pyocd cmd -c "compare ADDR FILE"`, whose verdict is only in its text.
// Release: OpenOCD's sequence through pyOCD's commander (docs/matrix.md,
// "What each flasher does"): halt, reset flags cleared, a reset of the
// bench's kind halted at the reset vector, DBGMCU_CR = 0, DEMCR = 0 (vector
// catch and TRCENA off), then DHCSR = DBGKEY without C_DEBUGEN, which lets
// the core run. pyOCD's commander does not touch DHCSR on exit (its
// session has resume_on_disconnect False, commands/commander.py, and
// CortexM.disconnect clears DHCSR and DEMCR only when resuming,
// coresight/cortex_m.py); the firmware only reads DHCSR and
// sets TRCENA after the start handshake, which the host begins after pyOCD
// has exited.
#include <fmt/core.h>
#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "probe/flasher.h"
#include "util/posix_file.h"

namespace rb::probe {

namespace {

constexpr const char* kInstallHint = "install a current pyOCD with `pipx install pyocd`";

std::string missing_message() {
  std::string m = "pyocd is not installed: no `pyocd` command in PATH";
  if (!find_in_path("pyocd-flashtool").empty()) {
    m += " (found pyocd-flashtool from Debian's python3-pyocd 0.13, which is too old: it has no "
         "`pyocd` command and "
         "no STM32F407 target)";
  }
  return m + "; " + kInstallHint;
}

// program and reload connect to a core that may be running anything (the
// previous job's image, or the one `pyocd load` resumed on exit): only they
// connect under reset when the bench asks for it. The release connects to
// the core they left halted.
enum class Step { kConnect, kRelease };

// The board's target, probe and pack, and the project directory: the image's
// directory, where the child also runs (session.py chdirs to the project
// directory, PYOCD_PROJECT_DIR or the working directory, and reads
// pyocd.yaml and pyocd_user.py there).
std::vector<std::string> target_args(const matrix::BoardInstance& b, Step step,
                                     const std::filesystem::path& dir) {
  std::vector<std::string> a{"-t", b.probe.target};
  if (!b.probe.serial.empty()) {
    a.push_back("-u");
    a.push_back(b.probe.serial);
  }
  if (!b.probe.pack.empty()) {
    a.push_back("--pack");
    a.push_back(outside_path(b.probe.pack));
  }
  a.push_back("-j");
  a.push_back(dir.string());
  if (step == Step::kConnect && b.probe.connect_under_reset) {
    a.push_back("-M");
    a.push_back("under-reset");
  }
  return a;
}

// `pyocd cmd` on the board's target, then `-c` for each command.
std::vector<std::string> cmd_argv(const matrix::BoardInstance& b, Step step,
                                  const std::filesystem::path& dir,
                                  std::initializer_list<std::string> commands) {
  std::vector<std::string> argv{"pyocd", "cmd"};
  auto t = target_args(b, step, dir);
  argv.insert(argv.end(), t.begin(), t.end());
  for (const std::string& c : commands) {
    argv.push_back("-c");
    argv.push_back(c);
  }
  return argv;
}

class PyocdFlasher final : public ProbeFlasher {
 public:
  explicit PyocdFlasher(ProcessRunner& runner)
      : ProbeFlasher(runner, "pyocd", std::chrono::seconds(20)) {}
  const char* name() const override { return "pyocd"; }

  // pyOCD itself, then each target the bench's pyOCD boards name: pyOCD has
  // no built-in STM32F407 target, only the one its CMSIS pack brings.
  std::vector<Finding> check(const std::string&,
                             const std::vector<const matrix::BoardInstance*>& boards,
                             bool required) override {
    using L = Finding::Level;
    auto r = run_tool(runner_, {"pyocd", "--version"}, std::chrono::seconds(20));
    if (!r.started) {
      std::string detail = "not installed: no `pyocd` command in PATH";
      if (!find_in_path("pyocd-flashtool").empty()) {
        detail +=
            " (pyocd-flashtool from Debian's python3-pyocd 0.13 is too old: no `pyocd` command, "
            "no STM32F407 target)";
      }
      return {{required ? L::kError : L::kInfo, "pyocd",
               detail + (required ? " (the bench uses it)" : ""), kInstallHint}};
    }
    if (!r.ok()) {
      return {{required ? L::kError : L::kWarning, "pyocd",
               fmt::format("`pyocd --version` failed ({}): {}", r.describe(), r.tail(2)),
               kInstallHint}};
    }
    std::vector<Finding> f{{L::kOk, "pyocd", first_line(r.output) + where("pyocd"), ""}};
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto* b : boards) {
      if (b->probe.target.empty() || !seen.insert({b->probe.target, b->probe.pack}).second)
        continue;
      f.push_back(target_finding(*b));
    }
    return f;
  }

  std::optional<ToolRun> read_idcode(const matrix::BoardInstance& b) override {
    std::vector<std::string> argv{"pyocd", "cmd", "-t", b.probe.target};
    if (!b.probe.serial.empty()) argv.insert(argv.end(), {"-u", b.probe.serial});
    if (!b.probe.pack.empty()) argv.insert(argv.end(), {"--pack", outside_path(b.probe.pack)});
    argv.insert(argv.end(), {"-c", fmt::format("read32 0x{:08X}", b.target.dbgmcu_base)});
    return ToolRun{quoted_command(argv), run_tool(runner_, argv, std::chrono::seconds(30))};
  }

  Result<std::unique_ptr<TargetSession>> program(const FlashContext& ctx) override {
    // In the image's directory, by its fixed names: `compare`'s file name
    // goes through pyOCD's split_command (utility/cmdline.py), which splits
    // at whitespace and at ;!@#$%^&*()+=[]{}|<>,?
    auto s = start(ctx);
    if (!s) return s.error();
    std::vector<std::string> commands;
    std::vector<std::string> load{"pyocd", "load"};
    auto t = target_args(ctx.board, Step::kConnect, s->image.dir);
    load.insert(load.end(), t.begin(), t.end());
    load.push_back(s->image.elf);
    if (auto r = step(ctx, *s, load, "load", commands); !r) return r.error();
    // Verify, then hold the core so nothing runs before the capture is open.
    auto v = step(
        ctx, *s,
        cmd_argv(ctx.board, Step::kConnect, s->image.dir,
                 {fmt::format("compare 0x{:08X} {}", ctx.board.target.flash_base, s->image.bin),
                  "reset halt"}),
        "verify", commands);
    if (!v) return v.error();
    if (v->output.find("bytes match") == std::string::npos ||
        v->output.find("All ") == std::string::npos) {
      return Error{
          fmt::format("pyocd compare did not report 'All N bytes match.': {}", failure_lines(*v))};
    }
    return session(ctx, *s, std::move(commands));
  }

 private:
  std::string missing() const override { return missing_message(); }

  std::vector<std::string> reset_halt_argv(const matrix::BoardInstance& b,
                                           const std::filesystem::path& dir) const override {
    return cmd_argv(b, Step::kConnect, dir, {"reset halt"});
  }

  // The release of the top of this file (RMVF: RM0090 6.3.21).
  std::vector<std::string> release_argv(const matrix::BoardInstance& b,
                                        const std::filesystem::path& dir) const override {
    const char* kind =
        b.reset == matrix::ResetMethod::kHardware ? "reset halt hardware" : "reset halt system";
    const auto& t = b.target;
    return cmd_argv(b, Step::kRelease, dir,
                    {"halt",
                     fmt::format("write32 0x{:08X} 0x{:08X}", t.reset_flags_clear.address,
                                 t.reset_flags_clear.value),
                     kind, fmt::format("write32 0x{:08X} 0", t.dbgmcu_base + 4),
                     "write32 0xE000EDFC 0", "write32 0xE000EDF0 0xA05F0000"});
  }

  // Does pyOCD know the board's target (from its pack)?
  Finding target_finding(const matrix::BoardInstance& b) {
    using L = Finding::Level;
    const std::string topic = "pyocd target " + b.probe.target;
    // pyOCD's list_cmd.py: a table with no borders, the target name first.
    std::vector<std::string> argv{"pyocd", "list", "--targets", "-H", "-n", b.probe.target};
    if (!b.probe.pack.empty()) {
      argv.push_back("--pack");
      argv.push_back(b.probe.pack);
    }
    auto l = run_tool(runner_, argv, std::chrono::seconds(60));
    if (!l.ok()) {
      return {L::kError, topic,
              fmt::format("`{}` failed ({}): {}", quoted_command(argv), l.describe(), l.tail(2)),
              kInstallHint};
    }
    auto lower = [](std::string s) {
      for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    std::string source;
    std::istringstream lines(l.output);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string name, word, last;
      words >> name;
      while (words >> word) last = word;
      if (lower(name) == lower(b.probe.target)) source = last;
    }
    if (source.empty()) {
      return {L::kError, topic,
              fmt::format("pyOCD knows no target '{}': its CMSIS pack is not installed (every job "
                          "would end FLASH_ERROR)",
                          b.probe.target),
              b.probe.pack.empty() ? fmt::format("pyocd pack install {}", b.probe.target)
                                   : fmt::format("check probe.pack ({}): it does not define {}",
                                                 b.probe.pack, b.probe.target)};
    }
    return {L::kOk, topic, "known to pyOCD (source: " + source + ")", ""};
  }
};

}  // namespace

std::unique_ptr<Flasher> make_pyocd_flasher(ProcessRunner& runner) {
  return std::make_unique<PyocdFlasher>(runner);
}

}  // namespace rb::probe
