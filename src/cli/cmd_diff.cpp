// `rtosbench diff RUN_A RUN_B`: the CLI face of rb::report::diff_runs.
// Exit codes: docs/cli.md.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/run_input.h"
#include "report/diff.h"
#include "report/snapshot.h"
#include "report/tolerance.h"
#include "store/result.h"

namespace rb::cli {

std::function<int()> add_diff(CLI::App& app) {
  struct Args {
    std::string a, b;
    std::string tolerances;
    std::string json;
    bool allow_mixed = false;
    bool all = false;
  };
  auto args = std::make_shared<Args>();
  app.add_option("RUN_A", args->a, "the reference: a run directory, a bundle or a baseline file")
      ->required();
  app.add_option("RUN_B", args->b,
                 "the run compared with it: a run directory, a bundle or a baseline file")
      ->required();
  app.add_option("--tolerances", args->tolerances,
                 "YAML file with a `tolerances:` mapping (default: RUN_B's matrix snapshot, else "
                 "the built-in ones)")
      ->type_name("FILE");
  app.add_flag("--allow-mixed", args->allow_mixed,
               "compare jobs whose pinned conditions differ (they are refused otherwise)");
  app.add_flag("--all", args->all, "show every statistic, not only those that changed");
  app.add_option("--json", args->json, "write the comparison as JSON to FILE; '-' for stdout")
      ->type_name("FILE");

  return [args]() -> int {
    auto in_a = value_or_fail(open_run_input(args->a));
    auto in_b = value_or_fail(open_run_input(args->b));
    auto a = value_or_fail(report::load_run_or_baseline(in_a.path));
    auto b = value_or_fail(report::load_run_or_baseline(in_b.path));
    auto tol = tolerances_for(args->tolerances, b);
    a.source = in_a.shown;  // after the tolerances: they may come from an extracted bundle
    b.source = in_b.shown;
    report::DiffOptions options;
    options.allow_mixed = args->allow_mixed;
    report::DiffReport r = report::diff_runs(a, b, tol, options);

    const bool json_stdout = args->json == "-";
    std::FILE* text_out = json_stdout ? stderr : stdout;
    std::string text = report::to_text(r, args->all);
    print_safe(text_out, "{}", text);
    std::fflush(text_out);
    if (!args->json.empty()) write_output(args->json, store::dump_json(report::to_json(r)) + "\n");
    return report::exit_code(r);
  };
}

}  // namespace rb::cli
