#pragma once
// The one SQL layer of the history (docs/reports.md, "History"). The schema,
// its migrations and the checks of what a database holds are written once
// (history_sql.cpp), the queries once (history.cpp), in the SQL both
// databases speak with $1..$N parameters; what differs is a Dialect's few
// words. A backend is a thin connection: it connects, runs statements, opens
// transactions with their locks and keeps the schema version. A plain path or
// `sqlite:FILE` is an SQLite file (history_sqlite.cpp); `postgresql://...` or
// `postgres://...` a PostgreSQL database (history_postgres.cpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "util/result.h"

namespace rb::store::history {

// A parameter: null, text, an integer or a real.
using SqlValue = std::variant<std::monostate, std::string, int64_t, double>;

// One row of a result, its cells as text (null: nullopt). Reals are written
// so that they read back exactly.
class SqlRow {
 public:
  explicit SqlRow(std::vector<std::optional<std::string>> cells) : cells_(std::move(cells)) {}
  std::string text(size_t i) const { return cells_.at(i).value_or(""); }
  int64_t integer(size_t i) const;  // 0 for null
  double real(size_t i) const;      // 0 for null
  bool is_null(size_t i) const { return !cells_.at(i).has_value(); }

 private:
  std::vector<std::optional<std::string>> cells_;
};
using SqlRows = std::vector<SqlRow>;

// Where the two databases' SQL differs.
struct Dialect {
  // The schema's column types: SQLite's TEXT, INTEGER, REAL; PostgreSQL's
  // text in byte order as SQLite compares it, BIGINT, DOUBLE PRECISION.
  const char *text, *integer, *real;
  // superseded_runs' column that orders rows of the same second by insertion
  // (SQLite's rowid, PostgreSQL's identity column seq), and its definition
  // when the table must declare it.
  const char *insertion_order, *insertion_column;
  // Counts the tables of the schema the history uses; `table_name` narrows it to one.
  const char *tables, *table_name;
  // What a database with other tables and no history is.
  const char* foreign;
};

struct Migration {
  int version;
  const char* description;
  const char* sql;  // {text}, {integer}, {real}, {insertion_column}: the dialect's
};

enum class OpenMode {
  kRead,    // the history must exist; nothing is created
  kRecord,  // created (file, tables) or brought up to this schema version when needed
};

// One connection to one history.
class Connection {
 public:
  Connection(const Dialect& dialect, std::string name)
      : dialect_(dialect), name_(std::move(name)) {}
  virtual ~Connection() = default;
  // The history as messages name it: the file, or the URL without its password.
  const std::string& name() const { return name_; }
  const Dialect& dialect() const { return dialect_; }
  // Creates the schema or brings it up to kHistorySchemaVersion (one host at
  // a time), then opens the one transaction that records `run_id`; records
  // of the same run wait for each other, records of other runs need not.
  Status begin_record(const std::string& run_id);
  // Checks that the database holds a history this rtosbench reads, then
  // leaves its read transaction open.
  Status begin_read();
  // Whether the history has the superseded_runs table (schema 1 has none).
  Result<bool> has_superseded();

  virtual Status commit() = 0;
  virtual void rollback() = 0;
  // Runs one statement with $1..$N parameters; its rows, if any.
  virtual Result<SqlRows> query(const std::string& sql, const std::vector<SqlValue>& params) = 0;

 protected:
  enum class Transaction {
    kRead,    // one consistent snapshot
    kSchema,  // one host at a time
    kRecord,  // one record of `run_id` at a time
  };
  virtual Status begin(Transaction t, const std::string& run_id) = 0;
  virtual Status exec_script(const std::string& sql) = 0;  // several statements, no parameters
  // The schema version the database holds (0: none); marks `m` as applied.
  virtual Result<int64_t> version() = 0;
  virtual Status set_version(const Migration& m) = 0;
  // The tables of the history's schema, or whether `table` is one of them.
  Result<int64_t> count_tables(const std::string& table = "");

 private:
  Status migrate();
  Error newer(int64_t v) const;

  const Dialect& dialect_;
  std::string name_;
};

using Opener = Result<std::unique_ptr<Connection>> (*)(const std::string& location, OpenMode mode);

struct BackendRegistration {
  std::string name;                   // "sqlite", "postgresql"
  std::vector<std::string> prefixes;  // what a location starts with; none: a plain path
  Opener open;
};

// The backends, by the prefixes of the locations they serve. The only list of them.
const std::vector<BackendRegistration>& registered_backends();

// The backend a location names (by its prefix; a path with no scheme is
// SQLite), without opening it. kUsage for a scheme no backend serves.
Result<const BackendRegistration*> backend_for(const std::string& location);

Result<std::unique_ptr<Connection>> open_history(const std::string& location, OpenMode mode);

// The backends' openers (history_sqlite.cpp, history_postgres.cpp).
Result<std::unique_ptr<Connection>> open_sqlite(const std::string& location, OpenMode mode);
Result<std::unique_ptr<Connection>> open_postgres(const std::string& location, OpenMode mode);

// An SQLite location's file: `sqlite:FILE` and `sqlite://FILE` are FILE.
std::string sqlite_file_of(const std::string& location);

}  // namespace rb::store::history
