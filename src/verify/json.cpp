// The machine-readable report: everything the text report shows, plus the
// firmware's own RESULT fields, the phases, the checks and every verdict.
#include <cmath>
#include <nlohmann/json.hpp>

#include "stats/summary.h"
#include "util/utf8.h"
#include "util/version.h"
#include "verify/verify.h"

namespace rb::verify {
namespace {

using nlohmann::json;

// Every string from the log goes through this: JSON must be valid UTF-8.
std::string u(std::string_view s) {
  return valid_utf8(s);
}

// A map, or a list of key/value pairs (a later key wins, as in a map).
template <class Pairs>
json string_map(const Pairs& m) {
  json o = json::object();
  for (const auto& [k, v] : m) o[u(k)] = u(v);
  return o;
}

// One array, one element per item.
template <class Items, class Fn>
json array_of(const Items& items, Fn fn) {
  json a = json::array();
  for (const auto& item : items) a.push_back(fn(item));
  return a;
}

// Rounded as the text report prints it, so both say the same.
double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

// min, median, avg (the floored mean), p90, p99, p999 and max, each through f.
template <class F>
json stat_block(const SeriesStats& s, F f) {
  return json{{"min", f(s.min)}, {"median", f(s.median)}, {"avg", f(s.avg_ticks)},
              {"p90", f(s.p90)}, {"p99", f(s.p99)},       {"p999", f(s.p999)},
              {"max", f(s.max)}};
}

json ticks_block(const SeriesStats& s) {
  json o = stat_block(s, [](uint64_t v) { return v; });
  o["mean"] = s.mean;
  o["stddev"] = round_to(s.stddev, 2);
  o["sum"] = s.sum;
  return o;
}

json ns_block(const SeriesStats& s) {
  json o = stat_block(s, [&](uint64_t t) { return stats::ticks_to_ns(t, s.hz); });
  o["avg"] = s.avg_ns;
  o["stddev"] = round_to(s.stddev * (s.hz ? 1e9 / static_cast<double>(s.hz) : 0.0), 2);
  return o;
}

void net_blocks(const SeriesStats& s, json& ticks_out, json& ns_out) {
  const uint64_t b = *s.base_ticks;
  auto net = [&](uint64_t v) { return stats::minus_baseline(v, b); };
  const unsigned __int128 base_sum = static_cast<unsigned __int128>(b) * s.n;
  const unsigned __int128 net_sum = s.sum > base_sum ? s.sum - base_sum : 0;
  ticks_out = stat_block(s, net);
  ns_out = stat_block(s, [&](uint64_t t) { return stats::ticks_to_ns(net(t), s.hz); });
  ns_out["avg"] = stats::mean_ns(net_sum, s.n, s.hz);
}

json series_json(const SeriesStats& s) {
  json o;
  o["test"] = u(s.test);
  o["phase"] = u(s.phase);
  o["name"] = u(s.name);
  o["raw_line"] = s.raw_line;
  o["result_line"] = s.result_line;
  o["has_raw"] = s.has_raw;
  o["has_result"] = s.has_result;
  o["n"] = s.n;
  o["hz"] = s.hz;
  if (s.has_raw) {
    o["ticks"] = ticks_block(s);
    o["ns"] = s.hz ? ns_block(s) : json(nullptr);
    o["jitter"] = std::isfinite(s.jitter) ? json(round_to(s.jitter, 3)) : json(nullptr);
  } else {
    o["ticks"] = nullptr;
    o["ns"] = nullptr;
    o["jitter"] = nullptr;
  }
  o["base_ticks"] = s.base_ticks ? json(*s.base_ticks) : json(nullptr);
  o["base"] = s.base_ticks ? json(u(s.base)) : json(nullptr);
  if (s.has_raw && s.base_ticks && s.hz) {
    json t, n;
    net_blocks(s, t, n);
    o["net_ticks"] = t;
    o["net_ns"] = n;
  } else {
    o["net_ticks"] = nullptr;
    o["net_ns"] = nullptr;
  }
  if (s.calls && s.refused) {  // the heap test's allocations only
    o["calls"] = *s.calls;
    o["refused"] = *s.refused;
  }
  o["reported"] = string_map(s.reported);
  o["not_checked"] = array_of(s.not_checked, u);
  return o;
}

json phase_json(const PhaseCounters& p) {
  json o{{"test", u(p.test)},
         {"name", u(p.name)},
         {"irq", p.irq},
         {"task", p.task},
         {"bad", p.bad},
         {"status", u(p.status)},
         {"expected", p.expected ? json(*p.expected) : json(nullptr)},
         {"line", p.line}};
  if (p.window) {
    json delay = json::array();
    for (const DelayFigures& d : p.delay) {
      delay.push_back(json{{"series", u(d.series)},
                           {"limit", d.limit},
                           {"n", d.n},
                           {"delayed", d.delayed},
                           {"worst", d.worst},
                           {"beyond", d.beyond}});
    }
    o["window"] = *p.window;
    o["delay"] = std::move(delay);
  }
  return o;
}

json check_json(const CheckOutcome& c) {
  return json{{"test", u(c.test)}, {"name", u(c.name)},     {"rounds", c.rounds}, {"pass", c.pass},
              {"fail", c.fail},    {"status", u(c.status)}, {"line", c.line}};
}

json verdict_json(const Verdict& v) {
  return json{{"check", v.check},
              {"severity", v.severity == Outcome::kValid ? "note" : to_string(v.severity)},
              {"line", v.line},
              {"message", u(v.message)}};
}

}  // namespace

nlohmann::json to_json(const Report& r) {
  json j;
  j["tool"] = "rtosbench verify";
  j["version"] = kVersion;
  j["source"] = u(r.source);
  j["outcome"] = to_string(r.outcome);
  j["exit_code"] = exit_code(r.outcome);
  j["protocol"] = u(r.protocol);
  j["integrity_checked"] = r.integrity_checked;
  j["unit"] = u(r.unit);
  j["bytes"] = r.bytes;
  j["lines"] = json{{"total", r.lines},
                    {"protocol", r.protocol_lines},
                    {"other", r.other_lines},
                    {"overlong", r.overlong_lines},
                    {"control", r.control_lines}};
  j["config"] = string_map(r.config);
  j["end"] = string_map(r.end_fields);
  j["dwt_read_pair"] = r.dwt_read_pair ? json(*r.dwt_read_pair) : json(nullptr);
  j["tests"] = array_of(r.tests, u);
  j["series"] = array_of(r.series, series_json);
  j["phases"] = array_of(r.phases, phase_json);
  j["checks"] = array_of(r.checks, check_json);
  json na = json::array();
  for (size_t i = 0; i < r.not_applicable.size(); ++i) {
    na.push_back(json{{"name", u(r.not_applicable[i].first)},
                      {"reason", u(r.not_applicable[i].second)},
                      {"line", i < r.not_applicable_lines.size() ? r.not_applicable_lines[i] : 0}});
  }
  j["not_applicable"] = std::move(na);
  j["verdicts"] = array_of(r.verdicts, verdict_json);
  j["suppressed"] = r.suppressed;
  return j;
}

}  // namespace rb::verify
