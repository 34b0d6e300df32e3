#pragma once
// The plan of a run, made before anything runs: the matrix's jobs, what an
// earlier session of the run directory already finished (resume marks: a
// job's result.json, a load's load.json), the images to build (one build
// node per build id, shared by the jobs that differ only in what the board
// does with it, and whether the node also builds the reference port's image
// for the kernel-alone footprint), and each job's loads. The Runner's
// workers execute it (runner.cpp).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "run/reproducibility.h"
#include "run/run_directory.h"
#include "store/result.h"

namespace rb::run {

struct LoadNode {
  int number = 0;                   // 0: the job is not repeated (its one load is the job)
  std::filesystem::path dir;        // where its attempts go: load-<K>/, or the job's directory
  std::optional<LoadOutcome> kept;  // final in an earlier session (load.json): not run again
};

inline constexpr size_t kNoBuild = static_cast<size_t>(-1);

struct JobNode {
  matrix::Job job;
  std::optional<store::JobResult> finished;  // kept from an earlier session: not run again
  size_t build = kNoBuild;                   // its build node; kNoBuild: finished, or no port
  std::vector<LoadNode> loads;               // in order; a failed load ends the job
};

struct BuildNode {
  std::string build_id;
  std::vector<size_t> jobs;  // the jobs flashing this image, in job order
  bool reference = false;    // also build the reference port's image (a kernel's image)
};

struct Plan {
  std::vector<JobNode> jobs;
  std::vector<BuildNode> builds;
  int loads_per_job = 1;  // the matrix's repeats
};

// The plan of `m` in `dir`: what is finished there is kept, a job whose
// result was not all kept (STORE_ERROR) is planned again.
Plan make_plan(const matrix::Matrix& m, const RunDirectory& dir);

}  // namespace rb::run
