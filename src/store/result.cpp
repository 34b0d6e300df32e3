#include "store/result.h"

#include <fmt/core.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "util/atomic_write.h"

namespace rb::store {

using nlohmann::json;

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

// ---- writers -------------------------------------------------------------------

namespace {

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json();
}
template <typename T>
json optional_value(const std::optional<T>& v) {
  return v ? json(*v) : json();
}
json values_json(const std::vector<std::optional<double>>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back(optional_number(x));
  return a;
}

}  // namespace

void to_json(json& j, const JobSpec& x) {
  j = json{{"id", x.id},
           {"build_id", x.build_id},
           {"kernel", x.kernel},
           {"kernel_version", x.kernel_version},
           {"kernel_git", x.kernel_git},
           {"kernel_tag", x.kernel_tag},
           {"kernel_pinned_commit", x.kernel_pinned_commit},
           {"kernel_note", x.kernel_note},
           {"port", x.port},
           {"board", x.board},
           {"opt", x.opt},
           {"opt_id", x.opt_id},
           {"tick_hz", x.tick_hz},
           {"fpu_context", x.fpu_context},
           {"repeats", x.repeats},
           {"tests", x.tests},
           {"samples", x.samples},
           {"warmup", x.warmup}};
}

void to_json(json& j, const SourceCheckout& x) {
  j = json{{"name", x.name},
           {"path", x.path},
           {"origin", x.origin},
           {"tag", x.tag},
           {"pinned_commit", x.pinned_commit},
           {"commit", x.commit},
           {"at_tag", x.at_tag},
           {"dirty", x.dirty},
           {"note", x.note}};
}

void to_json(json& j, const KernelSource& x) {
  if (!x.has_source) {
    j = json{{"has_source", false}};
    return;
  }
  j = json(x.main);
  j["has_source"] = true;
  j["extras"] = x.extras;
}

void to_json(json& j, const Toolchain& x) {
  j = json{{"arm_none_eabi_gcc", x.arm_none_eabi_gcc},
           {"arm_none_eabi_gcc_banner", x.arm_none_eabi_gcc_banner},
           {"cmake", x.cmake},
           {"ninja", x.ninja}};
}

void to_json(json& j, const Sections& x) {
  j = json{{"text", x.text}, {"data", x.data}, {"bss", x.bss}, {"flash", x.flash}, {"ram", x.ram}};
}

void to_json(json& j, const FlashRam& x) {
  j = json{{"flash", x.flash}, {"ram", x.ram}};
}

void to_json(json& j, const KernelFootprint& x) {
  if (!x.error.empty()) {
    j = json{{"error", x.error}};
  } else {
    j = json{{"port", x.port}, {"board", x.board},         {"image", x.image},
             {"bare", x.bare}, {"delta", x.delta},         {"kernel", x.kernel},
             {"libs", x.libs}, {"port_glue", x.port_glue}, {"bare_port", x.bare_port}};
  }
  if (!x.bare_key.empty()) j["bare_key"] = x.bare_key;
  if (x.bare_cached) j["bare_cached"] = *x.bare_cached;
  j["bare_log"] = x.bare_log;
}

void to_json(json& j, const BuildRecord& x) {
  j = json{{"cached", x.cached},
           {"cacheable", x.cacheable},
           {"key", x.key},
           {"nonce", x.nonce},
           {"elf", x.elf},
           {"map", x.map},
           {"bin", x.bin},
           {"log", x.log},
           {"elf_sha256", x.elf_sha256},
           {"map_sha256", x.map_sha256},
           {"defines", x.defines},
           {"seconds", x.seconds},
           {"built_at", x.built_at}};
  if (x.footprint) j["footprint"] = *x.footprint;
  if (x.footprint_kernel) j["footprint_kernel"] = *x.footprint_kernel;
}

void to_json(json& j, const BuildAttemptRecord& x) {
  j = json{{"number", x.number},
           {"ok", x.ok},
           {"reason", x.reason},
           {"seconds", x.seconds},
           {"log", x.log}};
}

void to_json(json& j, const VerdictRecord& x) {
  j = json{{"check", x.check}, {"severity", x.severity}, {"line", x.line}, {"message", x.message}};
}

void to_json(json& j, const AttemptRecord& a) {
  j = json{
      {"number", a.number},
      {"status", to_string(a.status)},
      {"reason", a.reason},
      {"board", a.board},
      {"started_at", a.started_at},
      {"seconds", a.seconds},
      {"flash_seconds", a.flash_seconds},
      {"flash_commands", a.flash_commands},
      {"serial_port", a.serial_port},
      {"capture",
       {{"stop", a.capture_stop},
        {"bytes", a.capture_bytes},
        {"lines", a.capture_lines},
        {"target_run_seconds", a.target_run_seconds},
        {"raw_file", a.raw_file},
        {"raw_sha256", a.raw_sha256}}},
      {"verify", {{"outcome", a.verify_outcome}, {"verdicts", a.verdicts}}},
  };
  if (a.load > 0) j["load"] = a.load;
}

void to_json(json& j, const SeriesRecord& s) {
  j = json{{"phase", s.phase},
           {"name", s.name},
           {"n", s.n},
           {"hz", s.hz},
           {"has_raw", s.has_raw},
           {"sum_ticks", s.sum_ticks},
           {"mean_ticks", optional_number(s.mean_ticks)},
           {"stddev_ticks", optional_number(s.stddev_ticks)},
           {"jitter", optional_number(s.jitter)},
           {"avg_ticks", s.avg_ticks},
           {"avg_ns", s.avg_ns},
           {"min_ticks", s.min_ticks},
           {"min_ns", s.min_ns},
           {"median_ticks", s.median_ticks},
           {"median_ns", s.median_ns},
           {"p90_ticks", s.p90_ticks},
           {"p90_ns", s.p90_ns},
           {"p99_ticks", s.p99_ticks},
           {"p99_ns", s.p99_ns},
           {"p999_ticks", s.p999_ticks},
           {"p999_ns", s.p999_ns},
           {"max_ticks", s.max_ticks},
           {"max_ns", s.max_ns},
           {"base_ticks", optional_value(s.base_ticks)}};
  if (s.median_minus_base_ticks) j["median_minus_base_ticks"] = *s.median_minus_base_ticks;
}

void to_json(json& j, const NotApplicable& x) {
  j = json{{"name", x.name}, {"reason", x.reason}};
}

void to_json(json& j, const Headline& h) {
  j = json{{"name", h.name},
           {"phase", h.phase},
           {"median_ticks", h.median_ticks},
           {"median_ns", h.median_ns},
           {"unit", h.unit}};
}

void to_json(json& j, const LoadRecord& l) {
  j = json{{"load", l.load},
           {"status", to_string(l.status)},
           {"reason", l.reason},
           {"attempts", l.attempts},
           {"conditions", l.conditions},
           {"unit", l.unit},
           {"series", l.series},
           {"not_applicable", l.not_applicable},
           {"headline", l.headline},
           {"target_run_seconds", l.target_run_seconds},
           {"raw_sha256", l.raw_sha256},
           {"finished_at", l.finished_at}};
  if (!l.verify.document.is_null()) j["verify"] = l.verify.document;
}

void to_json(json& j, const StatisticSpread& x) {
  j = json{{"values", values_json(x.values)}, {"within", x.within}};
  if (x.min) {
    j["min"] = *x.min;
    j["max"] = optional_number(x.max);
    j["range"] = optional_number(x.range);
    j["rel_pct"] = optional_number(x.rel_pct);
    j["allowed"] = x.allowed ? json(*x.allowed) : json("off");
  }
}

void to_json(json& j, const SeriesSpread& x) {
  j = json{{"phase", x.phase}, {"name", x.name}, {"statistics", x.statistics}};
  if (!x.missing_in_loads.empty()) j["missing_in_loads"] = x.missing_in_loads;
}

void to_json(json& j, const BeyondTolerance& x) {
  j = json{{"series", x.series}, {"statistic", x.statistic}};
  if (!x.missing_in_loads.empty()) {
    j["missing_in_loads"] = x.missing_in_loads;
  } else if (x.min) {
    j["min"] = *x.min;
    j["max"] = optional_number(x.max);
    j["range"] = optional_number(x.range);
    j["rel_pct"] = optional_number(x.rel_pct);
    j["allowed"] = optional_number(x.allowed);
  } else {
    j["values"] = values_json(x.values);
  }
}

void to_json(json& j, const Reproducibility& x) {
  json statistics = json::object();
  for (const auto& [name, t] : x.tolerance) {
    statistics[name] = t.off ? json("off") : json{{"abs", t.abs}, {"pct", t.pct}};
  }
  j = json{{"loads", x.loads},
           {"verdict", x.verdict},
           {"reproducible", optional_value(x.reproducible)},
           {"summary", x.summary},
           {"tolerance", {{"origin", x.tolerance_origin}, {"statistics", statistics}}}};
  if (x.raw_captures_identical) {
    j["beyond"] = x.beyond;
    j["raw_captures_identical"] = *x.raw_captures_identical;
  }
}

void to_json(json& j, const JobResult& r) {
  j = json{
      {"schema", kJobResultSchema},
      {"schema_version", kSchemaVersion},
      {"run_id", r.run_id},
      {"job_id", r.job_id},
      {"build_id", r.build_id},
      {"status", to_string(r.status)},
      {"reason", r.reason},
      {"job", r.job},
      {"kernel_source", optional_value(r.kernel_source)},
      {"toolchain", optional_value(r.toolchain)},
      {"build", optional_value(r.build)},
      {"build_attempts", r.build_attempts},
      {"expect", r.expect},
      {"attempts", r.attempts},
      {"conditions", r.conditions},
      {"unit", r.unit},
      {"series", r.series},
      {"not_applicable", r.not_applicable},
      {"headline", r.headline},
      {"verify", r.verify.document},
      {"finished_at", r.finished_at},
  };
  // Only repeated jobs carry these: a single-load result stays as it was.
  if (r.loads) {
    json loads = json::array();
    for (const auto& l : *r.loads) {
      json e(l);
      e.erase("verify");  // kept in load-<K>/load.json and each attempt's verify.json
      loads.push_back(std::move(e));
    }
    j["loads"] = std::move(loads);
  }
  if (r.spread) j["spread"] = *r.spread;
  if (r.reproducibility) j["reproducibility"] = *r.reproducibility;
}

json to_json(const JobResult& r) {
  json j;
  to_json(j, r);
  return j;
}

void to_json(json& j, const RunInput& x) {
  j = json{{"name", x.name}, {"snapshot", x.snapshot}, {"source", x.source}, {"sha256", x.sha256}};
}

void to_json(json& j, const RunJobEntry& x) {
  j = json{{"id", x.id}, {"kernel", x.kernel}, {"status", x.status}};
  if (x.result.empty()) return;
  j["reason"] = x.reason;
  j["result"] = x.result;
  if (x.attempts) j["attempts"] = *x.attempts;
  if (x.headline) j["headline"] = *x.headline;
  if (x.loads) j["loads"] = *x.loads;
  if (x.reproducible) j["reproducible"] = optional_value(*x.reproducible);
}

void to_json(json& j, const RunSession& x) {
  j = json{{"finished_at", x.finished_at},
           {"state", x.state},
           {"wall_seconds", x.wall_seconds},
           {"target_run_seconds", x.target_run_seconds},
           {"exit_code", x.exit_code}};
}

void to_json(json& j, const RunSummary& x) {
  j = json{{"schema", kRunSummarySchema},
           {"schema_version", kSchemaVersion},
           {"run_id", x.run_id},
           {"state", x.state},
           {"started_at", x.started_at},
           {"updated_at", x.updated_at},
           {"rtosbench_version", x.rtosbench_version},
           {"options", x.options},
           {"sessions", x.sessions},
           {"jobs", x.jobs},
           {"counts", x.counts}};
  if (x.matrix) j["matrix"] = *x.matrix;
  if (x.bench) j["bench"] = *x.bench;
  if (x.toolchain) j["toolchain"] = *x.toolchain;
  if (!x.finished_at.empty()) j["finished_at"] = x.finished_at;
  if (x.exit_code) j["exit_code"] = *x.exit_code;
}

// ---- readers -----------------------------------------------------------------------

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

// One overload per type read; the struct readers follow.
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
  if (!st) bad(path, fmt::format("status '{}' unknown", s));
  out = *st;
}
template <typename T>
void read(const json& v, const std::string& path, std::vector<T>& out);
template <typename T>
void read(const json& v, const std::string& path, std::optional<T>& out);
void read(const json& v, const std::string& path, std::map<std::string, std::string>& out);
void read(const json& v, const std::string& path, std::map<std::string, int64_t>& out);
void read(const json& v, const std::string& path, JobSpec& out);
void read(const json& v, const std::string& path, SourceCheckout& out);
void read(const json& v, const std::string& path, KernelSource& out);
void read(const json& v, const std::string& path, Toolchain& out);
void read(const json& v, const std::string& path, Sections& out);
void read(const json& v, const std::string& path, FlashRam& out);
void read(const json& v, const std::string& path, KernelFootprint& out);
void read(const json& v, const std::string& path, BuildRecord& out);
void read(const json& v, const std::string& path, BuildAttemptRecord& out);
void read(const json& v, const std::string& path, VerdictRecord& out);
void read(const json& v, const std::string& path, AttemptRecord& out);
void read(const json& v, const std::string& path, SeriesRecord& out);
void read(const json& v, const std::string& path, NotApplicable& out);
void read(const json& v, const std::string& path, Headline& out);
void read(const json& v, const std::string& path, VerifyDocument& out);
void read(const json& v, const std::string& path, LoadRecord& out);
void read(const json& v, const std::string& path, StatisticSpread& out);
void read(const json& v, const std::string& path, SeriesSpread& out);
void read(const json& v, const std::string& path, BeyondTolerance& out);
void read(const json& v, const std::string& path, Reproducibility& out);
void read(const json& v, const std::string& path, JobResult& out);
void read(const json& v, const std::string& path, RunInput& out);
void read(const json& v, const std::string& path, RunJobEntry& out);
void read(const json& v, const std::string& path, RunSession& out);
void read(const json& v, const std::string& path, RunSummary& out);

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
void read(const json& v, const std::string& path, std::map<std::string, std::string>& out) {
  if (!v.is_object()) bad(path, "expected an object");
  out.clear();
  for (const auto& [k, x] : v.items()) read(x, member(path, k.c_str()), out[k]);
}
void read(const json& v, const std::string& path, std::map<std::string, int64_t>& out) {
  if (!v.is_object()) bad(path, "expected an object");
  out.clear();
  for (const auto& [k, x] : v.items()) read(x, member(path, k.c_str()), out[k]);
}

// The fields of one object.
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j.is_object()) bad(path_, "expected an object");
  }
  // A field that must be there.
  template <typename T>
  void req(const char* key, T& out) const {
    auto it = j_.find(key);
    if (it == j_.end()) bad(member(path_, key), "missing");
    read(*it, member(path_, key), out);
  }
  // A field that may be missing (or null): `out` keeps its default then.
  template <typename T>
  void opt(const char* key, T& out) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return;
    read(*it, member(path_, key), out);
  }
  // A field that may be missing, or null (nullopt).
  template <typename T>
  void nullable(const char* key, std::optional<T>& out) const {
    auto it = j_.find(key);
    if (it == j_.end()) return;
    read(*it, member(path_, key), out);
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const std::string& path() const { return path_; }

 private:
  const json& j_;
  std::string path_;
};

void read(const json& v, const std::string& path, JobSpec& x) {
  Fields f(v, path);
  f.opt("id", x.id);
  f.opt("build_id", x.build_id);
  f.opt("kernel", x.kernel);
  f.opt("kernel_version", x.kernel_version);
  f.opt("kernel_git", x.kernel_git);
  f.opt("kernel_tag", x.kernel_tag);
  f.opt("kernel_pinned_commit", x.kernel_pinned_commit);
  f.opt("kernel_note", x.kernel_note);
  f.opt("port", x.port);
  f.opt("board", x.board);
  f.opt("opt", x.opt);
  f.opt("opt_id", x.opt_id);
  f.opt("tick_hz", x.tick_hz);
  f.opt("fpu_context", x.fpu_context);
  f.opt("repeats", x.repeats);
  f.opt("tests", x.tests);
  f.opt("samples", x.samples);
  f.opt("warmup", x.warmup);
}

void read(const json& v, const std::string& path, SourceCheckout& x) {
  Fields f(v, path);
  f.opt("name", x.name);
  f.opt("path", x.path);
  f.opt("origin", x.origin);
  f.opt("tag", x.tag);
  f.opt("pinned_commit", x.pinned_commit);
  f.opt("commit", x.commit);
  f.opt("at_tag", x.at_tag);
  f.opt("dirty", x.dirty);
  f.opt("note", x.note);
}

void read(const json& v, const std::string& path, KernelSource& x) {
  Fields f(v, path);
  f.opt("has_source", x.has_source);
  if (!x.has_source) return;
  read(v, path, x.main);
  f.opt("extras", x.extras);
}

void read(const json& v, const std::string& path, Toolchain& x) {
  Fields f(v, path);
  f.opt("arm_none_eabi_gcc", x.arm_none_eabi_gcc);
  f.opt("arm_none_eabi_gcc_banner", x.arm_none_eabi_gcc_banner);
  f.opt("cmake", x.cmake);
  f.opt("ninja", x.ninja);
}

void read(const json& v, const std::string& path, Sections& x) {
  Fields f(v, path);
  f.opt("text", x.text);
  f.opt("data", x.data);
  f.opt("bss", x.bss);
  f.opt("flash", x.flash);
  f.opt("ram", x.ram);
}

void read(const json& v, const std::string& path, FlashRam& x) {
  Fields f(v, path);
  f.req("flash", x.flash);
  f.req("ram", x.ram);
}

void read(const json& v, const std::string& path, KernelFootprint& x) {
  Fields f(v, path);
  f.opt("error", x.error);
  f.opt("bare_key", x.bare_key);
  f.nullable("bare_cached", x.bare_cached);
  f.opt("bare_log", x.bare_log);
  if (!x.error.empty()) return;
  f.opt("port", x.port);
  f.opt("board", x.board);
  f.opt("image", x.image);
  f.opt("bare", x.bare);
  f.req("delta", x.delta);
  f.opt("libs", x.libs);
  f.opt("kernel", x.kernel);
  f.opt("port_glue", x.port_glue);
  f.opt("bare_port", x.bare_port);
}

void read(const json& v, const std::string& path, BuildRecord& x) {
  Fields f(v, path);
  f.opt("cached", x.cached);
  f.opt("cacheable", x.cacheable);
  f.opt("key", x.key);
  f.opt("nonce", x.nonce);
  f.opt("elf", x.elf);
  f.opt("map", x.map);
  f.opt("bin", x.bin);
  f.opt("log", x.log);
  f.opt("elf_sha256", x.elf_sha256);
  f.opt("map_sha256", x.map_sha256);
  f.nullable("footprint", x.footprint);
  f.nullable("footprint_kernel", x.footprint_kernel);
  f.opt("defines", x.defines);
  f.opt("seconds", x.seconds);
  f.opt("built_at", x.built_at);
}

void read(const json& v, const std::string& path, BuildAttemptRecord& x) {
  Fields f(v, path);
  f.req("number", x.number);
  f.req("ok", x.ok);
  f.opt("reason", x.reason);
  f.opt("seconds", x.seconds);
  f.opt("log", x.log);
}

void read(const json& v, const std::string& path, VerdictRecord& x) {
  Fields f(v, path);
  f.opt("check", x.check);
  f.opt("severity", x.severity);
  f.opt("line", x.line);
  f.opt("message", x.message);
}

void read(const json& v, const std::string& path, AttemptRecord& a) {
  Fields f(v, path);
  f.req("number", a.number);
  f.opt("load", a.load);
  f.req("status", a.status);
  f.opt("reason", a.reason);
  f.opt("board", a.board);
  f.opt("started_at", a.started_at);
  f.opt("seconds", a.seconds);
  f.opt("flash_seconds", a.flash_seconds);
  f.opt("flash_commands", a.flash_commands);
  f.opt("serial_port", a.serial_port);
  if (const json* c = f.find("capture"); c && !c->is_null()) {
    Fields cf(*c, member(path, "capture"));
    cf.opt("stop", a.capture_stop);
    cf.opt("bytes", a.capture_bytes);
    cf.opt("lines", a.capture_lines);
    cf.opt("target_run_seconds", a.target_run_seconds);
    cf.opt("raw_file", a.raw_file);
    cf.opt("raw_sha256", a.raw_sha256);
  }
  if (const json* vj = f.find("verify"); vj && !vj->is_null()) {
    Fields vf(*vj, member(path, "verify"));
    vf.opt("outcome", a.verify_outcome);
    vf.opt("verdicts", a.verdicts);
  }
}

void read(const json& v, const std::string& path, SeriesRecord& s) {
  Fields f(v, path);
  f.opt("phase", s.phase);
  f.req("name", s.name);
  f.req("n", s.n);
  f.opt("hz", s.hz);
  f.opt("has_raw", s.has_raw);
  f.opt("sum_ticks", s.sum_ticks);
  f.nullable("mean_ticks", s.mean_ticks);
  f.nullable("stddev_ticks", s.stddev_ticks);
  f.nullable("jitter", s.jitter);
  f.opt("avg_ticks", s.avg_ticks);
  f.opt("avg_ns", s.avg_ns);
  f.opt("min_ticks", s.min_ticks);
  f.opt("min_ns", s.min_ns);
  f.opt("median_ticks", s.median_ticks);
  f.opt("median_ns", s.median_ns);
  f.opt("p90_ticks", s.p90_ticks);
  f.opt("p90_ns", s.p90_ns);
  f.opt("p99_ticks", s.p99_ticks);
  f.opt("p99_ns", s.p99_ns);
  f.opt("p999_ticks", s.p999_ticks);
  f.opt("p999_ns", s.p999_ns);
  f.opt("max_ticks", s.max_ticks);
  f.opt("max_ns", s.max_ns);
  f.nullable("base_ticks", s.base_ticks);
  f.nullable("median_minus_base_ticks", s.median_minus_base_ticks);
}

void read(const json& v, const std::string& path, NotApplicable& x) {
  Fields f(v, path);
  f.req("name", x.name);
  f.opt("reason", x.reason);
}

void read(const json& v, const std::string& path, Headline& h) {
  Fields f(v, path);
  f.req("name", h.name);
  f.opt("phase", h.phase);
  f.req("median_ticks", h.median_ticks);
  f.opt("median_ns", h.median_ns);
  f.opt("unit", h.unit);
}

void read(const json& v, const std::string& path, VerifyDocument& x) {
  x.document = v;
  x.tests.clear();
  if (v.is_null()) return;
  Fields f(v, path);
  const json* series = f.find("series");
  if (!series || series->is_null()) return;
  const std::string sp = member(path, "series");
  if (!series->is_array()) bad(sp, "expected an array");
  for (size_t i = 0; i < series->size(); ++i) {
    Fields s((*series)[i], element(sp, i));
    std::string phase, name, test;
    s.opt("phase", phase);
    s.opt("name", name);
    s.opt("test", test);
    if (!test.empty()) x.tests[{phase, name}] = test;
  }
}

void read(const json& v, const std::string& path, LoadRecord& l) {
  Fields f(v, path);
  f.req("load", l.load);
  f.req("status", l.status);
  f.opt("reason", l.reason);
  f.req("attempts", l.attempts);
  f.opt("conditions", l.conditions);
  f.opt("unit", l.unit);
  f.opt("series", l.series);
  f.opt("not_applicable", l.not_applicable);
  f.opt("headline", l.headline);
  f.opt("target_run_seconds", l.target_run_seconds);
  f.opt("raw_sha256", l.raw_sha256);
  f.opt("finished_at", l.finished_at);
  if (const json* vj = f.find("verify")) read(*vj, member(path, "verify"), l.verify);
}

void read(const json& v, const std::string& path, StatisticSpread& x) {
  Fields f(v, path);
  f.opt("values", x.values);
  f.nullable("min", x.min);
  f.nullable("max", x.max);
  f.nullable("range", x.range);
  f.nullable("rel_pct", x.rel_pct);
  if (const json* a = f.find("allowed"); a && !(a->is_string() && a->get<std::string>() == "off")) {
    read(*a, member(path, "allowed"), x.allowed);
  }
  f.opt("within", x.within);
}

void read(const json& v, const std::string& path, SeriesSpread& x) {
  Fields f(v, path);
  f.opt("phase", x.phase);
  f.opt("name", x.name);
  if (const json* s = f.find("statistics"); s && !s->is_null()) {
    const std::string sp = member(path, "statistics");
    if (!s->is_object()) bad(sp, "expected an object");
    for (const auto& [k, st] : s->items()) read(st, member(sp, k.c_str()), x.statistics[k]);
  }
  f.opt("missing_in_loads", x.missing_in_loads);
}

void read(const json& v, const std::string& path, BeyondTolerance& x) {
  Fields f(v, path);
  f.opt("series", x.series);
  f.opt("statistic", x.statistic);
  f.nullable("min", x.min);
  f.nullable("max", x.max);
  f.nullable("range", x.range);
  f.nullable("rel_pct", x.rel_pct);
  f.nullable("allowed", x.allowed);
  f.opt("values", x.values);
  f.opt("missing_in_loads", x.missing_in_loads);
}

void read(const json& v, const std::string& path, Reproducibility& x) {
  Fields f(v, path);
  f.opt("loads", x.loads);
  f.opt("verdict", x.verdict);
  f.nullable("reproducible", x.reproducible);
  f.opt("summary", x.summary);
  f.opt("beyond", x.beyond);
  f.nullable("raw_captures_identical", x.raw_captures_identical);
  if (const json* t = f.find("tolerance"); t && !t->is_null()) {
    const std::string tp = member(path, "tolerance");
    Fields tf(*t, tp);
    tf.opt("origin", x.tolerance_origin);
    if (const json* s = tf.find("statistics"); s && !s->is_null()) {
      const std::string sp = member(tp, "statistics");
      if (!s->is_object()) bad(sp, "expected an object");
      for (const auto& [k, e] : s->items()) {
        SpreadTolerance tol;
        if (e.is_string() && e.get<std::string>() == "off") {
          tol.off = true;
        } else {
          Fields ef(e, member(sp, k.c_str()));
          ef.opt("abs", tol.abs);
          ef.opt("pct", tol.pct);
        }
        x.tolerance[k] = tol;
      }
    }
  }
}

void check_schema(const Fields& f, const char* schema) {
  std::string s;
  f.req("schema", s);
  if (s != schema) bad(member(f.path(), "schema"), fmt::format("is '{}', not {}", s, schema));
  int64_t version = 0;
  f.req("schema_version", version);
  if (version > kSchemaVersion) {
    bad(member(f.path(), "schema_version"),
        fmt::format("{} is newer than this rtosbench ({})", version, kSchemaVersion));
  }
}

void read(const json& v, const std::string& path, JobResult& r) {
  Fields f(v, path);
  check_schema(f, kJobResultSchema);
  f.req("run_id", r.run_id);
  f.req("job_id", r.job_id);
  r.build_id = r.job_id;
  f.opt("build_id", r.build_id);
  f.req("status", r.status);
  f.opt("reason", r.reason);
  f.opt("job", r.job);
  f.nullable("kernel_source", r.kernel_source);
  f.nullable("toolchain", r.toolchain);
  f.nullable("build", r.build);
  f.opt("build_attempts", r.build_attempts);
  f.opt("expect", r.expect);
  f.req("attempts", r.attempts);
  f.opt("conditions", r.conditions);
  f.opt("unit", r.unit);
  f.opt("series", r.series);
  f.opt("not_applicable", r.not_applicable);
  if (const json* vj = f.find("verify")) read(*vj, member(path, "verify"), r.verify);
  f.opt("headline", r.headline);
  f.opt("finished_at", r.finished_at);
  f.nullable("loads", r.loads);
  f.nullable("spread", r.spread);
  f.nullable("reproducibility", r.reproducibility);
}

void read(const json& v, const std::string& path, RunInput& x) {
  Fields f(v, path);
  f.opt("name", x.name);
  f.opt("snapshot", x.snapshot);
  f.opt("source", x.source);
  f.opt("sha256", x.sha256);
}

void read(const json& v, const std::string& path, RunJobEntry& x) {
  Fields f(v, path);
  f.req("id", x.id);
  f.opt("kernel", x.kernel);
  f.opt("status", x.status);
  f.opt("reason", x.reason);
  f.opt("result", x.result);
  f.nullable("attempts", x.attempts);
  f.nullable("headline", x.headline);
  f.nullable("loads", x.loads);
  if (const json* r = f.find("reproducible")) {
    std::optional<bool> b;
    read(*r, member(path, "reproducible"), b);
    x.reproducible = b;
  }
}

void read(const json& v, const std::string& path, RunSession& x) {
  Fields f(v, path);
  f.opt("finished_at", x.finished_at);
  f.opt("state", x.state);
  f.opt("wall_seconds", x.wall_seconds);
  f.opt("target_run_seconds", x.target_run_seconds);
  f.opt("exit_code", x.exit_code);
}

void read(const json& v, const std::string& path, RunSummary& x) {
  Fields f(v, path);
  check_schema(f, kRunSummarySchema);
  f.opt("run_id", x.run_id);
  f.opt("state", x.state);
  f.opt("started_at", x.started_at);
  f.opt("updated_at", x.updated_at);
  f.opt("finished_at", x.finished_at);
  f.opt("rtosbench_version", x.rtosbench_version);
  f.nullable("matrix", x.matrix);
  f.nullable("bench", x.bench);
  f.nullable("toolchain", x.toolchain);
  if (const json* o = f.find("options"); o && !o->is_null()) {
    if (!o->is_object()) bad(member(path, "options"), "expected an object");
    x.options = *o;
  }
  f.opt("jobs", x.jobs);
  f.opt("counts", x.counts);
  f.opt("sessions", x.sessions);
  f.nullable("exit_code", x.exit_code);
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

SeriesRecord series_record(const verify::SeriesStats& s) {
  SeriesRecord r;
  r.phase = s.phase;
  r.name = s.name;
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
  }
  return r;
}

std::vector<std::pair<std::string, double>> SeriesRecord::numbers() const {
  std::vector<std::pair<std::string, double>> out{
      {"n", static_cast<double>(n)},
      {"sum_ticks", static_cast<double>(sum_ticks)},
      {"avg_ticks", static_cast<double>(avg_ticks)},
      {"avg_ns", static_cast<double>(avg_ns)},
      {"min_ticks", static_cast<double>(min_ticks)},
      {"min_ns", static_cast<double>(min_ns)},
      {"median_ticks", static_cast<double>(median_ticks)},
      {"median_ns", static_cast<double>(median_ns)},
      {"p90_ticks", static_cast<double>(p90_ticks)},
      {"p90_ns", static_cast<double>(p90_ns)},
      {"p99_ticks", static_cast<double>(p99_ticks)},
      {"p99_ns", static_cast<double>(p99_ns)},
      {"p999_ticks", static_cast<double>(p999_ticks)},
      {"p999_ns", static_cast<double>(p999_ns)},
      {"max_ticks", static_cast<double>(max_ticks)},
      {"max_ns", static_cast<double>(max_ns)},
  };
  if (mean_ticks) out.emplace_back("mean_ticks", *mean_ticks);
  if (stddev_ticks) out.emplace_back("stddev_ticks", *stddev_ticks);
  if (jitter) out.emplace_back("jitter", *jitter);
  if (base_ticks) out.emplace_back("base_ticks", static_cast<double>(*base_ticks));
  if (median_minus_base_ticks)
    out.emplace_back("median_minus_base_ticks", static_cast<double>(*median_minus_base_ticks));
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
