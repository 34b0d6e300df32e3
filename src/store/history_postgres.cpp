// The PostgreSQL history: one database that several hosts record into at
// once (docs/reports.md, "History"). Through libpqxx (Debian's libpqxx-dev).
// The schema version is the highest of schema_migrations(version, applied_at,
// description), one row per migration applied. The schema's transaction
// takes a transaction-level advisory lock, so two hosts starting at once do
// not both migrate; each record takes one keyed on the run id: records of the
// same run take turns (the second sees the first's row: unchanged or
// refused, as with SQLite), records of different runs go on at once.
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

const Dialect kPostgres{
    .text = "TEXT COLLATE \"C\"",
    .integer = "BIGINT",
    .real = "DOUBLE PRECISION",
    .insertion_order = "seq",
    .insertion_column = "seq BIGINT GENERATED ALWAYS AS IDENTITY,\n  ",
    .tables = "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
    .table_name = "tablename",
    .foreign =
        "a PostgreSQL database but not an rtosbench history (it has other tables and no "
        "schema_migrations)",
};

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
      : Connection(kPostgres, std::move(name)),
        conn_(std::move(conn)),
        password_(std::move(password)) {}
  ~PostgresConnection() override { rollback(); }

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
      for (const auto& row : r) {
        std::vector<std::optional<std::string>> cells;
        for (const auto& f : row) {
          cells.emplace_back(f.is_null()
                                 ? std::nullopt
                                 : std::optional<std::string>(std::in_place, f.c_str(), f.size()));
        }
        rows.emplace_back(std::move(cells));
      }
      return rows;
    } catch (const std::exception& e) {
      return fail(e);
    }
  }

 protected:
  // The schema's transaction and a record's first take their advisory lock.
  Status begin(Transaction t, const std::string& run_id) override {
    rollback();
    try {
      if (t == Transaction::kRead) {
        tx_ = std::make_unique<pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>>(*conn_);
        return {};
      }
      tx_ = std::make_unique<pqxx::work>(*conn_);
    } catch (const std::exception& e) {
      return fail(e);
    }
    auto r = t == Transaction::kSchema ? query(kLockSchema, {}) : query(kLockRun, {run_id});
    if (!r.ok()) {
      rollback();
      return r.error();
    }
    return {};
  }

  Status exec_script(const std::string& sql) override {
    try {
      tx_->exec(sql);  // several statements: the simple protocol
      return {};
    } catch (const std::exception& e) {
      return fail(e);
    }
  }

  // The highest migration applied; 0 for a database without schema_migrations.
  Result<int64_t> version() override {
    auto t = count_tables("schema_migrations");
    if (!t.ok()) return t.error();
    if (*t == 0) return int64_t{0};
    auto v = query("SELECT coalesce(max(version), 0) FROM schema_migrations", {});
    if (!v.ok()) return v.error();
    return v->empty() ? 0 : (*v)[0].integer(0);
  }

  Status set_version(const Migration& m) override {
    if (auto s =
            exec_script("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                        " applied_at TEXT NOT NULL, description TEXT NOT NULL)");
        !s.ok())
      return s;
    auto r =
        query("INSERT INTO schema_migrations(version, applied_at, description) VALUES($1, $2, $3)",
              {int64_t{m.version}, store::utc_timestamp(), std::string(m.description)});
    if (!r.ok()) return r.error();
    return {};
  }

 private:
  Error fail(const std::exception& e) const {
    ErrorKind kind = dynamic_cast<const pqxx::broken_connection*>(&e) ? ErrorKind::kUnavailable
                                                                      : ErrorKind::kInternal;
    return make_error(kind,
                      fmt::format("history database {}: {}", name(), clean(e.what(), password_)));
  }

  std::unique_ptr<pqxx::connection> conn_;
  std::unique_ptr<pqxx::dbtransaction> tx_;
  std::map<std::string, std::string> statements_;  // SQL -> prepared statement name
  std::string password_;
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
