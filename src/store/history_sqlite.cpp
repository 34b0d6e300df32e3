// The SQLite history: one file, no server (the default). Schema version in
// PRAGMA user_version and meta.schema_version; two processes recording at
// once take turns (BEGIN IMMEDIATE, a 10 s busy timeout).
#include <fmt/core.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>

#include "store/history.h"
#include "store/history_backend.h"

namespace rb::store::history {

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

// The shared SQL's $N parameters are SQLite's ?N.
std::string sqlite_parameters(const std::string& sql) {
  std::string out = sql;
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '$' && out[i + 1] >= '0' && out[i + 1] <= '9') out[i] = '?';
  }
  return out;
}

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(DbPtr db, std::string file) : db_(std::move(db)), file_(std::move(file)) {}
  ~SqliteConnection() override {
    statements_.clear();
    if (in_transaction_) (void)exec("ROLLBACK");
  }

  const std::string& name() const override { return file_; }

  Status begin_record(const std::string&) override {
    // BEGIN IMMEDIATE before looking at the schema so two first imports do
    // not both try to create it; the second waits (busy timeout).
    if (auto s = exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    in_transaction_ = true;
    if (auto s = check_schema(true); !s.ok()) {
      rollback();
      return s;
    }
    return {};
  }

  Status begin_read() override {
    if (auto s = check_schema(false); !s.ok()) return s;
    if (auto s = exec("BEGIN"); !s.ok()) return s;
    in_transaction_ = true;
    return {};
  }

  Status commit() override {
    if (auto s = exec("COMMIT"); !s.ok()) return s;
    in_transaction_ = false;
    return {};
  }

  void rollback() override {
    if (in_transaction_) (void)exec("ROLLBACK");
    in_transaction_ = false;
  }

  Result<SqlRows> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    auto stmt = statement(sql);
    if (!stmt.ok()) return stmt.error();
    sqlite3_stmt* s = *stmt;
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    int i = 0;
    for (const auto& p : params) {
      ++i;
      if (const auto* t = std::get_if<std::string>(&p)) {
        sqlite3_bind_text(s, i, t->c_str(), static_cast<int>(t->size()), SQLITE_TRANSIENT);
      } else if (const auto* n = std::get_if<int64_t>(&p)) {
        sqlite3_bind_int64(s, i, *n);
      } else if (const auto* d = std::get_if<double>(&p)) {
        sqlite3_bind_double(s, i, *d);
      } else {
        sqlite3_bind_null(s, i);
      }
    }
    SqlRows rows;
    int rc;
    const int columns = sqlite3_column_count(s);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      std::vector<std::optional<std::string>> cells;
      cells.reserve(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        switch (sqlite3_column_type(s, c)) {
          case SQLITE_NULL:
            cells.emplace_back(std::nullopt);
            break;
          case SQLITE_FLOAT:
            cells.emplace_back(fmt::format("{}", sqlite3_column_double(s, c)));  // round-trips
            break;
          default: {
            const unsigned char* t = sqlite3_column_text(s, c);
            cells.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
          }
        }
      }
      rows.emplace_back(std::move(cells));
    }
    if (rc != SQLITE_DONE) return error();
    sqlite3_reset(s);
    return rows;
  }

  Result<bool> has_superseded() override {
    auto r = query("SELECT count(*) FROM sqlite_master WHERE name = 'superseded_runs'", {});
    if (!r.ok()) return r.error();
    return !r->empty() && (*r)[0].integer(0) > 0;
  }

  const char* insertion_order() const override { return "rowid"; }

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

  Error error() const {
    return fail(sqlite3_extended_errcode(db_.get()), sqlite3_errmsg(db_.get()));
  }

  // A damaged file is named as such, never mistaken for an empty history.
  Error fail(int rc, const std::string& message) const {
    int primary = rc & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("history database {} is corrupted: {}", file_, message));
    }
    return make_error(ErrorKind::kInternal, fmt::format("history database {}: {}", file_, message));
  }

  // PRAGMA quick_check: a damaged page is an error before anything is read.
  Status check_integrity() {
    auto r = query("PRAGMA quick_check", {});
    if (!r.ok()) return r.error();
    std::string verdict = r->empty() ? "no answer" : (*r)[0].text(0);
    if (verdict != "ok") {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("history database {} is corrupted: {}", file_, verdict));
    }
    return {};
  }

 private:
  Result<sqlite3_stmt*> statement(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second.get();
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v2(db_.get(), sqlite_parameters(sql).c_str(), -1, &s, nullptr);
    if (rc != SQLITE_OK) return fail(rc, sqlite3_errmsg(db_.get()));
    statements_.emplace(sql, StmtPtr(s));
    return s;
  }

  // Error unless the database holds an rtosbench history; `create` makes
  // one in an empty file and brings an older schema up to this version.
  Status check_schema(bool create) {
    auto r = query("PRAGMA user_version", {});
    if (!r.ok()) return r.error();
    const int64_t v = r->empty() ? 0 : (*r)[0].integer(0);
    if (v > kHistorySchemaVersion) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("history database {} has schema version {}, newer than this rtosbench ({})",
                      file_, v, kHistorySchemaVersion));
    }
    if (v == kHistorySchemaVersion || (v >= 1 && !create)) return {};
    if (!create) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("{} is not an rtosbench history database (schema version {})", file_, v));
    }
    if (v == 0) {
      // A fresh file: refuse a database that already has tables of something else.
      auto t = query("SELECT count(*) FROM sqlite_master WHERE type = 'table'", {});
      if (!t.ok()) return t.error();
      if (!t->empty() && (*t)[0].integer(0) != 0) {
        return make_error(ErrorKind::kBadInput,
                          fmt::format("{} is an SQLite database but not an rtosbench history (it "
                                      "has other tables)",
                                      file_));
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

  DbPtr db_;
  std::string file_;
  std::map<std::string, StmtPtr> statements_;
  bool in_transaction_ = false;
};

}  // namespace

std::string sqlite_file_of(const std::string& location) {
  for (const char* prefix : {"sqlite://", "sqlite:"}) {
    if (location.rfind(prefix, 0) == 0)
      return location.substr(std::char_traits<char>::length(prefix));
  }
  return location;
}

Result<std::unique_ptr<Connection>> open_sqlite(const std::string& location, OpenMode mode) {
  const std::filesystem::path file = sqlite_file_of(location);
  const bool create = mode == OpenMode::kRecord;
  if (file.empty()) return make_error(ErrorKind::kUsage, "no history database file given");
  if (!create && !std::filesystem::exists(file)) {
    return make_error(
        ErrorKind::kCannotRead,
        fmt::format("no history database at {} (record a run with `rtosbench history import "
                    "RUN_DIR`)",
                    file.string()));
  }
  if (create && file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
  }
  sqlite3* raw = nullptr;
  int flags = create ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
  int rc = sqlite3_open_v2(file.string().c_str(), &raw, flags, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) {
    return make_error(create ? ErrorKind::kCannotWrite : ErrorKind::kCannotRead,
                      fmt::format("cannot open history database {}: {}", file.string(),
                                  raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  // Two runs finishing at once each record their run; wait for the other.
  sqlite3_busy_timeout(raw, 10000);
  auto c = std::make_unique<SqliteConnection>(std::move(db), file.string());
  if (auto s = c->exec("PRAGMA foreign_keys = ON"); !s.ok()) return s.error();
  if (auto s = c->check_integrity(); !s.ok()) return s.error();
  return std::unique_ptr<Connection>(std::move(c));
}

}  // namespace rb::store::history
