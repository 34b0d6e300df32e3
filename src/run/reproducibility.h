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
  std::string origin;      // where the values came from, for the result and messages
  model::BoardInfo board;  // its not_measured and unstable series are not judged

  const matrix::SpreadTolerance& of(const std::string& statistic) const;
};

// The matrix's `reproducibility:` (its `default` first, then per statistic)
// over the bench's default: identical (0) for a QEMU board instance, the
// defaults of `rtosbench diff` on hardware (docs/run.md).
ReproducibilityPolicy reproducibility_policy(const matrix::Matrix& m,
                                             const matrix::BoardInstance& board);

// One load of a job (`load-<K>/load.json`, and the result's `loads`).
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
