#pragma once
// One attempt of a load on a LAVA bench (docs/lava.md): the image published,
// one LAVA job submitted (its id on disk, lava.json, before the wait), its
// state followed until it finishes (cancelled when the run is interrupted),
// its log fetched (lava-log.yaml) and the board's serial lines written to
// capture.raw, the outcome mapped onto the attempt's status. The runner then
// verifies capture.raw as for a local bench.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "lava/lava.h"
#include "matrix/model.h"
#include "store/result.h"

namespace rb::run {

// The jobs of a run on LAVA by state, for the progress line.
struct LavaCounts {
  std::atomic<int> queued{0}, running{0}, done{0};
  std::string text() const;  // "lava: 2 queued, 1 running, 5 done"
};

struct LavaAttempt {
  const matrix::Matrix& matrix;
  const matrix::LavaServer& server;
  const matrix::BoardInstance& board;
  std::string job_id;
  std::string nonce;
  std::filesystem::path elf;  // the job's image
  std::filesystem::path dir;  // the attempt directory
  // The job the attempt follows instead of submitting one (--resume of an
  // attempt whose process ended while LAVA still had it); 0: submit.
  int64_t adopt = 0;
  std::function<void(const std::string&)> stage;  // progress
  std::function<void(const std::string&)> log;    // job.log
  LavaCounts* counts = nullptr;
};

// The LAVA job id a killed earlier session left in `attempt_dir`
// (lava.json without attempt.json); 0 when none.
int64_t orphaned_lava_job(const std::filesystem::path& attempt_dir);

// Runs the attempt through `api`, filling `a`'s capture and lava fields.
// True when the capture reached END (the caller verifies it); otherwise
// a.status and a.reason are set (FLASH_ERROR, PORT_ERROR, TIMEOUT,
// STORE_ERROR, INTERRUPTED).
bool run_lava_attempt(lava::Api& api, const LavaAttempt& in, store::AttemptRecord& a);

}  // namespace rb::run
