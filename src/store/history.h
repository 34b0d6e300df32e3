#pragma once
// The history of finished runs, so a metric's trend over weeks of nightly
// runs is one query away (docs/reports.md, "History"). The run directories
// stay the record; the database is an index of their figures and can be
// rebuilt by importing them again.
//
// Where it lives: an SQLite file (a path, or sqlite:FILE; the default, no
// server) or a PostgreSQL database (postgresql://... or postgres://...,
// shared by several hosts), chosen by the location's scheme. Both hold the
// one schema of history_sql.cpp (docs/reports.md, "History": its tables;
// `metric` is the result.json key, `load` 0 for the job's figures and 1..N
// per repeated load) and answer the same queries (history_backend.h).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace rb::store {

inline constexpr int kHistorySchemaVersion = 2;

// $RTOSBENCH_HISTORY (a file or a URL), else
// $XDG_DATA_HOME/rtosbench/history.sqlite, else
// ~/.local/share/rtosbench/history.sqlite (--db comes before all of them).
// Error when none can be formed (no HOME).
Result<std::string> default_history_location();

// The location as messages show it: a URL's password (user:PASSWORD@ or
// password=PASSWORD) replaced by ***.
std::string redact_history_location(const std::string& location);

enum class RecordOutcome {
  kRecorded,   // a run the database did not hold
  kUnchanged,  // recorded already with the same content: recorded again (idempotent)
  kReplaced,   // recorded with other content, replaced (`replace`); the old content is kept
  kRefused,    // recorded with other content and `replace` not given: nothing changed
};

struct RecordOptions {
  bool replace = false;  // replace a recorded run whose content differs
};

struct RecordSummary {
  std::string run_id;
  RecordOutcome outcome = RecordOutcome::kRecorded;
  std::string previous_sha256;  // content digest of the recorded run, when there was one
  size_t jobs = 0;
  size_t metrics = 0;  // series_metrics rows written
};

// Records the run in `run_dir` into the history at `location`, creating
// the SQLite file and its directory, or the tables, if needed. The run is checked whole first
// (kBadInput, naming the file and field): run.json and a valid result for
// every job it lists, none PENDING, none added, each naming this run and job
// with run.json's status, every series' figures consistent. A run recorded
// with other content is refused unless `options.replace`; then the old
// content is kept in superseded_runs. Everything is written in one
// transaction: on error the database is unchanged. A damaged database is
// named as corrupted (kBadInput). Two processes recording at once (two
// hosts, with PostgreSQL) both land; of two records of the same run, one
// waits for the other and is then kUnchanged or kRefused.
Result<RecordSummary> record_run(const std::string& location, const std::filesystem::path& run_dir,
                                 const RecordOptions& options = {});

struct SupersededRun {
  std::string run_id, superseded_at, path, content_sha256;
  std::string content;  // JSON: {run, jobs, metrics} as the database held them
};
// Every run an import replaced, oldest first.
Result<std::vector<SupersededRun>> list_superseded(const std::string& location);

struct TrendQuery {
  std::string kernel;             // empty: every kernel
  std::string test;               // empty: every test
  std::string job;                // empty: every job
  std::string metric = "median";  // a statistic name (median -> median_ticks) or a result.json key
};

struct TrendPoint {
  std::string run_id, started_at;
  std::string job_id, kernel, status, unit;
  std::string phase, series, test;
  std::string metric;  // the stored key, e.g. median_ticks
  double value = 0;
  uint64_t hz = 0;
  std::optional<double> delta;  // against the previous run of the same job and series
  std::optional<double> pct;    // delta in percent of the previous value
  // Pinned conditions (pinned_condition_keys()) that differ from the previous
  // run's: the change may be the conditions', not the kernel's.
  std::vector<std::string> changed;
};

// The metric over every recorded run, grouped by job and series and ordered
// by run start within a group. Error when the database does not exist or is
// not an rtosbench history, or when no run recorded the metric.
Result<std::vector<TrendPoint>> query_trend(const std::string& location, const TrendQuery& query);

struct RecordedRun {
  std::string run_id, started_at, matrix, state, path, imported_at;
  size_t jobs = 0;
};
Result<std::vector<RecordedRun>> list_runs(const std::string& location);

// The CONFIG keys that must be equal before two figures are compared
// (docs/protocol.md section 3): harness, compiler, opt, core, tick,
// kernel_version, board, unit, fpu, counter.
const std::vector<std::string>& pinned_condition_keys();

// The test a series belongs to when verify did not record it
// (docs/protocol.md section 8): irq_entry and event_to_task -> irq_latency,
// mutex_lock_unlock -> mutex, ruler_* -> ruler, else the series name.
std::string test_of_series(const std::string& name);

}  // namespace rb::store
