// `rtosbench history`: record runs in the SQLite history and show a metric's
// trend over them (docs/reports.md, "History"). Exit codes: 0 done, 64 usage,
// 66 a run or the database cannot be read, 70 the database cannot be written.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "store/history.h"

namespace rb::cli {

std::function<int()> add_history(CLI::App& app) {
  struct Args {
    std::vector<std::string> import;
    std::string db;
    std::string kernel, test, job;
    std::string metric = "median";
    bool json = false;
    bool runs = false;
  };
  auto args = std::make_shared<Args>();
  app.add_option("--import", args->import,
                 "record RUN_DIR in the history (repeatable; re-importing replaces)")
      ->type_name("RUN_DIR");
  app.add_option("--db", args->db,
                 "history database (default: $RTOSBENCH_HISTORY, else "
                 "$XDG_DATA_HOME/rtosbench/history.sqlite, "
                 "else ~/.local/share/rtosbench/history.sqlite)")
      ->type_name("FILE");
  app.add_option("--kernel", args->kernel, "only this kernel");
  app.add_option("--test", args->test,
                 "only the series of this test (e.g. irq_latency, wake_latency)");
  app.add_option("--job", args->job, "only this job id");
  app.add_option("--metric", args->metric,
                 "statistic to follow: median, p99, max, ... or a result.json key")
      ->capture_default_str();
  app.add_flag("--json", args->json, "print the trend (or run list) as JSON");
  app.add_flag("--runs", args->runs, "list the recorded runs");

  return [args]() -> int {
    std::filesystem::path db;
    if (!args->db.empty()) {
      db = args->db;
    } else {
      auto d = store::default_history_path();
      if (!d.ok()) {
        fmt::print(stderr, "rtosbench history: {}\n", d.error().message);
        return kExitUsage;
      }
      db = *d;
    }
    if (!args->import.empty()) {
      int status = kExitOk;
      for (const auto& dir : args->import) {
        auto r = store::record_run(db, dir);
        if (!r.ok()) {
          fmt::print(stderr, "rtosbench history: {}\n", r.error().message);
          // Database failures name "history database" (src/store/history.cpp);
          // everything else is a run that cannot be read.
          bool unreadable = r.error().message.find("history database") == std::string::npos;
          status = std::max(status, unreadable ? kExitNoInput : kExitSoftware);
          continue;
        }
        fmt::print("{} {} ({} jobs, {} figures) in {}\n", r->replaced ? "re-recorded" : "recorded",
                   r->run_id, r->jobs, r->metrics, db.string());
      }
      return status;
    }
    if (args->runs) {
      auto runs = store::list_runs(db);
      if (!runs.ok()) {
        fmt::print(stderr, "rtosbench history: {}\n", runs.error().message);
        return kExitNoInput;
      }
      if (args->json) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& r : *runs) {
          a.push_back({{"run_id", r.run_id},
                       {"started_at", r.started_at},
                       {"matrix", r.matrix},
                       {"state", r.state},
                       {"jobs", r.jobs},
                       {"path", r.path},
                       {"imported_at", r.imported_at}});
        }
        fmt::print("{}\n", a.dump(2));
        return kExitOk;
      }
      fmt::print("{:<40}  {:<20}  {:<16}  {:>4}  {}\n", "run id", "started", "matrix", "jobs",
                 "path");
      for (const auto& r : *runs) {
        fmt::print("{:<40}  {:<20}  {:<16}  {:>4}  {}\n", r.run_id, r.started_at, r.matrix, r.jobs,
                   r.path);
      }
      return kExitOk;
    }

    store::TrendQuery q;
    q.kernel = args->kernel;
    q.test = args->test;
    q.job = args->job;
    q.metric = args->metric;
    auto points = store::query_trend(db, q);
    if (!points.ok()) {
      fmt::print(stderr, "rtosbench history: {}\n", points.error().message);
      return kExitNoInput;
    }
    if (args->json) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& p : *points) {
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
                     {"delta", p.delta ? nlohmann::json(*p.delta) : nlohmann::json(nullptr)},
                     {"pct", p.pct ? nlohmann::json(*p.pct) : nlohmann::json(nullptr)},
                     {"conditions_changed", p.changed}});
      }
      fmt::print("{}\n", a.dump(2));
      return kExitOk;
    }
    if (points->empty()) {
      fmt::print("no recorded figures match (kernel '{}', test '{}', job '{}')\n", q.kernel, q.test,
                 q.job);
      return kExitOk;
    }
    std::string group;
    for (const auto& p : *points) {
      std::string g = p.job_id + "\n" + p.phase + "\n" + p.series;
      if (g != group) {
        group = g;
        std::string unit = p.metric.size() > 6 && p.metric.substr(p.metric.size() - 6) == "_ticks"
                               ? (p.unit.empty() ? "ticks" : p.unit)
                           : p.metric.size() > 3 && p.metric.substr(p.metric.size() - 3) == "_ns"
                               ? "ns"
                               : "";
        fmt::print("\n{} {}{} ({} {}{})\n", p.job_id, p.phase.empty() ? "" : p.phase + "/",
                   p.series, p.metric, unit.empty() ? "" : "in ", unit);
        fmt::print("  {:<40}  {:<20}  {:>12}  {:>10}  {:>9}  {}\n", "run id", "started", "value",
                   "delta", "%", "conditions changed");
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
      fmt::print("{}\n", line);
    }
    return kExitOk;
  };
}

}  // namespace rb::cli
