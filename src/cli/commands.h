#pragma once
// The subcommand table (after ninja's kTools): every subcommand is one file in
// src/cli/ that defines a `register_*` function adding itself to the CLI11 app
// and returning the callback that runs it. Only src/cli/ knows CLI11.
#include <CLI/CLI.hpp>

#include <functional>
#include <span>

namespace rb::cli {

// Exit codes shared by every subcommand (docs/cli.md lists them all).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;      // bad command line or matrix
inline constexpr int kExitNoInput = 66;    // a named input cannot be read
inline constexpr int kExitSoftware = 70;   // internal error
inline constexpr int kExitInterrupted = 130;

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
std::function<int()> add_diff(CLI::App& app);
std::function<int()> add_regress(CLI::App& app);
std::function<int()> add_history(CLI::App& app);
std::function<int()> add_report(CLI::App& app);
std::function<int()> add_footprint(CLI::App& app);

}  // namespace rb::cli
