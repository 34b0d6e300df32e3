// pyOCD backend (a current `pyocd` CLI; Debian's python3-pyocd 0.13 has no
// `pyocd` command). `pyocd load` does not verify, so the image is compared
// with `pyocd cmd -c "compare ADDR FILE"`, whose verdict is only in its text.
// Release: `pyocd reset -m hardware|system`; pyOCD's resume-on-disconnect
// writes DHCSR=DBGKEY and DEMCR=0, leaving the debugger detached.
#include <fmt/core.h>
#include <fmt/format.h>

#include <fstream>

#include "probe/flasher.h"

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

std::vector<std::string> target_args(const matrix::BoardInstance& b) {
  std::vector<std::string> a{"-t", b.probe.target};
  if (!b.probe.serial.empty()) {
    a.push_back("-u");
    a.push_back(b.probe.serial);
  }
  if (!b.probe.pack.empty()) {
    a.push_back("--pack");
    a.push_back(b.probe.pack);
  }
  return a;
}

class PyocdSession final : public ProbeSession {
 public:
  using ProbeSession::ProbeSession;

 private:
  Status reset_through_probe(const std::filesystem::path& log) override {
    std::vector<std::string> argv{
        "pyocd", "reset", "-m",
        ctx_.board.reset == matrix::ResetMethod::kHardware ? "hardware" : "system"};
    auto t = target_args(ctx_.board);
    argv.insert(argv.end(), t.begin(), t.end());
    auto r = run_logged(runner_, argv, log, ctx_.timeout, commands_);
    if (!r.ok())
      return Error{fmt::format("pyocd reset failed ({}): {}", r.describe(), failure_lines(r))};
    return {};
  }
};

class PyocdFlasher final : public Flasher {
 public:
  explicit PyocdFlasher(ProcessRunner& runner) : runner_(runner) {}
  const char* name() const override { return "pyocd"; }

  ToolCheck check_tool() override {
    return check_probe_tool(runner_, "pyocd", missing_message(), std::chrono::seconds(20));
  }

  Result<std::unique_ptr<TargetSession>> program(const FlashContext& ctx) override {
    auto log_path = flash_log(ctx, "pyocd", missing_message());
    if (!log_path) return log_path.error();
    const std::filesystem::path& log = *log_path;
    std::vector<std::string> commands;
    std::vector<std::string> load{"pyocd", "load"};
    auto t = target_args(ctx.board);
    load.insert(load.end(), t.begin(), t.end());
    if (ctx.board.probe.connect_under_reset) {
      load.push_back("-M");
      load.push_back("under-reset");
    }
    load.push_back(ctx.elf.string());
    auto r = run_logged(runner_, load, log, ctx.timeout, commands);
    if (!r.ok())
      return Error{fmt::format("pyocd load failed ({}): {}", r.describe(), failure_lines(r))};
    // Verify, then hold the core so nothing runs before the capture is open.
    std::vector<std::string> cmd{"pyocd", "cmd"};
    cmd.insert(cmd.end(), t.begin(), t.end());
    for (const std::string& c :
         {"compare 0x08000000 " + ctx.bin.string(), std::string("reset halt")}) {
      cmd.push_back("-c");
      cmd.push_back(c);
    }
    auto v = run_logged(runner_, cmd, log, ctx.timeout, commands);
    if (!v.ok())
      return Error{fmt::format("pyocd verify failed ({}): {}", v.describe(), failure_lines(v))};
    if (v.output.find("bytes match") == std::string::npos ||
        v.output.find("All ") == std::string::npos) {
      return Error{
          fmt::format("pyocd compare did not report 'All N bytes match.': {}", failure_lines(v))};
    }
    return std::unique_ptr<TargetSession>(
        std::make_unique<PyocdSession>(runner_, ctx, std::move(commands)));
  }

  // Flash once per job: the next load only halts the core again; release()
  // resets it.
  Result<std::unique_ptr<TargetSession>> reload(const FlashContext& ctx) override {
    auto log_path = flash_log(ctx, "pyocd", missing_message());
    if (!log_path) return log_path.error();
    const std::filesystem::path& log = *log_path;
    std::ofstream(log, std::ios::app) << "(programmed by an earlier load: not flashed again)\n";
    std::vector<std::string> commands;
    std::vector<std::string> cmd{"pyocd", "cmd"};
    auto t = target_args(ctx.board);
    cmd.insert(cmd.end(), t.begin(), t.end());
    cmd.push_back("-c");
    cmd.push_back("reset halt");
    auto r = run_logged(runner_, cmd, log, ctx.timeout, commands);
    if (!r.ok())
      return Error{fmt::format("pyocd reset halt failed ({}): {}", r.describe(), failure_lines(r))};
    return std::unique_ptr<TargetSession>(
        std::make_unique<PyocdSession>(runner_, ctx, std::move(commands)));
  }

 private:
  ProcessRunner& runner_;
};

}  // namespace

std::unique_ptr<Flasher> make_pyocd_flasher(ProcessRunner& runner) {
  return std::make_unique<PyocdFlasher>(runner);
}

}  // namespace rb::probe
