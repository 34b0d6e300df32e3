// OpenOCD backend (Debian openocd 0.12). Program + verify in one call, target
// left halted; release writes DBGMCU_CR, DEMCR and DHCSR so the core runs
// with C_DEBUGEN cleared (OpenOCD never clears it on shutdown), or power-
// cycles the board for a cold start. Sequences: docs/run.md, probes notes.
#include <fmt/core.h>
#include <fmt/format.h>

#include <fstream>

#include "probe/flasher.h"
#include "util/posix_file.h"

namespace rb::probe {

std::string tcl_word(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.' && ch != ':' &&
        ch != '-') {
      out += '\\';
    }
    out += ch;
  }
  return out;
}

namespace {

std::vector<std::string> base_args(const matrix::BoardInstance& b, bool hardware_reset) {
  std::vector<std::string> a{"openocd", "-f", b.probe.interface};
  if (!b.probe.serial.empty()) {
    a.push_back("-c");
    a.push_back("adapter serial " + tcl_word(b.probe.serial));
  }
  a.push_back("-f");
  a.push_back(b.probe.target);
  if (hardware_reset || b.probe.connect_under_reset) {
    a.push_back("-c");
    a.push_back(b.probe.connect_under_reset
                    ? "reset_config srst_only srst_nogate connect_assert_srst"
                    : "reset_config srst_only srst_nogate");
  }
  return a;
}

constexpr const char* kMissing = "openocd not found in PATH; install the Debian package openocd";

// openocd with the board's configuration, then `-c` for each command.
std::vector<std::string> openocd_argv(const matrix::BoardInstance& b,
                                      std::initializer_list<std::string> commands) {
  std::vector<std::string> argv = base_args(b, b.reset == matrix::ResetMethod::kHardware);
  for (const std::string& c : commands) {
    argv.push_back("-c");
    argv.push_back(c);
  }
  return argv;
}

class OpenocdSession final : public ProbeSession {
 public:
  using ProbeSession::ProbeSession;

 private:
  // Resets and halts the core at its reset vector, clears DBGMCU_CR and
  // DEMCR, then writes DHCSR without C_DEBUGEN and C_HALT: the core runs
  // from reset with the debugger detached, and openocd exits.
  Status reset_through_probe(const std::filesystem::path& log) override {
    auto r = run_logged(
        runner_,
        openocd_argv(ctx_.board, {"init", "reset halt", "mww 0xE0042004 0", "mww 0xE000EDFC 0",
                                  "mww 0xE000EDF0 0xA05F0000", "shutdown"}),
        log, ctx_.timeout, commands_);
    if (!r.ok())
      return Error{fmt::format("openocd release failed ({}): {}", r.describe(), failure_lines(r))};
    return {};
  }
};

class OpenocdFlasher final : public Flasher {
 public:
  explicit OpenocdFlasher(ProcessRunner& runner) : runner_(runner) {}
  const char* name() const override { return "openocd"; }

  ToolCheck check_tool() override {
    return check_probe_tool(runner_, "openocd", kMissing, std::chrono::seconds(10));
  }

  Result<std::unique_ptr<TargetSession>> program(const FlashContext& ctx) override {
    auto log = flash_log(ctx, "openocd", kMissing);
    if (!log) return log.error();
    std::vector<std::string> commands;
    auto r = run_logged(runner_,
                        openocd_argv(ctx.board, {"program " + ctx.elf.string() + " verify",
                                                 "reset halt", "shutdown"}),
                        *log, ctx.timeout, commands);
    if (!r.ok()) {
      return Error{fmt::format("openocd program failed ({}): {}", r.describe(), failure_lines(r))};
    }
    if (r.output.find("** Verified OK **") == std::string::npos) {
      return Error{
          "openocd exited 0 but did not print '** Verified OK **': the image was not verified"};
    }
    return std::unique_ptr<TargetSession>(
        std::make_unique<OpenocdSession>(runner_, ctx, std::move(commands)));
  }

  // Flash once per job: the next load only halts the core again (so the
  // previous run cannot write into the new capture); release() resets it.
  Result<std::unique_ptr<TargetSession>> reload(const FlashContext& ctx) override {
    auto log = flash_log(ctx, "openocd", kMissing);
    if (!log) return log.error();
    (void)append_to_file(*log, "(programmed by an earlier load: not flashed again)\n");
    std::vector<std::string> commands;
    auto r = run_logged(runner_, openocd_argv(ctx.board, {"init", "reset halt", "shutdown"}), *log,
                        ctx.timeout, commands);
    if (!r.ok())
      return Error{
          fmt::format("openocd reset halt failed ({}): {}", r.describe(), failure_lines(r))};
    return std::unique_ptr<TargetSession>(
        std::make_unique<OpenocdSession>(runner_, ctx, std::move(commands)));
  }

 private:
  ProcessRunner& runner_;
};

}  // namespace

std::unique_ptr<Flasher> make_openocd_flasher(ProcessRunner& runner) {
  return std::make_unique<OpenocdFlasher>(runner);
}

}  // namespace rb::probe
