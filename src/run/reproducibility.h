#pragma once
// Repeated loads of one job (`repeats:` in the matrix, `run --repeat N`):
// each load is a cold start of the same image with its own attempts; the job
// is reproducible when, per series and statistic, the spread across the
// loads (max - min) stays within the reproducibility tolerance. On the
// emulated bench that tolerance is 0 unless the matrix says otherwise:
// QEMU -icount repeats to the instruction, so any difference is a defect.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "store/result.h"
#include "util/result.h"

namespace rb::run {

struct ReproducibilityPolicy {
  std::map<std::string, matrix::SpreadTolerance>
      per_statistic;   // every matrix::known_statistics() entry
  std::string origin;  // where the values came from, for the result and messages

  const matrix::SpreadTolerance& of(const std::string& statistic) const;
  nlohmann::json to_json() const;
};

// The matrix's `reproducibility:` (its `default` first, then per statistic)
// over the bench's default: identical (0) for a QEMU board instance, the
// defaults of `rtosbench diff` on hardware (docs/run.md).
ReproducibilityPolicy reproducibility_policy(const matrix::Matrix& m,
                                             const matrix::BoardInstance& board);

// The spread of every statistic of every series across the loads, judged.
struct SpreadVerdict {
  // [{phase, name, statistics: {median: {values, min, max, range, rel_pct,
  // allowed, within}, ...}}]; rel_pct is range / |min| in percent (null when
  // min is 0 and range is not).
  nlohmann::json spread = nlohmann::json::array();
  // [{series, statistic, min, max, range, rel_pct, allowed}] beyond
  // tolerance, plus {series, statistic: "present", ...} for a series that
  // only some loads have.
  nlohmann::json beyond = nlohmann::json::array();
  bool identical = true;     // every statistic equal in every load
  bool reproducible = true;  // nothing beyond tolerance
  std::string summary;       // one line for the job's reason and the table
};

// `load_series[i]` is load i+1's `series` array (result schema).
SpreadVerdict judge_loads(const std::vector<nlohmann::json>& load_series,
                          const ReproducibilityPolicy& policy);

// One load of a job: its attempts and, when its capture was verified, its
// figures. Written as `load-<K>/load.json` when the load reaches its final
// status and kept in the job result's `loads` array.
struct LoadOutcome {
  int load = 1;
  store::JobStatus status = store::JobStatus::kOk;
  std::string reason;
  std::vector<store::AttemptRecord> attempts;
  std::map<std::string, std::string> conditions;
  std::string unit;
  nlohmann::json series = nlohmann::json::array();
  nlohmann::json not_applicable = nlohmann::json::array();
  nlohmann::json verify = nullptr;
  std::vector<store::Headline> headline;
  double target_run_seconds = 0;  // of the final attempt
  std::string raw_sha256;         // of the final attempt's capture
  std::string finished_at;
};

nlohmann::json to_json(const LoadOutcome& l);
// Error names the field that is missing or mistyped.
Result<LoadOutcome> load_outcome_from_json(const nlohmann::json& j);

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
