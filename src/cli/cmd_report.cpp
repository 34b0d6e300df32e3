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
#include "util/atomic_write.h"

namespace rb::cli {

namespace {
constexpr int kExitCantCreate = 73;  // sysexits.h EX_CANTCREAT
}

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
      auto in = open_run_input(dir);
      if (!in.ok()) {
        print_safe(stderr, "rtosbench report: {}\n", in.error().message);
        return exit_code_for(in.error().kind);
      }
      inputs.push_back(std::move(*in));
      auto r = report::load_run(inputs.back().path);
      if (!r.ok()) {
        print_safe(stderr, "rtosbench report: {}\n", r.error().message);
        return exit_code_for(r.error().kind);
      }
      runs.push_back(std::move(*r));
    }
    report::ReportOptions options;
    options.read_raw = !args->no_raw;
    auto views = report::view_runs(runs, options);
    report::Document doc = report::build_report(views);

    std::string md = args->md.empty() ? std::string() : args->md;
    if (args->md.empty() && args->html.empty() && args->csv.empty()) md = "-";
    if (!md.empty()) {
      std::string text = report::to_markdown(doc);
      if (md == "-") {
        print_safe(stdout, "{}", text);
      } else if (auto s = write_file_atomic(md, text); !s.ok()) {
        print_safe(stderr, "rtosbench report: {}\n", s.error().message);
        return kExitCantCreate;
      } else {
        print_safe(stderr, "markdown report: {}\n", md);
      }
    }
    if (!args->html.empty()) {
      if (auto s = write_file_atomic(args->html, report::to_html(doc)); !s.ok()) {
        print_safe(stderr, "rtosbench report: {}\n", s.error().message);
        return kExitCantCreate;
      }
      print_safe(stderr, "html report: {}\n", args->html);
    }
    if (!args->csv.empty()) {
      if (auto s = report::write_csv(views, args->csv); !s.ok()) {
        print_safe(stderr, "rtosbench report: {}\n", s.error().message);
        return kExitCantCreate;
      }
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
