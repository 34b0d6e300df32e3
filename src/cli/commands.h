#pragma once
// The subcommand table (after ninja's kTools): every subcommand is one file in
// src/cli/ that defines a `register_*` function adding itself to the CLI11 app
// and returning the callback that runs it. Only src/cli/ knows CLI11.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/utf8.h"
#include "util/yaml_doc.h"

namespace rb::cli {

// Exit codes shared by every subcommand (docs/cli.md lists them all).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;     // bad command line or matrix
inline constexpr int kExitSoftware = 70;  // internal error
inline constexpr int kExitInterrupted = 130;

// A subcommand that stops on an error throws it (fail()); main.cpp reports
// it once, `details` (e.g. file:line:column diagnostics) first, then
// "rtosbench <subcommand>: <message>", and exits with exit_code_for(kind).
struct CommandError : std::exception {
  Error error;
  std::vector<std::string> details;
  CommandError(Error e, std::vector<std::string> d) : error(std::move(e)), details(std::move(d)) {}
  const char* what() const noexcept override { return error.message.c_str(); }
};
[[noreturn]] inline void fail(Error error, std::vector<std::string> details = {}) {
  throw CommandError(std::move(error), std::move(details));
}
// The diagnostics (file:line:column) that made `error`, as its details.
[[noreturn]] void fail(Error error, const std::vector<Diagnostic>& diagnostics);

// What `r` holds, or fail() with its error, `prefix` before its message.
template <typename T>
T value_or_fail(Result<T> r, const std::string& prefix = "") {
  if (!r.ok()) fail(Error{prefix + r.error().message, r.error().kind});
  return std::move(r).value();
}

// `doc` to FILE (atomically), or to stdout for "-"; an output not written
// fails as kCannotWrite (73, docs/cli.md) whatever the cause.
void write_output(const std::string& file, const std::string& doc);

// fmt::print for text meant for a terminal: the formatted text passes
// terminal_safe, so what a matrix, a capture or a run directory says (ESC,
// C1 controls such as CSI, bidirectional overrides) is shown escaped and
// never drives the terminal. Line ends and tabs are kept. Not for JSON.
template <typename... T>
void print_safe(std::FILE* f, fmt::format_string<T...> format, T&&... args) {
  const std::string s = terminal_safe(fmt::format(format, std::forward<T>(args)...));
  std::fwrite(s.data(), 1, s.size(), f);
}

// A registered subcommand: `run` is called after parsing when the subcommand
// was chosen and returns the process exit code.
struct Command {
  const char* name;
  const char* summary;
  std::function<std::function<int()>(CLI::App&)> add;
};

std::span<const Command> commands();

// One register function per subcommand file.
std::function<int()> add_verify(CLI::App& app);
std::function<int()> add_run(CLI::App& app);
std::function<int()> add_doctor(CLI::App& app);
std::function<int()> add_smoke(CLI::App& app);
std::function<int()> add_diff(CLI::App& app);
std::function<int()> add_regress(CLI::App& app);
std::function<int()> add_history(CLI::App& app);
std::function<int()> add_report(CLI::App& app);
std::function<int()> add_footprint(CLI::App& app);
std::function<int()> add_kernels(CLI::App& app);
std::function<int()> add_bundle(CLI::App& app);
std::function<int()> add_check(CLI::App& app);
std::function<int()> add_edges(CLI::App& app);
std::function<int()> add_import(CLI::App& app);

}  // namespace rb::cli
