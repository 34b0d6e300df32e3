#pragma once
// The result files of a run (schema: docs/results.md), as C++ types. One
// result.json per job, written atomically when the job reaches its final
// status; run.json summarises the run. diff/regress/history/report read these
// files through these types; the SQLite history imports them, it does not
// replace them.
//
// The serializers are nlohmann's type macros (the simple types' below, the
// others' in result.cpp), so `json(x)` works. The readers check a document
// against its JSON Schema (docs/schema/result.schema.json) first and report
// the first bad member by its path ("series[2].n: must be an integer in [0,
// -], got -5") as an ErrorKind::kBadInput error. A missing member takes its
// default (members are only ever added within a schema version).
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/status.h"
#include "util/result.h"
#include "verify/verify.h"

namespace rb::store {

inline constexpr const char* kJobResultSchema = "rtosbench.job_result";
inline constexpr const char* kRunSummarySchema = "rtosbench.run";
inline constexpr int kSchemaVersion = 1;

// ---- the job: what the matrix asked for --------------------------------------

// One item of the kernel's declared unequal work (kernel.yaml `unequal:`), as
// the port declared it when the run was made: reports read it from the
// record, never from today's tree.
struct UnequalRecord {
  std::string what;
  std::vector<std::string> series;  // "*": every series; empty: none
  std::string note;
  bool affects(const std::string& series_name) const;
};

struct JobSpec {
  std::string id, build_id;
  std::string kernel, kernel_version, kernel_git, kernel_tag, kernel_pinned_commit, kernel_note;
  std::string port, board;
  // Every variant axis (model::axes()) -> its value as text. Results written
  // before the table (schema 1 without `variant`) had opt, tick_hz and
  // fpu_context alone; they are read into it.
  std::map<std::string, std::string> variant;
  std::string opt_id;
  int64_t repeats = 1;
  std::vector<std::string> tests;
  int64_t samples = 0, warmup = 0;
  // The kernel's declared unequal work; empty for a kernel that declares none
  // and in results older than the field (docs/results.md, "job").
  std::vector<UnequalRecord> unequal;
  // The axis' value, or "" when the job has none recorded.
  std::string axis(const std::string& key) const {
    auto it = variant.find(key);
    return it == variant.end() ? "" : it->second;
  }
};

// What the board declared when the run was made (board.cmake): reports,
// diff and regress read these from the record, never from today's tree.
struct LowerBoundRecord {
  uint64_t cycles = 0;  // core cycles
  std::string why;
};
struct BoardRecord {
  std::string name;
  std::map<std::string, std::string> not_measured;  // series -> why no measurement
  std::map<std::string, std::string> unstable;      // series -> why the bench moves it
  // series -> its architectural lower bound (RB_BOARD_LOWER_BOUND_*), as
  // verify checked the capture against it; empty on a board without any
  // (the emulated one) and in results older than the field.
  std::map<std::string, LowerBoundRecord> lower_bounds;
  std::string unjudged_reason(const std::string& series) const;
};

// One checkout (the kernel's, or one of its extras).
struct SourceCheckout {
  std::string name, path, origin, tag, pinned_commit, commit;
  bool at_tag = true, dirty = false;
  std::string note;
};

struct KernelSource {
  bool has_source = false;
  SourceCheckout main;                 // only with has_source
  std::vector<SourceCheckout> extras;  // only with has_source
};

struct Toolchain {
  std::string arm_none_eabi_gcc, arm_none_eabi_gcc_banner, cmake, ninja;
  // The compiler's file (links resolved) and its SHA-256, and cc1's; empty in
  // results older than the fields and when the file could not be read.
  std::string arm_none_eabi_gcc_path, arm_none_eabi_gcc_sha256, cc1_path, cc1_sha256;
};

// ---- the image ---------------------------------------------------------------

struct Sections {  // {text, data, bss, flash, ram}
  int64_t text = 0, data = 0, bss = 0, flash = 0, ram = 0;
};
struct FlashRam {  // {flash, ram}
  int64_t flash = 0, ram = 0;
};

// build.footprint_kernel: the kernel alone against the reference port's
// image (bare), or why it could not be computed (`error` set, the figures
// absent). The `bare*` names are the reference image's, kept from when it
// was always the bare port.
struct KernelFootprint {
  std::string error;  // empty: the figures below are valid
  std::string port, board;
  // The reference image's port, with or without an error; empty in results
  // written before it was recorded.
  std::string reference;
  FlashRam image, bare, delta, libs, startup;
  Sections kernel, kernel_support, port_glue, bare_port;
  std::string bare_key;
  std::optional<bool> bare_cached;  // absent when the bare image was not built
  std::string bare_log;
};

// build.contract: what the image contract (kernel.yaml `contract:`) checked
// on the image: symbol and configuration rules compared, rule groups not for
// the variant, the configuration files read. Absent: the kernel has none.
struct ContractRecord {
  int64_t symbols = 0, config = 0, skipped = 0;
  std::vector<std::string> files;
};

struct BuildRecord {
  bool cached = false, cacheable = true;
  std::string key, nonce;
  std::string elf, map, bin, log;
  std::string elf_sha256, map_sha256;
  std::string bin_sha256;  // the flashed image; empty in results older than the field
  std::optional<Sections> footprint;
  std::optional<KernelFootprint> footprint_kernel;  // absent for a bare-port job
  std::optional<ContractRecord> contract;
  std::map<std::string, std::string> defines;
  double seconds = 0;
  std::string built_at;
};

struct BuildAttemptRecord {
  int64_t number = 0;
  bool ok = false;
  std::string reason;
  double seconds = 0;
  std::string log;  // relative to the job directory
};

// ---- attempts ------------------------------------------------------------------

struct VerdictRecord {
  std::string check, severity;  // severity: an outcome string
  uint64_t line = 0;
  std::string message;
};

// One flash + capture + verify cycle of a job on one board instance.
struct AttemptRecord {
  int64_t number = 0;  // 1-based, also the directory attempt-<number>
  int64_t load = 0;    // 1-based load of a repeated job (load-<load>/); 0 when not repeated
  JobStatus status = JobStatus::kOk;
  std::string reason;
  std::string board;         // board instance id
  std::string started_at;    // UTC, ISO 8601
  double seconds = 0;        // the whole attempt
  double flash_seconds = 0;  // program + verify
  std::vector<std::string> flash_commands;
  std::string serial_port;
  std::string capture_stop;  // end, overall_timeout, inactivity_timeout, port_error, interrupted;
                             // "" if none
  uint64_t capture_bytes = 0;
  uint64_t capture_lines = 0;
  double target_run_seconds = 0;  // release of the target to END (0 without END)
  // The transfer: bytes and seconds from the first record (BEGIN) to END;
  // 0 without both. The start lines the handshake sent.
  uint64_t transfer_bytes = 0;
  double transfer_seconds = 0;
  int64_t start_sends = 0;
  std::string raw_file;  // relative to the job directory
  std::string raw_sha256;
  std::string verify_outcome;  // valid, invalid, protocol_error, unverified; "" if not verified
  std::vector<VerdictRecord> verdicts;
  // A LAVA bench's job for this attempt (docs/lava.md); 0 / "" on a local bench.
  int64_t lava_job_id = 0;
  std::string lava_url;              // the job's page on the server
  std::string lava_device;           // the device LAVA ran it on
  std::string lava_state;            // Submitted, Scheduled, Running, Finished, Canceling
  std::string lava_health;           // Unknown, Complete, Incomplete, Canceled
  std::string lava_failure_comment;  // LAVA's own failure comment (error type: message)
  // The bench's logic analyzer (its `analyzer:`), when it names one: the
  // capture's file (relative to the job directory), how sigrok-cli ended
  // (ok, missing, overflow) and what it said; "" without an analyzer.
  std::string analyzer_file;
  std::string analyzer_outcome;
  std::string analyzer_message;
};

// ---- figures -------------------------------------------------------------------

// The buckets of a series imported from a histogram (`rtosbench import
// cyclictest`): what the tool counted, kept so that reports can draw it and
// readers can re-derive the statistics. Bucket `value` holds the samples of
// that value (in the series' unit); samples at or beyond `limit` were only
// counted, in `overflow`.
struct HistogramRecord {
  uint64_t limit = 0;
  std::vector<std::array<uint64_t, 2>> buckets;  // [value, count], count > 0, value ascending
  uint64_t overflow = 0;
  // The statistics whose nearest rank fell among the overflow samples: their
  // value is the series' max, an upper bound (median, p90, p99, p999).
  std::vector<std::string> beyond_limit;
};

// One series of a capture with every statistic (ticks and ns).
struct SeriesRecord {
  std::string phase, name;
  std::string test;  // the harness test that wrote it
  std::string unit;  // its values' unit: the counter's (cycles, instructions), bytes, per-mille
  uint64_t n = 0, hz = 0;
  bool has_raw = false;
  uint64_t min_ticks = 0, median_ticks = 0, p90_ticks = 0, p99_ticks = 0, p999_ticks = 0,
           max_ticks = 0;
  uint64_t min_ns = 0, median_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
  uint64_t avg_ticks = 0, avg_ns = 0, sum_ticks = 0;
  std::optional<double> mean_ticks, stddev_ticks, jitter;  // null when undefined (n = 0, median 0)
  std::optional<uint64_t> base_ticks;                      // the ruler baseline, when reported
  std::optional<uint64_t> median_minus_base_ticks;         // only with base_ticks
  std::string base;  // the ruler series base_ticks is the median of (only with base_ticks)
  // The heap test's allocation series: every call its pattern made (warm-up
  // included) and those the kernel refused, whose times are not among the
  // samples; absent for other series and in older results.
  std::optional<uint64_t> calls, refused;
  // Where the figures come from: "" (samples, a verified capture) or
  // "histogram" (imported bucket counts, `histogram` set).
  std::string source;
  std::optional<HistogramRecord> histogram;

  std::string key() const { return phase.empty() ? name : phase + "/" + name; }
  // Every number of the series by its result.json key (n, median_ticks,
  // jitter, ...; not hz), undefined ones left out.
  std::vector<std::pair<std::string, double>> numbers() const;
  // One number by its result.json key; nullopt when absent or undefined.
  std::optional<double> number(const std::string& key) const;
};

struct NotApplicable {
  std::string name, reason;
};

// The median of one headline series, as the closing table shows it.
struct Headline {
  std::string name;   // one of headline_series()
  std::string phase;  // "" or "idle"
  uint64_t median_ticks = 0;
  uint64_t median_ns = 0;
  std::string unit;  // "cycles" or "instructions" (CONFIG unit)
};

// The series a run's closing table and a report's headline show, in order:
// the one list of them (docs/results.md, `headline[]`).
struct HeadlineSeries {
  const char* name;
  const char* phase;  // "" outside a phase
  const char* title;  // as a report's table heads it
  // As the closing table heads it: the name, with its phase in brackets.
  std::string column() const { return *phase ? std::string(name) + "(" + phase + ")" : name; }
};
const std::vector<HeadlineSeries>& headline_series();

// The `verify` object: verify --json's report, stored as it was printed
// (docs/verify.md owns its schema). Readers use `tests` only: the TEST of
// each (phase, name) series, taken from it when read.
struct VerifyDocument {
  nlohmann::json document;  // null when there was no verified capture
  std::map<std::pair<std::string, std::string>, std::string> tests;
  std::string test_of(const std::string& phase, const std::string& name) const;  // "" when unknown
};
VerifyDocument verify_document(const verify::Report& report);

// ---- repeated loads ------------------------------------------------------------

// One load of a repeated job: `loads[]` of result.json and load-<K>/load.json.
struct LoadRecord {
  int64_t load = 1;
  JobStatus status = JobStatus::kOk;
  std::string reason;
  std::vector<AttemptRecord> attempts;
  std::map<std::string, std::string> conditions;
  std::string unit;
  std::vector<SeriesRecord> series;
  std::vector<NotApplicable> not_applicable;
  std::vector<Headline> headline;
  double target_run_seconds = 0;  // of the final attempt
  std::string raw_sha256;         // of the final attempt's capture
  std::string finished_at;
  VerifyDocument verify;  // written to load.json only (null in result.json's loads[])
};

// One statistic across the loads (`spread[].statistics.<name>`).
struct StatisticSpread {
  std::vector<std::optional<double>> values;  // per load; null where a load lacks it
  std::optional<double> min, max, range;      // absent when some load lacks it
  std::optional<double> rel_pct;  // null when min is 0 and range is not (written with min)
  std::optional<double> allowed;  // absent: "off" (written with min)
  bool within = true;
};

struct SeriesSpread {
  std::string phase, name;
  std::map<std::string, StatisticSpread> statistics;
  std::vector<int64_t> missing_in_loads;  // a series some loads lack
};

struct BeyondTolerance {
  std::string series, statistic;                            // statistic "present": missing_in_loads
  std::optional<double> min, max, range, rel_pct, allowed;  // rel_pct may be null when min is set
  std::vector<std::optional<double>> values;                // a statistic only some loads have
  std::vector<int64_t> missing_in_loads;
};

struct SpreadTolerance {
  double abs = 0, pct = 0;
  bool off = false;
};

struct Reproducibility {
  int64_t loads = 0;
  std::string verdict;  // identical, within_tolerance, beyond_tolerance, not_judged
  std::optional<bool> reproducible;
  std::string summary;
  std::vector<BeyondTolerance> beyond;
  std::optional<bool> raw_captures_identical;  // absent when not judged
  std::string tolerance_origin;
  std::map<std::string, SpreadTolerance> tolerance;
};

// ---- the job result --------------------------------------------------------------

struct JobResult {
  std::string run_id;
  std::string job_id;
  std::string build_id;
  JobStatus status = JobStatus::kOk;
  std::string reason;  // why, for every status but OK
  JobSpec job;
  std::optional<BoardRecord> board;  // absent in results older than the record
  std::optional<KernelSource> kernel_source;
  std::optional<Toolchain> toolchain;
  std::optional<BuildRecord> build;
  std::vector<BuildAttemptRecord> build_attempts;
  std::map<std::string, std::string> expect;  // pins the capture was verified against
  std::vector<AttemptRecord> attempts;
  std::map<std::string, std::string> conditions;  // CONFIG of the final capture
  std::string unit;                               // CONFIG unit of the ticks
  std::vector<SeriesRecord> series;
  std::vector<NotApplicable> not_applicable;
  VerifyDocument verify;
  std::vector<Headline> headline;
  std::string finished_at;
  // Repeated jobs only (docs/results.md, "Repeated jobs"); the job's own
  // figures above are load 1's.
  std::optional<std::vector<LoadRecord>> loads;
  std::optional<std::vector<SeriesSpread>> spread;
  std::optional<Reproducibility> reproducibility;
};

// ---- run.json ----------------------------------------------------------------------

struct RunInput {  // run.json `matrix` / `bench`
  std::string name, snapshot, source, sha256;
};

struct RunJobEntry {
  std::string id, kernel;
  std::string status = "PENDING";
  std::string reason;
  std::string result;  // jobs/<id>/result.json, empty until finished
  std::optional<int64_t> attempts;
  std::optional<std::vector<Headline>> headline;
  std::optional<int64_t> loads;
  std::optional<std::optional<bool>>
      reproducible;  // present (maybe null) for finished repeated jobs
};

struct RunSession {
  std::string finished_at, state;
  double wall_seconds = 0, target_run_seconds = 0;
  int64_t exit_code = 0;
  std::string note;  // why a session was closed by the next one (written when set)
};

struct RunSummary {
  std::string run_id, state;
  std::string started_at, updated_at, finished_at;
  std::string rtosbench_version;
  std::optional<RunInput> matrix, bench;
  std::optional<Toolchain> toolchain;
  nlohmann::json options = nlohmann::json::object();  // owned by `run --resume` (docs/run.md)
  std::vector<RunJobEntry> jobs;
  std::map<std::string, int64_t> counts;
  std::vector<RunSession> sessions;
  std::optional<int64_t> exit_code;
};

// ---- serializers -------------------------------------------------------------------

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UnequalRecord, what, series, note)
void to_json(nlohmann::json& j, const JobSpec& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LowerBoundRecord, cycles, why)
void to_json(nlohmann::json& j, const BoardRecord& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SourceCheckout, name, path, origin, tag,
                                                pinned_commit, commit, at_tag, dirty, note)
void to_json(nlohmann::json& j, const KernelSource& x);
void to_json(nlohmann::json& j, const Toolchain& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Sections, text, data, bss, flash, ram)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FlashRam, flash, ram)
void to_json(nlohmann::json& j, const KernelFootprint& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ContractRecord, symbols, config, skipped, files)
void to_json(nlohmann::json& j, const BuildRecord& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BuildAttemptRecord, number, ok, reason, seconds,
                                                log)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(VerdictRecord, check, severity, line, message)
void to_json(nlohmann::json& j, const AttemptRecord& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HistogramRecord, limit, buckets, overflow,
                                                beyond_limit)
void to_json(nlohmann::json& j, const SeriesRecord& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NotApplicable, name, reason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Headline, name, phase, median_ticks, median_ns,
                                                unit)
void to_json(nlohmann::json& j, const LoadRecord& x);  // with `verify` when it has one
void to_json(nlohmann::json& j, const StatisticSpread& x);
void to_json(nlohmann::json& j, const SeriesSpread& x);
void to_json(nlohmann::json& j, const BeyondTolerance& x);
void to_json(nlohmann::json& j, const Reproducibility& x);
void to_json(nlohmann::json& j, const JobResult& x);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunInput, name, snapshot, source, sha256)
void to_json(nlohmann::json& j, const RunJobEntry& x);
void to_json(nlohmann::json& j, const RunSession& x);
void to_json(nlohmann::json& j, const RunSummary& x);
nlohmann::json to_json(const JobResult& r);

// The readers: Error (kBadInput) names the offending member by its path.
Result<JobResult> job_result_from_json(const nlohmann::json& j);
Result<AttemptRecord> attempt_from_json(const nlohmann::json& j);
Result<LoadRecord> load_from_json(const nlohmann::json& j);
Result<SeriesRecord> series_from_json(const nlohmann::json& j);
Result<KernelFootprint> kernel_footprint_from_json(const nlohmann::json& j);
Result<BuildRecord> build_from_json(const nlohmann::json& j);
Result<RunSummary> run_summary_from_json(const nlohmann::json& j);

// JSON text that any string can go into: invalid UTF-8 is replaced by U+FFFD
// instead of aborting the writer.
std::string dump_json(const nlohmann::json& j, int indent = 2);

// Files. Errors name the file: kCannotRead when it is missing or unreadable,
// kBadInput when it is not JSON or a field is wrong; kStore when a write fails.
Result<nlohmann::json> read_json_file(const std::filesystem::path& file);
Status write_job_result(const std::filesystem::path& file, const JobResult& r);
Result<JobResult> read_job_result(const std::filesystem::path& file);
Result<RunSummary> read_run_summary(const std::filesystem::path& file);
Result<LoadRecord> read_load(const std::filesystem::path& file);
Status write_load(const std::filesystem::path& file, const LoadRecord& l);
Result<AttemptRecord> read_attempt(const std::filesystem::path& file);
Status write_attempt(const std::filesystem::path& file, const AttemptRecord& a);

// ---- checks on read: a record from elsewhere is not taken on trust ------------------

// The figures of a result hang together: per series (and per load) the
// percentiles in order, avg within min..max, the ns values those of the
// ticks, hz set whenever there are samples; every headline median is its
// series' median. Error kBadInput naming `where`, the series and the figure.
Status check_figures(const JobResult& r, const std::string& where);

// Every capture a result names (its attempts', its loads' attempts') is a
// regular file inside the run directory `run_root` (jobs/<job>/<raw_file>: no
// absolute path, no `..`, no symbolic link, no device) whose SHA-256 is its
// raw_sha256. A capture that is absent is no error (nothing is read from
// it); one that is there and differs is kBadInput.
Status check_captures(const JobResult& r, const std::filesystem::path& run_root);

// ---- from a verified capture ---------------------------------------------------------

SeriesRecord series_record(const verify::SeriesStats& s);
// The headline medians present in a report.
std::vector<Headline> headline_of(const verify::Report& report);
std::vector<VerdictRecord> verdicts_of(const verify::Report& report);

// floor(ticks * 1e9 / hz) in 128-bit arithmetic; 0 when hz is 0.
uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz);

// The order statistics of `s` (anything with min, median, p90, p99, p999 and
// max in ticks: verify's SeriesStats, stats::Summary) into r, in ticks and in
// ns at r.hz.
template <class Stats>
void set_order_stats(SeriesRecord& r, const Stats& s) {
  struct Field {
    uint64_t value;
    uint64_t *ticks, *ns;
  };
  const Field fields[] = {
      {s.min, &r.min_ticks, &r.min_ns},    {s.median, &r.median_ticks, &r.median_ns},
      {s.p90, &r.p90_ticks, &r.p90_ns},    {s.p99, &r.p99_ticks, &r.p99_ns},
      {s.p999, &r.p999_ticks, &r.p999_ns}, {s.max, &r.max_ticks, &r.max_ns}};
  for (const Field& f : fields) {
    *f.ticks = f.value;
    *f.ns = ticks_to_ns(f.value, r.hz);
  }
}

// "2026-11-29T21:16:20Z"
std::string utc_timestamp();

}  // namespace rb::store
