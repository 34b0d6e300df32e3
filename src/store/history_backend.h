#pragma once
// Where the history lives (docs/reports.md, "History"): one backend per kind
// of database, chosen by the location's scheme. A plain path or `sqlite:FILE`
// is an SQLite file (history_sqlite.cpp); `postgresql://...` or
// `postgres://...` a PostgreSQL database (history_postgres.cpp). The queries
// are written once, in history.cpp, in the SQL both speak, with $1..$N
// parameters; a backend owns only connecting, transactions, the schema and
// its migrations, and the locking that lets several hosts record at once.
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

enum class OpenMode {
  kRead,    // the history must exist; nothing is created
  kRecord,  // created (file, tables) or brought up to this schema version when needed
};

// One connection to one history.
class Connection {
 public:
  virtual ~Connection() = default;
  // The history as messages name it: the file, or the URL without its password.
  virtual const std::string& name() const = 0;
  // Creates the schema or brings it up to kHistorySchemaVersion (one host at
  // a time), then opens the one transaction that records `run_id`; records
  // of the same run wait for each other, records of other runs need not.
  virtual Status begin_record(const std::string& run_id) = 0;
  // Checks that the database holds a history this rtosbench reads, then
  // opens a read transaction.
  virtual Status begin_read() = 0;
  virtual Status commit() = 0;
  virtual void rollback() = 0;
  // Runs one statement with $1..$N parameters; its rows, if any.
  virtual Result<SqlRows> query(const std::string& sql, const std::vector<SqlValue>& params) = 0;
  // Whether the history has the superseded_runs table (schema 1 has none).
  virtual Result<bool> has_superseded() = 0;
  // The column that orders superseded_runs rows of the same second by
  // insertion: SQLite's rowid, PostgreSQL's identity column seq.
  virtual const char* insertion_order() const = 0;
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
