#include "run/reproducibility.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "matrix/load.h"

namespace rb::run {

using nlohmann::json;
using store::JobStatus;

namespace {

// Statistic name -> key of a result.json series (the names diff uses).
const std::vector<std::pair<std::string, std::string>>& statistic_keys() {
  static const std::vector<std::pair<std::string, std::string>> kKeys{{"n", "n"},
                                                                      {"min", "min_ticks"},
                                                                      {"median", "median_ticks"},
                                                                      {"avg", "avg_ticks"},
                                                                      {"p90", "p90_ticks"},
                                                                      {"p99", "p99_ticks"},
                                                                      {"p999", "p999_ticks"},
                                                                      {"max", "max_ticks"},
                                                                      {"stddev", "stddev_ticks"},
                                                                      {"jitter", "jitter"},
                                                                      {"base", "base_ticks"}};
  return kKeys;
}

std::string series_key(const json& s) {
  std::string phase = s.value("phase", "");
  std::string name = s.value("name", "");
  return phase.empty() ? name : phase + "/" + name;
}

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.4g}", v);
}

std::string tolerance_text(const matrix::SpreadTolerance& t) {
  if (t.off) return "off";
  if (t.abs == 0) return fmt::format("{:g}%", t.pct);
  if (t.pct == 0) return fmt::format("{:g}", t.abs);
  return fmt::format("max({:g}, {:g}%)", t.abs, t.pct);
}

}  // namespace

const matrix::SpreadTolerance& ReproducibilityPolicy::of(const std::string& statistic) const {
  static const matrix::SpreadTolerance kIdentical{};
  auto it = per_statistic.find(statistic);
  return it == per_statistic.end() ? kIdentical : it->second;
}

json ReproducibilityPolicy::to_json() const {
  json t = json::object();
  for (const auto& [name, tol] : per_statistic) {
    t[name] = tol.off ? json("off") : json{{"abs", tol.abs}, {"pct", tol.pct}};
  }
  return json{{"origin", origin}, {"statistics", t}};
}

ReproducibilityPolicy reproducibility_policy(const matrix::Matrix& m,
                                             const matrix::BoardInstance& board) {
  ReproducibilityPolicy p;
  const bool emulated = board.emulated;
  for (const auto& name : matrix::known_statistics()) p.per_statistic[name] = {};
  if (!emulated) {
    // Cold starts of one board move medians by a few cycles and tails much
    // more: the same allowances `rtosbench diff` uses.
    for (const auto& a : matrix::hardware_allowances()) p.per_statistic[a.statistic] = {a.abs, a.pct, false};
  }
  p.origin = emulated ? "emulated bench default: identical loads"
                      : "hardware default (the allowances of diff)";
  if (!m.reproducibility.empty()) {
    if (auto it = m.reproducibility.find("default"); it != m.reproducibility.end()) {
      for (auto& [name, t] : p.per_statistic) t = it->second;
    }
    for (const auto& [name, t] : m.reproducibility) {
      if (name != "default") p.per_statistic[name] = t;
    }
    p.origin = fmt::format("matrix reproducibility: over the {}", p.origin);
  }
  return p;
}

SpreadVerdict judge_loads(const std::vector<json>& load_series,
                          const ReproducibilityPolicy& policy) {
  SpreadVerdict v;
  // Series in the order of their first appearance, load 1 first.
  std::vector<std::pair<std::string, json>> order;
  std::set<std::string> seen;
  for (const auto& series : load_series) {
    for (const auto& s : series) {
      if (!s.is_object()) continue;
      std::string key = series_key(s);
      if (seen.insert(key).second) order.emplace_back(key, s);
    }
  }
  auto find = [](const json& series, const std::string& key) -> const json* {
    for (const auto& s : series) {
      if (s.is_object() && series_key(s) == key) return &s;
    }
    return nullptr;
  };
  std::vector<std::string> problems;
  for (const auto& [key, first] : order) {
    std::vector<const json*> per_load;
    std::vector<int> missing;
    for (size_t l = 0; l < load_series.size(); ++l) {
      const json* s = find(load_series[l], key);
      if (!s) missing.push_back(static_cast<int>(l + 1));
      per_load.push_back(s);
    }
    json entry{{"phase", first.value("phase", "")},
               {"name", first.value("name", "")},
               {"statistics", json::object()}};
    if (!missing.empty()) {
      v.identical = false;
      v.reproducible = false;
      v.beyond.push_back(
          json{{"series", key}, {"statistic", "present"}, {"missing_in_loads", missing}});
      problems.push_back(fmt::format("{} missing in load(s) {}", key, fmt::join(missing, ", ")));
      entry["missing_in_loads"] = missing;
      v.spread.push_back(entry);
      continue;
    }
    for (const auto& [stat, json_key] : statistic_keys()) {
      std::vector<std::optional<double>> values;
      bool any = false;
      for (const json* s : per_load) {
        auto it = s->find(json_key);
        if (it != s->end() && it->is_number()) {
          values.push_back(it->get<double>());
          any = true;
        } else {
          values.push_back(std::nullopt);
        }
      }
      if (!any) continue;  // e.g. base_ticks of a series without a ruler
      const matrix::SpreadTolerance& tol = policy.of(stat);
      json vals = json::array();
      for (const auto& x : values) vals.push_back(x ? json(*x) : json());
      json st{{"values", vals}};
      bool partial =
          std::any_of(values.begin(), values.end(), [](const auto& x) { return !x.has_value(); });
      if (partial) {
        // A statistic some loads have and others do not cannot be judged
        // equal.
        st["within"] = tol.off;
        entry["statistics"][stat] = st;
        v.identical = false;
        if (!tol.off) {
          v.reproducible = false;
          v.beyond.push_back(json{{"series", key}, {"statistic", stat}, {"values", vals}});
          problems.push_back(fmt::format("{} {}: present in only some loads", key, stat));
        }
        continue;
      }
      double lo = **std::min_element(values.begin(), values.end());
      double hi = **std::max_element(values.begin(), values.end());
      double range = hi - lo;
      json rel = range == 0 ? json(0.0) : (lo != 0 ? json(range / std::fabs(lo) * 100.0) : json());
      double allowed = std::max(tol.abs, tol.pct / 100.0 * std::fabs(lo));
      // Ticks are integers; the tolerance arithmetic must not turn an exact
      // bound into a failure.
      bool within = tol.off || range <= allowed * (1 + 1e-12) + 1e-12;
      st["min"] = lo;
      st["max"] = hi;
      st["range"] = range;
      st["rel_pct"] = rel;
      st["allowed"] = tol.off ? json("off") : json(allowed);
      st["within"] = within;
      entry["statistics"][stat] = st;
      if (range != 0) v.identical = false;
      if (!within) {
        v.reproducible = false;
        v.beyond.push_back(json{{"series", key},
                                {"statistic", stat},
                                {"min", lo},
                                {"max", hi},
                                {"range", range},
                                {"rel_pct", rel},
                                {"allowed", allowed}});
        problems.push_back(
            fmt::format("{} {} {}..{} ({}) > {}", key, stat, number_text(lo), number_text(hi),
                        rel.is_number() ? fmt::format("{:.3g}%", rel.get<double>()) : "from 0",
                        tolerance_text(tol)));
      }
    }
    v.spread.push_back(entry);
  }
  if (v.identical) {
    v.summary = fmt::format("{} loads identical", load_series.size());
  } else if (v.reproducible) {
    v.summary = fmt::format("{} loads within the reproducibility tolerance", load_series.size());
  } else {
    std::vector<std::string> shown(problems.begin(),
                                   problems.begin() + std::min<size_t>(3, problems.size()));
    v.summary = fmt::format("{} loads differ beyond the reproducibility tolerance: {}{}",
                            load_series.size(), fmt::join(shown, "; "),
                            problems.size() > shown.size()
                                ? fmt::format(" (+{} more)", problems.size() - shown.size())
                                : "");
  }
  return v;
}

json to_json(const LoadOutcome& l) {
  json attempts = json::array();
  for (const auto& a : l.attempts) attempts.push_back(store::attempt_json(a));
  json headline = json::array();
  for (const auto& h : l.headline) {
    headline.push_back(json{{"name", h.name},
                            {"phase", h.phase},
                            {"median_ticks", h.median_ticks},
                            {"median_ns", h.median_ns},
                            {"unit", h.unit}});
  }
  return json{{"load", l.load},
              {"status", store::to_string(l.status)},
              {"reason", l.reason},
              {"attempts", attempts},
              {"conditions", l.conditions},
              {"unit", l.unit},
              {"series", l.series},
              {"not_applicable", l.not_applicable},
              {"headline", headline},
              {"target_run_seconds", l.target_run_seconds},
              {"raw_sha256", l.raw_sha256},
              {"verify", l.verify},
              {"finished_at", l.finished_at}};
}

Result<LoadOutcome> load_outcome_from_json(const json& j) {
  try {
    LoadOutcome l;
    l.load = j.at("load").get<int>();
    auto st = store::status_from_string(j.at("status").get<std::string>());
    if (!st)
      return Error{fmt::format("load status '{}' unknown", j.at("status").get<std::string>())};
    l.status = *st;
    l.reason = j.value("reason", "");
    for (const auto& a : j.at("attempts")) l.attempts.push_back(store::attempt_from_json(a));
    l.conditions = j.value("conditions", std::map<std::string, std::string>{});
    l.unit = j.value("unit", "");
    l.series = j.value("series", json::array());
    l.not_applicable = j.value("not_applicable", json::array());
    l.verify = j.value("verify", json());
    for (const auto& h : j.value("headline", json::array())) {
      l.headline.push_back(store::Headline{h.at("name").get<std::string>(), h.value("phase", ""),
                                           h.at("median_ticks").get<uint64_t>(),
                                           h.value("median_ns", uint64_t{0}), h.value("unit", "")});
    }
    l.target_run_seconds = j.value("target_run_seconds", 0.0);
    l.raw_sha256 = j.value("raw_sha256", "");
    l.finished_at = j.value("finished_at", "");
    return l;
  } catch (const std::exception& e) {
    return Error{e.what()};
  }
}

void fill_from_loads(store::JobResult& r, const std::vector<LoadOutcome>& loads, int planned,
                     const ReproducibilityPolicy& policy) {
  if (loads.empty()) return;
  for (const auto& l : loads)
    r.attempts.insert(r.attempts.end(), l.attempts.begin(), l.attempts.end());
  const LoadOutcome& first = loads.front();
  r.conditions = first.conditions;
  r.unit = first.unit;
  r.series = first.series;
  r.not_applicable = first.not_applicable;
  r.verify = first.verify;
  if (planned <= 1) {
    r.status = first.status;
    r.reason = first.reason;
    if (r.status == JobStatus::kOk) r.headline = first.headline;
    return;
  }
  json entries = json::array();
  for (const auto& l : loads) {
    json e = to_json(l);
    e.erase("verify");  // kept in load-<K>/load.json and each attempt's verify.json
    entries.push_back(e);
  }
  r.loads = entries;
  const LoadOutcome* failed = nullptr;
  for (const auto& l : loads) {
    if (l.status != JobStatus::kOk && store::is_infrastructure_failure(l.status)) {
      failed = &l;
      break;
    }
  }
  for (const auto& l : loads) {
    if (failed) break;
    if (l.status != JobStatus::kOk) failed = &l;
  }
  json verdict{{"loads", planned}, {"tolerance", policy.to_json()}};
  if (failed) {
    r.status = failed->status;
    r.reason = fmt::format("load {} of {}: {}", failed->load, planned, failed->reason);
    if (int next = loads.back().load + 1; next < planned) {
      r.reason += fmt::format(" (loads {}..{} not run)", next, planned);
    } else if (next == planned) {
      r.reason += fmt::format(" (load {} not run)", next);
    }
    verdict["verdict"] = "not_judged";
    verdict["reproducible"] = nullptr;
    verdict["summary"] =
        fmt::format("not judged: load {} is {}", failed->load, store::to_string(failed->status));
    r.reproducibility = verdict;
    return;
  }
  std::vector<json> series;
  for (const auto& l : loads) series.push_back(l.series);
  SpreadVerdict v = judge_loads(series, policy);
  r.spread = v.spread;
  verdict["verdict"] = v.identical      ? "identical"
                       : v.reproducible ? "within_tolerance"
                                        : "beyond_tolerance";
  verdict["reproducible"] = v.reproducible;
  verdict["beyond"] = v.beyond;
  verdict["summary"] = v.summary;
  std::set<std::string> raws;
  for (const auto& l : loads) raws.insert(l.raw_sha256);
  verdict["raw_captures_identical"] = raws.size() == 1 && !raws.begin()->empty();
  r.reproducibility = verdict;
  if (v.reproducible) {
    r.status = JobStatus::kOk;
    r.reason = "";
    r.headline = first.headline;
  } else {
    r.status = JobStatus::kNotReproducible;
    r.reason = v.summary;
  }
}

}  // namespace rb::run
