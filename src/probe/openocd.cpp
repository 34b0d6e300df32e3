// OpenOCD backend (Debian openocd 0.12). Program + verify in one call, target
// left halted; release clears the reset flags, resets and halts the core,
// and writes DBGMCU_CR, DEMCR and DHCSR so the core runs
// with C_DEBUGEN cleared (OpenOCD never clears it on shutdown), or power-
// cycles the board for a cold start. Sequences: docs/run.md, probes notes.
#include <fmt/core.h>
#include <fmt/format.h>

#include <fstream>
#include <regex>

#include "probe/flasher.h"
#include "util/posix_file.h"

namespace rb::probe {

std::optional<ToolVersion> parse_openocd_version(const std::string& output) {
  static const std::regex re(R"(Open On-Chip Debugger\s+v?(\d+)\.(\d+)\.(\d+))");
  std::smatch m;
  if (!std::regex_search(output, m, re)) return std::nullopt;
  ToolVersion v;
  v.major = std::stoi(m[1]);
  v.minor = std::stoi(m[2]);
  v.patch = std::stoi(m[3]);
  v.text = fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
  return v;
}

bool openocd_version_ok(const ToolVersion& v) {
  return v.major > 0 || v.minor >= 12;
}

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

constexpr const char* kInstall =
    "install OpenOCD 0.12 or later: the Debian package openocd (Debian 12 ships 0.12.0)";

// OpenOCD's -f scripts of a board: found as OpenOCD finds them (the path as
// given, relative to the working directory, then its search directories:
// $OPENOCD_SCRIPTS and <prefix>/share/openocd/scripts next to the binary;
// 0.12 src/helper/configuration.c find_file, src/helper/options.c).
Finding scripts_finding(const matrix::BoardInstance& b) {
  const std::string topic = "openocd scripts of " + b.id;
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("OPENOCD_SCRIPTS"); env && *env) dirs.emplace_back(env);
  const auto exe = find_in_path("openocd");
  if (!exe.empty()) {
    std::error_code ec;
    auto real = std::filesystem::canonical(exe, ec);
    dirs.push_back((ec ? exe : real).parent_path().parent_path() / "share" / "openocd" / "scripts");
  }
  std::string found, missing;
  for (const std::string& script : {b.probe.interface, b.probe.target}) {
    std::error_code ec;
    std::filesystem::path at;
    if (std::filesystem::exists(script, ec)) {
      at = std::filesystem::absolute(script);
    } else {
      for (const auto& d : dirs) {
        if (std::filesystem::exists(d / script, ec)) {
          at = d / script;
          break;
        }
      }
    }
    if (at.empty()) {
      missing += (missing.empty() ? "" : ", ") + script;
    } else {
      found += fmt::format("{}{} ({})", found.empty() ? "" : ", ", script, at.string());
    }
  }
  if (!missing.empty()) {
    std::string searched;
    for (const auto& d : dirs) searched += (searched.empty() ? "" : ", ") + d.string();
    return Finding{
        Finding::Level::kError, topic,
        fmt::format("{} not found here or in OpenOCD's script directories ({})", missing,
                    searched.empty() ? "openocd not installed" : searched),
        "correct probe.interface / probe.target (ls " +
            (dirs.empty() ? std::string("/usr/share/openocd/scripts") : dirs.back().string()) +
            "/interface /target)"};
  }
  return Finding{Finding::Level::kOk, topic, found, ""};
}

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

constexpr const char* kMissing = "openocd not found in PATH; install the Debian package openocd";

class OpenocdFlasher final : public ProbeFlasher {
 public:
  explicit OpenocdFlasher(ProcessRunner& runner)
      : ProbeFlasher(runner, "openocd", std::chrono::seconds(10)) {}
  const char* name() const override { return "openocd"; }

  // OpenOCD 0.12 or later.
  std::vector<Finding> check(const std::string&, const std::vector<const matrix::BoardInstance*>&,
                             bool required) override {
    const auto bad = required ? Finding::Level::kError : Finding::Level::kInfo;
    const std::string used = required ? " (the bench uses it)" : "";
    auto r = run_tool(runner_, {"openocd", "--version"}, std::chrono::seconds(10));
    if (!r.started) {
      return {{bad, "openocd", "not installed: no `openocd` command in PATH" + used, kInstall}};
    }
    auto v = parse_openocd_version(r.output);
    if (!v) {
      return {
          {bad, "openocd",
           fmt::format("`openocd --version` printed no version ({}){}", first_line(r.output), used),
           kInstall}};
    }
    if (!openocd_version_ok(*v)) {
      return {{bad, "openocd",
               fmt::format("version {} is older than 0.12 (`adapter serial` and the release "
                           "sequence need 0.12){}",
                           v->text, used),
               kInstall}};
    }
    return {{Finding::Level::kOk, "openocd", first_line(r.output) + where("openocd"), ""}};
  }

  std::vector<Finding> check_board(const matrix::BoardInstance& b) override {
    return {scripts_finding(b)};
  }

  std::optional<ToolRun> read_idcode(const matrix::BoardInstance& b) override {
    auto argv = openocd_argv(
        b, Step::kConnect, {"init", fmt::format("mdw 0x{:08X}", b.target.dbgmcu_base), "shutdown"});
    return ToolRun{quoted_command(argv), run_tool(runner_, argv, std::chrono::seconds(30))};
  }

  // `adapter serial` compares exactly.
  bool serial_matched_exactly() const override { return true; }

  Result<std::unique_ptr<TargetSession>> program(const FlashContext& ctx) override {
    auto s = start(ctx);
    if (!s) return s.error();
    std::vector<std::string> commands;
    // In the image's directory, by its fixed name: `program` wraps its file
    // name in braces and `eval`s it (OpenOCD 0.12 src/flash/startup.tcl), so
    // a path's space, brace, `[` or `$` would be Tcl syntax.
    auto r = step(ctx, *s,
                  openocd_argv(ctx.board, Step::kConnect,
                               {"program " + s->image.elf + " verify", "reset halt", "shutdown"}),
                  "program", commands);
    if (!r) return r.error();
    if (r->output.find("** Verified OK **") == std::string::npos) {
      return Error{
          "openocd exited 0 but did not print '** Verified OK **': the image was not verified"};
    }
    return session(ctx, *s, std::move(commands));
  }

 private:
  std::string missing() const override { return kMissing; }

  std::vector<std::string> reset_halt_argv(const matrix::BoardInstance& b,
                                           const std::filesystem::path&) const override {
    return openocd_argv(b, Step::kConnect, {"init", "reset halt", "shutdown"});
  }

  // The reset flags cleared first (the board's RB_BOARD_RESET_FLAGS_CLEAR; on the F407 RCC_CSR's
  // RMVF, RM0090 6.3.21: the flags stay set until RMVF or a power-on reset), then the one reset
  // whose flags the firmware reads, halted at the reset vector.
  std::vector<std::string> release_argv(const matrix::BoardInstance& b,
                                        const std::filesystem::path&) const override {
    const auto& t = b.target;
    return openocd_argv(b, Step::kRelease,
                        {"init", "halt",
                         fmt::format("mww 0x{:08X} 0x{:08X}", t.reset_flags_clear.address,
                                     t.reset_flags_clear.value),
                         "reset halt", fmt::format("mww 0x{:08X} 0", t.dbgmcu_base + 4),
                         "mww 0xE000EDFC 0", "mww 0xE000EDF0 0xA05F0000", "shutdown"});
  }
};

}  // namespace

std::unique_ptr<Flasher> make_openocd_flasher(ProcessRunner& runner) {
  return std::make_unique<OpenocdFlasher>(runner);
}

}  // namespace rb::probe
