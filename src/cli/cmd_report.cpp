// `rtosbench report RUN... [--md FILE] [--html FILE] [--csv DIR]`: the CLI
// face of rb::report's renderers. Without an output option the Markdown goes
// to stdout. Exit codes: 0 written, 64 usage, 66 a run cannot be read,
// 73 an output cannot be written.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_input.h"
#include "report/render.h"

namespace rb::cli {

std::function<int()> add_report(CLI::App& app) {
  struct Args {
    std::vector<std::string> runs;
    std::string md, html, csv;
    bool no_raw = false;
  };
  auto args = std::make_shared<Args>();
  app.add_option("RUN", args->runs,
                 "run directories or bundles; the newest gives the tables, all give the trends")
      ->required();
  app.add_option("--md", args->md, "write the Markdown report to FILE ('-' for stdout)")
      ->type_name("FILE");
  app.add_option("--html", args->html, "write the self-contained HTML report to FILE")
      ->type_name("FILE");
  app.add_option("--csv", args->csv, "write summary.csv, samples.csv and footprint.csv into DIR")
      ->type_name("DIR");
  app.add_flag("--no-raw", args->no_raw,
               "do not re-read the captures (distributions drawn from the statistics)");

  return [args]() -> int {
    std::vector<report::Run> runs;
    std::vector<RunInput> inputs;  // keeps extracted bundles until the report is written
    for (const auto& dir : args->runs) {
      inputs.push_back(value_or_fail(open_run_input(dir)));
      runs.push_back(value_or_fail(report::load_run(inputs.back().path)));
    }
    report::ReportOptions options;
    options.read_raw = !args->no_raw;
    auto views = report::view_runs(runs, options);
    report::Document doc = report::build_report(views);

    std::string md = args->md;
    if (args->md.empty() && args->html.empty() && args->csv.empty()) md = "-";
    if (md == "-") {
      print_safe(stdout, "{}", report::to_markdown(doc));
    } else if (!md.empty()) {
      write_output(md, report::to_markdown(doc));
      print_safe(stderr, "markdown report: {}\n", md);
    }
    if (!args->html.empty()) {
      write_output(args->html, report::to_html(doc));
      print_safe(stderr, "html report: {}\n", args->html);
    }
    if (!args->csv.empty()) {
      if (auto s = report::write_csv(views, args->csv); !s.ok())
        fail(Error{s.error().message, ErrorKind::kCannotWrite});
      for (const auto& v : views) {
        for (const auto& j : v.jobs) {
          if (!j.raw && j.snap.status == "OK") {
            print_safe(stderr, "rtosbench report: samples.csv lacks {} of {}: {}\n", j.snap.id,
                       v.snap.id, j.raw_problem);
          }
        }
      }
      print_safe(stderr, "csv: {}/summary.csv, samples.csv, footprint.csv\n", args->csv);
    }
    return kExitOk;
  };
}

}  // namespace rb::cli
