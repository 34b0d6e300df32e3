// The history's schema, its migrations and what a database must hold, once
// for both backends (history_backend.h).
#include <fmt/core.h>

#include <charconv>

#include "store/history.h"
#include "store/history_backend.h"

namespace rb::store::history {

namespace {

// Applied in order, each once; the last one's version is kHistorySchemaVersion.
const Migration kMigrations[] = {
    {1, "runs, jobs, series_metrics, meta", R"sql(
CREATE TABLE IF NOT EXISTS meta (key {text} PRIMARY KEY, value {text} NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  run_id {text} PRIMARY KEY, path {text} NOT NULL, matrix {text}, bench {text}, state {text},
  started_at {text}, finished_at {text}, rtosbench_version {text}, imported_at {text} NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  run_id {text} NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, job_id {text} NOT NULL,
  kernel {text}, kernel_version {text}, board {text}, opt {text}, tick_hz {integer},
  fpu_context {integer}, status {text} NOT NULL, reason {text}, unit {text}, compiler {text},
  harness {text}, flash_bytes {integer}, ram_bytes {integer}, conditions {text},
  finished_at {text},
  PRIMARY KEY (run_id, job_id)
);
CREATE TABLE IF NOT EXISTS series_metrics (
  run_id {text} NOT NULL, job_id {text} NOT NULL, load {integer} NOT NULL,
  phase {text} NOT NULL, series {text} NOT NULL, test {text} NOT NULL, metric {text} NOT NULL,
  value {real} NOT NULL, hz {integer},
  PRIMARY KEY (run_id, job_id, load, phase, series, metric),
  FOREIGN KEY (run_id, job_id) REFERENCES jobs(run_id, job_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS series_metrics_by_metric ON series_metrics(metric, test);
)sql"},
    {2, "runs.content_sha256, superseded_runs", R"sql(
ALTER TABLE runs ADD COLUMN content_sha256 {text};
CREATE TABLE IF NOT EXISTS superseded_runs (
  {insertion_column}run_id {text} NOT NULL, superseded_at {text} NOT NULL, path {text},
  content_sha256 {text}, content {text} NOT NULL
);
)sql"},
};
static_assert(std::size(kMigrations) == kHistorySchemaVersion,
              "one migration per history schema version");

// The backends, by what their locations start with: one line per backend.
// The only list of them; a location no prefix matches is an SQLite file.
const std::vector<BackendRegistration> kBackends{
    {"sqlite", {"sqlite:"}, open_sqlite},
    {"postgresql", {"postgresql://", "postgres://"}, open_postgres},
};

}  // namespace

int64_t SqlRow::integer(size_t i) const {
  const auto& c = cells_.at(i);
  if (!c) return 0;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(c->data(), c->data() + c->size(), v);
  if (ec == std::errc() && end == c->data() + c->size()) return v;
  return static_cast<int64_t>(real(i));  // "26136.0"
}

double SqlRow::real(size_t i) const {
  const auto& c = cells_.at(i);
  if (!c) return 0;
  double v = 0;
  std::from_chars(c->data(), c->data() + c->size(), v);
  return v;
}

const std::vector<BackendRegistration>& registered_backends() {
  return kBackends;
}

Result<const BackendRegistration*> backend_for(const std::string& location) {
  if (location.empty()) return make_error(ErrorKind::kUsage, "no history database given");
  for (const auto& b : kBackends) {
    for (const auto& prefix : b.prefixes) {
      if (location.rfind(prefix, 0) == 0) return &b;
    }
  }
  // SCHEME://... of no backend: an error, not a relative path.
  size_t scheme = location.find("://");
  if (scheme != std::string::npos && scheme > 0 &&
      location.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.") == scheme) {
    std::string known;
    for (const auto& b : kBackends) {
      for (const auto& prefix : b.prefixes) known += (known.empty() ? "" : ", ") + prefix;
    }
    return make_error(
        ErrorKind::kUsage,
        fmt::format("history database {}: no backend serves '{}' (known: a file path, {})",
                    redact_history_location(location), location.substr(0, scheme + 3), known));
  }
  return &kBackends.front();
}

Result<std::unique_ptr<Connection>> open_history(const std::string& location, OpenMode mode) {
  auto b = backend_for(location);
  if (!b.ok()) return b.error();
  return (*b)->open(location, mode);
}

Result<int64_t> Connection::count_tables(const std::string& table) {
  auto r =
      table.empty()
          ? query(dialect_.tables, {})
          : query(fmt::format("{} AND {} = $1", dialect_.tables, dialect_.table_name), {table});
  if (!r.ok()) return r.error();
  return r->empty() ? 0 : r->front().integer(0);
}

Result<bool> Connection::has_superseded() {
  auto n = count_tables("superseded_runs");
  if (!n.ok()) return n.error();
  return *n > 0;
}

Error Connection::newer(int64_t v) const {
  return make_error(
      ErrorKind::kBadInput,
      fmt::format("history database {} has schema version {}, newer than this rtosbench ({})",
                  name_, v, kHistorySchemaVersion));
}

// Creates the schema or applies the migrations it lacks, in the schema's
// transaction: a second host starting at once waits, then finds the work done.
Status Connection::migrate() {
  auto v = version();
  if (!v.ok()) return v.error();
  if (*v > kHistorySchemaVersion) return newer(*v);
  if (*v == kHistorySchemaVersion) return {};
  if (*v <= 0) {
    auto tables = count_tables();
    if (!tables.ok()) return tables.error();
    if (*tables > 0)
      return make_error(ErrorKind::kBadInput, fmt::format("{} is {}", name_, dialect_.foreign));
  }
  for (const auto& m : kMigrations) {
    if (m.version <= *v) continue;
    auto sql = fmt::format(fmt::runtime(m.sql), fmt::arg("text", dialect_.text),
                           fmt::arg("integer", dialect_.integer), fmt::arg("real", dialect_.real),
                           fmt::arg("insertion_column", dialect_.insertion_column));
    if (auto s = exec_script(sql); !s.ok()) return s;
    if (auto s = set_version(m); !s.ok()) return s;
  }
  auto r = query(
      "INSERT INTO meta(key, value) VALUES('schema_version', $1)"
      " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      {std::to_string(kHistorySchemaVersion)});
  if (!r.ok()) return r.error();
  return {};
}

Status Connection::begin_record(const std::string& run_id) {
  if (auto s = begin(Transaction::kSchema, ""); !s.ok()) return s;
  if (auto s = migrate(); !s.ok()) {
    rollback();
    return s;
  }
  if (auto s = commit(); !s.ok()) return s;
  return begin(Transaction::kRecord, run_id);
}

Status Connection::begin_read() {
  if (auto s = begin(Transaction::kRead, ""); !s.ok()) return s;
  auto fail = [&](Error e) -> Status {
    rollback();
    return e;
  };
  auto v = version();
  if (!v.ok()) return fail(v.error());
  if (*v > kHistorySchemaVersion) return fail(newer(*v));
  if (*v > 0) return {};
  auto tables = count_tables();
  if (!tables.ok()) return fail(tables.error());
  if (*tables > 0)
    return fail(make_error(ErrorKind::kBadInput, fmt::format("{} is {}", name_, dialect_.foreign)));
  return fail(make_error(
      ErrorKind::kCannotRead,
      fmt::format("no history in {} yet (record a run with `rtosbench history import RUN_DIR`)",
                  name_)));
}

}  // namespace rb::store::history
