// `rtosbench history`: the history of finished runs, an SQLite file or a
// PostgreSQL database (docs/reports.md, "History"), one CLI11 subcommand per
// action:
//   history import RUN_DIR... [--replace]   record runs (checked whole first)
//   history trend [--kernel --test --job --metric --json]   a metric over the runs
//   history runs [--json]                   the recorded runs
//   history superseded [--json]             what `import --replace` replaced
// `--db FILE|URL` before or after the action. Exit codes: docs/cli.md.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "store/history.h"
#include "store/result.h"

namespace rb::store {
// `history runs --json`: one object per run, its members' names as keys.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecordedRun, run_id, started_at, matrix, state, jobs, path,
                                   imported_at)
}  // namespace rb::store

namespace rb::cli {

namespace {

constexpr int kExitImportRefused = 3;

int import_runs(const std::string& db, const std::vector<std::string>& dirs, bool replace) {
  int status = kExitOk;
  for (const auto& dir : dirs) {
    store::RecordOptions options;
    options.replace = replace;
    auto r = store::record_run(db, dir, options);
    if (!r.ok()) {  // reported, and the next run is recorded
      print_safe(stderr, "rtosbench history: {}\n", r.error().message);
      status = std::max(status, exit_code_for(r.error().kind));
      continue;
    }
    switch (r->outcome) {
      case store::RecordOutcome::kRefused:
        print_safe(stderr,
                   "rtosbench history: {} is recorded in {} with other content (sha256 {}): not "
                   "replaced; give --replace to replace it (the recorded content is kept in "
                   "`history superseded`)\n",
                   r->run_id, store::redact_history_location(db), r->previous_sha256.substr(0, 16));
        status = std::max(status, kExitImportRefused);
        continue;
      case store::RecordOutcome::kRecorded:
        print_safe(stdout, "recorded");
        break;
      case store::RecordOutcome::kUnchanged:
        print_safe(stdout, "re-recorded (unchanged)");
        break;
      case store::RecordOutcome::kReplaced:
        print_safe(stdout, "replaced (the previous content is in `history superseded`)");
        break;
    }
    print_safe(stdout, " {} ({} jobs, {} figures) in {}\n", r->run_id, r->jobs, r->metrics,
               store::redact_history_location(db));
  }
  return status;
}

int list_runs(const std::string& db, bool as_json) {
  auto runs = value_or_fail(store::list_runs(db));
  if (as_json) {
    fmt::print("{}\n", store::dump_json(nlohmann::json(runs)));
    return kExitOk;
  }
  print_safe(stdout, "{:<40}  {:<20}  {:<16}  {:>4}  {}\n", "run id", "started", "matrix", "jobs",
             "path");
  for (const auto& r : runs) {
    print_safe(stdout, "{:<40}  {:<20}  {:<16}  {:>4}  {}\n", r.run_id, r.started_at, r.matrix,
               r.jobs, r.path);
  }
  return kExitOk;
}

int list_superseded(const std::string& db, bool as_json) {
  auto runs = value_or_fail(store::list_superseded(db));
  if (as_json) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& r : runs) {
      a.push_back({{"run_id", r.run_id},
                   {"superseded_at", r.superseded_at},
                   {"path", r.path},
                   {"content_sha256", r.content_sha256},
                   {"content", nlohmann::json::parse(r.content, nullptr, false)}});
    }
    fmt::print("{}\n", store::dump_json(a));
    return kExitOk;
  }
  if (runs.empty()) {
    print_safe(stdout, "no recorded run was ever replaced in {}\n",
               store::redact_history_location(db));
    return kExitOk;
  }
  print_safe(stdout, "{:<40}  {:<20}  {:<16}  {}\n", "run id", "superseded", "sha256", "path");
  for (const auto& r : runs) {
    print_safe(stdout, "{:<40}  {:<20}  {:<16}  {}\n", r.run_id, r.superseded_at,
               r.content_sha256.substr(0, 16), r.path);
  }
  return kExitOk;
}

nlohmann::json trend_json(const std::vector<store::TrendPoint>& points) {
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : points) {
    a.push_back({{"run_id", p.run_id},
                 {"started_at", p.started_at},
                 {"job_id", p.job_id},
                 {"kernel", p.kernel},
                 {"status", p.status},
                 {"unit", p.unit},
                 {"phase", p.phase},
                 {"series", p.series},
                 {"test", p.test},
                 {"metric", p.metric},
                 {"value", p.value},
                 {"hz", p.hz},
                 {"delta", opt(p.delta)},
                 {"pct", opt(p.pct)},
                 {"conditions_changed", p.changed}});
  }
  return a;
}

// "in instructions" for a _ticks metric, "in ns" for a _ns one.
std::string unit_of(const store::TrendPoint& p) {
  auto ends_with = [&](const char* tail) {
    std::string t(tail);
    return p.metric.size() > t.size() &&
           p.metric.compare(p.metric.size() - t.size(), t.size(), t) == 0;
  };
  if (ends_with("_ticks")) return p.unit.empty() ? "ticks" : p.unit;
  if (ends_with("_ns")) return "ns";
  return "";
}

void print_trend(const std::vector<store::TrendPoint>& points) {
  std::string group;
  for (const auto& p : points) {
    std::string g = p.job_id + "\n" + p.phase + "\n" + p.series;
    if (g != group) {
      group = g;
      std::string unit = unit_of(p);
      print_safe(stdout, "\n{} {}{} ({} {}{})\n", p.job_id, p.phase.empty() ? "" : p.phase + "/",
                 p.series, p.metric, unit.empty() ? "" : "in ", unit);
      print_safe(stdout, "  {:<40}  {:<20}  {:>12}  {:>10}  {:>9}  {}\n", "run id", "started",
                 "value", "delta", "%", "conditions changed");
    }
    std::string value = p.value == static_cast<double>(static_cast<int64_t>(p.value))
                            ? fmt::format("{}", static_cast<int64_t>(p.value))
                            : fmt::format("{:.3f}", p.value);
    std::string changed;
    for (const auto& k : p.changed) changed += (changed.empty() ? "" : ", ") + k;
    std::string line =
        fmt::format("  {:<40}  {:<20}  {:>12}  {:>10}  {:>9}  {}", p.run_id, p.started_at, value,
                    p.delta ? fmt::format("{:+g}", *p.delta) : "-",
                    p.pct ? fmt::format("{:+.2f}%", *p.pct) : "-", changed);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    print_safe(stdout, "{}\n", line);
  }
}

int show_trend(const std::string& db, const store::TrendQuery& q, bool as_json) {
  auto points = value_or_fail(store::query_trend(db, q));
  if (as_json) {
    fmt::print("{}\n", store::dump_json(trend_json(points)));
    return kExitOk;
  }
  if (points.empty()) {
    print_safe(stdout, "no recorded figures match (kernel '{}', test '{}', job '{}')\n", q.kernel,
               q.test, q.job);
    return kExitOk;
  }
  print_trend(points);
  return kExitOk;
}

}  // namespace

std::function<int()> add_history(CLI::App& app) {
  struct Args {
    std::string db;
    std::vector<std::string> import;
    bool replace = false;
    store::TrendQuery query;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  app.add_option("--db", args->db,
                 "history: an SQLite file (or sqlite:FILE) or a postgresql://USER@HOST/DB URL "
                 "(default: $RTOSBENCH_HISTORY, else $XDG_DATA_HOME/rtosbench/history.sqlite, "
                 "else ~/.local/share/rtosbench/history.sqlite)")
      ->type_name("FILE|URL");
  app.require_subcommand(1);

  CLI::App* import =
      app.add_subcommand("import", "record runs in the history (each checked whole first)");
  import->add_option("RUN_DIR", args->import, "run directories to record")->required();
  import->add_flag("--replace", args->replace,
                   "replace a recorded run whose content differs (the old content is kept: "
                   "`history superseded`)");

  CLI::App* trend = app.add_subcommand("trend", "a metric over every recorded run");
  trend->add_option("--kernel", args->query.kernel, "only this kernel");
  trend->add_option("--test", args->query.test,
                    "only the series of this test (e.g. irq_latency, wake_latency)");
  trend->add_option("--job", args->query.job, "only this job id");
  trend
      ->add_option("--metric", args->query.metric,
                   "statistic to follow: median, p99, max, ... or a result.json key")
      ->capture_default_str();
  trend->add_flag("--json", args->json, "print the trend as JSON");

  CLI::App* runs = app.add_subcommand("runs", "list the recorded runs");
  runs->add_flag("--json", args->json, "print the list as JSON");

  CLI::App* superseded =
      app.add_subcommand("superseded", "list the recorded content `import --replace` replaced");
  superseded->add_flag("--json", args->json, "print the list, with the content, as JSON");

  // `--db` may follow the action too.
  for (CLI::App* sub : {import, trend, runs, superseded}) sub->fallthrough();

  return [args, import, trend, runs, superseded]() -> int {
    // --db, else the default location.
    const std::string db =
        args->db.empty() ? value_or_fail(store::default_history_location()) : args->db;
    if (import->parsed()) return import_runs(db, args->import, args->replace);
    if (trend->parsed()) return show_trend(db, args->query, args->json);
    if (runs->parsed()) return list_runs(db, args->json);
    if (superseded->parsed()) return list_superseded(db, args->json);
    return kExitUsage;
  };
}

}  // namespace rb::cli
