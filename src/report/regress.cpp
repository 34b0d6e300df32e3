#include "report/regress.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "report/markdown.h"
#include "report/svg.h"
#include "util/utf8.h"
#include "util/yaml_doc.h"
#include "verify/verify.h"

namespace rb::report {

const char* to_string(CaseOutcome o) {
  constexpr const char* kNames[] = {"pass",  "improved", "regression", "invalid",
                                    "mixed", "skipped",  "not judged"};
  return kNames[static_cast<int>(o)];
}

bool is_failure(CaseOutcome o) {
  return o == CaseOutcome::kRegression || o == CaseOutcome::kInvalid || o == CaseOutcome::kMixed;
}

size_t RegressReport::count(CaseOutcome o) const {
  return static_cast<size_t>(
      std::count_if(cases.begin(), cases.end(), [&](const auto& c) { return c.outcome == o; }));
}

size_t RegressReport::failures() const {
  return static_cast<size_t>(std::count_if(cases.begin(), cases.end(),
                                           [](const auto& c) { return is_failure(c.outcome); }));
}

namespace {

std::string value_with_unit(const MetricDef& def, double v, const std::string& unit) {
  std::string s = format_value(def, v);
  // n and jitter are counts and ratios, not ticks.
  if (unit.empty() || std::string(def.name) == "n" || std::string(def.name) == "jitter") return s;
  return s + " " + unit;
}

// The cases of one job of the baseline.
struct JobCases {
  const JobSnapshot& base;
  const JobSnapshot* cur;
  RegressReport& out;

  std::string unit() const { return cur && !cur->unit.empty() ? cur->unit : base.unit; }
  // A case of the job, of series `s`, or of one statistic `m` of it (its
  // figures in both runs).
  RegressCase make(std::string name, const SeriesDiff* s = nullptr,
                   const MetricDiff* m = nullptr) const {
    RegressCase c;
    c.job_id = base.id;
    c.name = std::move(name);
    c.unit = s ? verify::series_unit(s->name, unit()) : unit();
    if (m) {
      c.def = m->def;
      c.baseline = m->a;
      c.current = m->b;
      c.delta = m->delta;
      c.pct = m->pct;
      c.tolerance = m->tolerance;
    }
    return c;
  }
  void add(std::string name, CaseOutcome o, std::string message) {
    RegressCase c = make(std::move(name));
    c.outcome = o;
    c.message = std::move(message);
    out.cases.push_back(std::move(c));
  }
};

// The status and conditions cases; true when the figures are to be compared.
bool status_cases(JobCases& jc, bool unfinished, const RegressOptions& options) {
  const JobSnapshot& base = jc.base;
  const JobSnapshot* cur = jc.cur;
  if (!cur) {
    jc.add("status", CaseOutcome::kInvalid,
           unfinished ? "job did not finish in the run (no result.json)"
                      : "job is missing from the run");
    return false;
  }
  if (cur->status != "OK" && cur->figures_verified()) {
    // The second ruler failed: the job fails, and its DWT figures are still
    // compared below (they verified OK).
    jc.add("status", CaseOutcome::kInvalid,
           fmt::format("job ended {}{}{} (its DWT capture verified OK: figures compared)",
                       cur->status, cur->reason.empty() ? "" : ": ", cur->reason));
  } else if (cur->status != "OK") {
    if (cur->status == base.status && cur->status == "PORT_MISSING") {
      jc.add("status", CaseOutcome::kPass, fmt::format("PORT_MISSING in both: {}", cur->reason));
    } else {
      jc.add("status", CaseOutcome::kInvalid,
             fmt::format("job ended {}{}{}", cur->status, cur->reason.empty() ? "" : ": ",
                         cur->reason));
    }
    return false;
  }
  if (!base.figures_verified()) {
    if (cur->status == "OK")
      jc.add("status", CaseOutcome::kSkipped,
             fmt::format("job is OK, but the baseline's ended {}: no figures to compare",
                         base.status));
    return false;
  }
  auto mismatches = condition_mismatches(base, *cur);
  if (mismatches.empty()) {
    if (cur->status == "OK") jc.add("status", CaseOutcome::kPass, "OK");
    return true;
  }
  std::vector<std::string> parts;
  for (const auto& m : mismatches)
    parts.push_back(fmt::format("{}: baseline '{}' vs run '{}'", printable(m.key), printable(m.a),
                                printable(m.b)));
  if (!options.allow_mixed) {
    jc.add(
        "conditions", CaseOutcome::kMixed,
        fmt::format("pinned conditions differ, figures not compared: {}", fmt::join(parts, "; ")));
    jc.out.refused = true;
    return false;
  }
  jc.add("conditions", CaseOutcome::kPass,
         fmt::format("mixed conditions allowed: {}", fmt::join(parts, "; ")));
  return true;
}

// The outcome and message of a statistic both runs have a figure for.
void judge_metric(RegressCase& c, const SeriesDiff& s, const MetricDiff& m) {
  const MetricDef& def = *m.def;
  if (!m.b) {
    c.outcome = CaseOutcome::kRegression;
    c.message = fmt::format("{} {}: missing from the run (baseline {})", s.key(), def.name,
                            value_with_unit(def, *m.a, c.unit));
    return;
  }
  std::string change = fmt::format(
      "{} {}: {} -> {} ({}, {})", s.key(), def.name, value_with_unit(def, *m.a, c.unit),
      value_with_unit(def, *m.b, c.unit), format_delta(def, m.delta), format_pct(m.pct));
  if (m.worse()) {
    c.outcome = CaseOutcome::kRegression;
    c.message = fmt::format("{} beyond tolerance ({})", change, m.tolerance.describe());
  } else if (m.verdict == Verdict::kBeyond) {
    c.outcome = CaseOutcome::kImproved;
    c.message = fmt::format("{} better beyond tolerance ({}): update the baseline", change,
                            m.tolerance.describe());
  } else {
    c.outcome = CaseOutcome::kPass;
    c.message = m.verdict == Verdict::kIdentical
                    ? fmt::format("{} {}: {} identical", s.key(), def.name,
                                  value_with_unit(def, *m.b, c.unit))
                    : fmt::format("{} within tolerance ({})", change, m.tolerance.describe());
  }
}

void series_cases(JobCases& jc, const SeriesDiff& s) {
  if (!s.in_a) return;  // a new series has no baseline
  if (!s.unjudged.empty()) {
    // Captured and verified, but no figure of this bench to hold against a
    // tolerance: never judged, shown with its median and why.
    const MetricDiff* median = nullptr;
    for (const auto& m : s.metrics)
      if (std::string(m.def->name) == "median") median = &m;
    RegressCase c = jc.make(s.key(), &s, median);
    c.outcome = CaseOutcome::kNotJudged;
    c.message = fmt::format("not judged: {}", s.unjudged);
    jc.out.cases.push_back(std::move(c));
    return;
  }
  if (!s.in_b) {
    std::string why = "series missing from the run";
    for (const auto& [n, r] : jc.cur->not_applicable) {
      if (n == s.name || n == s.test) why += fmt::format(" (n/a: {})", r);
    }
    jc.add(s.key(), CaseOutcome::kRegression, why);
    return;
  }
  for (const auto& m : s.metrics) {
    if (m.tolerance.off || !m.a) continue;
    RegressCase c = jc.make(fmt::format("{}.{}", s.key(), m.def->name), &s, &m);
    judge_metric(c, s, m);
    jc.out.cases.push_back(std::move(c));
  }
}

// The second ruler (a job with edges.json): a series whose logic-analyzer
// figure disagrees with its DWT figure fails, with both numbers, whatever the
// baseline says; an agreeing one passes; an overflowed capture compared
// nothing and is not judged.
void edges_cases(JobCases& jc) {
  const JobSnapshot& cur = *jc.cur;
  if (cur.edges_status == "overflow") {
    jc.add("edges", CaseOutcome::kNotJudged,
           fmt::format("edges: overflow, nothing compared: {}", cur.edges_refusal));
    return;
  }
  for (const auto& v : cur.series) {
    if (!v.edges) continue;
    const EdgeFigures& e = *v.edges;
    std::string figures = fmt::format(
        "dwt median {:.1f} ns, edges median {:.1f} ns, edge - dwt median {:.1f} ns ({:.1f} "
        "cycles), max {:.1f} ns; {} of {} paired samples beyond {:.1f} ns",
        e.dwt_median, e.edge_median, e.diff_median, e.diff_median_cycles, e.diff_max, e.beyond,
        e.paired, e.tolerance_ns);
    if (e.period_disagrees)
      figures += fmt::format("; the EV period is {:.1f} ns, CONFIG's {:.1f} ns", e.grid_period_ns,
                             e.config_period_ns);
    if (e.status == "disagree") {
      jc.add(v.key() + ".edges", CaseOutcome::kRegression,
             fmt::format("{} edges disagree: {}", v.key(), figures));
    } else {
      jc.add(v.key() + ".edges", CaseOutcome::kPass,
             fmt::format("{} edges {}: {}", v.key(), e.status, figures));
    }
  }
}

void add_job_cases(const JobSnapshot& base, const JobSnapshot* cur, bool unfinished,
                   const Tolerances& tolerances, const RegressOptions& options,
                   RegressReport& out) {
  JobCases jc{base, cur, out};
  if (!status_cases(jc, unfinished, options)) return;
  DiffOptions d;
  d.allow_mixed = true;  // decided above
  RunSnapshot base_run, cur_run;
  base_run.jobs.push_back(base);
  cur_run.jobs.push_back(*cur);
  DiffReport diff = diff_runs(base_run, cur_run, tolerances, d);
  for (const auto& s : diff.jobs.front().series) series_cases(jc, s);
  edges_cases(jc);
}

std::string md_escape(const std::string& s) {
  std::string out = md_cell(s);
  return out == " " ? "" : out;
}

}  // namespace

bool has_figures(const RunSnapshot& snapshot) {
  for (const auto& j : snapshot.jobs) {
    if (j.figures_verified() && !j.series.empty()) return true;
  }
  return false;
}

RegressReport regress(const RunSnapshot& baseline, const RunSnapshot& run,
                      const Tolerances& tolerances, const RegressOptions& options) {
  RegressReport out;
  out.baseline_id = baseline.id;
  out.baseline_source = baseline.source;
  out.run_id = run.id;
  out.run_source = run.source;
  out.tolerance_origin = tolerances.origin();
  for (const auto& base : baseline.jobs) {
    bool unfinished =
        std::find(run.unfinished.begin(), run.unfinished.end(), base.id) != run.unfinished.end();
    add_job_cases(base, run.find(base.id), unfinished, tolerances, options, out);
  }
  for (const auto& j : run.jobs) {
    if (!baseline.find(j.id)) out.new_jobs.push_back(j.id);
  }
  out.empty_baseline = !has_figures(baseline);
  return out;
}

int exit_code(const RegressReport& report) {
  if (report.empty_baseline) return kRegressEmptyBaseline;
  if (report.refused) return kRegressRefusedMixed;
  return report.failures() ? kRegressFail : kRegressPass;
}

// What a JUnit test case holds inside: nothing for a pass.
std::string junit_body(const RegressCase& c, const std::string& values) {
  switch (c.outcome) {
    case CaseOutcome::kPass:
      return "";
    case CaseOutcome::kImproved:
      return fmt::format("      <system-out>{}\n{}</system-out>\n", xml_escape(c.message),
                         xml_escape(values));
    case CaseOutcome::kSkipped:
    case CaseOutcome::kNotJudged: {
      std::string out = fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c.message));
      // A case not judged shows its figures; a skipped one has none to show.
      if (c.outcome == CaseOutcome::kNotJudged && !values.empty())
        out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(values));
      return out;
    }
    case CaseOutcome::kRegression:
    case CaseOutcome::kInvalid:
    case CaseOutcome::kMixed:
      break;
  }
  return fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                     to_string(c.outcome), xml_escape(c.message),
                     xml_escape(values.empty() ? c.message : values));
}

std::string to_junit(const RegressReport& r) {
  // Jobs in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RegressCase*>> by_job;
  for (const auto& c : r.cases) {
    if (!by_job.count(c.job_id)) order.push_back(c.job_id);
    by_job[c.job_id].push_back(&c);
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"rtosbench regress\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "skipped=\"{}\">\n",
      r.cases.size(), r.failures(),
      r.count(CaseOutcome::kSkipped) + r.count(CaseOutcome::kNotJudged));
  for (const auto& job : order) {
    const auto& cases = by_job[job];
    size_t failures =
        std::count_if(cases.begin(), cases.end(), [](auto* c) { return is_failure(c->outcome); });
    // JUnit has no "not judged": such a case is skipped, its message says why.
    size_t skipped = std::count_if(cases.begin(), cases.end(), [](auto* c) {
      return c->outcome == CaseOutcome::kSkipped || c->outcome == CaseOutcome::kNotJudged;
    });
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
        xml_escape(job), cases.size(), failures, skipped);
    out += fmt::format(
        "    <properties>\n      <property name=\"baseline\" value=\"{}\"/>\n      <property "
        "name=\"run\" value=\"{}\"/>\n      <property name=\"tolerances\" value=\"{}\"/>\n    "
        "</properties>\n",
        xml_escape(r.baseline_id), xml_escape(r.run_id), xml_escape(r.tolerance_origin));
    for (const RegressCase* c : cases) {
      std::string head =
          fmt::format("    <testcase classname=\"rtosbench.{}\" name=\"{}\" time=\"0\"",
                      xml_escape(c->job_id), xml_escape(c->name));
      std::string values;
      if (c->def) {
        values = fmt::format("baseline={}\ncurrent={}\nunit={}\n",
                             c->baseline ? format_value(*c->def, *c->baseline) : "-",
                             c->current ? format_value(*c->def, *c->current) : "-", c->unit);
        if (c->baseline && c->current) {
          values += fmt::format("delta={}\npct={}\n", format_delta(*c->def, c->delta),
                                format_pct(c->pct));
        }
        values += fmt::format("tolerance={}\n", c->tolerance.describe());
      }
      const std::string body = junit_body(*c, values);
      out += body.empty() ? head + "/>\n" : head + ">\n" + body + "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return terminal_safe(out);
}

std::string to_markdown(const RegressReport& r) {
  const char* verdict = r.empty_baseline ? "FAIL (the baseline has no figures)"
                        : r.refused      ? "REFUSED (pinned conditions differ)"
                                         : (r.failures() ? "FAIL" : "PASS");
  std::string out = fmt::format("# rtosbench regress: {}\n\n", verdict);
  out += fmt::format("Baseline `{}` vs run `{}`. Tolerances: {}.\n\n", r.baseline_id, r.run_id,
                     md_escape(r.tolerance_origin));
  out +=
      "| checks | passed | regressions | invalid jobs | mixed conditions | improved | skipped | "
      "not judged |\n";
  out += "|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n\n", r.cases.size(),
                     r.count(CaseOutcome::kPass), r.count(CaseOutcome::kRegression),
                     r.count(CaseOutcome::kInvalid), r.count(CaseOutcome::kMixed),
                     r.count(CaseOutcome::kImproved), r.count(CaseOutcome::kSkipped),
                     r.count(CaseOutcome::kNotJudged));
  auto stat_table = [&](CaseOutcome which, const char* title) {
    std::vector<const RegressCase*> rows;
    std::vector<const RegressCase*> others;
    for (const auto& c : r.cases) {
      if (c.outcome != which) continue;
      (c.def && c.baseline && c.current ? rows : others).push_back(&c);
    }
    if (rows.empty() && others.empty()) return;
    out += fmt::format("## {}\n\n", title);
    if (!rows.empty()) {
      out += "| job | series | statistic | baseline | current | change | % | tolerance |\n";
      out += "|---|---|---|---:|---:|---:|---:|---|\n";
      for (const RegressCase* c : rows) {
        std::string series = c->name.substr(0, c->name.rfind('.'));
        out += fmt::format(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_escape(c->job_id), md_escape(series),
            c->def->name, value_with_unit(*c->def, *c->baseline, c->unit),
            value_with_unit(*c->def, *c->current, c->unit), format_delta(*c->def, c->delta),
            format_pct(c->pct), c->tolerance.describe());
      }
      out += "\n";
    }
    for (const RegressCase* c : others)
      out += fmt::format("- `{}` {}: {}\n", c->job_id, c->name, md_escape(c->message));
    if (!others.empty()) out += "\n";
  };
  // Shown with their medians and why, never a pass or a failure.
  auto not_judged = [&] {
    std::vector<const RegressCase*> rows;
    for (const auto& c : r.cases)
      if (c.outcome == CaseOutcome::kNotJudged) rows.push_back(&c);
    if (rows.empty()) return;
    out += "## Not judged (the board's declarations as each run recorded them)\n\n";
    out += "| job | series | baseline median | current median | change | why |\n";
    out += "|---|---|---:|---:|---:|---|\n";
    for (const RegressCase* c : rows) {
      const bool both = c->def && c->baseline && c->current;
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} |\n", md_escape(c->job_id), md_escape(c->name),
                      c->def && c->baseline ? value_with_unit(*c->def, *c->baseline, c->unit) : "-",
                      c->def && c->current ? value_with_unit(*c->def, *c->current, c->unit) : "-",
                      both ? format_delta(*c->def, c->delta) : "-", md_escape(c->message));
    }
    out += "\n";
  };
  stat_table(CaseOutcome::kRegression, "Regressions");
  stat_table(CaseOutcome::kInvalid, "Invalid or missing jobs");
  stat_table(CaseOutcome::kMixed, "Refused: pinned conditions differ");
  stat_table(CaseOutcome::kImproved, "Improved beyond tolerance (update the baseline)");
  stat_table(CaseOutcome::kSkipped, "Skipped");
  not_judged();
  if (!r.new_jobs.empty()) {
    out += "## New jobs (not in the baseline)\n\n";
    for (const auto& j : r.new_jobs) out += fmt::format("- `{}`\n", j);
    out += "\n";
  }
  return terminal_safe(out);
}

std::string to_text(const RegressReport& r) {
  std::string out =
      fmt::format("baseline: {} ({})\nrun:      {} ({})\ntolerances: {}\n", r.baseline_id,
                  r.baseline_source, r.run_id, r.run_source, r.tolerance_origin);
  for (const auto& c : r.cases) {
    if (c.outcome == CaseOutcome::kPass) continue;
    std::string tag = to_string(c.outcome);
    std::transform(tag.begin(), tag.end(), tag.begin(), ::toupper);
    if (c.outcome == CaseOutcome::kNotJudged)
      out += fmt::format("{:<10}  {} {}: {}\n", tag, c.job_id, c.name, c.message);
    else
      out += fmt::format("{:<10}  {}: {}\n", tag, c.job_id, c.message);
  }
  for (const auto& j : r.new_jobs)
    out += fmt::format("{:<10}  {}: not in the baseline\n", "NEW", j);
  out += fmt::format(
      "{} checks: {} passed, {} regressions, {} invalid, {} mixed, {} improved, {} skipped, {} "
      "not judged\n",
      r.cases.size(), r.count(CaseOutcome::kPass), r.count(CaseOutcome::kRegression),
      r.count(CaseOutcome::kInvalid), r.count(CaseOutcome::kMixed), r.count(CaseOutcome::kImproved),
      r.count(CaseOutcome::kSkipped), r.count(CaseOutcome::kNotJudged));
  const char* verdict = r.empty_baseline ? "FAIL, the baseline has no job with figures"
                        : r.refused      ? "refused, pinned conditions differ"
                                         : (r.failures() ? "FAIL" : "PASS");
  out += fmt::format("result: {} (exit {})\n", verdict, exit_code(r));
  return out;
}

}  // namespace rb::report
