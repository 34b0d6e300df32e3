#pragma once
// One directory per run (docs/run.md):
//   run.json                     summary, rewritten atomically as jobs finish
//   matrix.yaml, bench.yaml      snapshots of the inputs
//   builds/<build-id>/attempt-N/build.log
//   builds/<build-id>/bare-reference/  build.log, size.json, rtosbench-fw.map of the bare
//                                image a kernel image is compared with (build.footprint_kernel)
//   jobs/<job-id>/result.json    written once, atomically, at the job's final status
//   jobs/<job-id>/firmware/      rtosbench-fw.elf, .map, .bin, size.json
//   jobs/<job-id>/build.log      the log of the build that produced the image
//   jobs/<job-id>/attempt-N/     flash.log, qemu.log, capture.raw, verify.json, attempt.json
//   jobs/<job-id>/load-K/        a repeated job's load K: load.json, attempt-N/ as above
//   run.lock                     flock'ed by the process working in the run; holds its pid
// A job is finished exactly when its result.json exists and parses.
#include <fmt/core.h>

#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "store/result.h"
#include "util/file_lock.h"
#include "util/result.h"

namespace rb::run {

class RunDirectory {
 public:
  // Creates <out>/<UTC time>-<matrix name>-<6 random hex digits> and snapshots both inputs.
  static Result<RunDirectory> create(const std::filesystem::path& out,
                                     const std::string& matrix_name,
                                     const std::filesystem::path& matrix_file,
                                     const std::filesystem::path& bench_file);
  // Opens an existing run for --resume; error when run.json is missing or unreadable.
  static Result<RunDirectory> open(const std::filesystem::path& dir);

  RunDirectory(RunDirectory&& other) noexcept
      : root_(std::move(other.root_)),
        id_(std::move(other.id_)),
        summary_(std::move(other.summary_)) {}

  const std::filesystem::path& root() const { return root_; }
  const std::string& id() const { return id_; }
  std::filesystem::path matrix_snapshot() const { return root_ / "matrix.yaml"; }
  std::filesystem::path bench_snapshot() const { return root_ / "bench.yaml"; }
  std::filesystem::path job_dir(const std::string& job) const { return root_ / "jobs" / job; }
  std::filesystem::path result_file(const std::string& job) const {
    return job_dir(job) / "result.json";
  }
  std::filesystem::path build_attempt_dir(const std::string& build_id, int n) const {
    return root_ / "builds" / build_id / fmt::format("attempt-{}", n);
  }
  std::filesystem::path bare_reference_dir(const std::string& build_id) const {
    return root_ / "builds" / build_id / "bare-reference";
  }
  std::filesystem::path attempt_dir(const std::string& job, int n) const {
    return job_dir(job) / fmt::format("attempt-{}", n);
  }
  std::filesystem::path load_dir(const std::string& job, int load) const {
    return job_dir(job) / fmt::format("load-{}", load);
  }
  // 1 + the highest attempt-N directory in `dir` (a job, load or build directory).
  static int next_attempt_in(const std::filesystem::path& dir);
  int next_attempt(const std::string& job) const { return next_attempt_in(job_dir(job)); }
  int next_build_attempt(const std::string& build_id) const {
    return next_attempt_in(root_ / "builds" / build_id);
  }

  // Locks the run for this process (run.lock) until the lock is dropped:
  // error kUnavailable naming the holder's pid when another run or resume
  // works in it.
  Result<FileLock> lock() const;

  std::set<std::string> finished_jobs() const;

  // When run.json says a session is still "starting" or "running" (it was
  // killed: no one holds the lock), records that session in `sessions` as
  // interrupted, with a note, and the run's state as "interrupted". Returns
  // the state found when it did so, "" when the last session was closed.
  Result<std::string> close_unclosed_session();

  nlohmann::json summary() const;  // as last written
  // Replaces run.json atomically. Thread-safe.
  Status write_summary(const nlohmann::json& summary);

 private:
  RunDirectory(std::filesystem::path root, std::string id)
      : root_(std::move(root)), id_(std::move(id)) {}
  std::filesystem::path root_;
  std::string id_;
  nlohmann::json summary_;
  mutable std::mutex mu_;
};

}  // namespace rb::run
