#pragma once
// Repeated loads of one job (`repeats:` in the matrix, `run --repeat N`):
// each load is a cold start of the same image with its own attempts; the job
// is reproducible when, per series and statistic, the spread across the
// loads (max - min) stays within the reproducibility tolerance. On the
// emulated bench that tolerance is 0 unless the matrix says otherwise:
// QEMU -icount repeats to the instruction, so any difference is a defect.
#include <map>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "store/result.h"
#include "util/result.h"

namespace rb::run {

struct ReproducibilityPolicy {
  std::map<std::string, matrix::SpreadTolerance> per_statistic;  // every model::statistics() entry
  std::string origin;  // where the values came from, for the result and messages
  // The board's declarations as the run records them: its not_measured and
  // unstable series are not judged (BoardInfo::unjudged_reason).
  model::BoardInfo board;

  const matrix::SpreadTolerance& of(const std::string& statistic) const;
  // The result's `reproducibility` with only `loads` and `tolerance` filled.
  store::Reproducibility verdict_base(int loads) const;
};

// The matrix's `reproducibility:` (its `default` first, then per statistic)
// over the bench's default: identical (0) for a QEMU board instance, the
// defaults of `rtosbench diff` on hardware (docs/run.md).
ReproducibilityPolicy reproducibility_policy(const matrix::Matrix& m,
                                             const matrix::BoardInstance& board);

// The spread of every statistic of every series across the loads, judged.
struct SpreadVerdict {
  // Per series: every statistic's values, min, max, range, rel_pct (range /
  // |min| in percent, null when min is 0 and range is not), allowed, within.
  std::vector<store::SeriesSpread> spread;
  // Every statistic beyond tolerance, plus {series, statistic: "present",
  // missing_in_loads} for a series that only some loads have.
  std::vector<store::BeyondTolerance> beyond;
  bool identical = true;     // every judged statistic equal in every load
  bool reproducible = true;  // nothing judged beyond tolerance
  // Series the board's unjudged_reason exempts that differed between loads:
  // "<key> (<reason>)"; named in the summary.
  std::vector<std::string> unjudged;
  std::string summary;  // one line for the job's reason and the table
};

// `load_series[i]` is load i+1's series.
SpreadVerdict judge_loads(const std::vector<std::vector<store::SeriesRecord>>& load_series,
                          const ReproducibilityPolicy& policy);

// One load of a job: its attempts and, when its capture was verified, its
// figures. Written as `load-<K>/load.json` when the load reaches its final
// status and kept in the job result's `loads` array.
using LoadOutcome = store::LoadRecord;

// Fills the job's status, reason, attempts and figures from its loads, in
// load order. One load (not repeated): that load is the job. Several: the
// job's figures are load 1's; a load that is not OK decides the status
// (the first infrastructure failure, else the first failure; the reason
// says which load); when every load is OK, the spread is judged and a job
// beyond tolerance is NOT_REPRODUCIBLE; `loads`, `spread` and
// `reproducibility` are set. `planned` is the number of loads asked for.
void fill_from_loads(store::JobResult& r, const std::vector<LoadOutcome>& loads, int planned,
                     const ReproducibilityPolicy& policy);

}  // namespace rb::run
