// OpenOCD backend (Debian openocd 0.12). Program + verify in one call, target
// left halted; release clears the reset flags, resets and halts the core,
// and writes DBGMCU_CR, DEMCR and DHCSR so the core runs
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

// program and reload connect to a core that may be running anything (the
// previous job's image): only they assert NRST while connecting, when the
// bench asks for connect_under_reset. The release connects to the core they
// left halted, and its `reset halt` is of the bench's kind alone (NRST for
// reset: hardware, SYSRESETREQ for reset: system), so the reset cause the
// firmware reads is the one the bench names.
enum class Step { kConnect, kRelease };

// openocd with the board's configuration, then `-c` for each command. No
// step opens a port: gdb_port, tcl_port and telnet_port "disabled" before
// init (OpenOCD 0.12 manual, "TCP/IP Ports"), so boards side by side do not
// fight over 3333/6666/4444.
std::vector<std::string> openocd_argv(const matrix::BoardInstance& b, Step step,
                                      std::initializer_list<std::string> commands) {
  std::vector<std::string> a{"openocd",
                             "-c",
                             "gdb_port disabled",
                             "-c",
                             "tcl_port disabled",
                             "-c",
                             "telnet_port disabled",
                             "-f",
                             outside_path(b.probe.interface)};
  if (!b.probe.serial.empty()) {
    a.push_back("-c");
    a.push_back("adapter serial " + tcl_word(b.probe.serial));
  }
  a.push_back("-f");
  a.push_back(outside_path(b.probe.target));
  const bool under_reset = step == Step::kConnect && b.probe.connect_under_reset;
  if (b.reset == matrix::ResetMethod::kHardware || under_reset) {
    a.push_back("-c");
    a.push_back(under_reset ? "reset_config srst_only srst_nogate connect_assert_srst"
                            : "reset_config srst_only srst_nogate");
  }
  for (const std::string& c : commands) {
    a.push_back("-c");
    a.push_back(c);
  }
  return a;
}

}  // namespace

std::vector<std::string> openocd_connect_argv(const matrix::BoardInstance& b,
                                              std::initializer_list<std::string> commands) {
  return openocd_argv(b, Step::kConnect, commands);
}

namespace {

constexpr const char* kMissing = "openocd not found in PATH; install the Debian package openocd";

class OpenocdSession final : public ProbeSession {
 public:
  using ProbeSession::ProbeSession;

 private:
  // In the image's directory, as every step. Halts the core, clears RCC_CSR's reset flags (RMVF,
  // RM0090 6.3.21: they stay set until RMVF or a power-on reset), resets and halts the core at its
  // reset vector (the one reset whose flags the firmware then reads), clears DBGMCU_CR and DEMCR,
  // then writes DHCSR without C_DEBUGEN and C_HALT: the core runs from reset with the debugger
  // detached, and openocd exits.
  Status reset_through_probe(const std::filesystem::path& log) override {
    auto r = run_logged(
        runner_,
        openocd_argv(ctx_.board, Step::kRelease,
                     {"init", "halt", "mww 0x40023874 0x01000000", "reset halt", "mww 0xE0042004 0",
                      "mww 0xE000EDFC 0", "mww 0xE000EDF0 0xA05F0000", "shutdown"}),
        log, ctx_.timeout, commands_, std::filesystem::absolute(ctx_.elf).parent_path());
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
    auto image = image_files(ctx);
    if (!image) return image.error();
    std::vector<std::string> commands;
    // In the image's directory, by its fixed name: `program` wraps its file
    // name in braces and `eval`s it (OpenOCD 0.12 src/flash/startup.tcl), so
    // a path's space, brace, `[` or `$` would be Tcl syntax.
    auto r =
        run_logged(runner_,
                   openocd_argv(ctx.board, Step::kConnect,
                                {"program " + image->elf + " verify", "reset halt", "shutdown"}),
                   *log, ctx.timeout, commands, image->dir);
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
    auto r = run_logged(
        runner_, openocd_argv(ctx.board, Step::kConnect, {"init", "reset halt", "shutdown"}), *log,
        ctx.timeout, commands, std::filesystem::absolute(ctx.elf).parent_path());
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
