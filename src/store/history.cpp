#include "store/history.h"

#include <fmt/core.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "matrix/registry.h"
#include "store/result.h"
#include "util/sha256.h"

namespace rb::store {

using nlohmann::json;

std::string test_of_series(const std::string& name) {
  // The harness test table (firmware/harness/rb_tests.h): a series it lists,
  // else a CHECK named after its test (mutex_pi is the mutex test's).
  for (const auto& t : matrix::harness_tests()) {
    for (const auto& s : t.series) {
      if (s == name) return t.name;
    }
  }
  for (const auto& t : matrix::harness_tests()) {
    if (name.rfind(t.name + "_", 0) == 0) return t.name;
  }
  return name;
}

const std::vector<std::string>& pinned_condition_keys() {
  // `counter` decides what a tick is, like `unit`. The clock the core really
  // ran at, the flash wait states, caches, prefetch and interrupt priorities
  // change every figure as much as the compiler does (seed 000 section 6.2).
  static const std::vector<std::string> kKeys{
      "harness",  "compiler", "opt",       "core",          "tick",     "kernel_version", "board",
      "unit",     "fpu",      "counter",   "core_measured", "flash_ws", "icache",         "dcache",
      "prefetch", "irq_prio", "tick_prio", "pendsv_prio",   "ramfunc",  "port_variant"};
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
  return make_error(
      ErrorKind::kUsage,
      "no history database: give --db FILE or set RTOSBENCH_HISTORY (neither XDG_DATA_HOME nor "
      "HOME is set)");
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

// Version 2: each run's content digest, and the runs an import replaced.
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE runs ADD COLUMN content_sha256 TEXT;
CREATE TABLE IF NOT EXISTS superseded_runs (
  run_id TEXT NOT NULL,
  superseded_at TEXT NOT NULL,
  path TEXT,
  content_sha256 TEXT,
  content TEXT NOT NULL
);
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
      return make_error(
          ErrorKind::kCannotRead,
          fmt::format("no history database at {} (record a run with `rtosbench history import "
                      "RUN_DIR`)",
                      file.string()));
    }
    int rc = sqlite3_open_v2(file.string().c_str(), &raw, flags, nullptr);
    DbPtr db(raw);
    if (rc != SQLITE_OK) {
      return make_error(create ? ErrorKind::kCannotWrite : ErrorKind::kCannotRead,
                        fmt::format("cannot open history database {}: {}", file.string(),
                                    raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    // Two runs finishing at once each record their run; wait for the other.
    sqlite3_busy_timeout(raw, 10000);
    Database d(std::move(db), file);
    if (auto s = d.exec("PRAGMA foreign_keys = ON"); !s.ok()) return s.error();
    if (auto s = d.check_integrity(); !s.ok()) return s.error();
    return d;
  }

  Status exec(const char* sql) {
    char* msg = nullptr;
    int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, &msg);
    if (rc != SQLITE_OK) {
      std::string m = msg ? msg : sqlite3_errmsg(db_.get());
      sqlite3_free(msg);
      return fail(rc, m);
    }
    return {};
  }

  Result<StmtPtr> prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v2(db_.get(), sql, -1, &s, nullptr);
    if (rc != SQLITE_OK) return fail(rc, sqlite3_errmsg(db_.get()));
    return StmtPtr(s);
  }

  Error error() const {
    return fail(sqlite3_extended_errcode(db_.get()), sqlite3_errmsg(db_.get()));
  }

  // A damaged file is named as such, never mistaken for an empty history.
  Error fail(int rc, const std::string& message) const {
    int primary = rc & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
      return make_error(ErrorKind::kBadInput, fmt::format("history database {} is corrupted: {}",
                                                          file_.string(), message));
    }
    return make_error(ErrorKind::kInternal,
                      fmt::format("history database {}: {}", file_.string(), message));
  }

  // PRAGMA quick_check: a damaged page is an error before anything is read.
  Status check_integrity() {
    auto s = prepare("PRAGMA quick_check");
    if (!s.ok()) return s.error();
    int rc = sqlite3_step(s->get());
    if (rc != SQLITE_ROW) return fail(rc, sqlite3_errmsg(db_.get()));
    std::string verdict = reinterpret_cast<const char*>(sqlite3_column_text(s->get(), 0));
    if (verdict != "ok") {
      return make_error(ErrorKind::kBadInput, fmt::format("history database {} is corrupted: {}",
                                                          file_.string(), verdict));
    }
    return {};
  }

  Result<int> user_version() {
    auto s = prepare("PRAGMA user_version");
    if (!s.ok()) return s.error();
    if (sqlite3_step(s->get()) != SQLITE_ROW) return error();
    return sqlite3_column_int(s->get(), 0);
  }

  // Error unless the database holds an rtosbench history; `create` makes
  // one in an empty file and brings an older schema up to this version.
  Status check_schema(bool create) {
    auto v = user_version();
    if (!v.ok()) return v.error();
    if (*v > kHistorySchemaVersion) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("history database {} has schema version {}, newer than this rtosbench ({})",
                      file_.string(), *v, kHistorySchemaVersion));
    }
    if (*v == kHistorySchemaVersion || (*v >= 1 && !create)) return {};
    if (!create) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{} is not an rtosbench history database (schema version {})",
                                    file_.string(), *v));
    }
    if (*v == 0) {
      // A fresh file: refuse a database that already has tables of something else.
      auto s = prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
      if (!s.ok()) return s.error();
      if (sqlite3_step(s->get()) != SQLITE_ROW) return error();
      if (sqlite3_column_int(s->get(), 0) != 0) {
        return make_error(ErrorKind::kBadInput,
                          fmt::format("{} is an SQLite database but not an rtosbench history (it "
                                      "has other tables)",
                                      file_.string()));
      }
      if (auto e = exec(kSchema); !e.ok()) return e;
    }
    if (auto e = exec(kSchemaV2); !e.ok()) return e;
    return exec(
        fmt::format("INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '{}');"
                    "PRAGMA user_version = {}",
                    kHistorySchemaVersion, kHistorySchemaVersion)
            .c_str());
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
  Row& integer_or_null(const std::optional<int64_t>& v) { return v ? integer(*v) : null(); }
  bool done() { return sqlite3_step(s_) == SQLITE_DONE; }

 private:
  sqlite3_stmt* s_;
  int i_ = 0;
};

std::string column_text(sqlite3_stmt* s, int c) {
  const unsigned char* t = sqlite3_column_text(s, c);
  return t ? reinterpret_cast<const char*>(t) : "";
}

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

// The figures of one series hang together: percentiles in order, the ns
// values those of the ticks, a counter frequency whenever there are samples.
Status check_series(const SeriesRecord& s, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorKind::kBadInput, fmt::format("{} series {}: {}", where, s.key(), why));
  };
  if (s.n == 0) return {};
  if (s.hz == 0) return bad(fmt::format("n = {} but hz = 0", s.n));
  const std::pair<const char*, uint64_t> order[] = {
      {"min", s.min_ticks}, {"median", s.median_ticks}, {"p90", s.p90_ticks},
      {"p99", s.p99_ticks}, {"p999", s.p999_ticks},     {"max", s.max_ticks}};
  for (size_t i = 1; i < std::size(order); ++i) {
    if (order[i].second < order[i - 1].second) {
      return bad(fmt::format("{}_ticks {} < {}_ticks {}", order[i].first, order[i].second,
                             order[i - 1].first, order[i - 1].second));
    }
  }
  if (s.avg_ticks < s.min_ticks || s.avg_ticks > s.max_ticks) {
    return bad(fmt::format("avg_ticks {} outside min..max", s.avg_ticks));
  }
  const std::tuple<const char*, uint64_t, uint64_t> ns[] = {
      {"min", s.min_ticks, s.min_ns},    {"median", s.median_ticks, s.median_ns},
      {"p90", s.p90_ticks, s.p90_ns},    {"p99", s.p99_ticks, s.p99_ns},
      {"p999", s.p999_ticks, s.p999_ns}, {"max", s.max_ticks, s.max_ns}};
  for (const auto& [name, ticks, value] : ns) {
    if (ticks_to_ns(ticks, s.hz) != value) {
      return bad(
          fmt::format("{}_ns {} is not {}_ticks {} at {} Hz", name, value, name, ticks, s.hz));
    }
  }
  return {};
}

// A job's figures, its loads' and its headline (the medians of its series).
Status check_figures(const JobResult& r, const std::string& where) {
  for (const auto& s : r.series) {
    if (auto st = check_series(s, where); !st.ok()) return st;
  }
  for (const auto& h : r.headline) {
    bool found = false;
    for (const auto& s : r.series) {
      if (s.name == h.name && s.phase == h.phase) found = s.median_ticks == h.median_ticks;
    }
    if (!found) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{} headline {}: median_ticks {} is not its series' median",
                                    where, h.name, h.median_ticks));
    }
  }
  if (r.loads) {
    for (const auto& l : *r.loads) {
      for (const auto& s : l.series) {
        if (auto st = check_series(s, fmt::format("{} load {}", where, l.load)); !st.ok())
          return st;
      }
    }
  }
  return {};
}

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

// Keeps what the database holds of `run_id` in superseded_runs (as one JSON
// document: the run row, its jobs, its figures), then deletes it.
Status supersede(Database& db, const std::string& run_id) {
  auto keep = db.prepare(
      "INSERT INTO superseded_runs(run_id, superseded_at, path, content_sha256, content)"
      " SELECT r.run_id, ?2, r.path, r.content_sha256, json_object("
      "  'run', json_object('run_id', r.run_id, 'path', r.path, 'matrix', r.matrix, 'bench', "
      "r.bench,"
      "    'state', r.state, 'started_at', r.started_at, 'finished_at', r.finished_at,"
      "    'rtosbench_version', r.rtosbench_version, 'imported_at', r.imported_at),"
      "  'jobs', (SELECT json_group_array(json_object('job_id', job_id, 'kernel', kernel,"
      "    'status', status, 'reason', reason, 'unit', unit, 'conditions', conditions,"
      "    'finished_at', finished_at)) FROM jobs WHERE run_id = ?1),"
      "  'metrics', (SELECT json_group_array(json_array(job_id, load, phase, series, metric, "
      "value, hz))"
      "    FROM series_metrics WHERE run_id = ?1))"
      " FROM runs r WHERE r.run_id = ?1");
  if (!keep.ok()) return keep.error();
  if (!Row(keep->get()).text(run_id).text(utc_timestamp()).done()) return db.error();
  auto del = db.prepare("DELETE FROM runs WHERE run_id = ?");
  if (!del.ok()) return del.error();
  if (!Row(del->get()).text(run_id).done()) return db.error();
  return {};
}

// The jobs row of one result: the matrix's side of the job, its CONFIG
// where the job carries no matrix side (older results), its footprint.
Status insert_job(Database& db, sqlite3_stmt* ins, const std::string& run_id, const JobResult& r) {
  const bool has_spec = !r.job.id.empty();
  auto spec_or_condition = [&](const std::string& v, const char* key) {
    return has_spec && !v.empty() ? v : condition(r, key);
  };
  auto number_or_condition = [&](int64_t v, const char* key) {
    return has_spec ? std::optional<int64_t>(v) : integer_of(condition(r, key));
  };
  std::optional<int64_t> flash, ram;
  if (r.build && r.build->footprint) {
    flash = r.build->footprint->flash;
    ram = r.build->footprint->ram;
  }
  if (!Row(ins)
           .text(run_id)
           .text(r.job_id)
           .text(spec_or_condition(r.job.kernel, "kernel"))
           .text(spec_or_condition(r.job.kernel_version, "kernel_version"))
           .text(spec_or_condition(r.job.board, "board"))
           .text(spec_or_condition(r.job.opt, "opt"))
           .integer_or_null(number_or_condition(r.job.tick_hz, "tick"))
           .integer_or_null(number_or_condition(r.job.fpu_context, "fpu"))
           .text(to_string(r.status))
           .text(r.reason)
           .text(r.unit)
           .text(condition(r, "compiler"))
           .text(condition(r, "harness"))
           .integer_or_null(flash)
           .integer_or_null(ram)
           .text(dump_json(json(r.conditions), -1))
           .text(r.finished_at)
           .done()) {
    return db.error();
  }
  return {};
}

// One series_metrics row per number of every series of the result: the
// job's figures as load 0, each repeated load's as 1..N.
Status insert_figures(Database& db, sqlite3_stmt* ins, const std::string& run_id,
                      const JobResult& r, size_t& rows) {
  auto write_series = [&](const std::vector<SeriesRecord>& series, int64_t load) -> Status {
    for (const auto& x : series) {
      std::string test = r.verify.test_of(x.phase, x.name);
      if (test.empty()) test = test_of_series(x.name);
      for (const auto& [key, v] : x.numbers()) {
        if (!Row(ins)
                 .text(run_id)
                 .text(r.job_id)
                 .integer(load)
                 .text(x.phase)
                 .text(x.name)
                 .text(test)
                 .text(key)
                 .real(v)
                 .integer(static_cast<int64_t>(x.hz))
                 .done()) {
          return db.error();
        }
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
Status insert_run(Database& db, const ImportedRun& run, RecordSummary& out) {
  auto ins_run = db.prepare(
      "INSERT INTO runs(run_id, path, matrix, bench, state, started_at, finished_at, "
      "rtosbench_version, imported_at, content_sha256)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto ins_job = db.prepare(
      "INSERT INTO jobs(run_id, job_id, kernel, kernel_version, board, opt, tick_hz, fpu_context, "
      "status, reason,"
      " unit, compiler, harness, flash_bytes, ram_bytes, conditions, finished_at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto ins_metric = db.prepare(
      "INSERT OR REPLACE INTO series_metrics(run_id, job_id, load, phase, series, test, metric, "
      "value, hz)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (auto* p : {&ins_run, &ins_job, &ins_metric}) {
    if (!p->ok()) return p->error();
  }
  const RunSummary& s = run.summary;
  if (!Row(ins_run->get())
           .text(run.run_id)
           .text(run.path)
           .text(s.matrix ? s.matrix->name : "")
           .text(s.bench ? s.bench->name : "")
           .text(s.state)
           .text(s.started_at)
           .text(s.finished_at)
           .text(s.rtosbench_version)
           .text(utc_timestamp())
           .text(run.content_sha256)
           .done()) {
    return db.error();
  }
  for (const auto& r : run.results) {
    if (auto st = insert_job(db, ins_job->get(), run.run_id, r); !st.ok()) return st;
    ++out.jobs;
    if (auto st = insert_figures(db, ins_metric->get(), run.run_id, r, out.metrics); !st.ok())
      return st;
  }
  return {};
}

}  // namespace

Result<RecordSummary> record_run(const std::filesystem::path& db_file,
                                 const std::filesystem::path& run_dir,
                                 const RecordOptions& options) {
  // Read and check every result before touching the database.
  auto run = read_run(run_dir);
  if (!run.ok()) return run.error();
  RecordSummary out;
  out.run_id = run->run_id;

  std::error_code ec;
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

  auto q = db->prepare("SELECT content_sha256 FROM runs WHERE run_id = ?");
  if (!q.ok()) return fail(q.error());
  Row(q->get()).text(out.run_id);
  int rc = sqlite3_step(q->get());
  if (rc == SQLITE_ROW) {
    out.previous_sha256 = column_text(q->get(), 0);
    if (out.previous_sha256 == run->content_sha256) {
      out.outcome = RecordOutcome::kUnchanged;
    } else if (!options.replace && !out.previous_sha256.empty()) {
      // A different copy of a recorded run: the recorded figures stay.
      out.outcome = RecordOutcome::kRefused;
      (void)db->exec("ROLLBACK");
      return out;
    } else {
      out.outcome = RecordOutcome::kReplaced;
    }
  } else if (rc != SQLITE_DONE) {
    return fail(db->error());
  }
  q->reset();

  if (out.outcome == RecordOutcome::kReplaced) {
    if (auto st = supersede(*db, out.run_id); !st.ok()) return fail(st.error());
  } else if (out.outcome == RecordOutcome::kUnchanged) {
    auto del = db->prepare("DELETE FROM runs WHERE run_id = ?");
    if (!del.ok()) return fail(del.error());
    if (!Row(del->get()).text(out.run_id).done()) return fail(db->error());
  }
  if (auto st = insert_run(*db, *run, out); !st.ok()) return fail(st.error());
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
        return make_error(ErrorKind::kCannotRead,
                          fmt::format("no run in {} recorded metric '{}' (recorded: {})",
                                      db_file.string(), q.metric, list.empty() ? "none" : list));
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

namespace rb::store {

Result<std::vector<SupersededRun>> list_superseded(const std::filesystem::path& db_file) {
  auto db = Database::open(db_file, false);
  if (!db.ok()) return db.error();
  if (auto s = db->check_schema(false); !s.ok()) return s.error();
  std::vector<SupersededRun> out;
  {
    auto t = db->prepare("SELECT count(*) FROM sqlite_master WHERE name = 'superseded_runs'");
    if (!t.ok()) return t.error();
    if (sqlite3_step(t->get()) != SQLITE_ROW) return db->error();
    if (sqlite3_column_int(t->get(), 0) == 0) return out;  // schema 1: nothing was superseded
  }
  auto s = db->prepare(
      "SELECT run_id, superseded_at, path, content_sha256, content FROM superseded_runs"
      " ORDER BY superseded_at, rowid");
  if (!s.ok()) return s.error();
  int rc;
  while ((rc = sqlite3_step(s->get())) == SQLITE_ROW) {
    SupersededRun r;
    r.run_id = column_text(s->get(), 0);
    r.superseded_at = column_text(s->get(), 1);
    r.path = column_text(s->get(), 2);
    r.content_sha256 = column_text(s->get(), 3);
    r.content = column_text(s->get(), 4);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return db->error();
  return out;
}

}  // namespace rb::store
