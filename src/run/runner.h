#pragma once
// The orchestration of `rtosbench run`: kernels resolved and images built in
// parallel ahead of the boards, each board instance running one job at a
// time (flash, capture, verify, with retries per stage, every attempt kept;
// a repeated job once per load, judged for reproducibility), several board
// instances in parallel, results written atomically so an interrupted run
// can be resumed without redoing finished jobs or loads.
#include "build/firmware_builder.h"
#include "kernels/source.h"
#include "matrix/model.h"
#include "util/process.h"
#include "run/progress.h"
#include "run/run_directory.h"
#include "store/result.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace rb::run {

// Exit codes of `rtosbench run` (docs/run.md).
inline constexpr int kExitAllOk = 0;
inline constexpr int kExitMeasurementFailed = 1;     // INVALID, UNVERIFIED, PROTOCOL_ERROR, TIMEOUT, NOT_REPRODUCIBLE
inline constexpr int kExitInfrastructureFailed = 2;  // BUILD_ERROR, SOURCE_MISSING, FLASH_ERROR, PORT_ERROR
inline constexpr int kExitRefused = 69;              // toolchain pin differs, no board for the matrix, tool missing

struct RunConfig {
  matrix::Matrix matrix;
  matrix::Bench bench;
  kernels::ResolveOptions kernel_options;
  std::filesystem::path build_cache;
  build::Toolchain toolchain;
  int build_workers = 1;   // images built at the same time
  int build_parallel = 0;  // ninja -j per build; 0: ninja's default
  std::string original_matrix;  // path the user named (for run.json / resume)
  std::string original_bench;
};

struct RunOutcome {
  int exit_code = kExitAllOk;
  bool interrupted = false;
  std::vector<store::JobResult> results;  // every finished job (this session and earlier), in job order
  int jobs_total = 0;
  double wall_seconds = 0;                // this session
  double target_run_seconds = 0;          // sum over this session's final attempts: release to END
  nlohmann::json summary;                 // run.json as written
};

// The CONFIG pins a job's capture is verified against: the matrix's expect,
// then what the job itself fixes (nonce, port, board, opt, tick, fpu,
// kernel_version, kernel_commit, samples, warmup), then the kernel's own
// expect overrides (a null there removes a pin).
std::map<std::string, std::string> job_expect(const matrix::Matrix& m, const matrix::Job& job,
                                              const std::string& nonce, const std::string& kernel_commit);

// Error when the bench has no board instance for the matrix's board.
Status check_bench_covers(const matrix::Matrix& m, const matrix::Bench& bench);

// 0 when every job is OK or PORT_MISSING; 2 when any infrastructure failure;
// else 1 when any measurement failure; 130 when interrupted.
int exit_code_for(const std::vector<store::JobResult>& results, int jobs_total, bool interrupted);

// The closing table: job, status, the headline medians with units, the
// reason of a job that is not OK, the reproducibility verdict of a repeated
// job that is.
std::string format_table(const std::vector<store::JobResult>& results);

class Runner {
 public:
  Runner(ProcessRunner& processes, Progress& progress, const Clock& clock)
      : processes_(processes), progress_(progress), clock_(clock) {}
  // Runs every job of the matrix not yet finished in `dir`.
  RunOutcome run(const RunConfig& config, RunDirectory& dir);

 private:
  ProcessRunner& processes_;
  Progress& progress_;
  const Clock& clock_;
};

}  // namespace rb::run
