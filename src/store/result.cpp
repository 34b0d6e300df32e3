#include "store/result.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/sha256.h"
#include "util/yaml_doc.h"

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
  const std::pair<const char*, uint64_t> order[] = {
      {"min", s.min_ticks}, {"median", s.median_ticks}, {"p90", s.p90_ticks},
      {"p99", s.p99_ticks}, {"p999", s.p999_ticks},     {"max", s.max_ticks}};
  for (size_t i = 1; i < std::size(order); ++i) {
    if (order[i].second < order[i - 1].second) {
      return bad(fmt::format("{}_ticks {} < {}_ticks {}", order[i].first, order[i].second,
                             order[i - 1].first, order[i - 1].second));
    }
  }
  if (s.avg_ticks < s.min_ticks || s.avg_ticks > s.max_ticks) {
    return bad(fmt::format("avg_ticks {} outside min..max", s.avg_ticks));
  }
  const std::tuple<const char*, uint64_t, uint64_t> ns[] = {
      {"min", s.min_ticks, s.min_ns},    {"median", s.median_ticks, s.median_ns},
      {"p90", s.p90_ticks, s.p90_ns},    {"p99", s.p99_ticks, s.p99_ns},
      {"p999", s.p999_ticks, s.p999_ns}, {"max", s.max_ticks, s.max_ns}};
  for (const auto& [name, ticks, value] : ns) {
    if (ticks_to_ns(ticks, s.hz) != value) {
      return bad(
          fmt::format("{}_ns {} is not {}_ticks {} at {} Hz", name, value, name, ticks, s.hz));
    }
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

// ---- one field list per type -----------------------------------------------------
//
// fields(v, x) lists the fields of a type once, in the order they are checked.
// Writer fills a json object from the list and Reader checks a json object
// against it:
//   v.req(key, x, ...)    must be there; always written
//   v.opt(key, x, ...)    may be missing or null (x keeps its default); always
//                         written, an empty optional as null
//   v.if_set(key, x, ...) written only when set (engaged, non-empty); read as opt
//   v.object(key, f)      a nested object whose fields f lists
//   v.when(c)             writing writes the block only when c; reading reads it always

namespace {

// A field of the wrong type: what.path is the field's path in the document.
struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw BadField(fmt::format("{}: {}", path.empty() ? "(document)" : path, what));
}

std::string member(const std::string& path, const char* key) {
  return path.empty() ? key : path + "." + key;
}
std::string element(const std::string& path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

template <typename T>
constexpr bool kOptional = false;
template <typename T>
constexpr bool kOptional<std::optional<T>> = true;

// One overload per type read; a type with a field list goes through Reader.
void read(const json& v, const std::string& path, std::string& out) {
  if (!v.is_string()) bad(path, "expected a string");
  out = v.get<std::string>();
}
void read(const json& v, const std::string& path, bool& out) {
  if (!v.is_boolean()) bad(path, "expected true or false");
  out = v.get<bool>();
}
void read(const json& v, const std::string& path, uint64_t& out) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    bad(path, "expected a non-negative integer");
  }
  out = v.get<uint64_t>();
}
void read(const json& v, const std::string& path, int64_t& out) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      bad(path, "out of range");
  } else if (!v.is_number_integer()) {
    bad(path, "expected an integer");
  }
  out = v.get<int64_t>();
}
void read(const json& v, const std::string& path, double& out) {
  if (!v.is_number()) bad(path, "expected a number");
  out = v.get<double>();
  if (!std::isfinite(out)) bad(path, "not a finite number");
}
void read(const json& v, const std::string& path, JobStatus& out) {
  std::string s;
  read(v, path, s);
  auto st = status_from_string(s);
  if (!st) bad(path, fmt::format("status '{}' unknown", printable(s)));
  out = *st;
}
void read(const json& v, const std::string& path, json& out) {
  if (!v.is_object()) bad(path, "expected an object");
  out = v;
}
void read(const json& v, const std::string& path, SpreadTolerance& out);
void read(const json& v, const std::string& path, VerifyDocument& out);
template <typename T>
void read(const json& v, const std::string& path, std::vector<T>& out);
template <typename T>
void read(const json& v, const std::string& path, std::optional<T>& out);
template <typename T>
void read(const json& v, const std::string& path, std::optional<std::optional<T>>& out);
template <typename T>
void read(const json& v, const std::string& path, std::map<std::string, T>& out);
template <typename T>
void read(const json& v, const std::string& path, T& out);  // by fields()

// The json of one field's value.
json value(JobStatus s) {
  return to_string(s);
}
json value(const VerifyDocument& d) {
  return d.document;
}
json value(const SpreadTolerance& t) {
  return t.off ? json("off") : json{{"abs", t.abs}, {"pct", t.pct}};
}
template <typename T>
json value(const T& x) {
  return json(x);
}
template <typename T>
json value(const std::optional<T>& x);
template <typename T>
json value(const std::vector<T>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back(value(x));
  return a;
}
template <typename T>
json value(const std::map<std::string, T>& m) {
  json o = json::object();
  for (const auto& [k, x] : m) o[k] = value(x);
  return o;
}
template <typename T>
json value(const std::optional<T>& x) {
  return x ? value(*x) : json();
}

// Whether an if_set field is written: engaged, or not empty.
template <typename T>
bool set(const T& x) {
  if constexpr (kOptional<T>)
    return x.has_value();
  else
    return !x.empty();
}

class Writer {
 public:
  explicit Writer(json& j) : j_(j) {}
  static bool when(bool c) { return c; }
  template <typename T, typename... Rest>
  void opt(const char* key, T& x, Rest&... rest) {
    j_[key] = value(x);
    if constexpr (sizeof...(rest) > 0) opt(rest...);
  }
  template <typename... A>
  void req(A&... a) {
    opt(a...);
  }
  template <typename T, typename... Rest>
  void if_set(const char* key, T& x, Rest&... rest) {
    if (set(x)) j_[key] = value(x);
    if constexpr (sizeof...(rest) > 0) if_set(rest...);
  }
  template <typename F>
  void object(const char* key, F f) {
    json o = json::object();
    Writer w(o);
    f(w);
    j_[key] = std::move(o);
  }
  // An optional number that is "off" when empty.
  void off_or(const char* key, std::optional<double>& x) { j_[key] = x ? json(*x) : json("off"); }
  void schema(const char* name) {
    j_["schema"] = name;
    j_["schema_version"] = kSchemaVersion;
  }

 private:
  json& j_;
};

class Reader {
 public:
  Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j.is_object()) bad(path_, "expected an object");
  }
  static bool when(bool) { return true; }
  template <typename T, typename... Rest>
  void req(const char* key, T& out, Rest&... rest) const {
    auto it = j_.find(key);
    if (it == j_.end()) bad(member(path_, key), "missing");
    read(*it, member(path_, key), out);
    if constexpr (sizeof...(rest) > 0) req(rest...);
  }
  // null is the default, or nullopt.
  template <typename T, typename... Rest>
  void opt(const char* key, T& out, Rest&... rest) const {
    auto it = j_.find(key);
    if (it != j_.end() && (kOptional<T> || !it->is_null())) read(*it, member(path_, key), out);
    if constexpr (sizeof...(rest) > 0) opt(rest...);
  }
  template <typename... A>
  void if_set(A&... a) const {
    opt(a...);
  }
  template <typename F>
  void object(const char* key, F f) const {
    if (const json* o = find(key); o && !o->is_null()) {
      Reader r(*o, member(path_, key));
      f(r);
    }
  }
  void off_or(const char* key, std::optional<double>& x) const {
    if (const json* a = find(key); a && !(a->is_string() && a->get<std::string>() == "off")) {
      read(*a, member(path_, key), x);
    }
  }
  void schema(const char* name) const {
    std::string s;
    req("schema", s);
    if (s != name) bad(member(path_, "schema"), fmt::format("is '{}', not {}", printable(s), name));
    int64_t version = 0;
    req("schema_version", version);
    if (version > kSchemaVersion) {
      bad(member(path_, "schema_version"),
          fmt::format("{} is newer than this rtosbench ({})", version, kSchemaVersion));
    }
  }
  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

 private:
  const json& j_;
  std::string path_;
};

template <typename V>
void fields(V& v, UnequalRecord& x) {
  v.req("what", x.what);
  v.opt("series", x.series, "note", x.note);
}

template <typename V>
void fields(V& v, JobSpec& x) {
  v.opt("id", x.id, "build_id", x.build_id, "kernel", x.kernel, "kernel_version", x.kernel_version,
        "kernel_git", x.kernel_git, "kernel_tag", x.kernel_tag, "kernel_pinned_commit",
        x.kernel_pinned_commit, "kernel_note", x.kernel_note, "port", x.port, "board", x.board,
        "variant", x.variant, "opt_id", x.opt_id, "repeats", x.repeats, "tests", x.tests, "samples",
        x.samples, "warmup", x.warmup);
  v.if_set("unequal", x.unequal);
  if constexpr (std::is_same_v<V, Reader>) {
    // Schema 1 before the axis table: opt, tick_hz and fpu_context alone.
    std::string opt;
    int64_t tick = -1, fpu = -1;
    v.opt("opt", opt, "tick_hz", tick, "fpu_context", fpu);
    if (!opt.empty()) x.variant.emplace("opt", opt);
    if (tick >= 0) x.variant.emplace("tick_hz", std::to_string(tick));
    if (fpu >= 0) x.variant.emplace("fpu_context", std::to_string(fpu));
  }
}

template <typename V>
void fields(V& v, LowerBoundRecord& x) {
  v.req("cycles", x.cycles, "why", x.why);
}

template <typename V>
void fields(V& v, BoardRecord& x) {
  v.opt("name", x.name, "not_measured", x.not_measured, "unstable", x.unstable);
  v.if_set("lower_bounds", x.lower_bounds);
}

template <typename V>
void fields(V& v, SourceCheckout& x) {
  v.opt("name", x.name, "path", x.path, "origin", x.origin, "tag", x.tag, "pinned_commit",
        x.pinned_commit, "commit", x.commit, "at_tag", x.at_tag, "dirty", x.dirty, "note", x.note);
}

// The main checkout's fields beside has_source, or has_source alone.
template <typename V>
void fields(V& v, KernelSource& x) {
  v.opt("has_source", x.has_source);
  if (!x.has_source) return;
  fields(v, x.main);
  v.opt("extras", x.extras);
}

template <typename V>
void fields(V& v, Toolchain& x) {
  v.opt("arm_none_eabi_gcc", x.arm_none_eabi_gcc, "arm_none_eabi_gcc_banner",
        x.arm_none_eabi_gcc_banner, "cmake", x.cmake, "ninja", x.ninja);
  v.if_set("arm_none_eabi_gcc_path", x.arm_none_eabi_gcc_path, "arm_none_eabi_gcc_sha256",
           x.arm_none_eabi_gcc_sha256, "cc1_path", x.cc1_path, "cc1_sha256", x.cc1_sha256);
}

template <typename V>
void fields(V& v, Sections& x) {
  v.opt("text", x.text, "data", x.data, "bss", x.bss, "flash", x.flash, "ram", x.ram);
}

template <typename V>
void fields(V& v, FlashRam& x) {
  v.req("flash", x.flash, "ram", x.ram);
}

// With an error, the figures are left out.
template <typename V>
void fields(V& v, KernelFootprint& x) {
  v.if_set("error", x.error, "bare_key", x.bare_key, "bare_cached", x.bare_cached, "reference",
           x.reference);
  v.opt("bare_log", x.bare_log);
  if (!x.error.empty()) return;
  v.opt("port", x.port, "board", x.board, "image", x.image, "bare", x.bare);
  v.req("delta", x.delta);
  v.opt("libs", x.libs, "startup", x.startup, "kernel", x.kernel, "kernel_support",
        x.kernel_support, "port_glue", x.port_glue, "bare_port", x.bare_port);
}

template <typename V>
void fields(V& v, ContractRecord& x) {
  v.req("symbols", x.symbols, "config", x.config);
  v.opt("skipped", x.skipped, "files", x.files);
}

template <typename V>
void fields(V& v, BuildRecord& x) {
  v.opt("cached", x.cached, "cacheable", x.cacheable, "key", x.key, "nonce", x.nonce, "elf", x.elf,
        "map", x.map, "bin", x.bin, "log", x.log, "elf_sha256", x.elf_sha256, "map_sha256",
        x.map_sha256);
  v.if_set("bin_sha256", x.bin_sha256, "footprint", x.footprint, "footprint_kernel",
           x.footprint_kernel, "contract", x.contract);
  v.opt("defines", x.defines, "seconds", x.seconds, "built_at", x.built_at);
}

template <typename V>
void fields(V& v, BuildAttemptRecord& x) {
  v.req("number", x.number, "ok", x.ok);
  v.opt("reason", x.reason, "seconds", x.seconds, "log", x.log);
}

template <typename V>
void fields(V& v, VerdictRecord& x) {
  v.opt("check", x.check, "severity", x.severity, "line", x.line, "message", x.message);
}

template <typename V>
void fields(V& v, AttemptRecord& x) {
  v.req("number", x.number);
  if (v.when(x.load > 0)) v.opt("load", x.load);
  v.req("status", x.status);
  v.opt("reason", x.reason, "board", x.board, "started_at", x.started_at, "seconds", x.seconds,
        "flash_seconds", x.flash_seconds, "flash_commands", x.flash_commands, "serial_port",
        x.serial_port);
  v.object("capture", [&](auto& c) {
    c.opt("stop", x.capture_stop, "bytes", x.capture_bytes, "lines", x.capture_lines,
          "target_run_seconds", x.target_run_seconds, "transfer_bytes", x.transfer_bytes,
          "transfer_seconds", x.transfer_seconds, "start_sends", x.start_sends, "raw_file",
          x.raw_file, "raw_sha256", x.raw_sha256);
  });
  v.object("verify", [&](auto& c) { c.opt("outcome", x.verify_outcome, "verdicts", x.verdicts); });
  if (v.when(x.lava_job_id > 0)) {
    v.object("lava", [&](auto& c) {
      c.opt("job_id", x.lava_job_id, "url", x.lava_url, "device", x.lava_device, "state",
            x.lava_state, "health", x.lava_health, "failure_comment", x.lava_failure_comment);
    });
  }
}

template <typename V>
void fields(V& v, SeriesRecord& x) {
  v.opt("phase", x.phase);
  v.req("name", x.name, "n", x.n);
  v.if_set("test", x.test, "unit", x.unit);
  v.opt("hz", x.hz, "has_raw", x.has_raw, "sum_ticks", x.sum_ticks, "mean_ticks", x.mean_ticks,
        "stddev_ticks", x.stddev_ticks, "jitter", x.jitter, "avg_ticks", x.avg_ticks, "avg_ns",
        x.avg_ns, "min_ticks", x.min_ticks, "min_ns", x.min_ns, "median_ticks", x.median_ticks,
        "median_ns", x.median_ns, "p90_ticks", x.p90_ticks, "p90_ns", x.p90_ns, "p99_ticks",
        x.p99_ticks, "p99_ns", x.p99_ns, "p999_ticks", x.p999_ticks, "p999_ns", x.p999_ns,
        "max_ticks", x.max_ticks, "max_ns", x.max_ns, "base_ticks", x.base_ticks);
  v.if_set("median_minus_base_ticks", x.median_minus_base_ticks, "base", x.base);
  v.if_set("calls", x.calls, "refused", x.refused);
}

template <typename V>
void fields(V& v, NotApplicable& x) {
  v.req("name", x.name);
  v.opt("reason", x.reason);
}

template <typename V>
void fields(V& v, Headline& x) {
  v.req("name", x.name);
  v.opt("phase", x.phase);
  v.req("median_ticks", x.median_ticks);
  v.opt("median_ns", x.median_ns, "unit", x.unit);
}

template <typename V>
void fields(V& v, LoadRecord& x) {
  v.req("load", x.load, "status", x.status);
  v.opt("reason", x.reason);
  v.req("attempts", x.attempts);
  v.opt("conditions", x.conditions, "unit", x.unit, "series", x.series, "not_applicable",
        x.not_applicable, "headline", x.headline, "target_run_seconds", x.target_run_seconds,
        "raw_sha256", x.raw_sha256, "finished_at", x.finished_at);
  if (v.when(!x.verify.document.is_null())) v.opt("verify", x.verify);
}

// min, max, range, rel_pct and allowed come together, with min.
template <typename V>
void fields(V& v, StatisticSpread& x) {
  v.opt("values", x.values);
  if (v.when(x.min.has_value())) {
    v.opt("min", x.min, "max", x.max, "range", x.range, "rel_pct", x.rel_pct);
    v.off_or("allowed", x.allowed);
  }
  v.opt("within", x.within);
}

template <typename V>
void fields(V& v, SeriesSpread& x) {
  v.opt("phase", x.phase, "name", x.name, "statistics", x.statistics);
  v.if_set("missing_in_loads", x.missing_in_loads);
}

// Either missing_in_loads, or the figures with min, or the values.
template <typename V>
void fields(V& v, BeyondTolerance& x) {
  v.opt("series", x.series, "statistic", x.statistic);
  const bool missing = !x.missing_in_loads.empty();
  if (v.when(!missing && x.min)) {
    v.opt("min", x.min, "max", x.max, "range", x.range, "rel_pct", x.rel_pct, "allowed", x.allowed);
  }
  if (v.when(!missing && !x.min)) v.opt("values", x.values);
  v.if_set("missing_in_loads", x.missing_in_loads);
}

template <typename V>
void fields(V& v, Reproducibility& x) {
  v.opt("loads", x.loads, "verdict", x.verdict, "reproducible", x.reproducible, "summary",
        x.summary);
  if (v.when(x.raw_captures_identical.has_value())) {
    v.opt("beyond", x.beyond, "raw_captures_identical", x.raw_captures_identical);
  }
  v.object("tolerance",
           [&](auto& t) { t.opt("origin", x.tolerance_origin, "statistics", x.tolerance); });
}

template <typename V>
void fields(V& v, JobResult& x) {
  v.schema(kJobResultSchema);
  v.req("run_id", x.run_id, "job_id", x.job_id);
  if constexpr (std::is_same_v<V, Reader>) x.build_id = x.job_id;  // results older than build_id
  v.opt("build_id", x.build_id);
  v.req("status", x.status);
  v.opt("reason", x.reason, "job", x.job);
  v.if_set("board", x.board);
  v.opt("kernel_source", x.kernel_source, "toolchain", x.toolchain, "build", x.build,
        "build_attempts", x.build_attempts, "expect", x.expect);
  v.req("attempts", x.attempts);
  v.opt("conditions", x.conditions, "unit", x.unit, "series", x.series, "not_applicable",
        x.not_applicable, "verify", x.verify, "headline", x.headline, "finished_at", x.finished_at);
  // Only repeated jobs carry these: a single-load result stays as it was.
  v.if_set("loads", x.loads, "spread", x.spread, "reproducibility", x.reproducibility);
}

template <typename V>
void fields(V& v, RunInput& x) {
  v.opt("name", x.name, "snapshot", x.snapshot, "source", x.source, "sha256", x.sha256);
}

// A job not finished yet has only id, kernel and status.
template <typename V>
void fields(V& v, RunJobEntry& x) {
  v.req("id", x.id);
  v.opt("kernel", x.kernel, "status", x.status);
  if (!v.when(!x.result.empty())) return;
  v.opt("reason", x.reason, "result", x.result);
  v.if_set("attempts", x.attempts, "headline", x.headline, "loads", x.loads, "reproducible",
           x.reproducible);
}

template <typename V>
void fields(V& v, RunSession& x) {
  v.opt("finished_at", x.finished_at, "state", x.state, "wall_seconds", x.wall_seconds,
        "target_run_seconds", x.target_run_seconds, "exit_code", x.exit_code);
  v.if_set("note", x.note);
}

template <typename V>
void fields(V& v, RunSummary& x) {
  v.schema(kRunSummarySchema);
  v.opt("run_id", x.run_id, "state", x.state, "started_at", x.started_at, "updated_at",
        x.updated_at);
  v.if_set("finished_at", x.finished_at);
  v.opt("rtosbench_version", x.rtosbench_version);
  v.if_set("matrix", x.matrix, "bench", x.bench, "toolchain", x.toolchain);
  v.opt("options", x.options, "jobs", x.jobs, "counts", x.counts, "sessions", x.sessions);
  v.if_set("exit_code", x.exit_code);
}

template <typename T>
json write(const T& x) {
  json j = json::object();
  Writer w(j);
  fields(w, const_cast<T&>(x));
  return j;
}

template <typename T>
void read(const json& v, const std::string& path, T& out) {
  Reader r(v, path);
  fields(r, out);
}
template <typename T>
void read(const json& v, const std::string& path, std::vector<T>& out) {
  if (!v.is_array()) bad(path, "expected an array");
  out.clear();
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    T x{};
    read(v[i], element(path, i), x);
    out.push_back(std::move(x));
  }
}
// null is nullopt.
template <typename T>
void read(const json& v, const std::string& path, std::optional<T>& out) {
  if (v.is_null()) {
    out.reset();
    return;
  }
  T x{};
  read(v, path, x);
  out = std::move(x);
}
// Present (maybe null), or absent.
template <typename T>
void read(const json& v, const std::string& path, std::optional<std::optional<T>>& out) {
  std::optional<T> x;
  read(v, path, x);
  out = x;
}
template <typename T>
void read(const json& v, const std::string& path, std::map<std::string, T>& out) {
  if (!v.is_object()) bad(path, "expected an object");
  out.clear();
  for (const auto& [k, x] : v.items()) read(x, member(path, k.c_str()), out[k]);
}
void read(const json& v, const std::string& path, SpreadTolerance& out) {
  if (v.is_string() && v.get<std::string>() == "off") {
    out.off = true;
    return;
  }
  Reader(v, path).opt("abs", out.abs, "pct", out.pct);
}
void read(const json& v, const std::string& path, VerifyDocument& x) {
  x.document = v;
  x.tests.clear();
  if (v.is_null()) return;
  const json* series = Reader(v, path).find("series");
  if (!series || series->is_null()) return;
  const std::string sp = member(path, "series");
  if (!series->is_array()) bad(sp, "expected an array");
  for (size_t i = 0; i < series->size(); ++i) {
    std::string phase, name, test;
    Reader((*series)[i], element(sp, i)).opt("phase", phase, "name", name, "test", test);
    if (!test.empty()) x.tests[{phase, name}] = test;
  }
}

template <typename T>
Result<T> from(const json& j) {
  try {
    T x{};
    read(j, "", x);
    return x;
  } catch (const BadField& e) {
    return make_error(ErrorKind::kBadInput, e.what());
  } catch (const std::exception& e) {  // nlohmann's own, should a check above miss one
    return make_error(ErrorKind::kBadInput, e.what());
  }
}

template <typename T>
Result<T> from_file(const std::filesystem::path& file) {
  auto j = read_json_file(file);
  if (!j.ok()) return j.error();
  auto x = from<T>(*j);
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

#define RB_TO_JSON(T)                 \
  void to_json(json& j, const T& x) { \
    j = write(x);                     \
  }
RB_TO_JSON(UnequalRecord)
RB_TO_JSON(JobSpec)
RB_TO_JSON(LowerBoundRecord)
RB_TO_JSON(BoardRecord)
RB_TO_JSON(SourceCheckout)
RB_TO_JSON(KernelSource)
RB_TO_JSON(Toolchain)
RB_TO_JSON(Sections)
RB_TO_JSON(FlashRam)
RB_TO_JSON(KernelFootprint)
RB_TO_JSON(ContractRecord)
RB_TO_JSON(BuildRecord)
RB_TO_JSON(BuildAttemptRecord)
RB_TO_JSON(VerdictRecord)
RB_TO_JSON(AttemptRecord)
RB_TO_JSON(SeriesRecord)
RB_TO_JSON(NotApplicable)
RB_TO_JSON(Headline)
RB_TO_JSON(LoadRecord)
RB_TO_JSON(StatisticSpread)
RB_TO_JSON(SeriesSpread)
RB_TO_JSON(BeyondTolerance)
RB_TO_JSON(Reproducibility)
RB_TO_JSON(RunInput)
RB_TO_JSON(RunJobEntry)
RB_TO_JSON(RunSession)
RB_TO_JSON(RunSummary)
#undef RB_TO_JSON

void to_json(json& j, const JobResult& r) {
  j = write(r);
  // loads[] leave out verify: it is kept in load-<K>/load.json and each attempt's verify.json.
  if (r.loads) {
    for (auto& l : j["loads"]) l.erase("verify");
  }
}

json to_json(const JobResult& r) {
  return json(r);
}

Result<JobResult> job_result_from_json(const json& j) {
  return from<JobResult>(j);
}
Result<AttemptRecord> attempt_from_json(const json& j) {
  return from<AttemptRecord>(j);
}
Result<LoadRecord> load_from_json(const json& j) {
  return from<LoadRecord>(j);
}
Result<SeriesRecord> series_from_json(const json& j) {
  return from<SeriesRecord>(j);
}
Result<KernelFootprint> kernel_footprint_from_json(const json& j) {
  return from<KernelFootprint>(j);
}
Result<BuildRecord> build_from_json(const json& j) {
  return from<BuildRecord>(j);
}
Result<RunSummary> run_summary_from_json(const json& j) {
  return from<RunSummary>(j);
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
  return from_file<RunSummary>(file);
}
Result<LoadRecord> read_load(const std::filesystem::path& file) {
  return from_file<LoadRecord>(file);
}
Status write_load(const std::filesystem::path& file, const LoadRecord& l) {
  return write_json(file, json(l));
}
Result<AttemptRecord> read_attempt(const std::filesystem::path& file) {
  return from_file<AttemptRecord>(file);
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
  auto put = [&](uint64_t v, uint64_t& ticks, uint64_t& ns) {
    ticks = v;
    ns = ticks_to_ns(v, s.hz);
  };
  put(s.min, r.min_ticks, r.min_ns);
  put(s.median, r.median_ticks, r.median_ns);
  put(s.p90, r.p90_ticks, r.p90_ns);
  put(s.p99, r.p99_ticks, r.p99_ns);
  put(s.p999, r.p999_ticks, r.p999_ns);
  put(s.max, r.max_ticks, r.max_ns);
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
  const json j = write(*this);
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
