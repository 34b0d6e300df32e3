// The SQLite history: one file, no server (the default). Schema version in
// PRAGMA user_version; two processes recording at once take turns (BEGIN
// IMMEDIATE, a 10 s busy timeout).
#include <fmt/core.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>

#include "store/history.h"
#include "store/history_backend.h"

namespace rb::store::history {

namespace {

const Dialect kSqlite{
    .text = "TEXT",
    .integer = "INTEGER",
    .real = "REAL",
    .insertion_order = "rowid",
    .insertion_column = "",
    .tables = "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
    .table_name = "name",
    .foreign = "an SQLite database but not an rtosbench history (it has other tables)",
};

struct DbClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbPtr = std::unique_ptr<sqlite3, DbClose>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(DbPtr db, std::string file) : Connection(kSqlite, file), db_(std::move(db)) {}
  ~SqliteConnection() override {
    statements_.clear();
    rollback();
  }

  Status commit() override {
    if (auto s = exec_script("COMMIT"); !s.ok()) return s;
    in_transaction_ = false;
    return {};
  }

  void rollback() override {
    if (in_transaction_) (void)exec_script("ROLLBACK");
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
      }
    }
    SqlRows rows;
    int rc;
    const int columns = sqlite3_column_count(s);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      std::vector<std::optional<std::string>> cells;
      for (int c = 0; c < columns; ++c) {
        const int type = sqlite3_column_type(s, c);
        if (type == SQLITE_NULL) {
          cells.emplace_back(std::nullopt);
        } else if (type == SQLITE_FLOAT) {
          cells.emplace_back(fmt::format("{}", sqlite3_column_double(s, c)));  // round-trips
        } else {
          cells.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, c)));
        }
      }
      rows.emplace_back(std::move(cells));
    }
    if (rc != SQLITE_DONE)
      return fail(sqlite3_extended_errcode(db_.get()), sqlite3_errmsg(db_.get()));
    sqlite3_reset(s);
    return rows;
  }

  Status exec_script(const std::string& sql) override {
    char* msg = nullptr;
    int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &msg);
    if (rc != SQLITE_OK) {
      std::string m = msg ? msg : sqlite3_errmsg(db_.get());
      sqlite3_free(msg);
      return fail(rc, m);
    }
    return {};
  }

  // PRAGMA quick_check: a damaged page is an error before anything is read.
  Status check_integrity() {
    auto r = query("PRAGMA quick_check", {});
    if (!r.ok()) return r.error();
    std::string verdict = r->empty() ? "no answer" : (*r)[0].text(0);
    if (verdict != "ok") {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("history database {} is corrupted: {}", name(), verdict));
    }
    return {};
  }

 protected:
  // BEGIN IMMEDIATE before looking at the schema so two first imports do
  // not both try to create it; the second waits (busy timeout).
  Status begin(Transaction t, const std::string&) override {
    if (auto s = exec_script(t == Transaction::kRead ? "BEGIN" : "BEGIN IMMEDIATE"); !s.ok())
      return s;
    in_transaction_ = true;
    return {};
  }

  Result<int64_t> version() override {
    auto r = query("PRAGMA user_version", {});
    if (!r.ok()) return r.error();
    return r->empty() ? 0 : (*r)[0].integer(0);
  }

  Status set_version(const Migration& m) override {
    return exec_script(fmt::format("PRAGMA user_version = {}", m.version));
  }

 private:
  // A damaged file is named as such, never mistaken for an empty history.
  Error fail(int rc, const std::string& message) const {
    int primary = rc & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("history database {} is corrupted: {}", name(), message));
    }
    return make_error(ErrorKind::kInternal,
                      fmt::format("history database {}: {}", name(), message));
  }

  // The shared SQL's $N parameters are SQLite's ?N.
  Result<sqlite3_stmt*> statement(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second.get();
    std::string native = sql;
    for (size_t i = 0; i + 1 < native.size(); ++i) {
      if (native[i] == '$' && native[i + 1] >= '0' && native[i + 1] <= '9') native[i] = '?';
    }
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v2(db_.get(), native.c_str(), -1, &s, nullptr);
    if (rc != SQLITE_OK) return fail(rc, sqlite3_errmsg(db_.get()));
    statements_.emplace(sql, StmtPtr(s));
    return s;
  }

  DbPtr db_;
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
  if (auto s = c->exec_script("PRAGMA foreign_keys = ON"); !s.ok()) return s.error();
  if (auto s = c->check_integrity(); !s.ok()) return s.error();
  return std::unique_ptr<Connection>(std::move(c));
}

}  // namespace rb::store::history
