#include "probe/flasher.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "util/posix_file.h"

namespace rb::probe {

// Backend factories, one per file (qemu.cpp, openocd.cpp, pyocd.cpp).
std::unique_ptr<Flasher> make_qemu_flasher(ProcessRunner& runner);
std::unique_ptr<Flasher> make_openocd_flasher(ProcessRunner& runner);
std::unique_ptr<Flasher> make_pyocd_flasher(ProcessRunner& runner);

namespace {

// The flashers, by the name a bench and a board.cmake give them: one line per
// backend. The only list of them.
const std::vector<FlasherRegistration> kFlashers{
    {"qemu", "qemu-system-arm", make_qemu_flasher},
    {"openocd", "openocd", make_openocd_flasher},
    {"pyocd", "pyocd", make_pyocd_flasher},
};

}  // namespace

const std::vector<FlasherRegistration>& registered_flashers() {
  return kFlashers;
}

std::unique_ptr<Flasher> make_flasher(std::string_view name, ProcessRunner& runner) {
  for (const auto& r : kFlashers) {
    if (r.name == name) return r.make(runner);
  }
  return nullptr;
}

std::vector<const matrix::BoardInstance*> boards_using(const matrix::Bench& bench,
                                                       const std::string& name) {
  std::vector<const matrix::BoardInstance*> out;
  for (const auto& b : bench.boards) {
    if (b.flasher == name) out.push_back(&b);
  }
  return out;
}

Status check_flash_tools_for_run(const matrix::Bench& bench, ProcessRunner& processes) {
  for (const auto& reg : kFlashers) {
    const auto boards = boards_using(bench, reg.name);
    if (std::all_of(boards.begin(), boards.end(), [](auto* b) { return b->emulated; })) continue;
    for (const auto& x : reg.make(processes)->check(reg.tool, boards, true)) {
      if (x.level == Finding::Level::kError) {
        return make_error(ErrorKind::kUnavailable, fmt::format("refusing to start: {}: {}; fix: {}",
                                                               x.topic, x.detail, x.fix));
      }
    }
  }
  return {};
}

const char* to_string(Finding::Level l) {
  static const char* const kNames[] = {"ok", "info", "warning", "error"};
  return kNames[static_cast<int>(l)];
}

std::vector<Finding> Flasher::check(const std::string& tool,
                                    const std::vector<const matrix::BoardInstance*>&,
                                    bool required) {
  auto t = check_tool();
  if (t.present)
    return {Finding{Finding::Level::kOk, tool, fmt::format("{} ({})", t.version, t.path), ""}};
  const auto cut = t.problem.find("; ");
  return {Finding{required ? Finding::Level::kError : Finding::Level::kInfo, tool,
                  t.problem.substr(0, cut) + (required ? " (the bench uses it)" : ""),
                  t.problem.substr(cut == std::string::npos ? 0 : cut + 2)}};
}

ProcessResult run_tool(ProcessRunner& runner, std::vector<std::string> argv,
                       std::chrono::seconds timeout) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = timeout;
  return runner.run(spec);
}

std::string where(const std::string& tool) {
  auto p = find_in_path(tool);
  return p.empty() ? "" : " (" + p.string() + ")";
}

std::string first_line(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
  return l;
}

std::string quoted_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a.find(' ') != std::string::npos ? "\"" + a + "\"" : a;
  }
  return s;
}

std::string outside_path(const std::string& p) {
  std::error_code ec;
  if (p.empty() || std::filesystem::path(p).is_absolute() || !std::filesystem::exists(p, ec))
    return p;
  return std::filesystem::absolute(p).lexically_normal().string();
}

namespace {

// Runs `argv` in `cwd`, its output appended to `log` after a "$ <command>"
// line, and adds the command (prefixed "cd <cwd> && ") to `commands`.
ProcessResult run_logged(ProcessRunner& runner, std::vector<std::string> argv,
                         const std::filesystem::path& log, std::chrono::milliseconds timeout,
                         std::vector<std::string>& commands, const std::filesystem::path& cwd) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = cwd;
  spec.log = log;
  spec.timeout = timeout;
  commands.push_back("cd " + quoted_command({cwd.string()}) + " && " + quoted_command(spec.argv));
  (void)append_to_file(log, "$ " + commands.back() + "\n");  // the run reads it back, if at all
  return runner.run(spec);
}

// The board's power-cycle command, logged to `log`. Error carries its output.
Status power_cycle(ProcessRunner& runner, const matrix::BoardInstance& board,
                   const std::filesystem::path& log, std::chrono::milliseconds timeout) {
  if (board.power_cycle.empty()) {
    return Error{
        fmt::format("board '{}' has reset: power-cycle but no power_cycle command", board.id)};
  }
  // No shell: the bench file's command is a program and its arguments
  // (src/matrix/load.cpp checked both), split at its single spaces.
  ProcessSpec spec;
  for (size_t at = 0; at <= board.power_cycle.size();) {
    size_t sp = std::min(board.power_cycle.find(' ', at), board.power_cycle.size());
    spec.argv.push_back(board.power_cycle.substr(at, sp - at));
    at = sp + 1;
  }
  spec.log = log;
  spec.timeout = timeout;
  auto r = runner.run(spec);
  if (!r.ok()) {
    return Error{fmt::format("power-cycle command `{}` failed ({}): {}", board.power_cycle,
                             r.describe(), failure_lines(r))};
  }
  return {};
}

Result<ImageFiles> image_files(const FlashContext& ctx) {
  auto plain = [](const std::string& name) {
    return !name.empty() && name[0] != '-' && name[0] != '.' &&
           std::all_of(name.begin(), name.end(), [](char ch) {
             return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' ||
                    ch == '-';
           });
  };
  ImageFiles f{std::filesystem::absolute(ctx.elf).parent_path(), ctx.elf.filename().string(),
               ctx.bin.filename().string()};
  if (!plain(f.elf) || !plain(f.bin))
    return Error{
        fmt::format("image names '{}', '{}' must be [A-Za-z0-9_.-] (the tool's command "
                    "parser would split them)",
                    f.elf, f.bin)};
  if (std::filesystem::absolute(ctx.bin).parent_path() != f.dir)
    return Error{
        fmt::format("{} and {} must be in one directory", ctx.elf.string(), ctx.bin.string())};
  return f;
}

}  // namespace

Status ProbeSession::release() {
  const auto log = ctx_.dir / "flash.log";
  if (ctx_.board.reset == matrix::ResetMethod::kPowerCycle) {
    commands_.push_back(ctx_.board.power_cycle);
    return power_cycle(runner_, ctx_.board, log, ctx_.timeout);
  }
  auto r = run_logged(runner_, release_argv_, log, ctx_.timeout, commands_,
                      std::filesystem::absolute(ctx_.elf).parent_path());
  if (!r.ok())
    return Error{fmt::format("{} release failed ({}): {}", tool_, r.describe(), failure_lines(r))};
  return {};
}

ToolCheck ProbeFlasher::check_tool() {
  ToolCheck t;
  auto path = find_in_path(tool_);
  if (path.empty()) {
    t.problem = missing();
    return t;
  }
  t.present = true;
  t.path = path.string();
  auto r = run_tool(runner_, {tool_, "--version"}, version_timeout_);
  t.version = r.output.substr(0, r.output.find('\n'));
  return t;
}

Result<ProbeFlasher::Start> ProbeFlasher::start(const FlashContext& ctx) {
  std::error_code ec;
  std::filesystem::create_directories(ctx.dir, ec);
  Start s;
  s.log = ctx.dir / "flash.log";
  if (find_in_path(tool_).empty()) {
    (void)append_to_file(s.log, missing() + "\n");
    return Error{missing()};
  }
  auto image = image_files(ctx);
  if (!image) return image.error();
  s.image = *image;
  return s;
}

Result<ProcessResult> ProbeFlasher::step(const FlashContext& ctx, const Start& s,
                                         std::vector<std::string> argv, const char* what,
                                         std::vector<std::string>& commands) {
  auto r = run_logged(runner_, std::move(argv), s.log, ctx.timeout, commands, s.image.dir);
  if (!r.ok())
    return Error{fmt::format("{} {} failed ({}): {}", tool_, what, r.describe(), failure_lines(r))};
  return r;
}

std::unique_ptr<TargetSession> ProbeFlasher::session(const FlashContext& ctx, const Start& s,
                                                     std::vector<std::string> commands) const {
  return std::make_unique<ProbeSession>(runner_, ctx, std::move(commands), tool_,
                                        release_argv(ctx.board, s.image.dir));
}

// Flash once per job: the next load only halts the core again (so the
// previous run cannot write into the new capture); release() resets it.
Result<std::unique_ptr<TargetSession>> ProbeFlasher::reload(const FlashContext& ctx) {
  auto s = start(ctx);
  if (!s) return s.error();
  (void)append_to_file(s->log, "(programmed by an earlier load: not flashed again)\n");
  std::vector<std::string> commands;
  auto r = step(ctx, *s, reset_halt_argv(ctx.board, s->image.dir), "reset halt", commands);
  if (!r) return r.error();
  return session(ctx, *s, std::move(commands));
}

std::string failure_lines(const ProcessResult& r, size_t max) {
  std::istringstream in(r.output);
  std::string line, out;
  size_t n = 0;
  while (std::getline(in, line) && n < max) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    bool is_error = line.rfind("Error", 0) == 0 || line.rfind("error", 0) == 0 ||
                    line.rfind("** ", 0) == 0 || line.rfind("in procedure", 0) == 0 ||
                    line.find("ERROR") != std::string::npos ||
                    line.find("No such file") != std::string::npos;
    if (!is_error) continue;
    if (!out.empty()) out += "; ";
    out += line;
    ++n;
  }
  if (out.empty()) {
    std::string t = r.tail(2);
    for (auto& c : t) {
      if (c == '\n') c = ';';
    }
    out = t.empty() ? "(no output)" : t;
  }
  return out;
}

}  // namespace rb::probe
