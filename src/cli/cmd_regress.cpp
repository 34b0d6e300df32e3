// `rtosbench regress --baseline RUN_OR_FILE RUN [--junit FILE] [--md FILE]`
// and `rtosbench regress --export-baseline FILE RUN`: the CLI face of
// rb::report::regress. Exit codes: docs/cli.md.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/run_input.h"
#include "report/regress.h"
#include "report/snapshot.h"
#include "report/tolerance.h"
#include "store/result.h"

namespace rb::cli {

namespace {

// `--export-baseline FILE`: RUN's figures as a baseline file.
int export_baseline(const report::RunSnapshot& run, const std::string& file) {
  if (!report::has_figures(run)) {
    fail(make_error(ErrorKind::kBadInput,
                    fmt::format("{}: no job ended OK with figures; a baseline of it would check "
                                "nothing (not written)",
                                run.source)));
  }
  write_output(file, store::dump_json(report::baseline_json(run, store::utc_timestamp())) + "\n");
  print_safe(stdout, "baseline of {} ({} jobs) written to {}\n", run.id, run.jobs.size(), file);
  return kExitOk;
}

// `--json`: every check, and the exit status.
nlohmann::json regress_json(const report::RegressReport& r, int status) {
  nlohmann::json cases = nlohmann::json::array();
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  for (const auto& c : r.cases) {
    cases.push_back({{"job_id", c.job_id},
                     {"name", c.name},
                     {"outcome", report::to_string(c.outcome)},
                     {"message", c.message},
                     {"unit", c.unit},
                     {"baseline", opt(c.baseline)},
                     {"current", opt(c.current)},
                     {"pct", opt(c.pct)}});
  }
  return {{"baseline", r.baseline_id},        {"run", r.run_id},
          {"tolerances", r.tolerance_origin}, {"cases", cases},
          {"new_jobs", r.new_jobs},           {"exit_code", status}};
}

struct Args {
  std::string baseline;
  std::string run;
  std::string junit, md, json;
  std::string tolerances;
  std::string export_baseline;
  bool allow_mixed = false;
};

void add_options(CLI::App& app, const std::shared_ptr<Args>& args) {
  app.add_option("RUN", args->run, "the run directory (or bundle) to check")->required();
  app.add_option("--baseline", args->baseline,
                 "the reference: a run directory, a bundle or a baseline file")
      ->type_name("RUN_OR_FILE");
  app.add_option("--junit", args->junit,
                 "write JUnit XML (one test case per job and statistic) to FILE ('-': stdout)")
      ->type_name("FILE");
  app.add_option("--md", args->md, "write a Markdown summary to FILE ('-': stdout)")
      ->type_name("FILE");
  app.add_option("--json", args->json, "write every check as JSON to FILE; '-' for stdout")
      ->type_name("FILE");
  app.add_option("--tolerances", args->tolerances,
                 "YAML file with a `tolerances:` mapping (default: RUN's matrix snapshot, else the "
                 "built-in ones)")
      ->type_name("FILE");
  app.add_option("--export-baseline", args->export_baseline,
                 "write RUN's figures as a baseline file to FILE and exit (no check)")
      ->type_name("FILE");
  app.add_flag("--allow-mixed", args->allow_mixed,
               "check jobs whose pinned conditions differ from the baseline's (refused otherwise)");
}

// The summary, then --junit, --md and --json; the exit code.
int write_reports(const Args& args, const report::RegressReport& r) {
  // An output sent to stdout keeps stdout to itself; the summary goes to stderr.
  const bool any_stdout = args.json == "-" || args.junit == "-" || args.md == "-";
  std::FILE* text_out = any_stdout ? stderr : stdout;
  std::string text = report::to_text(r);
  print_safe(text_out, "{}", text);
  std::fflush(text_out);
  int status = report::exit_code(r);
  if (!args.junit.empty()) write_output(args.junit, report::to_junit(r));
  if (!args.md.empty()) write_output(args.md, report::to_markdown(r));
  if (!args.json.empty()) write_output(args.json, store::dump_json(regress_json(r, status)) + "\n");
  return status;
}

}  // namespace

std::function<int()> add_regress(CLI::App& app) {
  auto args = std::make_shared<Args>();
  add_options(app, args);
  return [args]() -> int {
    if (args->export_baseline.empty() == args->baseline.empty()) {
      fail(make_error(ErrorKind::kUsage,
                      "give exactly one of --baseline RUN_OR_FILE and --export-baseline FILE"));
    }
    auto in_run = value_or_fail(open_run_input(args->run));
    auto run = value_or_fail(report::load_run_or_baseline(in_run.path));
    if (!args->export_baseline.empty()) return export_baseline(run, args->export_baseline);
    auto in_baseline = value_or_fail(open_run_input(args->baseline), "baseline: ");
    auto baseline = value_or_fail(report::load_run_or_baseline(in_baseline.path), "baseline: ");
    auto tol = tolerances_for(args->tolerances, run);
    run.source = in_run.shown;  // after the tolerances: they may come from an extracted bundle
    baseline.source = in_baseline.shown;
    report::RegressOptions options;
    options.allow_mixed = args->allow_mixed;
    report::RegressReport r = report::regress(baseline, run, tol, options);
    return write_reports(*args, r);
  };
}

}  // namespace rb::cli
