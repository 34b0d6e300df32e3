#pragma once
// What diff, regress and report compare: the figures of a run, reduced to
// jobs -> series -> statistics, whether they come from a run directory (its
// run.json and jobs/*/result.json, docs/results.md) or from a baseline file
// exported earlier (`rtosbench regress --export-baseline`, docs/reports.md).
//
// A job result may carry a `loads` array (one entry per repeated load of the
// same image, each with its own `series` array in the result schema); its
// figures are kept per load so a comparison can look at the spread.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/axes.h"
#include "store/history.h"
#include "store/result.h"
#include "util/result.h"

namespace rb::catalog {
struct Catalog;
}

namespace rb::report {

inline constexpr const char* kBaselineSchema = "rtosbench.baseline";
inline constexpr int kBaselineSchemaVersion = 1;

// Which way a statistic gets worse (model::statistics()). Latencies get
// worse when they grow; a sample count or the ruler baseline is wrong when it
// changes at all (kEither).
using model::Worse;

struct MetricDef {
  const char* name;      // short name: "median"
  const char* json_key;  // key in a result.json series: "median_ticks"
  bool integer;          // printed without decimals
  Worse worse;
};

// Every statistic compared, in display order: n, min, median, avg, p90, p99,
// p999, max, stddev, jitter, base.
const std::vector<MetricDef>& metric_defs();
// nullptr when `name` is not one of metric_defs().
const MetricDef* find_metric(const std::string& name);

// A series' second ruler: the job's edges.json (rtosbench edges, a logic
// analyzer's capture of the edges=on build) for this series. Figures in ns.
struct EdgeFigures {
  std::string status;  // agree, sequence, disagree
  double tolerance_ns = 0;
  uint64_t n = 0, paired = 0, beyond = 0;
  bool period_disagrees = false;  // the EV period is not CONFIG's event period
  double grid_period_ns = 0, config_period_ns = 0;
  double dwt_median = 0, dwt_p99 = 0, dwt_max = 0;
  double edge_median = 0, edge_p99 = 0, edge_max = 0;
  double diff_median = 0, diff_p99 = 0, diff_max = 0;
  double diff_median_cycles = 0;
  std::vector<double> dwt_ns, edge_ns;  // the paired samples, when edges.json holds them
};

// One series (phase, name) and its statistics, in ticks of its counter.
struct SeriesValues {
  std::string phase;  // "" outside a phase
  std::string name;
  std::string test;  // the TEST it belongs to (from verify, else by name)
  uint64_t hz = 0;
  bool has_raw = false;
  std::map<std::string, double> values;  // metric -> value; absent when the result lacks it
  std::string base;  // the ruler series the "base" metric is the median of ("" when none)
  std::vector<std::map<std::string, double>> loads;  // per load, when the job was repeated
  // Why this series is no figure to rank or judge on the job's board, as the
  // run recorded the board's declarations (RB_BOARD_NOT_MEASURED_<name>:
  // "not a measurement on this bench: ...", RB_BOARD_UNSTABLE_<name>:
  // "unstable on this bench: ..."); "" when it is one. Shown with this note,
  // never ranked, never held against a tolerance.
  std::string unjudged;
  // The heap test's allocations (result.json series calls, refused): every
  // call and those refused; absent for other series.
  std::optional<uint64_t> calls, refused;
  // The logic analyzer's figures of this series (a job with edges.json).
  std::optional<EdgeFigures> edges;
  // "" (samples) or "histogram" (imported bucket counts: result.json series source).
  std::string source;
  // "name", or "phase/name" inside a phase.
  std::string key() const { return phase.empty() ? name : phase + "/" + name; }
};

struct JobSnapshot {
  std::string id;
  std::string kernel;
  std::string status;  // "OK", "INVALID", ... (store::to_string)
  std::string reason;
  std::string unit;   // "cycles", "instructions" or "" when unknown
  std::string board;  // firmware/boards/<board>; "" when unknown
  // Where the series' `unjudged` notes come from: kRecord (the result's own
  // `board` record, written at run time), kToday (a result older than the
  // record: today's firmware tree, which may differ from the run's) or
  // kUnknown (neither knows the board: no series is marked).
  enum class BoardFacts { kRecord, kToday, kUnknown };
  BoardFacts board_facts = BoardFacts::kRecord;
  std::map<std::string, std::string>
      conditions;  // CONFIG of the capture (a baseline keeps the pinned keys)
  std::vector<SeriesValues> series;
  std::vector<std::pair<std::string, std::string>> not_applicable;  // name, reason
  size_t loads = 0;  // number of loads (0: the job carries no `loads` array)
  // The job's edges analysis as a whole (edges.json "status"; "" without
  // one) and why it compared nothing (an overflowed capture).
  std::string edges_status, edges_refusal;

  const SeriesValues* find(const std::string& phase, const std::string& name) const;
  // OK, or only the second ruler failed (ANALYZER_MISSING, ANALYZER_OVERFLOW:
  // the DWT capture verified OK): its figures are shown and compared.
  bool figures_verified() const;
};

struct RunSnapshot {
  std::string id;      // run id
  std::string source;  // the path it was read from
  bool is_baseline = false;
  std::string started_at;  // ISO 8601 UTC; "" when unknown
  std::vector<JobSnapshot> jobs;
  std::vector<std::string> unfinished;  // jobs of run.json without a readable result.json
  const JobSnapshot* find(const std::string& job_id) const;
};

// A run directory as read from disk: run.json and every job's result.
struct Run {
  std::filesystem::path root;
  store::RunSummary summary;              // run.json
  std::vector<store::JobResult> results;  // finished jobs, in run.json order
  std::vector<std::string> unfinished;    // listed but without a readable result.json
  std::string id() const {
    return summary.run_id.empty() ? root.filename().string() : summary.run_id;
  }
};

// Reads a run directory. Error (naming the path) when run.json is missing or
// not an rtosbench run summary, or a result.json that exists cannot be
// parsed; a job without result.json is listed in `unfinished`.
Result<Run> load_run(const std::filesystem::path& dir);

// `today`: the firmware tree a result older than the board record falls back
// to (nullptr: matrix::default_catalog()); a result with the record never
// reads it.
RunSnapshot snapshot_of(const Run& run, const catalog::Catalog* today = nullptr);

// Reads a baseline file (kBaselineSchema). Error names the file and the
// offending field.
Result<RunSnapshot> load_baseline(const std::filesystem::path& file);

// A run directory or a baseline file, whichever `path` is.
Result<RunSnapshot> load_run_or_baseline(const std::filesystem::path& path);

// The baseline file of a snapshot: every job's status, pinned conditions and
// statistics (see docs/reports.md).
nlohmann::json baseline_json(const RunSnapshot& snapshot, const std::string& exported_at);

// The test a series belongs to when verify did not say (docs/protocol.md
// section 8).
using store::test_of_series;

// "149", "1.077", "-": a metric value as the reports print it.
std::string format_value(const MetricDef& m, double v);

}  // namespace rb::report
