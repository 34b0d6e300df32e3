#pragma once
// The result files of a run (schema: docs/results.md). One result.json per
// job, written atomically when the job reaches its final status; run.json
// summarises the run. diff/regress/history/report read these files; the
// SQLite history (a later addition) imports them, it does not replace them.
#include "store/status.h"
#include "util/result.h"
#include "verify/verify.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace rb::store {

inline constexpr const char* kJobResultSchema = "rtosbench.job_result";
inline constexpr const char* kRunSummarySchema = "rtosbench.run";
inline constexpr int kSchemaVersion = 1;

// One flash + capture + verify cycle of a job on one board instance.
struct AttemptRecord {
  int number = 0;                     // 1-based, also the directory attempt-<number>
  int load = 0;                       // 1-based load of a repeated job (load-<load>/); 0 when not repeated
  JobStatus status = JobStatus::kOk;
  std::string reason;
  std::string board;                  // board instance id
  std::string started_at;             // UTC, ISO 8601
  double seconds = 0;                 // the whole attempt
  double flash_seconds = 0;           // program + verify
  std::vector<std::string> flash_commands;
  std::string serial_port;
  std::string capture_stop;           // end, overall_timeout, inactivity_timeout, port_error, interrupted; "" if none
  uint64_t capture_bytes = 0;
  uint64_t capture_lines = 0;
  double target_run_seconds = 0;      // release of the target to END (0 without END)
  std::string raw_file;               // relative to the job directory
  std::string raw_sha256;
  std::string verify_outcome;         // valid, invalid, protocol_error, unverified; "" if not verified
  nlohmann::json verdicts = nlohmann::json::array();  // [{check, severity, line, message}]
};

struct BuildAttemptRecord {
  int number = 0;
  bool ok = false;
  std::string reason;
  double seconds = 0;
  std::string log;  // relative to the job directory
};

// The median of one headline series, as the closing table shows it.
struct Headline {
  std::string name;   // wake_latency, api_overhead, round_trip, event_to_task
  std::string phase;  // "" or "idle"
  uint64_t median_ticks = 0;
  uint64_t median_ns = 0;
  std::string unit;   // "cycles" or "instructions" (CONFIG unit)
};

struct JobResult {
  std::string run_id;
  std::string job_id;
  std::string build_id;
  JobStatus status = JobStatus::kOk;
  std::string reason;                           // why, for every status but OK
  nlohmann::json job = nlohmann::json::object();            // requested conditions (matrix side)
  nlohmann::json kernel_source = nullptr;                   // resolved checkout(s)
  nlohmann::json toolchain = nullptr;
  nlohmann::json build = nullptr;                           // artifacts, footprint, cache
  std::vector<BuildAttemptRecord> build_attempts;
  std::map<std::string, std::string> expect;    // pins the capture was verified against
  std::vector<AttemptRecord> attempts;
  std::map<std::string, std::string> conditions;  // CONFIG of the final capture
  std::string unit;                               // CONFIG unit of the ticks
  nlohmann::json series = nlohmann::json::array();          // every statistic per series
  nlohmann::json not_applicable = nlohmann::json::array();  // [{name, reason}]
  nlohmann::json verify = nullptr;                          // verify::to_json of the final capture
  std::vector<Headline> headline;
  std::string finished_at;
  // Repeated jobs only (null otherwise; docs/results.md): one entry per load
  // ({load, status, reason, attempts, conditions, unit, series, headline,
  // ...}), the spread of every statistic across the loads, and the verdict
  // against the reproducibility tolerance. The job's own figures above are
  // load 1's.
  nlohmann::json loads = nullptr;
  nlohmann::json spread = nullptr;
  nlohmann::json reproducibility = nullptr;
};

nlohmann::json to_json(const JobResult& r);
// One attempt in the result schema (also a load's attempt list) and back;
// from_json throws std::exception on a missing or mistyped field.
nlohmann::json attempt_json(const AttemptRecord& a);
AttemptRecord attempt_from_json(const nlohmann::json& j);
// Error names the field that is missing or has the wrong type.
Result<JobResult> job_result_from_json(const nlohmann::json& j);

Status write_job_result(const std::filesystem::path& file, const JobResult& r);
Result<JobResult> read_job_result(const std::filesystem::path& file);

// Statistics of one series in the result schema (ticks and ns).
nlohmann::json series_json(const verify::SeriesStats& s);
// The headline medians present in a report.
std::vector<Headline> headline_of(const verify::Report& report);
// Verdicts of a report as [{check, severity, line, message}].
nlohmann::json verdicts_json(const verify::Report& report);

// floor(ticks * 1e9 / hz) in 128-bit arithmetic; 0 when hz is 0.
uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz);

// "2026-11-29T21:16:20Z"
std::string utc_timestamp();

}  // namespace rb::store
