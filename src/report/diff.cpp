#include "report/diff.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "util/yaml_doc.h"

namespace rb::report {

using nlohmann::json;

const char* to_string(Verdict v) {
  constexpr const char* kNames[] = {"identical", "within tolerance", "beyond tolerance"};
  return kNames[static_cast<int>(v)];
}

bool MetricDiff::worse() const {
  if (verdict != Verdict::kBeyond) return false;
  if (!a || !b) return true;  // a statistic that vanished or appeared
  switch (def->worse) {
    case Worse::kHigher:
      return delta > 0;
    case Worse::kLower:
      return delta < 0;
    case Worse::kEither:
      break;
  }
  return true;
}

std::string format_delta(const MetricDef& m, double delta) {
  std::string s = format_value(m, std::fabs(delta));
  if (delta > 0) return "+" + s;
  if (delta < 0) return "-" + s;
  return s;
}

std::string format_pct(const std::optional<double>& pct) {
  if (!pct) return "-";
  return fmt::format("{:+.2f}%", *pct);
}

std::vector<ConditionMismatch> condition_mismatches(const JobSnapshot& a, const JobSnapshot& b) {
  std::vector<ConditionMismatch> out;
  for (const auto& key : store::pinned_condition_keys()) {
    auto ia = a.conditions.find(key);
    auto ib = b.conditions.find(key);
    if (ia == a.conditions.end() || ib == b.conditions.end()) continue;
    if (ia->second != ib->second) out.push_back({key, ia->second, ib->second});
  }
  return out;
}

namespace {

MetricDiff compare_metric(const MetricDef& def, const SeriesValues* sa, const SeriesValues* sb,
                          const Tolerance& tol) {
  MetricDiff d;
  d.def = &def;
  d.tolerance = tol;
  auto read = [&](const SeriesValues* s, std::optional<double>& v, std::vector<double>& loads) {
    if (!s) return;
    if (auto it = s->values.find(def.name); it != s->values.end()) v = it->second;
    for (const auto& l : s->loads)
      if (auto it = l.find(def.name); it != l.end()) loads.push_back(it->second);
  };
  read(sa, d.a, d.a_loads);
  read(sb, d.b, d.b_loads);
  if (!d.a && !d.b) return d;
  if (!d.a || !d.b) {
    d.verdict = Verdict::kBeyond;
    return d;
  }
  d.delta = *d.b - *d.a;
  if (*d.a != 0) d.pct = d.delta / std::fabs(*d.a) * 100.0;
  if (d.delta == 0) {
    d.verdict = Verdict::kIdentical;
  } else if (tol.off || std::fabs(d.delta) <= tol.allowed(*d.a)) {
    d.verdict = Verdict::kWithin;
  } else {
    d.verdict = Verdict::kBeyond;
  }
  return d;
}

SeriesDiff compare_series(const SeriesValues* sa, const SeriesValues* sb,
                          const Tolerances& tolerances) {
  SeriesDiff s;
  const SeriesValues& any = sb ? *sb : *sa;
  s.phase = any.phase;
  s.name = any.name;
  s.test = any.test;
  s.in_a = sa != nullptr;
  s.in_b = sb != nullptr;
  s.unjudged = sb && !sb->unjudged.empty() ? sb->unjudged : sa ? sa->unjudged : "";
  for (const auto& def : metric_defs()) {
    MetricDiff d = compare_metric(def, sa, sb, tolerances.lookup(s.test, s.key(), def.name));
    if (!d.a && !d.b) continue;
    s.verdict = std::max(s.verdict, d.verdict);
    s.metrics.push_back(std::move(d));
  }
  if (!s.in_a || !s.in_b) s.verdict = Verdict::kBeyond;
  return s;
}

JobDiff compare_job(const JobSnapshot& a, const JobSnapshot& b, const Tolerances& tolerances,
                    const DiffOptions& options) {
  JobDiff j;
  j.id = b.id;
  j.status_a = a.status;
  j.status_b = b.status;
  j.unit = !b.unit.empty() ? b.unit : a.unit;
  j.loads_a = a.loads;
  j.loads_b = b.loads;
  j.mismatches = condition_mismatches(a, b);
  // The counter frequency of each series is a condition too: the same tick
  // count means another time at another frequency.
  for (const auto& sb : b.series) {
    const SeriesValues* sa = a.find(sb.phase, sb.name);
    if (sa && sa->hz && sb.hz && sa->hz != sb.hz) {
      j.mismatches.push_back({"hz", fmt::format("{} ({})", sa->hz, sa->key()),
                              fmt::format("{} ({})", sb.hz, sb.key())});
      break;
    }
  }
  if (!j.mismatches.empty() && !options.allow_mixed) {
    j.refused = true;
    return j;
  }
  if (a.status != b.status) j.verdict = Verdict::kBeyond;
  // Series in B's order, then those only in A.
  // A series that is not a measurement on this bench never decides the verdict.
  auto add = [&](const SeriesValues* sa, const SeriesValues* sb) {
    SeriesDiff s = compare_series(sa, sb, tolerances);
    if (s.unjudged.empty()) j.verdict = std::max(j.verdict, s.verdict);
    j.series.push_back(std::move(s));
  };
  for (const auto& sb : b.series) add(a.find(sb.phase, sb.name), &sb);
  for (const auto& sa : a.series)
    if (!b.find(sa.phase, sa.name)) add(&sa, nullptr);
  return j;
}

}  // namespace

DiffReport diff_runs(const RunSnapshot& a, const RunSnapshot& b, const Tolerances& tolerances,
                     const DiffOptions& options) {
  DiffReport r;
  r.a_id = a.id;
  r.a_source = a.source;
  r.b_id = b.id;
  r.b_source = b.source;
  r.tolerance_origin = tolerances.origin();
  r.allow_mixed = options.allow_mixed;
  r.unfinished_a = a.unfinished;
  r.unfinished_b = b.unfinished;
  for (const auto& jb : b.jobs) {
    const JobSnapshot* ja = a.find(jb.id);
    if (!ja) {
      r.only_in_b.push_back(jb.id);
      continue;
    }
    JobDiff j = compare_job(*ja, jb, tolerances, options);
    if (j.refused) {
      r.refused = true;
    } else {
      r.verdict = std::max(r.verdict, j.verdict);
    }
    r.jobs.push_back(std::move(j));
  }
  for (const auto& ja : a.jobs) {
    if (!b.find(ja.id)) r.only_in_a.push_back(ja.id);
  }
  // A job on one side only means the runs differ, but not in a figure that
  // can be held against a tolerance.
  if (!r.only_in_a.empty() || !r.only_in_b.empty())
    r.verdict = std::max(r.verdict, Verdict::kWithin);
  return r;
}

int exit_code(const DiffReport& report) {
  if (report.empty()) return kDiffNothingCompared;
  if (report.refused) return kDiffRefusedMixed;
  constexpr int kCodes[] = {kDiffIdentical, kDiffWithin, kDiffBeyond};
  return kCodes[static_cast<int>(report.verdict)];
}

namespace {

std::string opt_value(const MetricDef& def, const std::optional<double>& v) {
  return v ? format_value(def, *v) : "-";
}

std::string spread(const MetricDef& def, const std::vector<double>& v) {
  if (v.size() < 2) return "";
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fmt::format("[{}..{}]", format_value(def, *lo), format_value(def, *hi));
}

std::string verdict_cell(const MetricDiff& d) {
  if (d.verdict == Verdict::kIdentical) return "identical";
  if (!d.a) return "only in B";
  if (!d.b) return "only in A";
  if (d.tolerance.off) return "changed (not checked)";
  return fmt::format("{} ({})", d.verdict == Verdict::kWithin ? "within" : "BEYOND",
                     d.tolerance.describe());
}

using Row = std::array<std::string, 7>;

// A compared job's rows: every statistic that changed (or every one), the
// unjudged series marked; counts the statistics' verdicts.
std::vector<Row> job_rows(const JobDiff& j, bool all_rows, size_t (&metric_counts)[3]) {
  std::vector<Row> rows;
  for (const auto& s : j.series) {
    if (!s.unjudged.empty()) {
      // Shown marked, never judged: its median A and B and why, when it
      // changed (or every row is asked for); no verdict.
      if (!all_rows && s.verdict == Verdict::kIdentical) continue;
      const MetricDiff* med = nullptr;
      for (const auto& d : s.metrics) med = std::string(d.def->name) == "median" ? &d : med;
      std::string note = fmt::format(
          "not judged{}: {}", s.verdict == Verdict::kIdentical ? "" : " (changed)", s.unjudged);
      if (med && s.in_a && s.in_b) {
        rows.push_back({s.key(), "median", opt_value(*med->def, med->a),
                        opt_value(*med->def, med->b),
                        med->a && med->b ? format_delta(*med->def, med->delta) : "-",
                        format_pct(med->pct), note});
      } else {
        rows.push_back({s.key(), "", "", "", "", "",
                        (s.in_a   ? "series only in A, "
                         : s.in_b ? "series only in B, "
                                  : "") +
                            note});
      }
      continue;
    }
    if (!s.in_a || !s.in_b) {
      rows.push_back(
          {s.key(), "", "", "", "", "", s.in_a ? "series only in A" : "series only in B"});
    }
    for (const auto& d : s.metrics) {
      ++metric_counts[static_cast<int>(d.verdict)];
      if (!all_rows && d.verdict == Verdict::kIdentical) continue;
      if (!s.in_a || !s.in_b) continue;
      std::string sp;
      if (!d.a_loads.empty() || !d.b_loads.empty()) {
        sp = spread(*d.def, d.a_loads) + " " + spread(*d.def, d.b_loads);
      }
      rows.push_back({s.key(), d.def->name, opt_value(*d.def, d.a), opt_value(*d.def, d.b),
                      d.a && d.b ? format_delta(*d.def, d.delta) : "-", format_pct(d.pct),
                      verdict_cell(d) + (sp.size() > 1 ? "  loads " + sp : "")});
    }
  }
  return rows;
}

// The rows as an aligned table under its head.
void put_table(std::string& out, const std::vector<Row>& rows) {
  std::array<size_t, 7> w{6, 9, 1, 1, 5, 1, 7};
  const Row head{"series", "statistic", "A", "B", "delta", "%", "verdict"};
  for (size_t c = 0; c < 7; ++c) w[c] = std::max(w[c], head[c].size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < 6; ++c) w[c] = std::max(w[c], row[c].size());
  }
  auto line = [&](const Row& row) {
    out +=
        fmt::format("  {:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", row[0], w[0], row[1],
                    w[1], row[2], w[2], row[3], w[3], row[4], w[4], row[5], w[5], row[6]);
  };
  line(head);
  for (const auto& row : rows) line(row);
}

}  // namespace

std::string to_text(const DiffReport& r, bool all_rows) {
  std::string out;
  out += fmt::format("A: {} ({})\nB: {} ({})\ntolerances: {}\n", r.a_id, r.a_source, r.b_id,
                     r.b_source, r.tolerance_origin);
  size_t counts[3] = {0, 0, 0};
  size_t metric_counts[3] = {0, 0, 0};
  size_t refused = 0;
  for (const auto& j : r.jobs) {
    out += "\n";
    if (j.refused) {
      ++refused;
      out += fmt::format(
          "{}: REFUSED, pinned conditions differ (use --allow-mixed to compare anyway)\n", j.id);
    } else {
      ++counts[static_cast<int>(j.verdict)];
      std::string loads;
      if (j.loads_a || j.loads_b) loads = fmt::format(", loads {} vs {}", j.loads_a, j.loads_b);
      out += fmt::format("{}: {} -> {}, {}{}{}\n", j.id, j.status_a, j.status_b,
                         to_string(j.verdict), j.unit.empty() ? "" : ", ticks in " + j.unit, loads);
    }
    for (const auto& m : j.mismatches) {
      out += fmt::format("  {}{}: A '{}' vs B '{}'\n",
                         j.refused ? "" : "mixed (allowed): ", printable(m.key), printable(m.a),
                         printable(m.b));
    }
    if (j.refused) continue;
    const auto rows = job_rows(j, all_rows, metric_counts);
    if (rows.empty()) continue;
    put_table(out, rows);
  }
  if (!r.only_in_a.empty())
    out += fmt::format("\njobs only in A: {}\n", fmt::join(r.only_in_a, ", "));
  if (!r.only_in_b.empty())
    out += fmt::format("\njobs only in B: {}\n", fmt::join(r.only_in_b, ", "));
  if (!r.unfinished_a.empty())
    out += fmt::format("unfinished in A: {}\n", fmt::join(r.unfinished_a, ", "));
  if (!r.unfinished_b.empty())
    out += fmt::format("unfinished in B: {}\n", fmt::join(r.unfinished_b, ", "));
  out += fmt::format(
      "\n{} job(s) compared: {} identical, {} within tolerance, {} beyond tolerance, {} "
      "refused; statistics: {} identical, {} within, {} beyond\n",
      counts[0] + counts[1] + counts[2] + refused, counts[0], counts[1], counts[2], refused,
      metric_counts[0], metric_counts[1], metric_counts[2]);
  if (r.empty()) {
    out +=
        fmt::format("result: nothing compared, no job is in both runs (exit {})\n", exit_code(r));
  } else if (r.refused) {
    out += fmt::format("result: refused, pinned conditions differ (exit {})\n", exit_code(r));
  } else {
    out += fmt::format("result: {} (exit {})\n", to_string(r.verdict), exit_code(r));
  }
  return out;
}

// The verdict of a series the board cannot measure or the bench moves.
constexpr const char* kNotJudged = "not judged";

json to_json(const DiffReport& r) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json jobs = json::array();
  for (const auto& j : r.jobs) {
    json mism = json::array();
    for (const auto& m : j.mismatches) mism.push_back(json{{"key", m.key}, {"a", m.a}, {"b", m.b}});
    json series = json::array();
    for (const auto& s : j.series) {
      json metrics = json::array();
      for (const auto& d : s.metrics) {
        json e{{"statistic", d.def->name},
               {"a", opt(d.a)},
               {"b", opt(d.b)},
               {"delta", d.a && d.b ? json(d.delta) : json(nullptr)},
               {"pct", opt(d.pct)},
               {"tolerance",
                json{{"abs", d.tolerance.abs}, {"pct", d.tolerance.pct}, {"off", d.tolerance.off}}},
               {"verdict", s.unjudged.empty() ? to_string(d.verdict) : kNotJudged},
               {"changed", d.verdict != Verdict::kIdentical},
               {"worse", d.worse()}};
        if (!d.a_loads.empty() || !d.b_loads.empty())
          e["loads"] = json{{"a", d.a_loads}, {"b", d.b_loads}};
        metrics.push_back(e);
      }
      json e{{"phase", s.phase},
             {"name", s.name},
             {"test", s.test},
             {"in_a", s.in_a},
             {"in_b", s.in_b},
             {"verdict", s.unjudged.empty() ? to_string(s.verdict) : kNotJudged},
             {"changed", s.verdict != Verdict::kIdentical},
             {"statistics", metrics}};
      if (!s.unjudged.empty()) e["unjudged"] = s.unjudged;
      series.push_back(std::move(e));
    }
    jobs.push_back(json{{"job_id", j.id},
                        {"status_a", j.status_a},
                        {"status_b", j.status_b},
                        {"unit", j.unit},
                        {"refused", j.refused},
                        {"mismatches", mism},
                        {"verdict", j.refused ? "refused" : to_string(j.verdict)},
                        {"loads", json{{"a", j.loads_a}, {"b", j.loads_b}}},
                        {"series", series}});
  }
  return json{
      {"a", json{{"run_id", r.a_id}, {"source", r.a_source}, {"unfinished", r.unfinished_a}}},
      {"b", json{{"run_id", r.b_id}, {"source", r.b_source}, {"unfinished", r.unfinished_b}}},
      {"tolerances", r.tolerance_origin},
      {"allow_mixed", r.allow_mixed},
      {"jobs", jobs},
      {"only_in_a", r.only_in_a},
      {"only_in_b", r.only_in_b},
      {"verdict", r.refused ? "refused" : to_string(r.verdict)},
      {"exit_code", exit_code(r)}};
}

}  // namespace rb::report
