#pragma once
// `rtosbench diff RUN_A RUN_B`: every statistic of every series of every job
// the two runs share, both values, the change and a verdict against the
// tolerances. Jobs whose pinned conditions differ are not compared (their
// figures would measure the difference in conditions, not in kernels) unless
// the caller allows it. regress builds on the same comparison.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/snapshot.h"
#include "report/tolerance.h"

namespace rb::report {

// Ordered by severity: the verdict of a group is the worst of its members.
enum class Verdict {
  kIdentical,  // every value equal
  kWithin,     // some value changed, every change within tolerance (or not checked)
  kBeyond,     // a change beyond tolerance, a value or series on one side only, or a status change
};
const char* to_string(Verdict v);  // "identical", "within tolerance", "beyond tolerance"

// Exit codes of `rtosbench diff` (docs/reports.md).
inline constexpr int kDiffIdentical = 0;
inline constexpr int kDiffWithin = 1;
inline constexpr int kDiffBeyond = 2;
inline constexpr int kDiffRefusedMixed = 3;
inline constexpr int kDiffNothingCompared =
    4;  // no job in common: an empty comparison is no verdict

struct MetricDiff {
  const MetricDef* def = nullptr;
  std::optional<double> a, b;  // absent: the statistic is missing on that side
  double delta = 0;            // b - a
  std::optional<double> pct;   // delta in percent of a; absent when a is 0 or missing
  Tolerance tolerance;
  Verdict verdict = Verdict::kIdentical;
  // Per load, when the job was repeated (`loads` in result.json).
  std::vector<double> a_loads, b_loads;
  // True when the change is beyond tolerance and in the direction that
  // makes the figure worse (regress calls this a regression).
  bool worse() const;
};

struct SeriesDiff {
  std::string phase, name, test;
  bool in_a = true, in_b = true;  // false: the series is on one side only
  // Not a measurement on this bench (either side's board says so), and why:
  // compared and shown, but its verdict does not count for the job's.
  std::string unjudged;
  std::vector<MetricDiff> metrics;
  Verdict verdict = Verdict::kIdentical;
  std::string key() const { return phase.empty() ? name : phase + "/" + name; }
};

struct ConditionMismatch {
  std::string key;  // pinned CONFIG key, or "hz" (counter frequency of a series)
  std::string a, b;
};

struct JobDiff {
  std::string id;
  std::string status_a, status_b;
  std::string unit;                           // of B (A's when B has none)
  std::vector<ConditionMismatch> mismatches;  // pinned conditions that differ
  bool refused = false;  // mismatches and mixed comparisons not allowed: not compared
  std::vector<SeriesDiff> series;
  Verdict verdict = Verdict::kIdentical;
  size_t loads_a = 0, loads_b = 0;
};

struct DiffOptions {
  bool allow_mixed = false;
};

struct DiffReport {
  std::string a_id, a_source, b_id, b_source;
  std::string tolerance_origin;
  bool allow_mixed = false;
  std::vector<JobDiff> jobs;                      // jobs in both runs, in B's order
  std::vector<std::string> only_in_a, only_in_b;  // jobs in one run only
  std::vector<std::string> unfinished_a, unfinished_b;
  Verdict verdict = Verdict::kIdentical;       // over the jobs compared and the one-sided ones
  bool refused = false;                        // some job refused for mixed conditions
  bool empty() const { return jobs.empty(); }  // no job in common: nothing was compared
};

// Compares every job of `b` with the job of the same id in `a`. Never fails:
// every difference is part of the report.
DiffReport diff_runs(const RunSnapshot& a, const RunSnapshot& b, const Tolerances& tolerances,
                     const DiffOptions& options);

// The pinned conditions (store::pinned_condition_keys()) both jobs state and that differ.
std::vector<ConditionMismatch> condition_mismatches(const JobSnapshot& a, const JobSnapshot& b);

// 4 when no job was in both runs, 3 when a job was refused for mixed
// conditions, else 0/1/2 by the verdict.
int exit_code(const DiffReport& report);

// The human-readable comparison: per job the rows that changed (every row
// with `all_rows`), jobs on one side only, refused jobs with the keys that
// differ, and a summary line.
std::string to_text(const DiffReport& report, bool all_rows);

nlohmann::json to_json(const DiffReport& report);

// "+21", "-3.50": a signed change as the reports print it.
std::string format_delta(const MetricDef& m, double delta);
// "+14.09%", "-", for an optional percentage.
std::string format_pct(const std::optional<double>& pct);

}  // namespace rb::report
