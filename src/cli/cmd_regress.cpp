// `rtosbench regress --baseline RUN_OR_FILE RUN [--junit FILE] [--md FILE]`
// and `rtosbench regress --export-baseline FILE RUN`: the CLI face of
// rb::report::regress. Exit codes (docs/reports.md): 0 no regression,
// 1 a regression or a missing/invalid job, 3 refused (pinned conditions
// differ), 4 the baseline has no figures, 64 usage, 65 a malformed run or
// baseline (or --export-baseline of a run without figures), 66 unreadable run
// or baseline, 73 an output not written.
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
#include "util/atomic_write.h"

namespace rb::cli {

namespace {
constexpr int kExitCantCreate = 73;  // sysexits.h EX_CANTCREAT

// `--export-baseline FILE`: RUN's figures as a baseline file.
int export_baseline(const report::RunSnapshot& run, const std::string& file) {
  if (!report::has_figures(run)) {
    print_safe(stderr,
               "rtosbench regress: {}: no job ended OK with figures; a baseline of it would "
               "check nothing (not written)\n",
               run.source);
    return exit_code_for(ErrorKind::kBadInput);
  }
  std::string doc = store::dump_json(report::baseline_json(run, store::utc_timestamp())) + "\n";
  if (auto s = write_file_atomic(file, doc); !s.ok()) {
    print_safe(stderr, "rtosbench regress: {}\n", s.error().message);
    return kExitCantCreate;
  }
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

// --tolerances FILE, else RUN's matrix snapshot, else the built-in ones.
Result<report::Tolerances> tolerances_for(const Args& args, const report::RunSnapshot& run) {
  const std::filesystem::path matrix = std::filesystem::path(run.source) / "matrix.yaml";
  if (!args.tolerances.empty()) return report::load_tolerances_file(args.tolerances);
  if (!run.is_baseline && std::filesystem::exists(matrix))
    return report::tolerances_from_matrix(matrix);
  return report::Tolerances::defaults();
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
  auto write = [&](const std::string& file, const std::string& doc) {
    if (file.empty()) return true;
    if (file == "-") {
      std::fwrite(doc.data(), 1, doc.size(), stdout);
      return true;
    }
    if (auto s = write_file_atomic(file, doc); !s.ok()) {
      print_safe(stderr, "rtosbench regress: {}\n", s.error().message);
      return false;
    }
    return true;
  };
  bool ok = write(args.junit, report::to_junit(r)) && write(args.md, report::to_markdown(r));
  if (ok && !args.json.empty())
    ok = write(args.json, store::dump_json(regress_json(r, status)) + "\n");
  if (!ok) return kExitCantCreate;
  return status;
}

}  // namespace

std::function<int()> add_regress(CLI::App& app) {
  auto args = std::make_shared<Args>();
  add_options(app, args);
  return [args]() -> int {
    if (args->export_baseline.empty() == args->baseline.empty()) {
      print_safe(stderr,
                 "rtosbench regress: give exactly one of --baseline RUN_OR_FILE and "
                 "--export-baseline FILE\n");
      return kExitUsage;
    }
    auto in_run = open_run_input(args->run);
    if (!in_run.ok()) {
      print_safe(stderr, "rtosbench regress: {}\n", in_run.error().message);
      return exit_code_for(in_run.error().kind);
    }
    auto run = report::load_run_or_baseline(in_run->path);
    if (!run.ok()) {
      print_safe(stderr, "rtosbench regress: {}\n", run.error().message);
      return exit_code_for(run.error().kind);
    }
    if (!args->export_baseline.empty()) return export_baseline(*run, args->export_baseline);
    auto in_baseline = open_run_input(args->baseline);
    if (!in_baseline.ok()) {
      print_safe(stderr, "rtosbench regress: baseline: {}\n", in_baseline.error().message);
      return exit_code_for(in_baseline.error().kind);
    }
    auto baseline = report::load_run_or_baseline(in_baseline->path);
    if (!baseline.ok()) {
      print_safe(stderr, "rtosbench regress: baseline: {}\n", baseline.error().message);
      return exit_code_for(baseline.error().kind);
    }
    Result<report::Tolerances> tol = tolerances_for(*args, *run);
    if (!tol.ok()) {
      print_safe(stderr, "rtosbench regress: tolerances: {}\n", tol.error().message);
      return kExitUsage;
    }
    run->source = in_run->shown;  // after the tolerances: they may come from an extracted bundle
    baseline->source = in_baseline->shown;
    report::RegressOptions options;
    options.allow_mixed = args->allow_mixed;
    report::RegressReport r = report::regress(*baseline, *run, *tol, options);

    return write_reports(*args, r);
  };
}

}  // namespace rb::cli
