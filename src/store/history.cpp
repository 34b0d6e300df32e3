#include "store/history.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "matrix/load.h"
#include "model/axes.h"
#include "store/history_backend.h"
#include "store/result.h"
#include "util/posix_file.h"
#include "util/sha256.h"
#include "util/url.h"

namespace rb::store {

using nlohmann::json;

std::string test_of_series(const std::string& name) {
  // A result older than the series' own `test`: the harness test table of
  // the firmware tree (a series it lists, else a CHECK named after its test:
  // mutex_pi is the mutex test's).
  std::vector<model::HarnessTest> tests;
  try {
    tests = matrix::default_catalog().tests;
  } catch (const std::exception&) {
  }
  for (const auto& t : tests) {
    for (const auto& s : t.series) {
      if (s.name == name) return t.name;
    }
  }
  for (const auto& t : tests) {
    if (name.rfind(t.name + "_", 0) == 0) return t.name;
  }
  return name;
}

const std::vector<std::string>& pinned_condition_keys() {
  // Every pinned variant axis (model::axes(): opt, tick, fpu, checks, ramfunc,
  // tickless), and what decides what a tick is: `counter` and `unit`, the
  // clock the core really ran at, the flash wait states, caches, prefetch
  // and interrupt priorities change every figure as much as the compiler
  // does (seed 000 section 6.2).
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys{"harness",  "compiler",  "core",        "kernel_version",
                                  "board",    "unit",      "counter",     "core_measured",
                                  "flash_ws", "icache",    "dcache",      "prefetch",
                                  "irq_prio", "tick_prio", "pendsv_prio", "port_variant"};
    for (const auto& a : model::axes())
      if (a.pinned) keys.emplace_back(a.config);
    return keys;
  }();
  return kKeys;
}

Result<std::string> default_history_location() {
  if (const char* p = std::getenv("RTOSBENCH_HISTORY"); p && *p) return std::string(p);
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) {
    return (std::filesystem::path(x) / "rtosbench" / "history.sqlite").string();
  }
  if (const char* h = std::getenv("HOME"); h && *h) {
    return (std::filesystem::path(h) / ".local" / "share" / "rtosbench" / "history.sqlite")
        .string();
  }
  return make_error(
      ErrorKind::kUsage,
      "no history database: give --db FILE|URL or set RTOSBENCH_HISTORY (neither XDG_DATA_HOME "
      "nor HOME is set)");
}

std::string redact_history_location(const std::string& location) {
  return redact_url(location);
}

using history::Connection;
using history::SqlValue;
namespace {

std::string condition(const JobResult& r, const char* key) {
  auto it = r.conditions.find(key);
  return it == r.conditions.end() ? "" : it->second;
}

std::optional<int64_t> integer_of(const std::string& text) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// ---- reading and checking a run ------------------------------------------------

// The run as the history imports it.
struct ImportedRun {
  RunSummary summary;
  std::string run_id;
  std::string path;                // absolute
  std::vector<JobResult> results;  // by job id
  std::string content_sha256;      // of the results as imported
};

// Reads the run and checks it whole: run.json, a valid result for every job
// it lists (none PENDING, none missing, none added), each result naming this
// run and job with the status run.json gives it, every figure consistent.
Result<ImportedRun> read_run(const std::filesystem::path& run_dir) {
  auto summary = read_run_summary(run_dir / "run.json");
  if (!summary.ok()) {
    return make_error(summary.error().kind, fmt::format("{} is not a run directory: {}",
                                                        run_dir.string(), summary.error().message));
  }
  ImportedRun run;
  run.summary = std::move(*summary);
  run.run_id = run.summary.run_id.empty() ? run_dir.filename().string() : run.summary.run_id;
  std::filesystem::path abs = std::filesystem::absolute(run_dir).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();  // "runs/x/" -> "runs/x"
  run.path = abs.string();
  auto refuse = [&](const std::string& why) {
    return make_error(ErrorKind::kBadInput,
                      fmt::format("{}: not recorded: {}", run_dir.string(), why));
  };
  if (run.summary.jobs.empty()) return refuse("run.json lists no job");
  std::set<std::string> listed;
  for (const auto& e : run.summary.jobs) {
    if (!listed.insert(e.id).second) return refuse(fmt::format("job {} is listed twice", e.id));
    if (e.status == "PENDING") {
      return refuse(
          fmt::format("job {} has no result (PENDING): finish the run with `rtosbench "
                      "run --resume` first",
                      e.id));
    }
    std::filesystem::path file = run_dir / "jobs" / e.id / "result.json";
    if (auto inside =
            regular_file_inside(run_dir, std::filesystem::path("jobs") / e.id / "result.json");
        !inside.ok() && inside.error().kind == ErrorKind::kBadInput) {
      return refuse(fmt::format("job {}: {}", e.id, inside.error().message));
    }
    auto r = read_job_result(file);
    if (!r.ok())
      return make_error(r.error().kind,
                        fmt::format("{}: not recorded: {}", run_dir.string(), r.error().message));
    if (r->run_id != run.run_id) {
      return refuse(fmt::format("{} belongs to run {}", file.string(), r->run_id));
    }
    if (r->job_id != e.id) return refuse(fmt::format("{} is job {}", file.string(), r->job_id));
    if (to_string(r->status) != e.status) {
      return refuse(fmt::format("{} says {}, run.json says {}", file.string(), to_string(r->status),
                                e.status));
    }
    if (auto st = check_figures(*r, file.string()); !st.ok()) return refuse(st.error().message);
    if (auto st = check_captures(*r, run_dir); !st.ok()) {
      if (st.error().kind != ErrorKind::kBadInput) return st.error();
      return refuse(st.error().message);
    }
    run.results.push_back(std::move(*r));
  }
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(run_dir / "jobs", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string id = it->path().filename().string();
    if (!listed.count(id) && std::filesystem::exists(it->path() / "result.json")) {
      return refuse(fmt::format("jobs/{}/result.json is not a job of run.json", id));
    }
  }
  std::sort(run.results.begin(), run.results.end(),
            [](const JobResult& a, const JobResult& b) { return a.job_id < b.job_id; });
  json content = json::array();
  for (const auto& r : run.results) content.push_back(to_json(r));
  run.content_sha256 = sha256_hex(dump_json(content, -1));
  return run;
}

// ---- writing ---------------------------------------------------------------------

// The rows of `run_id` in `table`, each an object of its `columns` as text.
Result<json> objects_of(Connection& db, const std::string& run_id, const char* table,
                        const std::vector<const char*>& columns, const char* order = "") {
  auto rows = db.query(
      fmt::format("SELECT {} FROM {} WHERE run_id = $1{}", fmt::join(columns, ", "), table, order),
      {run_id});
  if (!rows.ok()) return rows.error();
  json out = json::array();
  for (const auto& row : *rows) {
    json o = json::object();
    for (size_t i = 0; i < columns.size(); ++i)
      o[columns[i]] = row.is_null(i) ? json(nullptr) : json(row.text(i));
    out.push_back(std::move(o));
  }
  return out;
}

// Keeps what the database holds of `run_id` in superseded_runs (as one JSON
// document: the run row, its jobs, its figures), then deletes it.
Status supersede(Connection& db, const std::string& run_id) {
  auto run = objects_of(db, run_id, "runs",
                        {"run_id", "path", "matrix", "bench", "state", "started_at", "finished_at",
                         "rtosbench_version", "imported_at", "content_sha256"});
  if (!run.ok()) return run.error();
  if (run->empty()) return {};
  json content = {{"run", run->front()}};
  const json sha = content["run"]["content_sha256"];
  content["run"].erase("content_sha256");
  auto jobs =
      objects_of(db, run_id, "jobs",
                 {"job_id", "kernel", "status", "reason", "unit", "conditions", "finished_at"},
                 " ORDER BY job_id");
  if (!jobs.ok()) return jobs.error();
  content["jobs"] = std::move(*jobs);
  auto metrics = db.query(
      "SELECT job_id, load, phase, series, metric, value, hz FROM series_metrics"
      " WHERE run_id = $1 ORDER BY job_id, load, phase, series, metric",
      {run_id});
  if (!metrics.ok()) return metrics.error();
  content["metrics"] = json::array();
  for (const auto& m : *metrics) {
    content["metrics"].push_back(
        json::array({m.text(0), m.integer(1), m.text(2), m.text(3), m.text(4), m.real(5),
                     m.is_null(6) ? json(nullptr) : json(m.integer(6))}));
  }
  auto keep = db.query(
      "INSERT INTO superseded_runs(run_id, superseded_at, path, content_sha256, content)"
      " VALUES($1, $2, $3, $4, $5)",
      {run_id, utc_timestamp(), content["run"]["path"].get<std::string>(),
       sha.is_null() ? SqlValue{} : SqlValue{sha.get<std::string>()}, dump_json(content, -1)});
  if (!keep.ok()) return keep.error();
  auto del = db.query("DELETE FROM runs WHERE run_id = $1", {run_id});
  if (!del.ok()) return del.error();
  return {};
}

SqlValue integer_or_null(const std::optional<int64_t>& v) {
  return v ? SqlValue{*v} : SqlValue{};
}

// The jobs row of one result: the matrix's side of the job, its CONFIG
// where the job carries no matrix side (older results), its footprint.
Status insert_job(Connection& db, const std::string& run_id, const JobResult& r) {
  const bool has_spec = !r.job.id.empty();
  auto spec_or_condition = [&](const std::string& v, const char* key) {
    return has_spec && !v.empty() ? v : condition(r, key);
  };
  std::optional<int64_t> flash, ram;
  if (r.build && r.build->footprint) {
    flash = r.build->footprint->flash;
    ram = r.build->footprint->ram;
  }
  auto ins = db.query(
      "INSERT INTO jobs(run_id, job_id, kernel, kernel_version, board, opt, tick_hz, fpu_context,"
      " status, reason, unit, compiler, harness, flash_bytes, ram_bytes, conditions, finished_at)"
      " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
      {run_id, r.job_id, spec_or_condition(r.job.kernel, "kernel"),
       spec_or_condition(r.job.kernel_version, "kernel_version"),
       spec_or_condition(r.job.board, "board"), spec_or_condition(r.job.axis("opt"), "opt"),
       integer_or_null(integer_of(!r.job.axis("tick_hz").empty() ? r.job.axis("tick_hz")
                                                                 : condition(r, "tick"))),
       integer_or_null(integer_of(!r.job.axis("fpu_context").empty() ? r.job.axis("fpu_context")
                                                                     : condition(r, "fpu"))),
       to_string(r.status), r.reason, r.unit, condition(r, "compiler"), condition(r, "harness"),
       integer_or_null(flash), integer_or_null(ram), dump_json(json(r.conditions), -1),
       r.finished_at});
  if (!ins.ok()) return ins.error();
  return {};
}

// One series_metrics row per number of every series of the result: the
// job's figures as load 0, each repeated load's as 1..N.
Status insert_figures(Connection& db, const std::string& run_id, const JobResult& r, size_t& rows) {
  auto write_series = [&](const std::vector<SeriesRecord>& series, int64_t load) -> Status {
    for (const auto& x : series) {
      std::string test = r.verify.test_of(x.phase, x.name);
      if (test.empty()) test = x.test;  // an imported series names its own
      if (test.empty()) test = test_of_series(x.name);
      for (const auto& [key, v] : x.numbers()) {
        auto ins = db.query(
            "INSERT INTO series_metrics(run_id, job_id, load, phase, series, test, metric, value,"
            " hz) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)"
            " ON CONFLICT (run_id, job_id, load, phase, series, metric)"
            " DO UPDATE SET test = excluded.test, value = excluded.value, hz = excluded.hz",
            {run_id, r.job_id, load, x.phase, x.name, test, key, static_cast<double>(v),
             static_cast<int64_t>(x.hz)});
        if (!ins.ok()) return ins.error();
        ++rows;
      }
    }
    return {};
  };
  if (auto st = write_series(r.series, 0); !st.ok()) return st;
  if (r.loads) {
    for (const auto& l : *r.loads) {
      if (auto st = write_series(l.series, l.load); !st.ok()) return st;
    }
  }
  return {};
}

// The rows of one run: runs, then per result its jobs row and its figures.
Status insert_run(Connection& db, const ImportedRun& run, RecordSummary& out) {
  const RunSummary& s = run.summary;
  auto ins = db.query(
      "INSERT INTO runs(run_id, path, matrix, bench, state, started_at, finished_at,"
      " rtosbench_version, imported_at, content_sha256)"
      " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
      {run.run_id, run.path, s.matrix ? s.matrix->name : "", s.bench ? s.bench->name : "", s.state,
       s.started_at, s.finished_at, s.rtosbench_version, utc_timestamp(), run.content_sha256});
  if (!ins.ok()) return ins.error();
  for (const auto& r : run.results) {
    if (auto st = insert_job(db, run.run_id, r); !st.ok()) return st;
    ++out.jobs;
    if (auto st = insert_figures(db, run.run_id, r, out.metrics); !st.ok()) return st;
  }
  return {};
}

// Opens the history for reading, in a read transaction.
Result<std::unique_ptr<Connection>> open_for_reading(const std::string& location) {
  auto db = history::open_history(location, history::OpenMode::kRead);
  if (!db.ok()) return db.error();
  if (auto s = (*db)->begin_read(); !s.ok()) return s.error();
  return db;
}

}  // namespace

Result<RecordSummary> record_run(const std::string& location, const std::filesystem::path& run_dir,
                                 const RecordOptions& options) {
  // Read and check every result before touching the database.
  auto run = read_run(run_dir);
  if (!run.ok()) return run.error();
  RecordSummary out;
  out.run_id = run->run_id;

  auto opened = history::open_history(location, history::OpenMode::kRecord);
  if (!opened.ok()) return opened.error();
  Connection& db = **opened;
  // One transaction; a record of the same run by another process waits.
  if (auto s = db.begin_record(out.run_id); !s.ok()) return s.error();
  auto fail = [&](Error e) -> Result<RecordSummary> {
    db.rollback();
    return e;
  };

  auto q = db.query("SELECT content_sha256 FROM runs WHERE run_id = $1", {out.run_id});
  if (!q.ok()) return fail(q.error());
  if (!q->empty()) {
    out.previous_sha256 = q->front().text(0);
    if (out.previous_sha256 == run->content_sha256) {
      out.outcome = RecordOutcome::kUnchanged;
    } else if (!options.replace && !out.previous_sha256.empty()) {
      // A different copy of a recorded run: the recorded figures stay.
      out.outcome = RecordOutcome::kRefused;
      db.rollback();
      return out;
    } else {
      out.outcome = RecordOutcome::kReplaced;
    }
  }

  if (out.outcome == RecordOutcome::kReplaced) {
    if (auto st = supersede(db, out.run_id); !st.ok()) return fail(st.error());
  } else if (out.outcome == RecordOutcome::kUnchanged) {
    auto del = db.query("DELETE FROM runs WHERE run_id = $1", {out.run_id});
    if (!del.ok()) return fail(del.error());
  }
  if (auto st = insert_run(db, *run, out); !st.ok()) return fail(st.error());
  if (auto st = db.commit(); !st.ok()) return fail(st.error());
  return out;
}

Result<std::vector<TrendPoint>> query_trend(const std::string& location, const TrendQuery& q) {
  auto opened = open_for_reading(location);
  if (!opened.ok()) return opened.error();
  Connection& db = **opened;

  // A statistic name means its tick value; a stored key is taken as is.
  std::string metric = q.metric;
  auto recorded = [&](const std::string& m) -> Result<bool> {
    auto r = db.query(
        "SELECT count(*) FROM (SELECT 1 FROM series_metrics WHERE metric = $1 LIMIT 1) AS x", {m});
    if (!r.ok()) return r.error();
    return !r->empty() && r->front().integer(0) > 0;
  };
  auto as_is = recorded(metric);
  if (!as_is.ok()) return as_is.error();
  if (!*as_is) {
    auto ticks = recorded(metric + "_ticks");
    if (!ticks.ok()) return ticks.error();
    if (*ticks) {
      metric += "_ticks";
    } else {
      auto k = db.query("SELECT DISTINCT metric FROM series_metrics ORDER BY metric", {});
      if (!k.ok()) return k.error();
      std::string list;
      for (const auto& x : *k) list += (list.empty() ? "" : ", ") + x.text(0);
      return make_error(ErrorKind::kCannotRead,
                        fmt::format("no run in {} recorded metric '{}' (recorded: {})", db.name(),
                                    q.metric, list.empty() ? "none" : list));
    }
  }

  auto rows = db.query(
      "SELECT r.run_id, r.started_at, j.job_id, j.kernel, j.status, j.unit, m.phase, m.series,"
      " m.test, m.value, m.hz, j.conditions"
      " FROM series_metrics m JOIN jobs j ON j.run_id = m.run_id AND j.job_id = m.job_id"
      " JOIN runs r ON r.run_id = m.run_id"
      " WHERE m.load = 0 AND m.metric = $1 AND ($2 = '' OR j.kernel = $2)"
      " AND ($3 = '' OR m.test = $3) AND ($4 = '' OR j.job_id = $4)"
      " ORDER BY j.job_id, m.phase, m.series, r.started_at, r.run_id",
      {metric, q.kernel, q.test, q.job});
  if (!rows.ok()) return rows.error();
  std::vector<TrendPoint> out;
  json prev_conditions = json::object();
  for (const auto& row : *rows) {
    TrendPoint p;
    p.run_id = row.text(0);
    p.started_at = row.text(1);
    p.job_id = row.text(2);
    p.kernel = row.text(3);
    p.status = row.text(4);
    p.unit = row.text(5);
    p.phase = row.text(6);
    p.series = row.text(7);
    p.test = row.text(8);
    p.value = row.real(9);
    p.hz = static_cast<uint64_t>(row.integer(10));
    p.metric = metric;
    json conditions = json::parse(row.text(11), nullptr, false);
    if (!conditions.is_object()) conditions = json::object();
    if (!out.empty()) {
      const TrendPoint& prev = out.back();
      if (prev.job_id == p.job_id && prev.phase == p.phase && prev.series == p.series) {
        p.delta = p.value - prev.value;
        if (prev.value != 0) p.pct = *p.delta / prev.value * 100.0;
        for (const auto& k : pinned_condition_keys()) {
          if (prev_conditions.contains(k) && conditions.contains(k) &&
              prev_conditions[k] != conditions[k]) {
            p.changed.push_back(k);
          }
        }
      }
    }
    prev_conditions = std::move(conditions);
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<RecordedRun>> list_runs(const std::string& location) {
  auto opened = open_for_reading(location);
  if (!opened.ok()) return opened.error();
  auto rows = (*opened)->query(
      "SELECT r.run_id, r.started_at, r.matrix, r.state, r.path, r.imported_at,"
      " (SELECT count(*) FROM jobs j WHERE j.run_id = r.run_id) FROM runs r"
      " ORDER BY r.started_at, r.run_id",
      {});
  if (!rows.ok()) return rows.error();
  std::vector<RecordedRun> out;
  for (const auto& row : *rows) {
    RecordedRun r;
    r.run_id = row.text(0);
    r.started_at = row.text(1);
    r.matrix = row.text(2);
    r.state = row.text(3);
    r.path = row.text(4);
    r.imported_at = row.text(5);
    r.jobs = static_cast<size_t>(row.integer(6));
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<SupersededRun>> list_superseded(const std::string& location) {
  auto opened = open_for_reading(location);
  if (!opened.ok()) return opened.error();
  Connection& db = **opened;
  std::vector<SupersededRun> out;
  auto has = db.has_superseded();
  if (!has.ok()) return has.error();
  if (!*has) return out;  // schema 1: nothing was superseded
  auto rows = db.query(fmt::format("SELECT run_id, superseded_at, path, content_sha256, content"
                                   " FROM superseded_runs ORDER BY superseded_at, {}",
                                   db.dialect().insertion_order),
                       {});
  if (!rows.ok()) return rows.error();
  for (const auto& row : *rows) {
    SupersededRun r;
    r.run_id = row.text(0);
    r.superseded_at = row.text(1);
    r.path = row.text(2);
    r.content_sha256 = row.text(3);
    r.content = row.text(4);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rb::store
