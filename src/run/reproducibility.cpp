#include "run/reproducibility.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "matrix/load.h"

namespace rb::run {

using store::JobStatus;

namespace {

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

// The spread of every statistic of every series across the loads, judged.
// `beyond` also holds {series, statistic: "present", missing_in_loads} for a
// series only some loads have; `unjudged` names ("<key> (<reason>)") the
// series the board exempts that differed between loads.
struct SpreadVerdict {
  std::vector<store::SeriesSpread> spread;
  std::vector<store::BeyondTolerance> beyond;
  bool identical = true;     // every judged statistic equal in every load
  bool reproducible = true;  // nothing judged beyond tolerance
  std::vector<std::string> unjudged;
  std::string summary;  // one line for the job's reason and the table
};

// min, max, range, rel_pct, allowed and within of a statistic every load has.
void spread_of(store::StatisticSpread& st, const matrix::SpreadTolerance& tol) {
  const auto [lo_it, hi_it] = std::minmax_element(st.values.begin(), st.values.end());
  const double lo = **lo_it, hi = **hi_it, range = hi - lo;
  st.min = lo;
  st.max = hi;
  st.range = range;
  st.rel_pct = range == 0 ? std::optional<double>(0.0)
               : lo != 0  ? std::optional<double>(range / std::fabs(lo) * 100.0)
                          : std::nullopt;
  double allowed = std::max(tol.abs, tol.pct / 100.0 * std::fabs(lo));
  if (!tol.off) st.allowed = allowed;
  // Ticks are integers; the tolerance arithmetic must not turn an exact
  // bound into a failure.
  st.within = tol.off || range <= allowed * (1 + 1e-12) + 1e-12;
}

std::string summary_of(const SpreadVerdict& v, size_t loads,
                       const std::vector<std::string>& problems) {
  std::string s;
  if (v.identical || v.reproducible) {
    s = fmt::format("{} loads {}", loads,
                    v.identical ? "identical" : "within the reproducibility tolerance");
  } else {
    std::vector<std::string> shown(problems.begin(),
                                   problems.begin() + std::min<size_t>(3, problems.size()));
    s = fmt::format(
        "{} loads differ beyond the reproducibility tolerance: {}{}", loads, fmt::join(shown, "; "),
        problems.size() > shown.size() ? fmt::format(" (+{} more)", problems.size() - shown.size())
                                       : "");
  }
  if (!v.unjudged.empty())
    s += fmt::format("; not judged, differing: {}", fmt::join(v.unjudged, "; "));
  return s;
}

// `load_series[i]` is load i+1's series.
SpreadVerdict judge_loads(const std::vector<std::vector<store::SeriesRecord>>& load_series,
                          const ReproducibilityPolicy& policy) {
  using store::SeriesRecord;
  SpreadVerdict v;
  // Series in the order of their first appearance, load 1 first.
  std::vector<const SeriesRecord*> order;
  std::set<std::string> seen;
  for (const auto& series : load_series)
    for (const auto& s : series)
      if (seen.insert(s.key()).second) order.push_back(&s);
  std::vector<std::string> problems;
  for (const SeriesRecord* first : order) {
    const std::string key = first->key();
    std::vector<const SeriesRecord*> per_load;
    std::vector<int64_t> missing;
    for (size_t l = 0; l < load_series.size(); ++l) {
      auto it = std::ranges::find_if(load_series[l], [&](const auto& s) { return s.key() == key; });
      if (it == load_series[l].end()) missing.push_back(static_cast<int64_t>(l + 1));
      per_load.push_back(it == load_series[l].end() ? nullptr : &*it);
    }
    store::SeriesSpread entry;
    entry.phase = first->phase;
    entry.name = first->name;
    // A series the board exempts: its spread is recorded, never judged.
    const std::string exempt = policy.board.unjudged_reason(first->name);
    bool exempt_differs = false;
    if (!missing.empty()) {
      v.identical = false;
      v.reproducible = false;
      v.beyond.push_back(store::BeyondTolerance{key, "present", {}, {}, {}, {}, {}, {}, missing});
      problems.push_back(fmt::format("{} missing in load(s) {}", key, fmt::join(missing, ", ")));
      entry.missing_in_loads = missing;
      v.spread.push_back(entry);
      continue;
    }
    for (const auto& statistic : model::statistics()) {
      const std::string stat(statistic.name);
      std::vector<std::optional<double>> values;
      bool any = false;
      for (const SeriesRecord* s : per_load) {
        values.push_back(s->number(std::string(statistic.key)));
        any = any || values.back().has_value();
      }
      if (!any) continue;  // e.g. base_ticks of a series without a ruler
      const matrix::SpreadTolerance& tol = policy.of(stat);
      store::StatisticSpread st;
      st.values = values;
      bool partial =
          std::any_of(values.begin(), values.end(), [](const auto& x) { return !x.has_value(); });
      if (partial) {
        // A statistic some loads have and others do not cannot be judged
        // equal.
        st.within = tol.off;
        entry.statistics[stat] = st;
        if (!exempt.empty()) {
          exempt_differs = true;
          continue;
        }
        v.identical = false;
        if (!tol.off) {
          v.reproducible = false;
          v.beyond.push_back(store::BeyondTolerance{key, stat, {}, {}, {}, {}, {}, values, {}});
          problems.push_back(fmt::format("{} {}: present in only some loads", key, stat));
        }
        continue;
      }
      spread_of(st, tol);
      entry.statistics[stat] = st;
      if (!exempt.empty()) {
        exempt_differs = exempt_differs || *st.range != 0;
        continue;
      }
      if (*st.range != 0) v.identical = false;
      if (!st.within) {
        v.reproducible = false;
        v.beyond.push_back(store::BeyondTolerance{
            key, stat, st.min, st.max, st.range, st.rel_pct, st.allowed, {}, {}});
        problems.push_back(fmt::format(
            "{} {} {}..{} ({}) > {}", key, stat, number_text(*st.min), number_text(*st.max),
            st.rel_pct ? fmt::format("{:.3g}%", *st.rel_pct) : "from 0", tolerance_text(tol)));
      }
    }
    v.spread.push_back(entry);
    if (exempt_differs) v.unjudged.push_back(fmt::format("{} ({})", key, exempt));
  }
  v.summary = summary_of(v, load_series.size(), problems);
  return v;
}

}  // namespace

const matrix::SpreadTolerance& ReproducibilityPolicy::of(const std::string& statistic) const {
  static const matrix::SpreadTolerance kIdentical{};
  auto it = per_statistic.find(statistic);
  return it == per_statistic.end() ? kIdentical : it->second;
}

ReproducibilityPolicy reproducibility_policy(const matrix::Matrix& m,
                                             const matrix::BoardInstance& board) {
  ReproducibilityPolicy p;
  const bool emulated = board.emulated;
  for (const auto& st : model::statistics()) {
    // Cold starts of one board move medians by a few cycles and tails much
    // more: the same allowances `rtosbench diff` uses.
    p.per_statistic[std::string(st.name)] =
        emulated ? matrix::SpreadTolerance{} : matrix::SpreadTolerance{st.abs, st.pct, false};
  }
  if (const auto* info = m.catalog.board(board.board)) p.board = *info;
  p.origin = emulated ? "emulated bench default: identical loads"
                      : "hardware default (the allowances of diff)";
  if (!m.reproducibility.empty()) {
    if (auto it = m.reproducibility.find("default"); it != m.reproducibility.end())
      for (auto& [name, t] : p.per_statistic) t = it->second;
    for (const auto& [name, t] : m.reproducibility) {
      if (name != "default") p.per_statistic[name] = t;
    }
    p.origin = fmt::format("matrix reproducibility: over the {}", p.origin);
  }
  return p;
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
    // An analyzer failure keeps the DWT figures it verified OK.
    if (r.status == JobStatus::kOk || store::is_analyzer_failure(r.status))
      r.headline = first.headline;
    return;
  }
  r.loads = loads;  // their `verify` is written to load-<K>/load.json only
  // The first infrastructure failure decides, else the first failure.
  auto first_where = [&](auto pred) {
    auto it = std::ranges::find_if(loads, pred);
    return it == loads.end() ? nullptr : &*it;
  };
  const LoadOutcome* failed = first_where([](const LoadOutcome& l) {
    return l.status != JobStatus::kOk && store::is_infrastructure_failure(l.status);
  });
  if (!failed)
    failed = first_where([](const LoadOutcome& l) { return l.status != JobStatus::kOk; });
  store::Reproducibility verdict;
  verdict.loads = planned;
  verdict.tolerance_origin = policy.origin;
  for (const auto& [name, tol] : policy.per_statistic)
    verdict.tolerance[name] = {tol.abs, tol.pct, tol.off};
  if (failed) {
    r.status = failed->status;
    r.reason = fmt::format("load {} of {}: {}", failed->load, planned, failed->reason);
    if (int next = loads.back().load + 1; next < planned) {
      r.reason += fmt::format(" (loads {}..{} not run)", next, planned);
    } else if (next == planned) {
      r.reason += fmt::format(" (load {} not run)", next);
    }
    verdict.verdict = "not_judged";
    verdict.summary =
        fmt::format("not judged: load {} is {}", failed->load, store::to_string(failed->status));
    r.reproducibility = verdict;
    return;
  }
  std::vector<std::vector<store::SeriesRecord>> series;
  for (const auto& l : loads) series.push_back(l.series);
  SpreadVerdict v = judge_loads(series, policy);
  r.spread = v.spread;
  verdict.verdict = v.identical      ? "identical"
                    : v.reproducible ? "within_tolerance"
                                     : "beyond_tolerance";
  verdict.reproducible = v.reproducible;
  verdict.beyond = v.beyond;
  verdict.summary = v.summary;
  std::set<std::string> raws;
  for (const auto& l : loads) raws.insert(l.raw_sha256);
  verdict.raw_captures_identical = raws.size() == 1 && !raws.begin()->empty();
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
