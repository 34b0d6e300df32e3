// The only entry point: parse the command line, run one subcommand, map an
// escaped exception to one top-level report and exit code.
#include <fmt/core.h>

#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/version.h"

int main(int argc, char** argv) {
  CLI::App app{"rtosbench: honest, repeatable RTOS benchmarks on one bench"};
  app.set_version_flag("--version", std::string("rtosbench ") + rb::kVersion);
  app.require_subcommand(1);
  std::vector<std::function<int()>> runners;
  std::vector<CLI::App*> subs;
  for (const auto& c : rb::cli::commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runners.push_back(c.add(*sub));
    subs.push_back(sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; any other parse error is a usage error.
    return app.exit(e) == 0 ? rb::cli::kExitOk : rb::cli::kExitUsage;
  }
  for (size_t i = 0; i < subs.size(); ++i) {
    if (!subs[i]->parsed()) continue;
    // The one place an error that stops a subcommand is reported.
    try {
      return runners[i]();
    } catch (const rb::cli::CommandError& e) {
      for (const auto& line : e.details) rb::cli::print_safe(stderr, "{}\n", line);
      rb::cli::print_safe(stderr, "rtosbench {}: {}\n", subs[i]->get_name(), e.error.message);
      return rb::exit_code_for(e.error.kind);
    } catch (const std::exception& e) {
      rb::cli::print_safe(stderr, "rtosbench {}: internal error: {}\n", subs[i]->get_name(),
                          e.what());
      return rb::cli::kExitSoftware;
    }
  }
  return rb::cli::kExitUsage;
}
