#pragma once
// Public face of `rtosbench verify`: stream a captured log, check it against
// docs/protocol.md and the caller's pins, re-derive every statistic from RAW.
// Memory is bounded by the largest series' samples, not by the file size.
// docs/verify.md lists every check, its verdict name and its exit code.
#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/lower_bound.h"
#include "util/result.h"

namespace rb::verify {

// Overall outcome; the order of precedence when several apply is
// ProtocolError > Invalid > Unverified > Valid.
enum class Outcome { kValid, kInvalid, kProtocolError, kUnverified };

// Process exit code of `rtosbench verify` for an outcome (docs/verify.md):
// 0 valid, 1 invalid measurement, 2 protocol/integrity error, 3 unverified.
int exit_code(Outcome o);
// "valid", "invalid", "protocol_error", "unverified".
const char* to_string(Outcome o);
// The more severe of two outcomes, by the precedence above.
Outcome worst(Outcome a, Outcome b);

struct Options {
  // CONFIG key -> value every log must carry (`--expect KEY=VALUE`).
  std::map<std::string, std::string> expect;
  // The smallest stack margin a run may leave: END stack_min_free_words (the
  // harness' high-water mark over every task stack, in 32-bit words) below it
  // is the verdict stack_margin (invalid). 0 turns the check off.
  uint64_t stack_margin_words = 64;
  // At most this many verdicts are kept per check name; the rest are counted
  // in Report::suppressed (memory stays bounded on a log of garbage).
  size_t max_verdicts_per_check = 50;
  // At most this many samples are held one by one by the open series
  // together (those outside each series' histogram band): 4 Mi, 32 MiB. Past
  // it the series is refused (verdict sample_limit), so memory does not grow
  // with the input. Exact percentiles need every distinct value, so the
  // limit refuses; it never approximates.
  uint64_t max_stored_samples = uint64_t{1} << 22;
  // Size of the read buffer; large buffers make big files fast.
  size_t read_buffer = size_t{1} << 20;
  // Series -> the ruler series its RESULT must name as base= ("" none), from
  // the harness test table (catalog::Catalog::series_baselines). A series
  // not listed is checked only for a baseline of the right value.
  std::map<std::string, std::string> baselines;
  // Series name -> the board's architectural lower bound of it in core
  // cycles (RB_BOARD_LOWER_BOUND_<series>; `--lower-bound SERIES=CYCLES`).
  // A series (any phase) whose smallest sample is below it is the verdict
  // lower_bound (invalid: the ruler is broken). Converted to the series'
  // ticks when its hz differs from CONFIG core.
  std::map<std::string, model::LowerBound> lower_bounds;
};

// The statistics of one series, re-derived from its RAW samples.
struct SeriesStats {
  std::string phase;  // empty outside a phase
  std::string name;
  uint64_t n = 0;
  uint64_t hz = 0;
  uint64_t min = 0, median = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  uint64_t sum = 0;
  uint64_t avg_ticks = 0;                   // floor(sum / n)
  uint64_t avg_ns = 0;                      // floor(sum * 1e9 / (n * hz))
  double mean = 0, stddev = 0, jitter = 0;  // jitter = p99 / median (NaN when median is 0)
  std::optional<uint64_t> base_ticks;       // ruler baseline, when reported
  // The series base_ticks is the median of (RESULT field base=; "ruler_loop"
  // when base_ticks comes without it, as in logs before base=). Empty without
  // base_ticks.
  std::string base;
  bool has_raw = false;  // false: RESULT without RAW (or RAW broken)
  // The heap test's allocations (RESULT calls=, refused=): every call the
  // series' pattern made, warm-up included, and those the kernel refused
  // (their times not kept). Both or neither.
  std::optional<uint64_t> calls, refused;

  // Extensions.
  std::string test;          // the TEST the series belongs to (empty in V1)
  bool has_result = false;   // false: RAW without its RESULT line
  uint64_t raw_line = 0;     // first RAW line (0 when none)
  uint64_t result_line = 0;  // the RESULT line (0 when none)
  // The RESULT's fields as the firmware wrote them, in order. When has_raw is
  // false these are the only figures there are.
  std::vector<std::pair<std::string, std::string>> reported;
  // RESULT keys this reader does not know: kept, reported, not checked.
  std::vector<std::string> not_checked;
};

// One named check result, with the log line that offends (0 when none).
struct Verdict {
  std::string check;  // e.g. "phase_counters", "result_matches_raw", "crc"
  Outcome severity;   // what this verdict does to the outcome (kValid: a note)
  uint64_t line = 0;
  std::string message;
};

// Phase critical of irq_latency (docs/protocol.md, "irq_latency"): how one
// series of the phase fares against the masking window, re-derived from RAW.
struct DelayFigures {
  std::string series;    // irq_entry or event_to_task
  uint64_t limit = 0;    // the busy phase's maximum of the series (from its RAW)
  uint64_t n = 0;        // samples of the series in this phase
  uint64_t delayed = 0;  // samples above `limit`
  uint64_t worst = 0;    // the phase's maximum
  uint64_t beyond = 0;   // worst - window, 0 when not above
};

// A PHASE line and its counters as written.
struct PhaseCounters {
  std::string test, name;
  uint64_t irq = 0, task = 0, bad = 0;
  std::string status;
  std::optional<uint64_t> expected;
  uint64_t line = 0;
  // Phase critical: the masking window in event-timer ticks (PHASE window=)
  // and the delay figures of irq_entry and event_to_task re-derived from RAW
  // (the PHASE line's entry_*/task_* fields must equal them).
  std::optional<uint64_t> window;
  std::vector<DelayFigures> delay;
};

// A CHECK line (a correctness check counted per round).
struct CheckOutcome {
  std::string test, name;
  uint64_t rounds = 0, pass = 0, fail = 0;
  std::string status;
  uint64_t line = 0;
};

struct Report {
  Outcome outcome = Outcome::kValid;
  std::string protocol;                                             // RTOS_BENCH_V1 / RTOS_BENCH_V2
  bool integrity_checked = false;                                   // false for V1 logs
  std::map<std::string, std::string> config;                        // every CONFIG key seen
  std::vector<SeriesStats> series;                                  // in log order
  std::vector<Verdict> verdicts;                                    // every failed or notable check
  std::vector<std::pair<std::string, std::string>> not_applicable;  // NA name, reason
  uint64_t lines = 0, protocol_lines = 0, other_lines = 0, overlong_lines = 0;

  // Extensions.
  std::string source;                     // the path or stream name verified
  uint64_t bytes = 0;                     // bytes read
  std::string unit;                       // "cycles", "instructions" or "ticks" (unknown)
  std::optional<uint64_t> dwt_read_pair;  // DWT_READ_PAIR ticks
  std::vector<std::string> tests;         // TEST names in order
  std::vector<PhaseCounters> phases;
  std::vector<CheckOutcome> checks;
  std::vector<uint64_t> not_applicable_lines;     // line of each not_applicable entry
  std::map<std::string, std::string> end_fields;  // END's key=value fields
  std::map<std::string, uint64_t> suppressed;     // check -> verdicts beyond the cap
  uint64_t control_lines = 0;                     // lines holding NUL or other control bytes
};

// Checks a log fed line by line, as it arrives (a growing capture) or from a
// file. Bounded memory: the samples of the series open at one time, a capped
// number of verdicts, and the per-series summaries.
class LogChecker {
 public:
  explicit LogChecker(Options options);
  ~LogChecker();
  LogChecker(const LogChecker&) = delete;
  LogChecker& operator=(const LogChecker&) = delete;

  // One line as the LineReader split it: its text (without line end), its
  // 1-based number, and the reader's flags.
  void add_line(std::string_view text, uint64_t number, bool overlong, bool control,
                bool terminated);
  // Records that the input could not be read to its end.
  void add_read_error(const std::string& message);
  // Ends the log: closes open phases, applies whole-log checks, returns the
  // report. The checker must not be used afterwards.
  Report finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The unit of a series' values: the counter's (`counter_unit`: cycles,
// instructions or ticks) for a time, else what the series counts. The heap
// test's per-round series (firmware/harness/tests/heap.c) are bytes
// (heap_free_bytes, heap_largest_free) and per-mille (heap_frag_permille,
// heap_alloc_ok_permille).
std::string series_unit(const std::string& series, const std::string& counter_unit);

// Reads the stream to its end. Never throws on bad content: every problem
// is a Verdict.
Report verify_stream(std::istream& in, const Options& options);

// Error (ErrorKind::kCannotRead) only when the path cannot be read
// (missing, directory, permission, or a read error part-way).
Result<Report> verify_file(const std::filesystem::path& path, const Options& options);

// What `rtosbench verify LOG` reads: the file LOG, or standard input when LOG
// is "-". Besides verify_file's errors: a closed standard input cannot be
// read (kCannotRead), and an input without a single byte is no capture at
// all (kBadInput), not a log that failed its checks.
Result<Report> verify_log(const std::string& log, const Options& options);

nlohmann::json to_json(const Report& report);

// The human-readable report: a table per series (ticks and ns, and net
// values where a baseline exists) and the list of verdicts with line numbers.
std::string to_text(const Report& report);

}  // namespace rb::verify
