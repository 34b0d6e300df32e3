// `rtosbench diff RUN_A RUN_B`: the CLI face of rb::report::diff_runs.
// Exit codes (docs/reports.md): 0 identical, 1 within tolerance, 2 beyond,
// 3 refused (pinned conditions differ), 4 no job in common (nothing
// compared), 64 usage, 65 a malformed run, 66 unreadable run.
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
#include "util/atomic_write.h"

namespace rb::cli {

namespace {
constexpr int kExitCantCreate = 73;  // sysexits.h EX_CANTCREAT
}

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
    auto in_a = open_run_input(args->a);
    if (!in_a.ok()) {
      print_safe(stderr, "rtosbench diff: {}\n", in_a.error().message);
      return exit_code_for(in_a.error().kind);
    }
    auto in_b = open_run_input(args->b);
    if (!in_b.ok()) {
      print_safe(stderr, "rtosbench diff: {}\n", in_b.error().message);
      return exit_code_for(in_b.error().kind);
    }
    auto a = report::load_run_or_baseline(in_a->path);
    if (!a.ok()) {
      print_safe(stderr, "rtosbench diff: {}\n", a.error().message);
      return exit_code_for(a.error().kind);
    }
    auto b = report::load_run_or_baseline(in_b->path);
    if (!b.ok()) {
      print_safe(stderr, "rtosbench diff: {}\n", b.error().message);
      return exit_code_for(b.error().kind);
    }
    Result<report::Tolerances> tol = report::Tolerances::defaults();
    if (!args->tolerances.empty()) {
      tol = report::load_tolerances_file(args->tolerances);
    } else if (!b->is_baseline &&
               std::filesystem::exists(std::filesystem::path(b->source) / "matrix.yaml")) {
      tol = report::tolerances_from_matrix(std::filesystem::path(b->source) / "matrix.yaml");
    }
    if (!tol.ok()) {
      print_safe(stderr, "rtosbench diff: tolerances: {}\n", tol.error().message);
      return kExitUsage;
    }
    a->source = in_a->shown;  // after the tolerances: they may come from an extracted bundle
    b->source = in_b->shown;
    report::DiffOptions options;
    options.allow_mixed = args->allow_mixed;
    report::DiffReport r = report::diff_runs(*a, *b, *tol, options);

    const bool json_stdout = args->json == "-";
    std::FILE* text_out = json_stdout ? stderr : stdout;
    std::string text = report::to_text(r, args->all);
    print_safe(text_out, "{}", text);
    std::fflush(text_out);
    if (!args->json.empty()) {
      std::string doc = store::dump_json(report::to_json(r)) + "\n";
      if (json_stdout) {
        std::fwrite(doc.data(), 1, doc.size(), stdout);
      } else if (auto s = write_file_atomic(args->json, doc); !s.ok()) {
        print_safe(stderr, "rtosbench diff: {}\n", s.error().message);
        return kExitCantCreate;
      }
    }
    return report::exit_code(r);
  };
}

}  // namespace rb::cli
