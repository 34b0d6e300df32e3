// The PostgreSQL history: one database that several hosts record into at
// once (docs/reports.md, "History"). Through libpqxx (Debian's libpqxx-dev).
//
// Schema: the SQLite history's tables and columns (BIGINT for its INTEGER,
// DOUBLE PRECISION for its REAL, text in byte order (COLLATE "C") as
// SQLite compares it, an identity column `seq` in superseded_runs for
// SQLite's rowid), plus schema_migrations(version,
// applied_at, description): one row per migration applied, the highest
// version equal to kHistorySchemaVersion, and meta.schema_version as in
// SQLite. Migrations run in one transaction under a transaction-level
// advisory lock, so two hosts starting at once do not both apply them.
// Each record_run is one transaction that first takes an advisory lock keyed
// on the run id: records of the same run take turns (the second sees the
// first's row: unchanged or refused, as with SQLite), records of different
// runs go on at once.
#include <fmt/core.h>

#include "store/history.h"
#include "store/history_backend.h"
#include "store/result.h"
#include "util/url.h"

#if RTOSBENCH_HAVE_PQXX
#include <map>
#include <pqxx/pqxx>
#endif

namespace rb::store::history {

#if RTOSBENCH_HAVE_PQXX

namespace {

// Advisory lock keys (pg_advisory_xact_lock(int, int)): the class is
// "rtos" read as an integer; objid 0 is the schema, a run's lock is
// (class + 1, hashtext(run_id)).
constexpr const char* kLockSchema = "SELECT pg_advisory_xact_lock(1920233331, 0)";
constexpr const char* kLockRun = "SELECT pg_advisory_xact_lock(1920233332, hashtext($1))";

struct Migration {
  int version;
  const char* description;
  const char* sql;
};

// Applied in order, each once; the last one's version is kHistorySchemaVersion.
const Migration kMigrations[] = {
    {1, "runs, jobs, series_metrics, meta", R"sql(
CREATE TABLE meta (
  key TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL
);
CREATE TABLE runs (
  run_id TEXT COLLATE "C" PRIMARY KEY,
  path TEXT COLLATE "C" NOT NULL,
  matrix TEXT COLLATE "C",
  bench TEXT COLLATE "C",
  state TEXT COLLATE "C",
  started_at TEXT COLLATE "C",
  finished_at TEXT COLLATE "C",
  rtosbench_version TEXT COLLATE "C",
  imported_at TEXT COLLATE "C" NOT NULL
);
CREATE TABLE jobs (
  run_id TEXT COLLATE "C" NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  job_id TEXT COLLATE "C" NOT NULL,
  kernel TEXT COLLATE "C",
  kernel_version TEXT COLLATE "C",
  board TEXT COLLATE "C",
  opt TEXT COLLATE "C",
  tick_hz BIGINT,
  fpu_context BIGINT,
  status TEXT COLLATE "C" NOT NULL,
  reason TEXT COLLATE "C",
  unit TEXT COLLATE "C",
  compiler TEXT COLLATE "C",
  harness TEXT COLLATE "C",
  flash_bytes BIGINT,
  ram_bytes BIGINT,
  conditions TEXT COLLATE "C",
  finished_at TEXT COLLATE "C",
  PRIMARY KEY (run_id, job_id)
);
CREATE TABLE series_metrics (
  run_id TEXT COLLATE "C" NOT NULL,
  job_id TEXT COLLATE "C" NOT NULL,
  load BIGINT NOT NULL,
  phase TEXT COLLATE "C" NOT NULL,
  series TEXT COLLATE "C" NOT NULL,
  test TEXT COLLATE "C" NOT NULL,
  metric TEXT COLLATE "C" NOT NULL,
  value DOUBLE PRECISION NOT NULL,
  hz BIGINT,
  PRIMARY KEY (run_id, job_id, load, phase, series, metric),
  FOREIGN KEY (run_id, job_id) REFERENCES jobs(run_id, job_id) ON DELETE CASCADE
);
CREATE INDEX series_metrics_by_metric ON series_metrics(metric, test);
)sql"},
    {2, "runs.content_sha256, superseded_runs", R"sql(
ALTER TABLE runs ADD COLUMN content_sha256 TEXT COLLATE "C";
CREATE TABLE superseded_runs (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  run_id TEXT COLLATE "C" NOT NULL,
  superseded_at TEXT COLLATE "C" NOT NULL,
  path TEXT COLLATE "C",
  content_sha256 TEXT COLLATE "C",
  content TEXT COLLATE "C" NOT NULL
);
)sql"},
};
static_assert(std::size(kMigrations) == kHistorySchemaVersion,
              "one PostgreSQL migration per history schema version");

// A message as libpq wrote it, on one line, the password (if any) cut out.
std::string clean(std::string message, const std::string& password) {
  if (!password.empty()) {
    for (size_t p; (p = message.find(password)) != std::string::npos;) {
      message.replace(p, password.size(), "***");
    }
  }
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  for (auto& c : message) {
    if (c == '\n') c = ' ';
  }
  return message;
}

std::string text_of(const SqlValue& v) {
  if (const auto* t = std::get_if<std::string>(&v)) return *t;
  if (const auto* n = std::get_if<int64_t>(&v)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);  // round-trips
  return {};
}

class PostgresConnection final : public Connection {
 public:
  PostgresConnection(std::unique_ptr<pqxx::connection> conn, std::string name, std::string password)
      : conn_(std::move(conn)), name_(std::move(name)), password_(std::move(password)) {}
  ~PostgresConnection() override { rollback(); }

  const std::string& name() const override { return name_; }

  Status begin_record(const std::string& run_id) override {
    if (auto s = migrate(); !s.ok()) return s;
    if (auto s = begin<pqxx::work>(); !s.ok()) return s;
    if (auto r = query(kLockRun, {run_id}); !r.ok()) {
      rollback();
      return r.error();
    }
    return {};
  }

  Status begin_read() override {
    if (auto s = begin<pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>>(); !s.ok())
      return s;
    auto v = version();
    if (!v.ok()) {
      rollback();
      return v.error();
    }
    if (*v == 0) {
      auto tables = other_tables();
      rollback();
      if (!tables.ok()) return tables.error();
      if (*tables > 0) {
        return make_error(ErrorKind::kBadInput,
                          fmt::format("{} is a PostgreSQL database but not an rtosbench history "
                                      "(it has other tables and no schema_migrations)",
                                      name_));
      }
      return make_error(ErrorKind::kCannotRead,
                        fmt::format("no history in {} yet (record a run with `rtosbench history "
                                    "import RUN_DIR`)",
                                    name_));
    }
    if (*v > kHistorySchemaVersion) {
      rollback();
      return newer(*v);
    }
    return {};
  }

  Status commit() override {
    if (!tx_) return make_error(ErrorKind::kInternal, "history: commit without a transaction");
    try {
      tx_->commit();
      tx_.reset();
      return {};
    } catch (const std::exception& e) {
      tx_.reset();
      return fail(e);
    }
  }

  void rollback() override {
    if (!tx_) return;
    try {
      tx_->abort();
    } catch (const std::exception&) {
    }
    tx_.reset();
  }

  Result<SqlRows> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    if (!tx_) return make_error(ErrorKind::kInternal, "history: a query outside a transaction");
    try {
      std::vector<std::string> texts;
      texts.reserve(params.size());
      std::vector<const char*> values;
      values.reserve(params.size());
      for (const auto& p : params) {
        texts.push_back(text_of(p));
        values.push_back(std::holds_alternative<std::monostate>(p) ? nullptr
                                                                   : texts.back().c_str());
      }
      auto it = statements_.find(sql);
      if (it == statements_.end()) {
        std::string id = fmt::format("rtosbench_{}", statements_.size());
        conn_->prepare(id, sql);
        it = statements_.emplace(sql, id).first;
      }
      pqxx::result r = tx_->exec_prepared(it->second, pqxx::prepare::make_dynamic_params(values));
      SqlRows rows;
      rows.reserve(r.size());
      for (const auto& row : r) {
        std::vector<std::optional<std::string>> cells;
        cells.reserve(row.size());
        for (const auto& f : row) {
          if (f.is_null()) {
            cells.emplace_back(std::nullopt);
          } else {
            cells.emplace_back(std::string(f.c_str(), f.size()));
          }
        }
        rows.emplace_back(std::move(cells));
      }
      return rows;
    } catch (const std::exception& e) {
      return fail(e);
    }
  }

  Result<bool> has_superseded() override {
    auto r = query("SELECT to_regclass('superseded_runs') IS NOT NULL", {});
    if (!r.ok()) return r.error();
    return !r->empty() && (*r)[0].text(0) == "t";
  }

  const char* insertion_order() const override { return "seq"; }

 private:
  template <typename Transaction>
  Status begin() {
    rollback();
    try {
      tx_ = std::make_unique<Transaction>(*conn_);
      return {};
    } catch (const std::exception& e) {
      return fail(e);
    }
  }

  Error fail(const std::exception& e) const {
    ErrorKind kind = dynamic_cast<const pqxx::broken_connection*>(&e) ? ErrorKind::kUnavailable
                                                                      : ErrorKind::kInternal;
    return make_error(kind,
                      fmt::format("history database {}: {}", name_, clean(e.what(), password_)));
  }

  Error newer(int64_t v) const {
    return make_error(
        ErrorKind::kBadInput,
        fmt::format("history database {} has schema version {}, newer than this rtosbench ({})",
                    name_, v, kHistorySchemaVersion));
  }

  // The highest migration applied; 0 for a database without schema_migrations.
  Result<int64_t> version() {
    auto t = query("SELECT to_regclass('schema_migrations') IS NOT NULL", {});
    if (!t.ok()) return t.error();
    if (t->empty() || (*t)[0].text(0) != "t") return int64_t{0};
    auto v = query("SELECT coalesce(max(version), 0) FROM schema_migrations", {});
    if (!v.ok()) return v.error();
    return v->empty() ? 0 : (*v)[0].integer(0);
  }

  // Tables in the schema the history would use.
  Result<int64_t> other_tables() {
    auto r =
        query("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()", {});
    if (!r.ok()) return r.error();
    return r->empty() ? 0 : (*r)[0].integer(0);
  }

  // Creates the schema or applies the migrations it lacks, in one
  // transaction, under the schema's advisory lock: a second host starting at
  // once waits, then finds the work done.
  Status migrate() {
    if (auto s = begin<pqxx::work>(); !s.ok()) return s;
    auto done = [&](Status s) {
      if (!s.ok()) rollback();
      return s;
    };
    if (auto r = query(kLockSchema, {}); !r.ok()) return done(r.error());
    auto v = version();
    if (!v.ok()) return done(v.error());
    if (*v > kHistorySchemaVersion) return done(newer(*v));
    if (*v == kHistorySchemaVersion) return commit();
    if (*v == 0) {
      auto tables = other_tables();
      if (!tables.ok()) return done(tables.error());
      if (*tables > 0) {
        return done(make_error(ErrorKind::kBadInput,
                               fmt::format("{} is a PostgreSQL database but not an rtosbench "
                                           "history (it has other tables and no "
                                           "schema_migrations)",
                                           name_)));
      }
      if (auto r = query("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at "
                         "TEXT NOT NULL, description TEXT NOT NULL)",
                         {});
          !r.ok()) {
        return done(r.error());
      }
    }
    for (const auto& m : kMigrations) {
      if (m.version <= *v) continue;
      try {
        tx_->exec(m.sql);  // several statements: the simple protocol
      } catch (const std::exception& e) {
        return done(fail(e));
      }
      auto r = query(
          "INSERT INTO schema_migrations(version, applied_at, description) VALUES($1, $2, $3)",
          {int64_t{m.version}, store::utc_timestamp(), std::string(m.description)});
      if (!r.ok()) return done(r.error());
    }
    auto r = query(
        "INSERT INTO meta(key, value) VALUES('schema_version', $1)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        {std::to_string(kHistorySchemaVersion)});
    if (!r.ok()) return done(r.error());
    return commit();
  }

  std::unique_ptr<pqxx::connection> conn_;
  std::unique_ptr<pqxx::dbtransaction> tx_;
  std::map<std::string, std::string> statements_;  // SQL -> prepared statement name
  std::string name_, password_;
};

}  // namespace

Result<std::unique_ptr<Connection>> open_postgres(const std::string& location, OpenMode) {
  const std::string name = redact_history_location(location);
  const std::string password = url_password(location);
  try {
    auto conn = std::make_unique<pqxx::connection>(location);
    // NOTICEs (e.g. "relation already exists") are not the user's business.
    pqxx::nontransaction(*conn).exec("SET client_min_messages TO warning");
    return std::unique_ptr<Connection>(
        std::make_unique<PostgresConnection>(std::move(conn), name, password));
  } catch (const std::exception& e) {
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("cannot connect to history database {}: {}", name, clean(e.what(), password)));
  }
}

#else  // built without libpqxx

Result<std::unique_ptr<Connection>> open_postgres(const std::string& location, OpenMode) {
  return make_error(ErrorKind::kUnavailable,
                    fmt::format("history database {}: this rtosbench was built without "
                                "PostgreSQL support (install libpqxx-dev and build again)",
                                redact_history_location(location)));
}

#endif

}  // namespace rb::store::history
