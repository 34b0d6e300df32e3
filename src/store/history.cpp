#include "store/history.h"

#include <fmt/core.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "store/result.h"

namespace rb::store {

using nlohmann::json;

std::string test_of_series(const std::string& name) {
  if (name == "irq_entry" || name == "event_to_task") return "irq_latency";
  if (name == "mutex_lock_unlock" || name == "mutex_pi") return "mutex";
  if (name.rfind("ruler", 0) == 0) return "ruler";
  return name;
}

const std::vector<std::string>& pinned_condition_keys() {
  // `counter` decides what a tick is, like `unit`.
  static const std::vector<std::string> kKeys{"harness", "compiler",       "opt",   "core",
                                              "tick",    "kernel_version", "board", "unit",
                                              "fpu",     "counter"};
  return kKeys;
}

Result<std::filesystem::path> default_history_path() {
  if (const char* p = std::getenv("RTOSBENCH_HISTORY"); p && *p) return std::filesystem::path(p);
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) {
    return std::filesystem::path(x) / "rtosbench" / "history.sqlite";
  }
  if (const char* h = std::getenv("HOME"); h && *h) {
    return std::filesystem::path(h) / ".local" / "share" / "rtosbench" / "history.sqlite";
  }
  return Error{
      "no history database: give --db FILE or set RTOSBENCH_HISTORY (neither XDG_DATA_HOME nor "
      "HOME is set)"};
}

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  matrix TEXT,
  bench TEXT,
  state TEXT,
  started_at TEXT,
  finished_at TEXT,
  rtosbench_version TEXT,
  imported_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  job_id TEXT NOT NULL,
  kernel TEXT,
  kernel_version TEXT,
  board TEXT,
  opt TEXT,
  tick_hz INTEGER,
  fpu_context INTEGER,
  status TEXT NOT NULL,
  reason TEXT,
  unit TEXT,
  compiler TEXT,
  harness TEXT,
  flash_bytes INTEGER,
  ram_bytes INTEGER,
  conditions TEXT,
  finished_at TEXT,
  PRIMARY KEY (run_id, job_id)
);
CREATE TABLE IF NOT EXISTS series_metrics (
  run_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  load INTEGER NOT NULL,
  phase TEXT NOT NULL,
  series TEXT NOT NULL,
  test TEXT NOT NULL,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  hz INTEGER,
  PRIMARY KEY (run_id, job_id, load, phase, series, metric),
  FOREIGN KEY (run_id, job_id) REFERENCES jobs(run_id, job_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS series_metrics_by_metric ON series_metrics(metric, test);
)sql";

struct DbClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbPtr = std::unique_ptr<sqlite3, DbClose>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

class Database {
 public:
  static Result<Database> open(const std::filesystem::path& file, bool create) {
    sqlite3* raw = nullptr;
    int flags = create ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
    if (!create && !std::filesystem::exists(file)) {
      return Error{fmt::format(
          "no history database at {} (record a run with `rtosbench history --import RUN_DIR`)",
          file.string())};
    }
    int rc = sqlite3_open_v2(file.string().c_str(), &raw, flags, nullptr);
    DbPtr db(raw);
    if (rc != SQLITE_OK) {
      return Error{fmt::format("cannot open history database {}: {}", file.string(),
                               raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc))};
    }
    // Two runs finishing at once each record their run; wait for the other.
    sqlite3_busy_timeout(raw, 10000);
    Database d(std::move(db), file);
    if (auto s = d.exec("PRAGMA foreign_keys = ON"); !s.ok()) return s.error();
    return d;
  }

  Status exec(const char* sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_.get(), sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : sqlite3_errmsg(db_.get());
      sqlite3_free(msg);
      return Error{fmt::format("history database {}: {}", file_.string(), m)};
    }
    return {};
  }

  Result<StmtPtr> prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql, -1, &s, nullptr) != SQLITE_OK) {
      return Error{
          fmt::format("history database {}: {}", file_.string(), sqlite3_errmsg(db_.get()))};
    }
    return StmtPtr(s);
  }

  Error error() const {
    return Error{fmt::format("history database {}: {}", file_.string(), sqlite3_errmsg(db_.get()))};
  }

  Result<int> user_version() {
    auto s = prepare("PRAGMA user_version");
    if (!s.ok()) return s.error();
    if (sqlite3_step(s->get()) != SQLITE_ROW) return error();
    return sqlite3_column_int(s->get(), 0);
  }

  // Error unless the database holds (or can be given) schema version 1.
  Status check_schema(bool create) {
    auto v = user_version();
    if (!v.ok()) return v.error();
    if (*v > kHistorySchemaVersion) {
      return Error{
          fmt::format("history database {} has schema version {}, newer than this rtosbench ({})",
                      file_.string(), *v, kHistorySchemaVersion)};
    }
    if (*v == kHistorySchemaVersion) return {};
    if (!create) {
      return Error{fmt::format("{} is not an rtosbench history database (schema version {})",
                               file_.string(), *v)};
    }
    // A fresh file (version 0): refuse a database that already has tables of
    // something else.
    auto s = prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
    if (!s.ok()) return s.error();
    if (sqlite3_step(s->get()) != SQLITE_ROW) return error();
    if (sqlite3_column_int(s->get(), 0) != 0) {
      return Error{
          fmt::format("{} is an SQLite database but not an rtosbench history (it has other tables)",
                      file_.string())};
    }
    if (auto e = exec(kSchema); !e.ok()) return e;
    if (auto e = exec(
            fmt::format("INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '{}');"
                        "PRAGMA user_version = {}",
                        kHistorySchemaVersion, kHistorySchemaVersion)
                .c_str());
        !e.ok()) {
      return e;
    }
    return {};
  }

  sqlite3* get() { return db_.get(); }

 private:
  Database(DbPtr db, std::filesystem::path file) : db_(std::move(db)), file_(std::move(file)) {}
  DbPtr db_;
  std::filesystem::path file_;
};

// Binds by position; values are text, integers, reals or null.
class Row {
 public:
  Row(sqlite3_stmt* s) : s_(s) {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  Row& text(const std::string& v) {
    sqlite3_bind_text(s_, ++i_, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Row& integer(int64_t v) {
    sqlite3_bind_int64(s_, ++i_, v);
    return *this;
  }
  Row& real(double v) {
    sqlite3_bind_double(s_, ++i_, v);
    return *this;
  }
  Row& null() {
    sqlite3_bind_null(s_, ++i_);
    return *this;
  }
  Row& json_int(const json& v) {
    if (v.is_number_integer() || v.is_number_unsigned()) return integer(v.get<int64_t>());
    if (v.is_string()) {
      try {
        return integer(std::stoll(v.get<std::string>()));
      } catch (const std::exception&) {
      }
    }
    return null();
  }
  bool done() { return sqlite3_step(s_) == SQLITE_DONE; }

 private:
  sqlite3_stmt* s_;
  int i_ = 0;
};

std::string column_text(sqlite3_stmt* s, int c) {
  const unsigned char* t = sqlite3_column_text(s, c);
  return t ? reinterpret_cast<const char*>(t) : "";
}

Result<json> read_json_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return Error{fmt::format("cannot read {}", file.string())};
  try {
    return json::parse(in);
  } catch (const std::exception& e) {
    return Error{fmt::format("{}: not JSON: {}", file.string(), e.what())};
  }
}

std::string condition(const JobResult& r, const char* key) {
  auto it = r.conditions.find(key);
  return it == r.conditions.end() ? "" : it->second;
}

}  // namespace

Result<RecordSummary> record_run(const std::filesystem::path& db_file,
                                 const std::filesystem::path& run_dir) {
  auto summary = read_json_file(run_dir / "run.json");
  if (!summary.ok())
    return Error{
        fmt::format("{} is not a run directory: {}", run_dir.string(), summary.error().message)};
  if (!summary->is_object() || summary->value("schema", "") != kRunSummarySchema) {
    return Error{fmt::format("{}/run.json is not an rtosbench run summary", run_dir.string())};
  }
  RecordSummary out;
  out.run_id = summary->value("run_id", run_dir.filename().string());

  // Read every result before touching the database.
  std::vector<std::pair<JobResult, json>> results;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(run_dir / "jobs", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::filesystem::path file = it->path() / "result.json";
    if (!std::filesystem::exists(file)) continue;
    auto j = read_json_file(file);
    if (!j.ok()) return j.error();
    auto r = job_result_from_json(*j);
    if (!r.ok()) return Error{fmt::format("{}: {}", file.string(), r.error().message)};
    json loads = j->contains("loads") && (*j)["loads"].is_array() ? (*j)["loads"] : json::array();
    results.emplace_back(std::move(*r), std::move(loads));
  }
  std::sort(results.begin(), results.end(),
            [](const auto& a, const auto& b) { return a.first.job_id < b.first.job_id; });

  if (db_file.has_parent_path()) std::filesystem::create_directories(db_file.parent_path(), ec);
  auto db = Database::open(db_file, true);
  if (!db.ok()) return db.error();
  // BEGIN IMMEDIATE before looking at the schema so two first imports do
  // not both try to create it.
  if (auto s = db->exec("BEGIN IMMEDIATE"); !s.ok()) return s.error();
  auto fail = [&](Error e) -> Result<RecordSummary> {
    (void)db->exec("ROLLBACK");
    return e;
  };
  if (auto s = db->check_schema(true); !s.ok()) return fail(s.error());

  {
    auto q = db->prepare("SELECT count(*) FROM runs WHERE run_id = ?");
    if (!q.ok()) return fail(q.error());
    Row(q->get()).text(out.run_id);
    if (sqlite3_step(q->get()) == SQLITE_ROW) out.replaced = sqlite3_column_int(q->get(), 0) > 0;
  }
  auto del = db->prepare("DELETE FROM runs WHERE run_id = ?");
  if (!del.ok()) return fail(del.error());
  if (!Row(del->get()).text(out.run_id).done()) return fail(db->error());

  auto ins_run = db->prepare(
      "INSERT INTO runs(run_id, path, matrix, bench, state, started_at, finished_at, "
      "rtosbench_version, imported_at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto ins_job = db->prepare(
      "INSERT INTO jobs(run_id, job_id, kernel, kernel_version, board, opt, tick_hz, fpu_context, "
      "status, reason,"
      " unit, compiler, harness, flash_bytes, ram_bytes, conditions, finished_at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto ins_metric = db->prepare(
      "INSERT OR REPLACE INTO series_metrics(run_id, job_id, load, phase, series, test, metric, "
      "value, hz)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (auto* p : {&ins_run, &ins_job, &ins_metric}) {
    if (!p->ok()) return fail(p->error());
  }
  const json& s = *summary;
  std::filesystem::path abs = std::filesystem::absolute(run_dir).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();  // "runs/x/" -> "runs/x"
  std::string path = abs.string();
  if (!Row(ins_run->get())
           .text(out.run_id)
           .text(path)
           .text(s.contains("matrix") && s["matrix"].is_object() ? s["matrix"].value("name", "")
                                                                 : "")
           .text(s.contains("bench") && s["bench"].is_object() ? s["bench"].value("name", "") : "")
           .text(s.value("state", ""))
           .text(s.value("started_at", ""))
           .text(s.value("finished_at", ""))
           .text(s.value("rtosbench_version", ""))
           .text(utc_timestamp())
           .done()) {
    return fail(db->error());
  }

  for (const auto& [r, loads] : results) {
    const json& job = r.job;
    json footprint = r.build.is_object() ? r.build.value("footprint", json()) : json();
    Row row(ins_job->get());
    row.text(out.run_id)
        .text(r.job_id)
        .text(job.value("kernel", condition(r, "kernel")))
        .text(job.value("kernel_version", condition(r, "kernel_version")))
        .text(job.value("board", condition(r, "board")))
        .text(job.value("opt", condition(r, "opt")));
    row.json_int(job.value("tick_hz", json(condition(r, "tick"))));
    row.json_int(job.value("fpu_context", json(condition(r, "fpu"))));
    row.text(to_string(r.status))
        .text(r.reason)
        .text(r.unit)
        .text(condition(r, "compiler"))
        .text(condition(r, "harness"));
    row.json_int(footprint.is_object() ? footprint.value("flash", json()) : json());
    row.json_int(footprint.is_object() ? footprint.value("ram", json()) : json());
    row.text(json(r.conditions).dump()).text(r.finished_at);
    if (!row.done()) return fail(db->error());
    ++out.jobs;

    std::map<std::pair<std::string, std::string>, std::string> tests;
    if (r.verify.is_object()) {
      for (const auto& vs : r.verify.value("series", json::array())) {
        if (vs.is_object() && vs.contains("test")) {
          tests[{vs.value("phase", ""), vs.value("name", "")}] = vs.value("test", "");
        }
      }
    }
    auto write_series = [&](const json& series, int load) -> Status {
      for (const auto& x : series) {
        if (!x.is_object()) continue;
        std::string phase = x.value("phase", ""), name = x.value("name", "");
        auto t = tests.find({phase, name});
        std::string test =
            t != tests.end() && !t->second.empty() ? t->second : test_of_series(name);
        json hz = x.value("hz", json());
        for (const auto& [key, v] : x.items()) {
          if (!v.is_number() || key == "hz") continue;
          Row m(ins_metric->get());
          m.text(out.run_id)
              .text(r.job_id)
              .integer(load)
              .text(phase)
              .text(name)
              .text(test)
              .text(key)
              .real(v.get<double>());
          m.json_int(hz);
          if (!m.done()) return db->error();
          ++out.metrics;
        }
      }
      return {};
    };
    if (auto st = write_series(r.series, 0); !st.ok()) return fail(st.error());
    for (size_t l = 0; l < loads.size(); ++l) {
      if (!loads[l].is_object()) continue;
      if (auto st = write_series(loads[l].value("series", json::array()), static_cast<int>(l + 1));
          !st.ok()) {
        return fail(st.error());
      }
    }
  }
  if (auto st = db->exec("COMMIT"); !st.ok()) return fail(st.error());
  return out;
}

Result<std::vector<TrendPoint>> query_trend(const std::filesystem::path& db_file,
                                            const TrendQuery& q) {
  auto db = Database::open(db_file, false);
  if (!db.ok()) return db.error();
  if (auto s = db->check_schema(false); !s.ok()) return s.error();

  // A statistic name means its tick value; a stored key is taken as is.
  std::string metric = q.metric;
  {
    auto s = db->prepare("SELECT count(*) FROM series_metrics WHERE metric = ?");
    if (!s.ok()) return s.error();
    Row(s->get()).text(metric);
    bool found = sqlite3_step(s->get()) == SQLITE_ROW && sqlite3_column_int(s->get(), 0) > 0;
    if (!found) {
      Row(s->get()).text(metric + "_ticks");
      if (sqlite3_step(s->get()) == SQLITE_ROW && sqlite3_column_int(s->get(), 0) > 0) {
        metric += "_ticks";
      } else {
        std::vector<std::string> known;
        auto k = db->prepare("SELECT DISTINCT metric FROM series_metrics ORDER BY metric");
        if (!k.ok()) return k.error();
        while (sqlite3_step(k->get()) == SQLITE_ROW) known.push_back(column_text(k->get(), 0));
        std::string list;
        for (const auto& x : known) list += (list.empty() ? "" : ", ") + x;
        return Error{fmt::format("no run in {} recorded metric '{}' (recorded: {})",
                                 db_file.string(), q.metric, list.empty() ? "none" : list)};
      }
    }
  }

  auto s = db->prepare(
      "SELECT r.run_id, r.started_at, j.job_id, j.kernel, j.status, j.unit, m.phase, m.series, "
      "m.test, m.value, m.hz,"
      " j.conditions"
      " FROM series_metrics m JOIN jobs j ON j.run_id = m.run_id AND j.job_id = m.job_id"
      " JOIN runs r ON r.run_id = m.run_id"
      " WHERE m.load = 0 AND m.metric = ?1 AND (?2 = '' OR j.kernel = ?2) AND (?3 = '' OR m.test = "
      "?3)"
      " AND (?4 = '' OR j.job_id = ?4)"
      " ORDER BY j.job_id, m.phase, m.series, r.started_at, r.run_id");
  if (!s.ok()) return s.error();
  Row(s->get()).text(metric).text(q.kernel).text(q.test).text(q.job);
  std::vector<TrendPoint> out;
  json prev_conditions = json::object();
  int rc;
  while ((rc = sqlite3_step(s->get())) == SQLITE_ROW) {
    TrendPoint p;
    p.run_id = column_text(s->get(), 0);
    p.started_at = column_text(s->get(), 1);
    p.job_id = column_text(s->get(), 2);
    p.kernel = column_text(s->get(), 3);
    p.status = column_text(s->get(), 4);
    p.unit = column_text(s->get(), 5);
    p.phase = column_text(s->get(), 6);
    p.series = column_text(s->get(), 7);
    p.test = column_text(s->get(), 8);
    p.value = sqlite3_column_double(s->get(), 9);
    p.hz = static_cast<uint64_t>(sqlite3_column_int64(s->get(), 10));
    p.metric = metric;
    json conditions = json::parse(column_text(s->get(), 11), nullptr, false);
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
  if (rc != SQLITE_DONE) return db->error();
  return out;
}

Result<std::vector<RecordedRun>> list_runs(const std::filesystem::path& db_file) {
  auto db = Database::open(db_file, false);
  if (!db.ok()) return db.error();
  if (auto s = db->check_schema(false); !s.ok()) return s.error();
  auto s = db->prepare(
      "SELECT r.run_id, r.started_at, r.matrix, r.state, r.path, r.imported_at,"
      " (SELECT count(*) FROM jobs j WHERE j.run_id = r.run_id) FROM runs r ORDER BY r.started_at, "
      "r.run_id");
  if (!s.ok()) return s.error();
  std::vector<RecordedRun> out;
  int rc;
  while ((rc = sqlite3_step(s->get())) == SQLITE_ROW) {
    RecordedRun r;
    r.run_id = column_text(s->get(), 0);
    r.started_at = column_text(s->get(), 1);
    r.matrix = column_text(s->get(), 2);
    r.state = column_text(s->get(), 3);
    r.path = column_text(s->get(), 4);
    r.imported_at = column_text(s->get(), 5);
    r.jobs = static_cast<size_t>(sqlite3_column_int64(s->get(), 6));
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return db->error();
  return out;
}

}  // namespace rb::store
