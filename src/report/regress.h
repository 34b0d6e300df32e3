#pragma once
// `rtosbench regress --baseline RUN_OR_FILE RUN`: every statistic of the
// baseline checked against the run, in the direction that hurts (a latency
// that grew beyond tolerance is a regression; one that shrank is reported as
// an improvement and passes), plus every job that is missing or did not end
// OK. Rendered as text, JUnit XML (one test case per job and statistic) and a
// Markdown summary for CI.
#include <optional>
#include <string>
#include <vector>

#include "report/diff.h"
#include "report/snapshot.h"
#include "report/tolerance.h"

namespace rb::report {

// Exit codes of `rtosbench regress` (docs/reports.md).
inline constexpr int kRegressPass = 0;
inline constexpr int kRegressFail = 1;           // a regression, or a missing/invalid job
inline constexpr int kRegressRefusedMixed = 3;   // pinned conditions differ from the baseline's
inline constexpr int kRegressEmptyBaseline = 4;  // the baseline has no figures: nothing to check

enum class CaseOutcome {
  kPass,
  kImproved,    // better beyond tolerance: passes, but the baseline is stale
  kRegression,  // worse beyond tolerance, or a statistic/series that vanished
  kInvalid,     // the job is missing, unfinished or did not end OK
  kMixed,       // pinned conditions differ (a failure unless mixed comparisons are allowed)
  kSkipped,     // the baseline has no figures for this job (it did not end OK there)
  kNotJudged,   // a series the board declares it cannot measure or the bench moves
                // (RB_BOARD_NOT_MEASURED_*, RB_BOARD_UNSTABLE_*, as the runs recorded them):
                // shown with its values and why, neither a pass nor a failure
};
const char* to_string(CaseOutcome o);
bool is_failure(CaseOutcome o);

// One JUnit test case: a job's status/conditions, or one statistic of one series.
struct RegressCase {
  std::string job_id;
  std::string name;  // "status", "conditions", "<series>" or "<series>.<statistic>"
  CaseOutcome outcome = CaseOutcome::kPass;
  std::string message;  // one line: what and why
  std::string unit;     // ticks unit of the figures
  // For statistic cases.
  const MetricDef* def = nullptr;
  std::optional<double> baseline, current;
  double delta = 0;
  std::optional<double> pct;
  Tolerance tolerance;
};

struct RegressOptions {
  bool allow_mixed = false;
};

struct RegressReport {
  std::string baseline_id, baseline_source, run_id, run_source;
  std::string tolerance_origin;
  std::vector<RegressCase> cases;     // baseline job order
  std::vector<std::string> new_jobs;  // in the run, not in the baseline
  bool refused = false;               // some job's pinned conditions differ and that is not allowed

  bool empty_baseline = false;  // no job of the baseline ended OK with figures

  size_t count(CaseOutcome o) const;
  size_t failures() const;
};

// True when some job of the snapshot ended OK with figures: a baseline
// without one checks nothing.
bool has_figures(const RunSnapshot& snapshot);

// Checks `run` against `baseline`. Never fails: every problem is a case.
RegressReport regress(const RunSnapshot& baseline, const RunSnapshot& run,
                      const Tolerances& tolerances, const RegressOptions& options);

// 4 when the baseline has no figures, 3 when refused for mixed conditions,
// 1 when any case failed, else 0.
int exit_code(const RegressReport& report);

// JUnit XML: one <testsuite> per job, one <testcase> per status and
// statistic; a failure carries the baseline and current values.
std::string to_junit(const RegressReport& report);
// Markdown summary: verdict, counts, regressions, invalid jobs, improvements.
std::string to_markdown(const RegressReport& report);
// Terminal summary: failures and improvements, one line each, and the verdict.
std::string to_text(const RegressReport& report);

}  // namespace rb::report
