#pragma once
// Public face of `rtosbench verify`: stream a captured log, check it against
// docs/protocol.md and the caller's pins, re-derive every statistic from RAW.
// Memory is bounded by the largest series' samples, not by the file size.
#include "util/result.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rb::verify {

// Overall outcome; the order of precedence when several apply is
// ProtocolError > Invalid > Unverified > Valid.
enum class Outcome { kValid, kInvalid, kProtocolError, kUnverified };

// Process exit code of `rtosbench verify` for an outcome (docs/cli.md):
// 0 valid, 1 invalid measurement, 2 protocol/integrity error, 3 unverified.
int exit_code(Outcome o);
// "valid", "invalid", "protocol_error", "unverified".
const char* to_string(Outcome o);

struct Options {
  // CONFIG key -> value every log must carry (`--expect KEY=VALUE`).
  std::map<std::string, std::string> expect;
};

// The statistics of one series, re-derived from its RAW samples.
struct SeriesStats {
  std::string phase;  // empty outside a phase
  std::string name;
  uint64_t n = 0;
  uint64_t hz = 0;
  uint64_t min = 0, median = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  uint64_t sum = 0;
  uint64_t avg_ticks = 0;  // floor(sum / n)
  uint64_t avg_ns = 0;     // floor(sum * 1e9 / (n * hz))
  double mean = 0, stddev = 0, jitter = 0;  // jitter = p99 / median
  std::optional<uint64_t> base_ticks;        // ruler baseline, when reported
  bool has_raw = false;                      // false: RESULT without RAW
};

// One named check result, with the log line that offends (0 when none).
struct Verdict {
  std::string check;     // e.g. "phase_counters", "result_matches_raw", "crc"
  Outcome severity;      // what this verdict does to the outcome
  uint64_t line = 0;
  std::string message;
};

struct Report {
  Outcome outcome = Outcome::kValid;
  std::string protocol;                        // RTOS_BENCH_V1 / RTOS_BENCH_V2
  bool integrity_checked = false;              // false for V1 logs
  std::map<std::string, std::string> config;   // every CONFIG key seen
  std::vector<SeriesStats> series;             // in log order
  std::vector<Verdict> verdicts;               // every failed or notable check
  std::vector<std::pair<std::string, std::string>> not_applicable;  // NA name, reason
  uint64_t lines = 0, protocol_lines = 0, other_lines = 0, overlong_lines = 0;
};

// Reads the stream to its end. Never throws on bad content: every problem
// is a Verdict.
Report verify_stream(std::istream& in, const Options& options);

// Error only when the path cannot be read (missing, directory, permission).
Result<Report> verify_file(const std::filesystem::path& path, const Options& options);

nlohmann::json to_json(const Report& report);

}  // namespace rb::verify
