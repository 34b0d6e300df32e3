#pragma once
// The orchestration of `rtosbench run`: kernels resolved and images built in
// parallel ahead of the boards, each board instance running one job at a
// time (flash, capture, verify, with retries per stage, every attempt kept;
// a repeated job once per load, judged for reproducibility), several board
// instances in parallel, results written atomically so an interrupted run
// can be resumed without redoing finished jobs or loads.
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "build/firmware_builder.h"
#include "kernels/source.h"
#include "matrix/model.h"
#include "run/bench.h"
#include "run/run_directory.h"
#include "verify/verify.h"

namespace rb::run {

// Exit codes of `rtosbench run` (docs/run.md): 1 for INVALID, UNVERIFIED,
// PROTOCOL_ERROR, TIMEOUT, NOT_REPRODUCIBLE; 2 for BUILD_ERROR,
// SOURCE_MISSING, FLASH_ERROR, PORT_ERROR, ANALYZER_MISSING,
// ANALYZER_OVERFLOW; 74 for STORE_ERROR or run.json
// not written (the run did not keep it).
inline constexpr int kExitAllOk = 0;
inline constexpr int kExitMeasurementFailed = 1;
inline constexpr int kExitInfrastructureFailed = 2;
inline constexpr int kExitStoreFailed = 74;

struct RunConfig {
  matrix::Matrix matrix;
  matrix::Bench bench;
  kernels::ResolveOptions kernel_options;
  std::filesystem::path build_cache;
  build::Toolchain toolchain;
  int build_workers = 1;        // images built at the same time
  int build_parallel = 0;       // ninja -j per build; 0: ninja's default
  std::string original_matrix;  // path the user named (for run.json / resume)
  std::string original_bench;
};

struct RunOutcome {
  int exit_code = kExitAllOk;
  bool interrupted = false;
  std::string store_error;  // why run.json (or the last of it) was not written; "" when it was
  // Every finished job (this session and earlier), in job order.
  std::vector<store::JobResult> results;
  int jobs_total = 0;
  double wall_seconds = 0;        // this session
  double target_run_seconds = 0;  // sum over this session's final attempts: release to END
  nlohmann::json summary;         // run.json as written
};

// The CONFIG pins a job's capture is verified against: the matrix's expect,
// then what the job itself fixes (nonce, port, board, opt, tick, fpu,
// kernel_version, kernel_commit, samples, warmup), then the kernel's own
// expect overrides (a null there removes a pin).
std::map<std::string, std::string> job_expect(const matrix::Matrix& m, const matrix::Job& job,
                                              const std::string& nonce,
                                              const std::string& kernel_commit);

// What the bench fixes, unless the matrix pins it otherwise: the start
// handshake (`start=host`) and, on a real board, the console's rate and the
// reset cause its release leaves in RCC_CSR (system reset: sw, nRST: pin,
// power cycle: por).
void add_bench_pins(std::map<std::string, std::string>& pins, const matrix::BoardInstance& b);

// 74 when a job is STORE_ERROR; else 130 when interrupted; else 2 when any
// infrastructure failure; else 1 when any measurement failure; else 0 (every
// job OK or PORT_MISSING).
int exit_code_for(const std::vector<store::JobResult>& results, int jobs_total, bool interrupted);

// The closing table: job, status, the headline medians net of their ruler
// baselines (raw, marked `*`, where a series has none) with units, the
// reason of a job that is not OK, the reproducibility verdict of a repeated
// job that is.
std::string format_table(const std::vector<store::JobResult>& results);

// The outside world of a run, injected so that unit tests drive every
// status transition with fakes: the bench's parts (run/bench.h), the check
// of a capture (verify::verify_file) and the builder over a build cache
// (build::CmakeBuilder). An empty member is the real thing.
struct RunnerParts : BenchParts {
  std::function<Result<verify::Report>(const std::filesystem::path& raw,
                                       const verify::Options& options)>
      verify;
  std::function<std::unique_ptr<build::FirmwareBuilder>(const std::filesystem::path& cache)>
      builder;
};

class Runner {
 public:
  Runner(ProcessRunner& processes, Progress& progress, const Clock& clock, RunnerParts parts = {});
  // Runs every job of the matrix not yet finished in `dir` (its plan: run/plan.h).
  RunOutcome run(const RunConfig& config, RunDirectory& dir);

 private:
  ProcessRunner& processes_;
  Progress& progress_;
  const Clock& clock_;
  RunnerParts parts_;
};

}  // namespace rb::run
