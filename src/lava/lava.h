#pragma once
// A LAVA server as a bench (docs/lava.md): the job definition of one load
// (deploy the published image, boot it by the device type's method, answer
// the firmware's banner with the start line, monitor from BEGIN to END), the
// REST API v0.2 (submit, state, log, cancel) over libcurl, the job log's
// serial lines, and what a finished job's state means.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "util/result.h"

namespace rb::lava {

// GET /api/v0.2/jobs/N/ (the fields rtosbench reads).
struct JobState {
  int64_t id = 0;
  std::string state;   // Submitted, Scheduling, Scheduled, Running, Canceling, Finished
  std::string health;  // Unknown, Complete, Incomplete, Canceled
  std::string device;  // actual_device, once scheduled
  std::string failure_comment;
  bool finished() const { return state == "Finished"; }
  bool queued() const {
    return state == "Submitted" || state == "Scheduling" || state == "Scheduled";
  }
};

// The REST API of one server; HttpApi is the real one, tests substitute fakes.
class Api {
 public:
  virtual ~Api() = default;
  // POST /api/v0.2/jobs/ {"definition": yaml}: the job id.
  virtual Result<int64_t> submit(const std::string& definition) = 0;
  virtual Result<JobState> state(int64_t id) = 0;
  virtual Result<std::string> log(int64_t id) = 0;    // .../jobs/N/logs/: YAML, byte for byte
  virtual Status cancel(int64_t id) = 0;              // POST .../jobs/N/cancel/
  virtual std::string job_url(int64_t id) const = 0;  // for people: <url>scheduler/job/N
};

// The REST token for the bench's lava.url, bound to its host: the line
// `HOST TOKEN` whose HOST is the URL's host[:port], in the RTOSBENCH_LAVA_*
// variable the bench's token_env names, else in rtosbench's token file
// ($RTOSBENCH_LAVA_TOKEN_FILE, else $XDG_CONFIG_HOME/rtosbench/lava-tokens,
// else ~/.config/rtosbench/lava-tokens: the user's, never a bench file's).
// A token without its host is refused. The error (kUnavailable,
// kCannotRead) names where it looked, never a token.
Result<std::string> read_token(const matrix::LavaServer& server);

// libcurl behind Api; every request times out after `timeout`.
std::unique_ptr<Api> make_http_api(const matrix::LavaServer& server, std::string token,
                                   std::chrono::seconds timeout = std::chrono::seconds(60));

// Copies `elf` into the publish directory as <sha256>.elf (atomically; an
// image already there is kept) and returns the URL the workers fetch it by.
Result<std::string> publish(const matrix::LavaServer& server, const std::filesystem::path& elf);

struct JobRequest {
  std::string name;       // job_name
  std::string image_url;  // what publish() returned
  std::string nonce;      // the image's nonce: the start line is "START <nonce>"
  matrix::BoardInstance board;
  double deploy_s = 120;   // deploy + boot (the matrix's flash timeout)
  double capture_s = 600;  // the test: banner to END (the matrix's capture timeout)
};

// The job definition (YAML): deploy to tmpfs, boot by board.lava->boot
// (qemu: the machine and extra arguments of the bench's qemu entry in the
// device type's context), an interactive test that waits for the banner and
// sends the start line, a monitor from BEGIN to END.
std::string job_definition(const JobRequest& request);

// What a job's log holds for rtosbench.
struct ParsedLog {
  // The board's serial lines in order (`lvl: target`, and the `feedback`
  // lines LAVA logs when the monitor stops), each without its line end,
  // up to and including the first END line.
  std::vector<std::string> serial;
  bool end_seen = false;
  bool begin_seen = false;
  double seconds_to_end = 0;  // first serial line to the END line (the log's timestamps)
  double seconds_to_begin = -1;
  // The job's own result (`definition: lava, case: job`): error type
  // (Infrastructure, Job, Test, Bug, Configuration, LAVATimeout) and message.
  std::string error_type, error_msg;
  // The first failed action's level's leading number (1 deploy, 2 boot, 3
  // start, 4 monitor), 0 when none failed.
  int failed_action = 0;
  std::string failed_case;
};

// Parses GET /api/v0.2/jobs/N/logs/ (a YAML list of {dt, lvl, msg}).
// Error (kBadInput) when it is not such a list.
Result<ParsedLog> parse_log(const std::string& yaml);

// The serial lines as the capture file holds them: each line and "\n".
std::string raw_capture(const ParsedLog& log);

// What a finished job means for the attempt.
enum class Outcome {
  kCaptured,    // END arrived: verify the capture
  kFlashError,  // deploy or boot failed (the image never ran)
  kPortError,   // an infrastructure or job error after boot, or a job canceled on the server
  kTimeout,     // a LAVA timeout (the job's, an action's, the monitor's)
};
struct Classified {
  Outcome outcome = Outcome::kCaptured;
  std::string reason;  // LAVA's failure comment and error type, with the job id
};
Classified classify(const JobState& state, const ParsedLog& log);

}  // namespace rb::lava
