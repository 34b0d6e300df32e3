#pragma once
// What `rtosbench run` was asked for, made ready to run (docs/run.md): the
// matrix and bench loaded and checked, or for --resume taken from the run
// directory's snapshots with the first session's options; the bench checked
// against the matrix and the compiler against its pin; the run directory made
// or opened, locked, and its run.json written. The CLI only parses and prints.
#include <optional>
#include <string>
#include <vector>

#include "matrix/load.h"
#include "run/run_directory.h"
#include "run/runner.h"
#include "util/file_lock.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::run {

struct RunRequest {
  std::string matrix;  // --matrix (a new run)
  std::string bench;   // --bench; default: the matrix's `bench:` (new), the snapshot (resume)
  std::string out = "runs";
  std::string resume;                       // --resume DIR
  std::vector<std::string> kernel_sources;  // NAME=PATH
  std::string kernel_cache, build_cache, firmware;
  bool fetch = false, allow_other_commit = false;
  int build_jobs = 0;  // 0: cores, at most 4
  int repeat = 0;      // 0: the matrix's `repeats:`
  // --only / --exclude job-id globs; on --resume the first session's unless given.
  std::vector<std::string> only, exclude;
  // --sweep: a sweep of the matrix (`sweeps:`); on --resume the first session's.
  std::string sweep;
};

// The inputs of a run, before anything is made.
struct RunInputs {
  matrix::Matrix matrix;
  matrix::Bench bench;
  std::string original_matrix, original_bench;  // where they came from (run.json *.source)
  std::optional<RunDirectory> resumed;          // --resume: the opened run directory
};

// Loads the matrix and bench (or the resumed run's snapshots, filling the
// request's unset options from the first session's). On invalid input,
// every problem is in `diagnostics` and the error (kUsage, or kCannotRead
// when a named file cannot be read) says how many.
Result<RunInputs> load_inputs(RunRequest& req, std::vector<matrix::Diagnostic>& diagnostics);

// A run ready to start: the run directory is locked while this lives.
struct PreparedRun {
  RunConfig config;
  RunDirectory dir;
  FileLock lock;
  int jobs_total = 0;
  int done_before = 0;  // jobs finished in earlier sessions
  // --resume of a run whose last session was killed (run.json still in this
  // state): that session is now recorded as interrupted. "" otherwise.
  std::string unclosed_state;
};

// Checks the bench and toolchain (kUnavailable: refused), makes or opens and
// locks the run directory (kUnavailable naming the holder's pid when another
// run works in it), removes temporary folders of runs that are gone, and
// writes run.json (kStore when it cannot be written).
Result<PreparedRun> prepare_run(const RunRequest& req, RunInputs inputs, ProcessRunner& processes);

}  // namespace rb::run
