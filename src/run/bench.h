#pragma once
// Where an attempt's image runs and where its serial lines come from: the
// bench. The runner drives every bench the same way (one lane per board
// worker, attempts retried and verified by the runner) and knows none of
// them; two implement it: a local bench (a flasher programs the board, a
// serial capture reads it; bench.cpp) and a LAVA farm (one LAVA job per
// attempt, the serial lines from its log; lava_bench.cpp, docs/lava.md).
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "lava/lava.h"
#include "matrix/model.h"
#include "probe/flasher.h"
#include "run/progress.h"
#include "serial/capture.h"
#include "store/result.h"
#include "util/process.h"

namespace rb::run {

// The parts a bench is made of, injected so that unit tests fake them; an
// empty member is the real thing (fill_real_bench_parts): the flasher of one
// board instance (one per board worker); the capture of one attempt, opened
// on the held target's port or stream, its bytes into `raw` (an error of
// kind kStore makes the attempt STORE_ERROR, any other PORT_ERROR); the REST
// API of a LAVA bench's server (the bench's `lava:`), whose error fails
// every attempt on its boards as PORT_ERROR.
struct BenchParts {
  std::function<std::unique_ptr<probe::Flasher>(const matrix::BoardInstance&)> flasher;
  std::function<Result<std::unique_ptr<serial::Capture>>(probe::TargetSession& target,
                                                         const matrix::BoardInstance& board,
                                                         const std::filesystem::path& raw)>
      capture;
  std::function<Result<std::unique_ptr<lava::Api>>(const matrix::LavaServer& server)> lava;
  // What starts the bench's logic analyzer (its `analyzer:`, run/analyzer.h):
  // sigrok-cli through this runner.
  ProcessRunner* analyzer_processes = nullptr;
};

// Sets every empty member to the real part: probe::make_flasher,
// serial::SerialCapture (QEMU's stream, else the tty once it appears),
// lava::make_http_api with lava::read_token, `processes` for the analyzer.
void fill_real_bench_parts(BenchParts& parts, ProcessRunner& processes);

// One attempt as the runner hands it to a lane; the lane fills `record`.
struct BenchAttempt {
  const matrix::Matrix& matrix;  // timeouts
  const matrix::Job& job;
  const matrix::BoardInstance& board;
  const std::map<std::string, std::string>& expect;  // the nonce among them
  std::filesystem::path dir;                         // attempt-N
  std::filesystem::path job_dir;
  std::function<void(const std::string&)> stage;  // the progress line's stage
  std::function<void(const std::string&)> log;    // a line in job.log
  store::AttemptRecord& record;
};

// The attempt's final status, unless the run was interrupted meanwhile.
void fail_attempt(store::AttemptRecord& a, store::JobStatus s, std::string reason);

// One board worker's hold on a board instance.
class BenchLane {
 public:
  virtual ~BenchLane() = default;
  virtual void new_job() {}  // its image is not on the board yet
  // The number of the next attempt in `base` (a load's or a job's
  // directory): the next free attempt-N, or the directory of an attempt an
  // earlier session left unfinished that this lane follows again.
  virtual int next_attempt(const std::filesystem::path& base);
  // Runs the job's image and writes its serial bytes to dir/capture.raw.
  // True when the capture reached END (the runner verifies it); otherwise
  // the record's status and reason say why not.
  virtual bool capture(BenchAttempt& a) = 0;
};

class Bench {
 public:
  virtual ~Bench() = default;
  // How many jobs one board instance runs at once, one lane each.
  virtual int lanes(const matrix::BoardInstance&) const { return 1; }
  virtual std::unique_ptr<BenchLane> lane(const matrix::BoardInstance& board) = 0;
};

// The bench a bench file describes, from `parts` (real ones filled in).
std::unique_ptr<Bench> make_bench(const matrix::Bench& bench, const BenchParts& parts,
                                  const Clock& clock);

// The LAVA bench (lava_bench.cpp): `api` the server's client, or why there
// is none; boards without `lava:` run on `local`.
std::unique_ptr<Bench> make_lava_bench(const matrix::LavaServer& server,
                                       Result<std::unique_ptr<lava::Api>> api,
                                       std::unique_ptr<Bench> local);

}  // namespace rb::run
