#include "model/axes.h"

#include <cctype>
#include <sstream>

namespace rb::model {

std::string opt_id(const std::string& opt) {
  auto alnum = [](const std::string& s) {
    std::string id;
    for (char c : s)
      if (std::isalnum(static_cast<unsigned char>(c))) id += c;
    return id;
  };
  std::istringstream in(opt);
  for (std::string tok; in >> tok;) {
    if (tok.size() >= 2 && tok[0] == '-' && tok[1] == 'O') {
      if (std::string id = alnum(tok.substr(1)); !id.empty()) return id;
    }
  }
  std::string id = alnum(opt);
  return id.empty() ? "opt" : id;
}

namespace {

std::string when_not(const std::string& value, const char* dflt, const char* part) {
  return value == dflt ? "" : part;
}

constexpr std::string_view kFlagsSchema =
    R"({"type": "string", "minLength": 1, "maxLength": 512,
        "pattern": "^(-(O[0-3sgz]?|Ofast|g[0-3]?|ggdb[0-3]?|gdwarf(-[2-5])?|f(?!plugin)[a-z0-9][a-z0-9-]*(=[A-Za-z0-9_.+-]+)?|m[a-z0-9][a-z0-9-]*(=[A-Za-z0-9_.+-]+)?|D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|U[A-Za-z_][A-Za-z0-9_]*|W[a-z0-9][a-z0-9=-]*|std=[a-z0-9+]+)( +|$))+$",
        "x-rule": "space-separated -O*, -g*, -f<option>[=value] (not -fplugin), -m<option>[=value], -D<MACRO>[=value], -U<MACRO>, -W<warning> or -std=<standard>, values of [A-Za-z0-9_.+-]"})";
constexpr std::string_view kBitSchema = R"({"enum": [0, 1]})";

}  // namespace

const std::vector<Axis>& axes() {
  static const std::vector<Axis> kAxes{
      {"opt", "RB_OPT", "opt", "optimisation", "-O2 -g0", kFlagsSchema,
       [](const std::string& v) { return opt_id(v); }},
      {"tick_hz", "RB_TICK_HZ", "tick", "tick rate [Hz]", "1000",
       R"({"type": "integer", "minimum": 0, "maximum": 100000})",
       [](const std::string& v) { return "tick" + v; }},
      {"fpu_context", "RB_FPU_CONTEXT", "fpu", "FP context", "0", kBitSchema,
       [](const std::string& v) { return "fpu" + v; }},
      {"checks", "RB_CHECKS", "checks", "API checks", "off", R"({"enum": ["off", "on"]})",
       [](const std::string& v) { return when_not(v, "off", "checks"); }},
      {"ramfunc", "RB_RAMFUNC", "ramfunc", "code in RAM", "0", kBitSchema,
       [](const std::string& v) { return when_not(v, "0", "ram"); }},
      {"tickless", "RB_TICKLESS", "tickless", "tickless idle", "0", kBitSchema,
       [](const std::string& v) { return when_not(v, "0", "tickless"); }},
      {"edges", "RB_EDGES", "edges", "GPIO edges", "off", R"({"enum": ["off", "on"]})",
       [](const std::string& v) { return when_not(v, "off", "edges"); }},
  };
  return kAxes;
}

const Axis* find_axis(std::string_view key) {
  for (const auto& a : axes())
    if (a.key == key) return &a;
  return nullptr;
}

Variant default_variant() {
  Variant v;
  for (const auto& a : axes()) v[std::string(a.key)] = a.default_value;
  return v;
}

std::string job_id(const std::string& kernel, const Variant& v) {
  std::string id = kernel;
  for (const auto& a : axes()) {
    auto it = v.find(std::string(a.key));
    std::string part = a.id_part(it == v.end() ? std::string(a.default_value) : it->second);
    if (!part.empty()) id += "-" + part;
  }
  return id;
}

const std::vector<Statistic>& statistics() {
  // Emulated runs repeat to the instruction; on hardware the medians move by
  // a few cycles between cold starts (seed 000), tails and maxima much more.
  static const std::vector<Statistic> kStats{
      {"n", "n", Worse::kEither, 0, 0},
      {"min", "min_ticks", Worse::kHigher, 2, 5},
      {"median", "median_ticks", Worse::kHigher, 2, 2},
      {"avg", "avg_ticks", Worse::kHigher, 2, 2},
      {"p90", "p90_ticks", Worse::kHigher, 3, 5},
      {"p99", "p99_ticks", Worse::kHigher, 5, 5},
      {"p999", "p999_ticks", Worse::kHigher, 10, 10},
      {"max", "max_ticks", Worse::kHigher, 20, 25},
      {"stddev", "stddev_ticks", Worse::kHigher, 2, 25},
      {"jitter", "jitter", Worse::kHigher, 0.05, 5},
      // The ruler baseline moves only when the measurement path changed.
      {"base", "base_ticks", Worse::kEither, 1, 2},
  };
  return kStats;
}

const Statistic* find_statistic(std::string_view name) {
  for (const auto& s : statistics())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace rb::model
