#include "store/result.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/sha256.h"
#include "util/yaml_doc.h"

// std::optional as null when empty (nlohmann 3.11.2 has no serializer of its own).
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& x) { j = x ? json(*x) : json(); }
  static void from_json(const json& j, std::optional<T>& x) {
    x = j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
  }
};
}  // namespace nlohmann

namespace rb::store {

using nlohmann::json;

namespace {

// The figures of one series hang together: percentiles in order, the ns
// values those of the ticks, a counter frequency whenever there are samples.
Status check_series_figures(const SeriesRecord& s, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorKind::kBadInput, fmt::format("{} series {}: {}", where, s.key(), why));
  };
  if (s.n == 0) return {};
  if (s.hz == 0) return bad(fmt::format("n = {} but hz = 0", s.n));
  const std::tuple<const char*, uint64_t, uint64_t> figures[] = {
      {"min", s.min_ticks, s.min_ns},    {"median", s.median_ticks, s.median_ns},
      {"p90", s.p90_ticks, s.p90_ns},    {"p99", s.p99_ticks, s.p99_ns},
      {"p999", s.p999_ticks, s.p999_ns}, {"max", s.max_ticks, s.max_ns}};
  for (size_t i = 1; i < std::size(figures); ++i) {
    const auto& [name, ticks, ns] = figures[i];
    const auto& [lower, lower_ticks, lower_ns] = figures[i - 1];
    if (ticks < lower_ticks)
      return bad(fmt::format("{}_ticks {} < {}_ticks {}", name, ticks, lower, lower_ticks));
  }
  if (s.avg_ticks < s.min_ticks || s.avg_ticks > s.max_ticks) {
    return bad(fmt::format("avg_ticks {} outside min..max", s.avg_ticks));
  }
  for (const auto& [name, ticks, ns] : figures) {
    if (ticks_to_ns(ticks, s.hz) != ns)
      return bad(fmt::format("{}_ns {} is not {}_ticks {} at {} Hz", name, ns, name, ticks, s.hz));
  }
  if (s.histogram) {
    // The buckets are the samples: they add up to n and lie within min..max.
    const HistogramRecord& h = *s.histogram;
    uint64_t count = h.overflow;
    uint64_t previous = 0;
    for (size_t i = 0; i < h.buckets.size(); ++i) {
      const auto [value, c] = h.buckets[i];
      if (i > 0 && value <= previous) return bad("histogram buckets not in ascending order");
      if (value >= h.limit)
        return bad(fmt::format("histogram bucket {} beyond limit {}", value, h.limit));
      if (value < s.min_ticks || value > s.max_ticks)
        return bad(fmt::format("histogram bucket {} outside min..max", value));
      previous = value;
      count += c;
    }
    if (count != s.n) return bad(fmt::format("histogram counts add up to {}, n = {}", count, s.n));
    if (h.overflow > 0 && s.max_ticks < h.limit)
      return bad(fmt::format("{} overflow samples but max_ticks {} < limit {}", h.overflow,
                             s.max_ticks, h.limit));
  }
  return {};
}

}  // namespace

Status check_figures(const JobResult& r, const std::string& where) {
  for (const auto& s : r.series) {
    if (auto st = check_series_figures(s, where); !st.ok()) return st;
  }
  for (const auto& h : r.headline) {
    bool found = false;
    for (const auto& s : r.series) {
      if (s.name == h.name && s.phase == h.phase) found = s.median_ticks == h.median_ticks;
    }
    if (!found) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{} headline {}: median_ticks {} is not its series' median",
                                    where, h.name, h.median_ticks));
    }
  }
  if (r.loads) {
    for (const auto& l : *r.loads) {
      for (const auto& s : l.series) {
        if (auto st = check_series_figures(s, fmt::format("{} load {}", where, l.load)); !st.ok())
          return st;
      }
    }
  }
  return {};
}

Status check_captures(const JobResult& r, const std::filesystem::path& run_root) {
  std::vector<const AttemptRecord*> attempts;
  for (const auto& a : r.attempts) attempts.push_back(&a);
  if (r.loads) {
    for (const auto& l : *r.loads)
      for (const auto& a : l.attempts) attempts.push_back(&a);
  }
  const std::filesystem::path job = std::filesystem::path("jobs") / r.job_id;
  for (const AttemptRecord* a : attempts) {
    if (a->raw_file.empty()) continue;
    auto where = [&](const std::string& what) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("{}/{}/result.json: attempt {}{}: {}", run_root.string(), job.string(),
                      a->number, a->load ? fmt::format(" of load {}", a->load) : "", what));
    };
    auto file = regular_file_inside(run_root, job / a->raw_file);
    if (!file.ok()) {
      if (file.error().kind == ErrorKind::kCannotRead) continue;  // not here: nothing to trust
      return where("capture.raw_file " + file.error().message);
    }
    if (a->raw_sha256.empty())
      return where(fmt::format("capture {} has no raw_sha256 to check it against", a->raw_file));
    auto h = sha256_file(*file);
    if (!h.ok()) return make_error(ErrorKind::kCannotRead, h.error().message);
    if (*h != a->raw_sha256) {
      return where(
          fmt::format("capture {} has SHA-256 {}, not its raw_sha256 {}: it was changed "
                      "after the run",
                      a->raw_file, *h, a->raw_sha256));
    }
  }
  return {};
}

uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz) {
  if (hz == 0) return 0;
  unsigned __int128 v = static_cast<unsigned __int128>(ticks) * 1000000000u / hz;
  return static_cast<uint64_t>(v);
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string dump_json(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

const std::vector<HeadlineSeries>& headline_series() {
  // Seed 000's speed table, in its order.
  static const std::vector<HeadlineSeries> kSeries{
      {"wake_latency", "", "wake latency"},   {"api_overhead", "", "API overhead"},
      {"round_trip", "", "round trip"},       {"event_to_task", "idle", "IRQ to task (idle)"},
      {"tick_overhead", "", "tick overhead"},
  };
  return kSeries;
}

std::string VerifyDocument::test_of(const std::string& phase, const std::string& name) const {
  auto it = tests.find({phase, name});
  return it == tests.end() ? "" : it->second;
}

// ---- the serializers ---------------------------------------------------------------
//
// nlohmann's type macros: the simple types' in result.h, the others' here by
// RB_JSON, which is NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT (a null
// member read as the default too) with a hook each way: shape() adjusts what was written (members
// left out when empty, nested objects, the schema header), fill() what was read (nested objects,
// older forms). A read never meets a wrong type here: the readers check the document against
// docs/schema/result.schema.json first.

template <typename T>
void shape(json&, const T&) {}
template <typename T>
void fill(const json&, T&) {}

#define RB_JSON_TO(T, ...)                                                   \
  void to_json(json& nlohmann_json_j, const T& nlohmann_json_t) {            \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__)) \
    shape(nlohmann_json_j, nlohmann_json_t);                                 \
  }
// A member that is there and not null, read into `x` (null is the default,
// as run_directory writes a closed session's exit_code).
template <typename T>
void get(const json& o, const char* key, T& x) {
  if (auto it = o.find(key); it != o.end() && !it->is_null()) it->get_to(x);
}
#define RB_JSON_FROM(v1) get(nlohmann_json_j, #v1, nlohmann_json_t.v1);
#define RB_JSON(T, ...)                                                  \
  RB_JSON_TO(T, __VA_ARGS__)                                             \
  void from_json(const json& nlohmann_json_j, T& nlohmann_json_t) {      \
    nlohmann_json_t = T{};                                               \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(RB_JSON_FROM, __VA_ARGS__)) \
    fill(nlohmann_json_j, nlohmann_json_t);                              \
  }

namespace {

// Members written only when set: not empty (a string, array, object) or,
// with `null_only`, not null (an empty optional).
void omit(json& j, std::initializer_list<const char*> keys, bool null_only = false) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it == j.end()) continue;
    const bool empty = it->is_string() ? it->get_ref<const std::string&>().empty() : it->empty();
    if (it->is_null() || (!null_only && empty)) j.erase(it);
  }
}
void omit_null(json& j, std::initializer_list<const char*> keys) {
  omit(j, keys, true);
}

void header(json& j, const char* schema) {
  j["schema"] = schema;
  j["schema_version"] = kSchemaVersion;
}

}  // namespace

void to_json(json& j, JobStatus s) {
  j = to_string(s);
}
void from_json(const json& j, JobStatus& s) {
  auto st = status_from_string(j.get<std::string>());
  if (!st) throw std::invalid_argument("status '" + printable(j.get<std::string>()) + "' unknown");
  s = *st;
}

void to_json(json& j, const VerifyDocument& d) {
  j = d.document;
}
void from_json(const json& j, VerifyDocument& d) {
  d.document = j;
  d.tests.clear();
  if (!j.is_object() || !j.contains("series") || !j["series"].is_array()) return;
  for (const auto& s : j["series"]) {
    if (!s.value("test", "").empty())
      d.tests[{s.value("phase", ""), s.value("name", "")}] = s["test"];
  }
}

void to_json(json& j, const SpreadTolerance& t) {
  j = t.off ? json("off") : json{{"abs", t.abs}, {"pct", t.pct}};
}
void from_json(const json& j, SpreadTolerance& t) {
  t.off = j.is_string();
  if (!t.off) t = {j.value("abs", 0.0), j.value("pct", 0.0), false};
}

// Schema 1 before the axis table: opt, tick_hz and fpu_context alone.
void shape(json& j, const JobSpec&) {
  omit(j, {"unequal"});
}
void fill(const json& j, JobSpec& x) {
  if (j.contains("opt")) x.variant.emplace("opt", j["opt"].get<std::string>());
  for (const char* k : {"tick_hz", "fpu_context"})
    if (j.contains(k)) x.variant.emplace(k, std::to_string(j[k].get<int64_t>()));
}
RB_JSON(JobSpec, id, build_id, kernel, kernel_version, kernel_git, kernel_tag, kernel_pinned_commit,
        kernel_note, port, board, variant, opt_id, repeats, tests, samples, warmup, unequal)

void shape(json& j, const BoardRecord&) {
  omit(j, {"lower_bounds"});
}
RB_JSON(BoardRecord, name, not_measured, unstable, lower_bounds)

// The main checkout's members beside has_source, or has_source alone.
void to_json(json& j, const KernelSource& x) {
  j = x.has_source ? json(x.main) : json::object();
  j["has_source"] = x.has_source;
  if (x.has_source) j["extras"] = x.extras;
}
void from_json(const json& j, KernelSource& x) {
  x = {};
  x.has_source = j.value("has_source", false);
  if (!x.has_source) return;
  j.get_to(x.main);
  get(j, "extras", x.extras);
}

void shape(json& j, const Toolchain&) {
  omit(j, {"arm_none_eabi_gcc_path", "arm_none_eabi_gcc_sha256", "cc1_path", "cc1_sha256"});
}
RB_JSON(Toolchain, arm_none_eabi_gcc, arm_none_eabi_gcc_banner, cmake, ninja,
        arm_none_eabi_gcc_path, arm_none_eabi_gcc_sha256, cc1_path, cc1_sha256)

// With an error, the figures are left out.
void shape(json& j, const KernelFootprint& x) {
  omit(j, {"error", "bare_key", "reference"});
  omit_null(j, {"bare_cached"});
  if (x.error.empty()) return;
  for (const char* k : {"port", "board", "image", "bare", "delta", "libs", "startup", "kernel",
                        "kernel_support", "port_glue", "bare_port"})
    j.erase(k);
}
RB_JSON(KernelFootprint, error, port, board, reference, image, bare, delta, libs, startup, kernel,
        kernel_support, port_glue, bare_port, bare_key, bare_cached, bare_log)

void shape(json& j, const BuildRecord&) {
  omit(j, {"bin_sha256"});
  omit_null(j, {"footprint", "footprint_kernel", "contract"});
}
RB_JSON(BuildRecord, cached, cacheable, key, nonce, elf, map, bin, log, elf_sha256, map_sha256,
        bin_sha256, footprint, footprint_kernel, contract, defines, seconds, built_at)

// capture, verify and lava are nested objects of the file; lava only on a
// LAVA bench, load only in a repeated job.
void shape(json& j, const AttemptRecord& x) {
  if (x.load == 0) j.erase("load");
  j["capture"] = {{"stop", x.capture_stop},
                  {"bytes", x.capture_bytes},
                  {"lines", x.capture_lines},
                  {"target_run_seconds", x.target_run_seconds},
                  {"transfer_bytes", x.transfer_bytes},
                  {"transfer_seconds", x.transfer_seconds},
                  {"start_sends", x.start_sends},
                  {"raw_file", x.raw_file},
                  {"raw_sha256", x.raw_sha256}};
  j["verify"] = {{"outcome", x.verify_outcome}, {"verdicts", x.verdicts}};
  if (x.lava_job_id > 0) {
    j["lava"] = {{"job_id", x.lava_job_id}, {"url", x.lava_url},
                 {"device", x.lava_device}, {"state", x.lava_state},
                 {"health", x.lava_health}, {"failure_comment", x.lava_failure_comment}};
  }
  if (!x.analyzer_outcome.empty()) {
    j["analyzer"] = {{"file", x.analyzer_file},
                     {"outcome", x.analyzer_outcome},
                     {"message", x.analyzer_message}};
  }
}
void fill(const json& j, AttemptRecord& x) {
  const json none = json::object();
  const json& c = j.contains("capture") ? j["capture"] : none;
  get(c, "stop", x.capture_stop);
  get(c, "bytes", x.capture_bytes);
  get(c, "lines", x.capture_lines);
  get(c, "target_run_seconds", x.target_run_seconds);
  get(c, "transfer_bytes", x.transfer_bytes);
  get(c, "transfer_seconds", x.transfer_seconds);
  get(c, "start_sends", x.start_sends);
  get(c, "raw_file", x.raw_file);
  get(c, "raw_sha256", x.raw_sha256);
  const json& v = j.contains("verify") ? j["verify"] : none;
  get(v, "outcome", x.verify_outcome);
  get(v, "verdicts", x.verdicts);
  const json& l = j.contains("lava") ? j["lava"] : none;
  get(l, "job_id", x.lava_job_id);
  get(l, "url", x.lava_url);
  get(l, "device", x.lava_device);
  get(l, "state", x.lava_state);
  get(l, "health", x.lava_health);
  get(l, "failure_comment", x.lava_failure_comment);
  const json& an = j.contains("analyzer") ? j["analyzer"] : none;
  get(an, "file", x.analyzer_file);
  get(an, "outcome", x.analyzer_outcome);
  get(an, "message", x.analyzer_message);
}
RB_JSON(AttemptRecord, number, load, status, reason, board, started_at, seconds, flash_seconds,
        flash_commands, serial_port)

void shape(json& j, const SeriesRecord&) {
  omit(j, {"test", "unit", "base", "source"});
  omit_null(j, {"median_minus_base_ticks", "calls", "refused", "histogram"});
}
RB_JSON(SeriesRecord, phase, name, test, unit, n, hz, has_raw, min_ticks, median_ticks, p90_ticks,
        p99_ticks, p999_ticks, max_ticks, min_ns, median_ns, p90_ns, p99_ns, p999_ns, max_ns,
        avg_ticks, avg_ns, sum_ticks, mean_ticks, stddev_ticks, jitter, base_ticks,
        median_minus_base_ticks, base, calls, refused, source, histogram)

void shape(json& j, const LoadRecord& x) {
  if (x.verify.document.is_null()) j.erase("verify");
}
RB_JSON(LoadRecord, load, status, reason, attempts, conditions, unit, series, not_applicable,
        headline, target_run_seconds, raw_sha256, finished_at, verify)

// min, max, range, rel_pct and allowed come together, with min; allowed is
// "off" when empty.
void shape(json& j, const StatisticSpread& x) {
  if (!x.min) {
    for (const char* k : {"min", "max", "range", "rel_pct", "allowed"}) j.erase(k);
  } else if (!x.allowed) {
    j["allowed"] = "off";
  }
}
RB_JSON_TO(StatisticSpread, values, min, max, range, rel_pct, allowed, within)
void from_json(const json& j, StatisticSpread& x) {
  x = {};
  get(j, "values", x.values);
  get(j, "min", x.min);
  get(j, "max", x.max);
  get(j, "range", x.range);
  get(j, "rel_pct", x.rel_pct);
  if (j.contains("allowed") && !j["allowed"].is_string()) get(j, "allowed", x.allowed);
  get(j, "within", x.within);
}

void shape(json& j, const SeriesSpread&) {
  omit(j, {"missing_in_loads"});
}
RB_JSON(SeriesSpread, phase, name, statistics, missing_in_loads)

// Either missing_in_loads, or the figures with min, or the values.
void shape(json& j, const BeyondTolerance& x) {
  const bool missing = !x.missing_in_loads.empty();
  if (missing || !x.min)
    for (const char* k : {"min", "max", "range", "rel_pct", "allowed"}) j.erase(k);
  if (missing || x.min) j.erase("values");
  if (!missing) j.erase("missing_in_loads");
}
RB_JSON(BeyondTolerance, series, statistic, min, max, range, rel_pct, allowed, values,
        missing_in_loads)

void shape(json& j, const Reproducibility& x) {
  if (!x.raw_captures_identical) {
    j.erase("beyond");
    j.erase("raw_captures_identical");
  }
  j["tolerance"] = {{"origin", x.tolerance_origin}, {"statistics", x.tolerance}};
}
void fill(const json& j, Reproducibility& x) {
  if (!j.contains("tolerance")) return;
  get(j["tolerance"], "origin", x.tolerance_origin);
  get(j["tolerance"], "statistics", x.tolerance);
}
RB_JSON(Reproducibility, loads, verdict, reproducible, summary, beyond, raw_captures_identical)

// Only repeated jobs carry loads, spread and reproducibility; loads[] leave
// out verify: it is kept in load-<K>/load.json and each attempt's verify.json.
void shape(json& j, const JobResult&) {
  header(j, kJobResultSchema);
  omit_null(j, {"board", "loads", "spread", "reproducibility"});
  if (j.contains("loads"))
    for (auto& l : j["loads"]) l.erase("verify");
}
void fill(const json& j, JobResult& x) {
  if (!j.contains("build_id")) x.build_id = x.job_id;  // results older than build_id
}
RB_JSON(JobResult, run_id, job_id, build_id, status, reason, job, board, kernel_source, toolchain,
        build, build_attempts, expect, attempts, conditions, unit, series, not_applicable, verify,
        headline, finished_at, loads, spread, reproducibility)

// A job not finished yet has only id, kernel and status; reproducible is
// there (maybe null) for a finished repeated job.
void shape(json& j, const RunJobEntry& x) {
  if (x.result.empty()) {
    for (const char* k : {"reason", "result", "attempts", "headline", "loads"}) j.erase(k);
    return;
  }
  omit_null(j, {"attempts", "headline", "loads"});
  if (x.reproducible) j["reproducible"] = *x.reproducible;
}
void fill(const json& j, RunJobEntry& x) {
  if (j.contains("reproducible")) x.reproducible = j["reproducible"].get<std::optional<bool>>();
}
RB_JSON(RunJobEntry, id, kernel, status, reason, result, attempts, headline, loads)

void shape(json& j, const RunSession&) {
  omit(j, {"note"});
}
RB_JSON(RunSession, finished_at, state, wall_seconds, target_run_seconds, exit_code, note)

void shape(json& j, const RunSummary&) {
  header(j, kRunSummarySchema);
  omit(j, {"finished_at"});
  omit_null(j, {"matrix", "bench", "toolchain", "exit_code"});
}
RB_JSON(RunSummary, run_id, state, started_at, updated_at, finished_at, rtosbench_version, matrix,
        bench, toolchain, options, jobs, counts, sessions, exit_code)

#undef RB_JSON
#undef RB_JSON_FROM
#undef RB_JSON_TO

json to_json(const JobResult& r) {
  return json(r);
}

namespace {

// The schema of one result file: the root of result.schema.json (a job
// result) or one of its definitions.
const json& result_schema(const char* definition) {
  static std::mutex mu;
  static std::map<std::string, json> cache;
  if (!definition) return schema("result");
  std::lock_guard lock(mu);
  json& s = cache[definition];
  if (s.is_null()) {
    s = {{"definitions", schema("result")["definitions"]},
         {"$ref", std::string("#/definitions/") + definition}};
  }
  return s;
}

// The one way in: another file's schema or a newer schema_version is refused, the document is
// checked against its schema (the first violation names the member by its
// path), then converted.
template <typename T>
Result<T> from(const json& j, const char* definition = nullptr) {
  if (j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_integer() &&
      j["schema_version"].get<int64_t>() > kSchemaVersion) {
    return make_error(ErrorKind::kBadInput,
                      fmt::format("schema_version: {} is newer than this rtosbench ({})",
                                  j["schema_version"].get<int64_t>(), kSchemaVersion));
  }
  const char* name = !definition                        ? kJobResultSchema
                     : std::string(definition) == "run" ? kRunSummarySchema
                                                        : nullptr;
  if (name && j.is_object() && j.contains("schema") && j["schema"].is_string() &&
      j["schema"] != name) {
    return make_error(
        ErrorKind::kBadInput,
        fmt::format("schema: is '{}', not {}", printable(j["schema"].get<std::string>()), name));
  }
  if (auto bad = schema_violation(j, result_schema(definition)); !bad.empty())
    return make_error(ErrorKind::kBadInput, bad);
  try {
    return j.get<T>();
  } catch (const std::exception& e) {  // a check the schema cannot make (an unknown status)
    return make_error(ErrorKind::kBadInput, e.what());
  }
}

template <typename T>
Result<T> from_file(const std::filesystem::path& file, const char* definition = nullptr) {
  auto j = read_json_file(file);
  if (!j.ok()) return j.error();
  auto x = from<T>(*j, definition);
  if (!x.ok())
    return make_error(ErrorKind::kBadInput,
                      fmt::format("{}: {}", file.string(), x.error().message));
  return x;
}

Status write_json(const std::filesystem::path& file, const json& j) {
  auto s = write_file_atomic(file, dump_json(j) + "\n");
  if (!s.ok()) return make_error(ErrorKind::kStore, s.error().message);
  return s;
}

}  // namespace

Result<JobResult> job_result_from_json(const json& j) {
  return from<JobResult>(j);
}
Result<AttemptRecord> attempt_from_json(const json& j) {
  return from<AttemptRecord>(j, "attempt");
}
Result<LoadRecord> load_from_json(const json& j) {
  return from<LoadRecord>(j, "load");
}
Result<SeriesRecord> series_from_json(const json& j) {
  return from<SeriesRecord>(j, "series");
}
Result<KernelFootprint> kernel_footprint_from_json(const json& j) {
  return from<KernelFootprint>(j, "footprint_kernel");
}
Result<BuildRecord> build_from_json(const json& j) {
  return from<BuildRecord>(j, "build");
}
Result<RunSummary> run_summary_from_json(const json& j) {
  return from<RunSummary>(j, "run");
}

Result<json> read_json_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return make_error(ErrorKind::kCannotRead, fmt::format("cannot read {}", file.string()));
  try {
    return json::parse(in);
  } catch (const std::exception& e) {
    return make_error(ErrorKind::kBadInput,
                      fmt::format("{}: not JSON: {}", file.string(), e.what()));
  }
}

Status write_job_result(const std::filesystem::path& file, const JobResult& r) {
  return write_json(file, to_json(r));
}
Result<JobResult> read_job_result(const std::filesystem::path& file) {
  return from_file<JobResult>(file);
}
Result<RunSummary> read_run_summary(const std::filesystem::path& file) {
  return from_file<RunSummary>(file, "run");
}
Result<LoadRecord> read_load(const std::filesystem::path& file) {
  return from_file<LoadRecord>(file, "load");
}
Status write_load(const std::filesystem::path& file, const LoadRecord& l) {
  return write_json(file, json(l));
}
Result<AttemptRecord> read_attempt(const std::filesystem::path& file) {
  return from_file<AttemptRecord>(file, "attempt");
}
Status write_attempt(const std::filesystem::path& file, const AttemptRecord& a) {
  return write_json(file, json(a));
}

// ---- from a verified capture ---------------------------------------------------------

namespace {
std::optional<double> defined(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}
}  // namespace

bool UnequalRecord::affects(const std::string& series_name) const {
  return std::any_of(series.begin(), series.end(),
                     [&](const std::string& s) { return s == "*" || s == series_name; });
}

std::string BoardRecord::unjudged_reason(const std::string& series) const {
  if (auto it = not_measured.find(series); it != not_measured.end()) return it->second;
  auto it = unstable.find(series);
  return it == unstable.end() ? "" : it->second;
}

SeriesRecord series_record(const verify::SeriesStats& s) {
  SeriesRecord r;
  r.phase = s.phase;
  r.name = s.name;
  r.test = s.test;
  r.n = s.n;
  r.hz = s.hz;
  r.has_raw = s.has_raw;
  r.sum_ticks = s.sum;
  r.mean_ticks = defined(s.mean);
  r.stddev_ticks = defined(s.stddev);
  r.jitter = defined(s.jitter);
  r.avg_ticks = s.avg_ticks;
  r.avg_ns = s.avg_ns;
  set_order_stats(r, s);
  if (s.base_ticks) {
    r.base_ticks = *s.base_ticks;
    r.median_minus_base_ticks = s.median > *s.base_ticks ? s.median - *s.base_ticks : 0;
    r.base = s.base;
  }
  r.calls = s.calls;
  r.refused = s.refused;
  return r;
}

// The numbers of its result.json form, hz aside.
std::vector<std::pair<std::string, double>> SeriesRecord::numbers() const {
  std::vector<std::pair<std::string, double>> out;
  const json j = *this;
  for (const auto& [k, v] : j.items()) {
    if (v.is_number() && k != "hz") out.emplace_back(k, v.get<double>());
  }
  return out;
}

std::optional<double> SeriesRecord::number(const std::string& key) const {
  for (const auto& [k, v] : numbers()) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::vector<Headline> headline_of(const verify::Report& report) {
  std::string unit = report.config.count("unit") ? report.config.at("unit") : "ticks";
  std::vector<Headline> out;
  for (const auto& h : headline_series()) {
    for (const auto& s : report.series) {
      if (s.name == h.name && s.phase == h.phase && s.n > 0) {
        out.push_back(Headline{h.name, h.phase, s.median, ticks_to_ns(s.median, s.hz), unit});
        break;
      }
    }
  }
  return out;
}

std::vector<VerdictRecord> verdicts_of(const verify::Report& report) {
  std::vector<VerdictRecord> out;
  for (const auto& v : report.verdicts) {
    out.push_back(VerdictRecord{v.check, verify::to_string(v.severity), v.line, v.message});
  }
  return out;
}

VerifyDocument verify_document(const verify::Report& report) {
  VerifyDocument d;
  d.document = verify::to_json(report);
  for (const auto& s : report.series) {
    if (!s.test.empty()) d.tests[{s.phase, s.name}] = s.test;
  }
  return d;
}

}  // namespace rb::store
