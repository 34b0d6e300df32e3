#include "report/render.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string_view>
#include <tuple>

#include "matrix/load.h"
#include "model/axes.h"
#include "report/diff.h"
#include "report/markdown.h"
#include "report/svg.h"
#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/utf8.h"
#include "verify/verify.h"

namespace rb::report {

namespace {

// "instructions", "cycles" or "ticks" for a CONFIG unit.
std::string unit_label(const std::string& unit) {
  if (unit == "instructions" || unit == "cycles" || unit == "bytes" || unit == "per-mille")
    return unit;
  if (unit == "us") return "µs";  // imported (cyclictest): wall-clock microseconds
  return "ticks";
}

// RunView::reference: the record's, else the catalog's.
std::string reference_of(const Run& run, const catalog::Catalog* today) {
  for (const store::JobResult& r : run.results) {
    if (r.build && r.build->footprint_kernel && !r.build->footprint_kernel->reference.empty())
      return r.build->footprint_kernel->reference;
  }
  try {
    const catalog::Catalog& c = today ? *today : matrix::default_catalog();
    if (const auto* k = c.reference()) return k->port;
  } catch (const std::exception&) {
  }
  return "";
}
}  // namespace

std::vector<RunView> view_runs(const std::vector<Run>& runs, const ReportOptions& options) {
  std::vector<RunView> out;
  // The samples kept for plots and samples.csv, of every capture together.
  uint64_t budget = kMaxReportSamples;
  for (const Run& run : runs) {
    RunView v;
    v.run = &run;
    v.snap = snapshot_of(run, options.catalog);
    v.reference = reference_of(run, options.catalog);
    for (size_t i = 0; i < run.results.size(); ++i) {
      JobView j;
      j.result = &run.results[i];
      j.snap = v.snap.jobs[i];
      if (!options.read_raw) {
        j.raw_problem = "raw captures not read (--no-raw)";
      } else if (j.result->attempts.empty() || j.result->attempts.back().raw_file.empty()) {
        j.raw_problem = "no capture";
      } else {
        const std::string& rel = j.result->attempts.back().raw_file;
        // Inside the run only: a regular file, no `..`, no link (load_run
        // refused the run already if it named one).
        auto file =
            regular_file_inside(run.root, std::filesystem::path("jobs") / j.result->job_id / rel);
        if (!file.ok() && file.error().kind == ErrorKind::kCannotRead) {
          j.raw_problem = fmt::format("capture {} is missing", rel);
        } else if (!file.ok()) {
          j.raw_problem = fmt::format("capture {} not read: {}", rel, file.error().message);
        } else if (auto raw = read_raw_capture(*file, budget); raw.ok()) {
          for (const auto& s : raw->series) budget -= s.values.size();
          j.raw = std::move(*raw);
        } else {
          j.raw_problem = fmt::format("capture {} cannot be read: {}", rel, raw.error().message);
        }
      }
      v.jobs.push_back(std::move(j));
    }
    out.push_back(std::move(v));
  }
  std::stable_sort(out.begin(), out.end(), [](const RunView& a, const RunView& b) {
    return std::tie(a.snap.started_at, a.snap.id) < std::tie(b.snap.started_at, b.snap.id);
  });
  return out;
}

namespace {

// The headline series, in the closing table's order.
const std::vector<store::HeadlineSeries>& kHeadline = store::headline_series();

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

void heading(Document& d, int level, std::string text) {
  d.blocks.push_back({.kind = Block::Kind::kHeading, .level = level, .text = std::move(text)});
}
void paragraph(Document& d, std::string text, Block::Kind kind = Block::Kind::kParagraph) {
  d.blocks.push_back({.kind = kind, .text = std::move(text)});
}
void list(Document& d, std::vector<std::string> items) {
  if (!items.empty()) d.blocks.push_back({.kind = Block::Kind::kList, .items = std::move(items)});
}
// A paragraph introducing a list; both left out when the list is empty.
void listed(Document& d, std::string intro, std::vector<std::string> items) {
  if (items.empty()) return;
  paragraph(d, std::move(intro));
  list(d, std::move(items));
}
void table(Document& d, Table t) {
  d.blocks.push_back({.kind = Block::Kind::kTable, .table = std::move(t)});
}
void plot(Document& d, const Plot& p) {
  d.blocks.push_back({.kind = Block::Kind::kPlot, .text = p.title, .svg = render_svg(p)});
}

std::optional<double> value(const SeriesValues& s, const char* metric) {
  auto it = s.values.find(metric);
  if (it == s.values.end()) return std::nullopt;
  return it->second;
}

// Median minus the ruler baseline, clamped at 0 (docs/protocol.md section 5).
std::optional<double> net(const SeriesValues& s, const char* metric) {
  auto v = value(s, metric);
  auto b = value(s, "base");
  if (!v || !b) return std::nullopt;
  return std::max(0.0, *v - *b);
}

std::string ticks(double v) {
  return fmt::format("{:.0f}", v);
}

std::string micros(double ticks_value, uint64_t hz) {
  if (hz == 0) return "-";
  return fmt::format("{:.3f}", ticks_value * 1e6 / static_cast<double>(hz));
}

std::string na_reason(const JobSnapshot& j, const std::string& name, const std::string& test) {
  for (const auto& [n, r] : j.not_applicable) {
    if (n == name || n == test) return r;
  }
  return "";
}

std::set<std::string> units_of(const std::vector<const JobView*>& jobs) {
  std::set<std::string> units;
  for (const JobView* j : jobs) units.insert(unit_label(j->snap.unit));
  return units;
}

// The one unit of `units`, "ticks" when they differ or there are none.
std::string one_unit(const std::set<std::string>& units) {
  return units.size() == 1 ? *units.begin() : "ticks";
}

std::string time_unit(const std::string& unit) {
  return unit == "instructions" ? "virtual µs" : "µs";
}

std::vector<const JobView*> measured_jobs(const RunView& run) {
  std::vector<const JobView*> out;
  for (const auto& j : run.jobs) {
    if (j.snap.figures_verified() && !j.snap.series.empty()) out.push_back(&j);
  }
  return out;
}

// Series keys in first-seen order over the jobs, headline series first.
std::vector<std::pair<std::string, std::string>> series_order(
    const std::vector<const JobView*>& jobs) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& phase, const std::string& name) {
    auto k = std::make_pair(phase, name);
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  for (const auto& h : kHeadline) {
    for (const JobView* j : jobs) {
      if (j->snap.find(h.phase, h.name)) {
        add(h.phase, h.name);
        break;
      }
    }
  }
  for (const JobView* j : jobs) {
    for (const auto& s : j->snap.series) add(s.phase, s.name);
  }
  return out;
}

// The mark a series the board declares it cannot measure, or that the bench
// moves (UNSTABLE), carries wherever its value is shown: shown marked, never
// ranked, never judged. "" for a series that is a measurement.
std::string unjudged_mark(const SeriesValues& s) {
  if (s.unjudged.empty()) return "";
  return s.unjudged.starts_with("unstable") ? " (unstable)" : " (not a measurement)";
}
// The same in a headline cell: `u/s` or `n/m`.
std::string unjudged_cell(const std::string& why) {
  return why.starts_with("unstable") ? "u/s" : "n/m";
}

std::string series_key(const std::string& phase, const std::string& name) {
  return phase.empty() ? name : phase + "/" + name;
}

void overview(Document& d, const std::vector<RunView>& runs) {
  const RunView& cur = runs.back();
  const store::RunSummary& s = cur.run->summary;
  std::map<std::string, int> counts;
  for (const auto& j : cur.snap.jobs) ++counts[j.status];
  std::vector<std::string> parts;
  for (const auto& [k, n] : counts) parts.push_back(fmt::format("{} {}", n, k));
  std::string matrix = s.matrix ? s.matrix->name : "";
  std::string bench = s.bench ? s.bench->name : "";
  paragraph(d,
            fmt::format("Run `{}`: matrix `{}`, bench `{}`, started {}, finished {}, rtosbench "
                        "{}. {} job(s): {}{}.",
                        cur.snap.id, matrix, bench, or_dash(s.started_at), or_dash(s.finished_at),
                        or_dash(s.rtosbench_version), cur.snap.jobs.size(), fmt::join(parts, ", "),
                        cur.snap.unfinished.empty()
                            ? ""
                            : fmt::format("; {} unfinished", cur.snap.unfinished.size())));
  if (runs.size() > 1) {
    std::vector<std::string> ids;
    for (const auto& r : runs) ids.push_back("`" + r.snap.id + "`");
    paragraph(
        d,
        fmt::format(
            "{} runs given ({}); the tables are for the newest, the trends at the end cover all.",
            runs.size(), fmt::join(ids, ", ")));
  }
  bool emulated = false, hardware = false;
  for (const auto& r : runs) {
    for (const auto& j : r.snap.jobs) {
      if (j.unit == "instructions") emulated = true;
      if (j.unit == "cycles") hardware = true;
    }
  }
  if (emulated) {
    paragraph(d,
              "Emulated bench: figures with unit `instructions` are instruction counts under "
              "QEMU (`-icount shift=0`: one instruction per virtual nanosecond, exception "
              "entry and exit cost nothing). They rank code paths; they are not the timing of "
              "a real core and must not be set against hardware figures.",
              Block::Kind::kNote);
  }
  if (hardware) {
    paragraph(d,
              "Figures with unit `cycles` were read from the core's cycle counter on the board "
              "named in the conditions.",
              Block::Kind::kNote);
  }
  bool imported = false;
  for (const auto& r : runs) {
    for (const auto& j : r.snap.jobs) imported = imported || j.unit == "us";
  }
  if (imported) {
    paragraph(d,
              fmt::format("Figures with unit `µs` were imported from cyclictest's histogram "
                          "(source `histogram`, `rtosbench import cyclictest`): wall-clock "
                          "microseconds of a Linux system's timer wake-up, bucketed to 1 µs, "
                          "not core cycles nor instruction counts.{}",
                          emulated || hardware
                              ? " This report also holds MCU figures in cycles or instructions: "
                                "the units differ, the numbers are not comparable as they stand."
                              : ""),
              Block::Kind::kNote);
  }
}

// A job whose kernel ran with API checks not off (CONFIG checks= partial or
// on; docs/kernels.md, "API checks") is marked in the headline tables.
// The declared unequal work of the run's measured jobs (job.unequal, as the
// run recorded each kernel's kernel.yaml), numbered by first appearance of
// (kernel, what): `‡<n>` marks a figure that holds item n.
struct UnequalNote {
  std::string kernel;
  store::UnequalRecord item;
};
std::vector<UnequalNote> unequal_notes(const RunView& run) {
  std::vector<UnequalNote> out;
  for (const JobView* j : measured_jobs(run)) {
    if (!j->result) continue;
    for (const auto& u : j->result->job.unequal) {
      auto same = [&](const UnequalNote& n) {
        return n.kernel == j->snap.kernel && n.item.what == u.what;
      };
      if (std::none_of(out.begin(), out.end(), same)) out.push_back({j->snap.kernel, u});
    }
  }
  return out;
}

// " ‡1,3" after a figure of `series` in job `j`, "" when it holds no declared
// unequal work.
std::string unequal_mark(const RunView& run, const JobView& j, const std::string& series) {
  if (!j.result || j.result->job.unequal.empty()) return "";
  const auto notes = unequal_notes(run);
  std::vector<std::string> marks;
  for (size_t i = 0; i < notes.size(); ++i) {
    if (notes[i].kernel != j.snap.kernel) continue;
    for (const auto& u : j.result->job.unequal)
      if (u.what == notes[i].item.what && u.affects(series)) marks.push_back(std::to_string(i + 1));
  }
  return marks.empty() ? "" : fmt::format(" ‡{}", fmt::join(marks, ","));
}

// The numbered notes, when the run declares any.
void unequal_list(Document& d, const RunView& run) {
  const auto notes = unequal_notes(run);
  if (notes.empty()) return;
  paragraph(d,
            "`‡n`: the figure holds work its kernel does that the others do not, or leaves out "
            "work they do, which its port could not equalise (the port's kernel.yaml `unequal:`, "
            "as the run recorded it; docs/kernels.md, \"Unequal work\"):");
  std::vector<std::string> items;
  for (size_t i = 0; i < notes.size(); ++i) {
    const auto& u = notes[i].item;
    std::string series = u.series.empty() ? "no series (footprint, task layout)"
                         : std::find(u.series.begin(), u.series.end(), "*") != u.series.end()
                             ? "every series"
                             : fmt::format("`{}`", fmt::join(u.series, "`, `"));
    items.push_back(
        fmt::format("‡{} `{}`: {} ({}). {}", i + 1, notes[i].kernel, u.what, series, u.note));
  }
  list(d, std::move(items));
}

// The share of a heap allocation series' calls the kernel served, beside its
// figure (" [99.8 % served]"); "" for a series without calls=.
std::string served(const SeriesValues& s) {
  if (!s.calls || !s.refused || *s.calls == 0) return "";
  return fmt::format(" [{:.1f} % served]", 100.0 * static_cast<double>(*s.calls - *s.refused) /
                                               static_cast<double>(*s.calls));
}

bool checks_not_off(const JobView& j) {
  auto it = j.snap.conditions.find("checks");
  return it != j.snap.conditions.end() && (it->second == "partial" || it->second == "on");
}

// A table of the headline series: the leading columns (left-aligned), one
// right-aligned column per headline series, then the unit.
// A table of figures: the leading columns left-aligned, the others right-aligned.
Table figures_table(std::vector<std::string> lead, const std::vector<std::string>& figures) {
  Table t;
  t.align.assign(lead.size(), 'l');
  t.align.append(figures.size(), 'r');
  t.head = std::move(lead);
  t.head.insert(t.head.end(), figures.begin(), figures.end());
  return t;
}

template <class Series>
std::vector<std::string> titles(const Series& series) {
  std::vector<std::string> out;
  for (const auto& h : series) out.push_back(h.title);
  return out;
}

Table headline_table(std::vector<std::string> lead) {
  Table t = figures_table(std::move(lead), titles(kHeadline));
  t.head.push_back("unit");
  t.align += 'l';
  return t;
}

// The kernel column: the kernel, marked `†` when its API checks were not off.
std::string kernel_label(const JobView& j) {
  return j.snap.kernel + (checks_not_off(j) ? " †" : "");
}

// A headline cell: f's figure of series h in job j, or why there is none.
template <class F>
std::string headline_cell(const RunView& cur, const JobView& j, const store::HeadlineSeries& h,
                          F&& f) {
  const SeriesValues* s = j.snap.find(h.phase, h.name);
  if (!s) {
    std::string r = na_reason(j.snap, h.name, test_of_series(h.name));
    return r.empty() ? "-" : "n/a";
  }
  if (!s->unjudged.empty()) return unjudged_cell(s->unjudged);
  return f(*s) + unequal_mark(cur, j, h.name);
}

// One table: a row per job, a cell per headline series, then the unit.
template <class F, class U>
void headline_rows(Document& d, const RunView& cur, const std::vector<const JobView*>& jobs, F&& f,
                   U&& unit_of) {
  Table t = headline_table({"kernel", "job"});
  for (const JobView* j : jobs) {
    std::vector<std::string> row{kernel_label(*j), j->snap.id};
    for (const auto& h : kHeadline) row.push_back(headline_cell(cur, *j, h, f));
    row.push_back(unit_of(j->snap.unit));
    t.rows.push_back(std::move(row));
  }
  table(d, std::move(t));
}

void headline_intro(Document& d, const RunView& cur, const std::vector<const JobView*>& jobs,
                    bool same) {
  paragraph(d,
            fmt::format("Per job, the median of each headline test net of its ruler baseline (its "
                        "measurement window run with empty operations: `ruler_loop` for one "
                        "call, `ruler_loop2` for two; Every series names each), the raw median in "
                        "parentheses{}; `n/a`: the kernel cannot be measured honestly there "
                        "(reason under Verify); `n/m`: not a measurement on this bench, `u/s`: "
                        "the bench itself moves it (unstable; reasons under Every series). `*`: "
                        "no ruler baseline, raw median. Each figure is the kernel's own, relative "
                        "to nothing but its ruler baseline; Against the reference scheduler sets "
                        "it against the reference scheduler's{}.",
                        same ? "" : "; units differ between jobs, see the unit column",
                        cur.reference.empty() ? "" : fmt::format(" (`{}`)", cur.reference)));
  if (std::any_of(jobs.begin(), jobs.end(), [](const JobView* j) { return checks_not_off(*j); })) {
    paragraph(d,
              "`†` after a kernel: its API argument checks were not off (CONFIG `checks` "
              "`partial`: some cannot be compiled out; `on`: asked for), so its figures include "
              "their cost (docs/kernels.md, \"API checks\").");
  }
}

// The seed measurements (docs/method.md): one more table when a job ran any.
void seed_table(Document& d, const RunView& cur, const std::vector<const JobView*>& jobs,
                const std::string& unit) {
  static const store::HeadlineSeries kSeed[] = {
      {"yield", "", "yield"},
      {"notify_wake", "", "notify wake"},
      {"notify_event_to_task", "", "notify IRQ to task"},
      {"mixed_load", "", "wake under load"},
      {"sleep_wake", "wfi", "wake from WFI"},
      {"heap_alloc_mixed", "", "malloc (mixed)"},
      {"heap_free_mixed", "", "free (mixed)"},
      {"idle_time", "", "idle per tick"},
      {"tick_period", "", "tick period"},
  };
  bool seed = false;
  for (const JobView* j : jobs)
    for (const auto& h : kSeed) seed |= j->snap.find(h.phase, h.name) != nullptr;
  if (!seed) return;
  heading(d, 3, fmt::format("Seed measurements: median [{}], net (raw in parentheses)", unit));
  paragraph(d,
            "The tests that reproduce the seeds' further findings (docs/method.md): median net "
            "of the ruler baseline where the series has one (raw in parentheses), else raw; "
            "`n/a`: the kernel has no way to express the test (reason under Verify); `-`: not "
            "run; `(unstable)`: the bench itself moves the series, `(not a measurement)`: the "
            "bench cannot measure it (reasons under Every series): shown, never ranked or "
            "judged; `[x % served]`: the share of the pattern's allocations the kernel served "
            "(a refused call's time is not among the samples).");
  Table t = figures_table({"kernel", "job"}, titles(kSeed));
  auto f = [&](const SeriesValues& sv) -> std::string {
    auto m = value(sv, "median");
    if (!m) return "-";
    auto n = net(sv, "median");
    return (n ? fmt::format("{} ({})", ticks(*n), ticks(*m)) : ticks(*m)) + served(sv) +
           unjudged_mark(sv);
  };
  for (const JobView* j : jobs) {
    std::vector<std::string> row{kernel_label(*j), j->snap.id};
    for (const auto& h : kSeed) {
      // A series the bench moves or cannot measure: its value, marked.
      const SeriesValues* s = j->snap.find(h.phase, h.name);
      row.push_back(s && !s->unjudged.empty() ? f(*s) + unequal_mark(cur, *j, h.name)
                                              : headline_cell(cur, *j, h, f));
    }
    t.rows.push_back(std::move(row));
  }
  table(d, std::move(t));
}

void headline(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  heading(d, 2, "Headline");
  if (jobs.empty()) {
    paragraph(d, "No job of this run ended OK: there are no figures to show.");
    return;
  }
  const auto units = units_of(jobs);
  const std::string unit = one_unit(units);
  headline_intro(d, cur, jobs, units.size() <= 1);

  heading(d, 3, fmt::format("Median [{}], net (raw in parentheses)", unit));
  headline_rows(
      d, cur, jobs,
      [&](const SeriesValues& s) -> std::string {
        auto m = value(s, "median");
        if (!m) return "-";
        auto n = net(s, "median");
        if (!n) return ticks(*m) + "*";
        return fmt::format("{} ({})", ticks(*n), ticks(*m));
      },
      unit_label);

  heading(d, 3, fmt::format("Median [{}], net", time_unit(unit)));
  paragraph(d, "The net medians above converted at each series' counter frequency (`hz`).");
  headline_rows(
      d, cur, jobs,
      [&](const SeriesValues& s) -> std::string {
        auto m = value(s, "median");
        if (!m) return "-";
        auto n = net(s, "median");
        return n ? micros(*n, s.hz) : micros(*m, s.hz) + "*";
      },
      time_unit);

  heading(d, 3, fmt::format("Tail: raw p99 [{}] and p99/median", unit));
  paragraph(
      d,
      "Raw p99 (before the baseline) and the jitter ratio p99/median in parentheses: the tail "
      "a hard real-time system lives with.");
  headline_rows(
      d, cur, jobs,
      [&](const SeriesValues& s) -> std::string {
        auto p = value(s, "p99");
        auto r = value(s, "jitter");
        if (!p) return "-";
        return r ? fmt::format("{} ({:.2f})", ticks(*p), *r) : ticks(*p);
      },
      unit_label);

  seed_table(d, cur, jobs, unit);
  unequal_list(d, cur);
}

// The reference-scheduler job (bare) on the same board, opt and tick as
// `j` for which `usable` holds, same fpu preferred; null when the run has none.
template <class Usable>
const JobView* reference_for(const RunView& run, const JobView& j, Usable usable) {
  const JobView* found = nullptr;
  for (const auto& b : run.jobs) {
    const store::JobSpec& bj = b.result->job;
    const store::JobSpec& jj = j.result->job;
    if (!run.is_reference(bj) || !usable(b)) continue;
    if (bj.board != jj.board || bj.axis("opt") != jj.axis("opt") ||
        bj.axis("tick_hz") != jj.axis("tick_hz"))
      continue;
    if (!found || bj.axis("fpu_context") == jj.axis("fpu_context")) found = &b;
  }
  return found;
}

// The measured reference job for `j`.
const JobView* measured_reference_for(const RunView& run, const JobView& j) {
  return reference_for(
      run, j, [](const JobView& b) { return b.snap.figures_verified() && !b.snap.series.empty(); });
}

// Each kernel's headline figures minus the reference scheduler's, signed:
// the reference is a minimal PendSV-switching scheduler, not a lower bound,
// so a kernel with a shorter path is below it and the difference says so.
void against_reference(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  if (cur.reference.empty()) return;
  struct Row {
    const JobView* job;
    const JobView* ref;
  };
  std::vector<Row> rows;
  for (const JobView* j : jobs) {
    if (cur.is_reference(j->result->job)) continue;
    if (const JobView* r = measured_reference_for(cur, *j)) rows.push_back({j, r});
  }
  if (rows.empty()) return;
  heading(d, 3, "Against the reference scheduler");
  paragraph(
      d, fmt::format(
             "Per job, its net median (as in the Headline) minus the net median of the reference "
             "scheduler's job (`{}`, on the same board, optimisation and tick), signed, in the "
             "job's unit; `*`: one of the two has no ruler baseline, both raw. The reference is a "
             "minimal scheduler that always switches through PendSV, not a lower bound: a negative "
             "difference is a kernel whose path is shorter there (a synchronous switch in thread "
             "mode, for example), a figure like any other, not an error. `n/m`, `u/s`: not judged "
             "on this bench (as in the Headline); `-`: either job lacks the series.",
             cur.reference));
  Table t = headline_table({"kernel", "job", "reference job"});
  for (const auto& [j, r] : rows) {
    std::vector<std::string> row{kernel_label(*j), j->snap.id, r->snap.id};
    for (const auto& h : kHeadline) {
      const SeriesValues* a = j->snap.find(h.phase, h.name);
      const SeriesValues* b = r->snap.find(h.phase, h.name);
      if (!a || !b) {
        row.push_back("-");
        continue;
      }
      if (!a->unjudged.empty() || !b->unjudged.empty()) {
        row.push_back(unjudged_cell(a->unjudged.empty() ? b->unjudged : a->unjudged));
        continue;
      }
      // Raw on one side only would mix a baseline into the difference: both raw then.
      auto na = net(*a, "median"), nb = net(*b, "median");
      const bool raw = !na || !nb;
      auto va = raw ? value(*a, "median") : na, vb = raw ? value(*b, "median") : nb;
      row.push_back(va && vb ? fmt::format("{:+.0f}{}", *va - *vb, raw ? "*" : "") : "-");
    }
    row.push_back(unit_label(j->snap.unit));
    t.rows.push_back(std::move(row));
  }
  table(d, std::move(t));
}

// Phase critical of irq_latency: its percentiles say where events fell
// against the masking window, not how a kernel behaves; they are not tabled.
bool unranked_percentile(const SeriesValues& s, const char* metric) {
  if (s.phase != "critical") return false;
  const std::string m = metric;
  return m == "p90" || m == "p99" || m == "p999" || m == "jitter";
}

void every_series(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  if (jobs.empty()) return;
  heading(d, 2, "Every series");
  paragraph(d,
            "All statistics in ticks of each job's unit; `net` is the median minus the ruler "
            "baseline `base`, the median of the ruler series named in parentheses. Phase "
            "`critical` shows no p90, p99, p99.9 or p99/median: they "
            "depend on where the events fell against the masking window (see Critical phase). "
            "A series marked `(not a measurement)` is captured and verified, but this bench "
            "cannot measure it; one marked `(unstable)` the bench itself moves, within a run or "
            "between runs (reasons below); neither is ever ranked or judged.");
  Table t{.head = {"job", "series", "test", "n", "min", "median", "net", "p90", "p99", "p99.9",
                   "max", "avg", "stddev", "p99/median", "base", "unit", "source"},
          .align = "lllrrrrrrrrrrrrll"};
  std::set<std::string> reasons;
  for (const JobView* j : jobs) {
    for (const auto& s : j->snap.series) {
      auto f = [&](const char* m) {
        if (unranked_percentile(s, m)) return std::string("-");
        auto v = value(s, m);
        return v ? format_value(*find_metric(m), *v) : std::string("-");
      };
      auto nm = net(s, "median");
      std::string key = s.key() + unequal_mark(cur, *j, s.name);
      if (!s.unjudged.empty()) {
        key += unjudged_mark(s);
        reasons.insert(
            fmt::format("`{}` on board `{}`: {}", s.name, or_dash(j->snap.board), s.unjudged));
      }
      std::string n = f("n");
      if (s.calls && s.refused)
        n += fmt::format(" ({} of {} calls served)", *s.calls - *s.refused, *s.calls);
      t.rows.push_back(
          {j->snap.id, key, s.test, n, f("min"), f("median"), nm ? ticks(*nm) : "-", f("p90"),
           f("p99"), f("p999"), f("max"), f("avg"), f("stddev"), f("jitter"),
           s.base.empty() || !value(s, "base") ? f("base") : f("base") + " (" + s.base + ")",
           unit_label(verify::series_unit(s.name, j->snap.unit)),
           s.source == "histogram" ? "histogram"
           : s.has_raw             ? "RAW"
                                   : "RESULT only"});
    }
  }
  table(d, std::move(t));
  if (!unequal_notes(cur).empty())
    paragraph(d, "`‡n` after a series: the kernel's declared unequal work, listed under Headline.");
  listed(d,
         "Not ranked or judged on this bench (the board's declarations as the run recorded them):",
         {reasons.begin(), reasons.end()});
  // The architectural lower bounds verify held every sample against, as the
  // run recorded them (board.lower_bounds): below one, a job is INVALID.
  std::set<std::string> bounds;
  for (const JobView* j : jobs) {
    if (!j->result->board) continue;
    for (const auto& [series, b] : j->result->board->lower_bounds)
      bounds.insert(fmt::format("`{}` on board `{}`: at least {} core cycles: {}", series,
                                or_dash(j->snap.board), b.cycles, b.why));
  }
  listed(d,
         "Architectural lower bounds every sample was verified against (the board's, as the run "
         "recorded them; a sample below one is INVALID, a broken ruler):",
         {bounds.begin(), bounds.end()});
  // Results older than the board record (docs/results.md, "board").
  using Facts = JobSnapshot::BoardFacts;
  for (const auto& [facts, text] :
       {std::pair{Facts::kToday,
                  "These results are older than the board record: their board's declarations "
                  "are today's firmware tree's, which may differ from what was true at run "
                  "time: {}."},
        std::pair{Facts::kUnknown,
                  "These results are older than the board record and today's firmware tree "
                  "does not know their board: what it could not measure is unknown, no series "
                  "of theirs is marked: {}."}}) {
    std::vector<std::string> ids;
    for (const JobView* j : jobs)
      if (j->snap.board_facts == facts) ids.push_back(fmt::format("`{}`", j->snap.id));
    if (!ids.empty()) paragraph(d, fmt::format(fmt::runtime(text), fmt::join(ids, ", ")));
  }
}

// The second ruler: for a job holding an edges analysis (edges.json, a logic
// analyzer's capture of its edges=on build), the edge figure of each
// edge-mapped series beside its DWT figure, their difference and the
// verdict, then per series both distributions on one axis. Nothing without
// such a job.
void edges_section(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  std::vector<const JobView*> with;
  for (const JobView* j : jobs) {
    if (!j->snap.edges_status.empty()) with.push_back(j);
  }
  if (with.empty()) return;
  heading(d, 2, "Edges (second ruler)");
  paragraph(d,
            "Each edge-mapped series measured twice: by the core's counter (DWT, in ns at the "
            "job's counter rate) and by a logic analyzer on the edges=on build's pins "
            "(`rtosbench edges`, docs/lab.md). `edge - dwt` per paired sample; a series whose "
            "difference exceeds the tolerance on any sample is `disagree`, shown with both "
            "figures, never averaged away. `sequence`: edges missing or extra (listed by "
            "`rtosbench edges`); `overflow`: the capture ended early and nothing was compared.");
  Table t{.head = {"job", "series", "n", "paired", "dwt median", "edge median", "dwt p99",
                   "edge p99", "dwt max", "edge max", "diff median", "diff max", "diff cycles",
                   "tolerance", "verdict"},
          .align = "llrrrrrrrrrrrrl"};
  auto ns = [](double v) { return fmt::format("{:.1f}", v); };
  std::vector<std::string> refused;
  for (const JobView* j : with) {
    if (j->snap.edges_status == "overflow")
      refused.push_back(fmt::format("`{}`: {}", j->snap.id, j->snap.edges_refusal));
    for (const auto& s : j->snap.series) {
      if (!s.edges) continue;
      const EdgeFigures& e = *s.edges;
      t.rows.push_back({j->snap.id, s.key(), std::to_string(e.n), std::to_string(e.paired),
                        ns(e.dwt_median), ns(e.edge_median), ns(e.dwt_p99), ns(e.edge_p99),
                        ns(e.dwt_max), ns(e.edge_max), ns(e.diff_median), ns(e.diff_max),
                        fmt::format("{:.1f}", e.diff_median_cycles), ns(e.tolerance_ns),
                        e.status == "disagree" ? "**disagree**" : e.status});
    }
  }
  paragraph(d,
            "Figures in ns; `diff cycles`: the median difference in core cycles at the "
            "board's clock.");
  table(d, std::move(t));
  listed(d, "Refused (the analyzer's capture overflowed):", std::move(refused));
  for (const JobView* j : with) {
    for (const auto& s : j->snap.series) {
      if (!s.edges || s.edges->dwt_ns.empty() || s.edges->edge_ns.empty()) continue;
      Plot p;
      p.title = fmt::format("{} {}: DWT and edges, cumulative distribution", j->snap.id, s.key());
      p.x_label = "ns";
      p.y_label = "samples at or below";
      p.y_percent = true;
      for (const auto& [label, v] :
           {std::pair{"DWT", &s.edges->dwt_ns}, std::pair{"edges", &s.edges->edge_ns}}) {
        std::vector<uint64_t> sorted;
        for (double x : *v) sorted.push_back(static_cast<uint64_t>(std::llround(std::max(x, 0.0))));
        std::sort(sorted.begin(), sorted.end());
        PlotLine line;
        line.label = label;
        line.step = true;
        line.points = cdf_points(sorted, 400);
        p.lines.push_back(std::move(line));
      }
      plot(d, p);
    }
  }
}

// Phase critical of irq_latency, from verify's re-derivation (docs/protocol.md).
void critical_phase(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  Table t{.head = {"kernel", "job", "series", "n", "delayed", "share", "worst", "beyond window",
                   "window", "busy max", "unit"},
          .align = "lllrrrrrrrl"};
  for (const JobView* j : jobs) {
    const nlohmann::json& doc = j->result->verify.document;
    if (!doc.is_object() || !doc.contains("phases") || !doc["phases"].is_array()) continue;
    for (const auto& p : doc["phases"]) {
      if (!p.is_object() || !p.contains("delay") || !p["delay"].is_array()) continue;
      const uint64_t window = p.value("window", uint64_t{0});
      for (const auto& e : p["delay"]) {
        const std::string series = e.value("series", "");
        const uint64_t n = e.value("n", uint64_t{0});
        const uint64_t delayed = e.value("delayed", uint64_t{0});
        std::string name = series;
        if (std::any_of(j->snap.series.begin(), j->snap.series.end(), [&](const SeriesValues& v) {
              return v.name == series && !v.unjudged.empty();
            }))
          name += " (not judged on this bench)";
        t.rows.push_back({j->snap.kernel, j->snap.id, name, std::to_string(n),
                          std::to_string(delayed),
                          n ? fmt::format("{:.2f}%", 100.0 * static_cast<double>(delayed) /
                                                         static_cast<double>(n))
                            : "-",
                          std::to_string(e.value("worst", uint64_t{0})),
                          std::to_string(e.value("beyond", uint64_t{0})), std::to_string(window),
                          std::to_string(e.value("limit", uint64_t{0})), "event-timer ticks"});
      }
    }
  }
  if (t.rows.empty()) return;
  heading(d, 2, "Critical phase");
  paragraph(
      d,
      "irq_latency's phase `critical`: the background task masks interrupts for `window` "
      "event-timer ticks once per tick. An event is delayed when its latency is above the "
      "busy phase's maximum of the same series (`busy max`: the same background task running, "
      "nothing masked); `share` is delayed / n. "
      "`worst` is the phase's maximum and `beyond window` what it exceeds the masking "
      "window by (0 when not): the kernel's part of the worst case. Re-derived from the "
      "RAW samples by verify.");
  table(d, std::move(t));
}

// The buckets of a series imported from a histogram; nullptr for others.
const store::HistogramRecord* histogram_of(const JobView& j, const std::string& phase,
                                           const std::string& name) {
  for (const auto& s : j.result->series) {
    if (s.phase == phase && s.name == name && s.histogram) return &*s.histogram;
  }
  return nullptr;
}

bool all_histograms(const JobView& j) {
  return !j.result->series.empty() &&
         std::all_of(j.result->series.begin(), j.result->series.end(),
                     [](const store::SeriesRecord& s) { return s.histogram.has_value(); });
}

// The empirical CDF of a histogram: a step at each bucket; the overflow
// samples at the max.
std::vector<std::pair<double, double>> histogram_cdf(const store::HistogramRecord& h,
                                                     const SeriesValues& s) {
  std::vector<std::pair<double, double>> out;
  uint64_t n = h.overflow;
  for (const auto& b : h.buckets) n += b[1];
  if (n == 0) return out;
  out.emplace_back(static_cast<double>(h.buckets.empty() ? 0 : h.buckets.front()[0]), 0.0);
  uint64_t seen = 0;
  for (const auto& b : h.buckets) {
    seen += b[1];
    out.emplace_back(static_cast<double>(b[0]), static_cast<double>(seen) / static_cast<double>(n));
  }
  if (h.overflow) {
    if (auto max = value(s, "max")) out.emplace_back(*max, 1.0);
  }
  return out;
}

// Imported histograms (cyclictest): counts per 1 µs bucket on a log scale,
// one plot per series (thread), a line per job; the overflow in a table.
void histograms(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& k : series_order(jobs)) {
    for (const JobView* j : jobs) {
      if (histogram_of(*j, k.first, k.second)) {
        keys.push_back(k);
        break;
      }
    }
  }
  if (keys.empty()) return;
  heading(d, 2, "Latency histograms");
  paragraph(d,
            "Series imported from a histogram (cyclictest `--histogram=N`): the samples per "
            "1 µs bucket, counts on a log scale as cyclictest's users read them. Samples at or "
            "beyond the last bucket were only counted (`overflow`); a statistic whose nearest "
            "rank falls among them is shown as the max, an upper bound, and named under "
            "`beyond last bucket`. The Markdown report leaves the plots out; the HTML report has "
            "them.");
  Table t{.head = {"job", "series", "n", "buckets", "overflow", "beyond last bucket", "unit"},
          .align = "llrrrll"};
  for (const auto& [phase, name] : keys) {
    Plot p;
    p.title = fmt::format("{}: latency histogram", series_key(phase, name));
    p.x_label = "latency [µs]";
    p.y_label = "samples (log scale)";
    p.y_log = true;
    for (const JobView* j : jobs) {
      const store::HistogramRecord* h = histogram_of(*j, phase, name);
      const SeriesValues* s = j->snap.find(phase, name);
      if (!h || !s) continue;
      PlotLine line;
      line.label = j->snap.id;
      line.step = true;
      // Every bucket from the first to the last counted one, empty ones at 0.
      if (!h->buckets.empty()) {
        size_t k = 0;
        const uint64_t lo = h->buckets.front()[0], hi = h->buckets.back()[0];
        for (uint64_t v = lo; v <= hi + 1; ++v) {
          uint64_t c = 0;
          if (k < h->buckets.size() && h->buckets[k][0] == v) c = h->buckets[k++][1];
          line.points.emplace_back(static_cast<double>(v), static_cast<double>(c));
        }
      }
      p.lines.push_back(std::move(line));
      uint64_t n = h->overflow;
      for (const auto& b : h->buckets) n += b[1];
      t.rows.push_back(
          {j->snap.id, series_key(phase, name), std::to_string(n), std::to_string(h->limit),
           h->overflow ? fmt::format("{} (flagged)", h->overflow) : "0",
           h->beyond_limit.empty() ? "-" : fmt::format("{}", fmt::join(h->beyond_limit, ", ")),
           unit_label(j->snap.unit)});
    }
    plot(d, p);
  }
  table(d, std::move(t));
}

void distributions(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  if (jobs.empty()) return;
  heading(d, 2, "Distributions");
  paragraph(d,
            "Per series, the cumulative distribution of every sample of each job, re-read from the "
            "job's capture; a dashed line is drawn from the statistics (min, median, p90, p99, "
            "p99.9, max) because the capture could not be re-read. The Markdown report leaves the "
            "plots out; the HTML report has them.");
  std::vector<std::string> missing;
  for (const JobView* j : jobs) {
    if (!j->raw && !all_histograms(*j))
      missing.push_back(fmt::format("`{}`: {}", j->snap.id, j->raw_problem));
  }
  listed(d, "Drawn from statistics (no raw capture):", std::move(missing));
  const std::string unit = one_unit(units_of(jobs));
  for (const auto& [phase, name] : series_order(jobs)) {
    Plot p;
    p.title = fmt::format("{}: cumulative distribution", series_key(phase, name));
    p.x_label = unit;
    p.y_label = "samples at or below";
    p.y_percent = true;
    for (const JobView* j : jobs) {
      const SeriesValues* s = j->snap.find(phase, name);
      if (!s) continue;
      PlotLine line;
      line.label = j->snap.id + unjudged_mark(*s);
      line.step = true;
      const RawSeries* raw = j->raw ? j->raw->find(phase, name) : nullptr;
      const store::HistogramRecord* hist = histogram_of(*j, phase, name);
      if (hist) {
        line.points = histogram_cdf(*hist, *s);
      } else if (raw && !raw->values.empty()) {
        std::vector<uint64_t> sorted = raw->values;
        std::sort(sorted.begin(), sorted.end());
        line.points = cdf_points(sorted, 400);
      } else {
        line.dashed = true;
        line.step = false;
        const std::pair<const char*, double> kAt[] = {{"min", 0.0},  {"median", 0.5}, {"p90", 0.9},
                                                      {"p99", 0.99}, {"p999", 0.999}, {"max", 1.0}};
        for (const auto& [m, q] : kAt) {
          if (auto v = value(*s, m)) line.points.emplace_back(*v, q);
        }
      }
      p.lines.push_back(std::move(line));
    }
    plot(d, p);
  }
}

// The linked image's sections, null when the job has no built image.
const store::Sections* footprint_of(const store::JobResult& r) {
  return r.build && r.build->footprint ? &*r.build->footprint : nullptr;
}

// Flash and RAM of the kernel alone: what the run stored
// (build.footprint_kernel.delta, against the reference port's image built
// with the job's own options), else, for result files without it (older
// runs, or a reference build that failed), the image minus the run's
// reference job on the same board, opt and tick. Empty for the reference
// port and when neither exists.
std::optional<store::FlashRam> kernel_alone(const RunView& run, const JobView& j) {
  if (run.is_reference(j.result->job)) return std::nullopt;
  const auto& build = j.result->build;
  if (build && build->footprint_kernel && build->footprint_kernel->error.empty())
    return build->footprint_kernel->delta;
  const JobView* b =
      reference_for(run, j, [](const JobView& v) { return footprint_of(*v.result) != nullptr; });
  const store::Sections *f = footprint_of(*j.result), *bf = b ? footprint_of(*b->result) : nullptr;
  if (!f || !bf) return std::nullopt;
  return store::FlashRam{f->flash - bf->flash, f->ram - bf->ram};
}

void footprint(Document& d, const RunView& cur) {
  heading(d, 2, "Footprint");
  paragraph(d,
            "Bytes from the linked image (`text` + `data` in flash, `data` + `bss` in RAM; "
            "every image has the same task stacks). Kernel alone: the image minus the "
            "reference scheduler's (the bare-metal port's) image built with the same board, "
            "optimisation, tick, FPU, samples and tests, as the run recorded it "
            "(`build.footprint_kernel`), else the image minus the run's reference job on the "
            "same board, optimisation and tick (`-` when neither exists; `(reference)`: the "
            "reference scheduler's own row).");
  Table t{.head = {"kernel", "job", "text", "data", "bss", "flash", "RAM", "kernel alone: flash",
                   "kernel alone: RAM"},
          .align = "llrrrrrrr"};
  for (const auto& j : cur.jobs) {
    const store::Sections* f = footprint_of(*j.result);
    if (!f) continue;
    const auto k = kernel_alone(cur, j);
    const bool ref = cur.is_reference(j.result->job);
    auto alone = [&](int64_t v) { return ref ? "(reference)" : k ? std::to_string(v) : "-"; };
    t.rows.push_back({j.snap.kernel, j.snap.id, std::to_string(f->text), std::to_string(f->data),
                      std::to_string(f->bss), std::to_string(f->flash), std::to_string(f->ram),
                      alone(k ? k->flash : 0), alone(k ? k->ram : 0)});
  }
  if (t.rows.empty()) {
    paragraph(d, "No job of this run has a built image.");
    return;
  }
  table(d, std::move(t));
}

// `loads:` N > 1: each job's loads, its verdict and, per headline test, the
// spread (max - min) of the median across the loads.
void reproducibility(Document& d, const RunView& cur) {
  std::vector<const JobView*> jobs;
  for (const auto& j : cur.jobs) {
    if (j.result->reproducibility) jobs.push_back(&j);
  }
  if (jobs.empty()) return;
  heading(d, 2, "Reproducibility");
  paragraph(d,
            "Jobs run with `loads: N`: N fresh loads of one image, each with its own cold start "
            "and capture. Per headline test, the spread (largest minus smallest) of its raw median "
            "across the loads; the verdict compares every statistic of every series with the "
            "tolerance named (on the emulated bench: identical).");
  Table t;
  t.head = {"job", "loads", "verdict", "tolerance"};
  for (const auto& h : kHeadline) t.head.push_back(std::string("median spread: ") + h.title);
  t.head.push_back("beyond tolerance");
  t.align = "lrll" + std::string(kHeadline.size(), 'r') + "l";
  for (const JobView* j : jobs) {
    const store::Reproducibility& r = *j->result->reproducibility;
    std::vector<std::string> row{j->snap.id, fmt::format("{}", r.loads), r.summary,
                                 r.tolerance_origin};
    for (const auto& h : kHeadline) {
      std::string cell = "-";
      if (j->result->spread) {
        for (const auto& s : *j->result->spread) {
          if (s.name != h.name || s.phase != h.phase) continue;
          if (auto m = s.statistics.find("median"); m != s.statistics.end()) {
            cell = ticks(m->second.range.value_or(0.0));
          }
        }
      }
      row.push_back(cell);
    }
    std::vector<std::string> beyond;
    for (const auto& b : r.beyond) beyond.push_back(fmt::format("{} {}", b.series, b.statistic));
    row.push_back(beyond.empty() ? "none" : fmt::format("{}", fmt::join(beyond, "; ")));
    t.rows.push_back(std::move(row));
  }
  table(d, std::move(t));
}

void conditions(Document& d, const RunView& cur) {
  heading(d, 2, "Conditions");
  std::vector<const JobView*> jobs;
  for (const auto& j : cur.jobs) {
    if (!j.snap.conditions.empty()) jobs.push_back(&j);
  }
  const store::RunSummary& s = cur.run->summary;
  std::vector<std::string> facts;
  if (s.toolchain) {
    const store::Toolchain& t = *s.toolchain;
    facts.push_back(fmt::format("toolchain: `{}`, cmake {}, ninja {}",
                                or_dash(t.arm_none_eabi_gcc_banner), or_dash(t.cmake),
                                or_dash(t.ninja)));
  }
  for (const auto& j : cur.jobs) {
    const auto& ks = j.result->kernel_source;
    if (ks && ks->has_source) {
      facts.push_back(fmt::format(
          "`{}` kernel source: {} at tag `{}`, commit `{}`{}{}", j.snap.id,
          or_dash(ks->main.origin), or_dash(ks->main.tag), or_dash(ks->main.commit),
          ks->main.at_tag ? "" : " (not at the tag)", ks->main.dirty ? " (dirty)" : ""));
    }
    std::string note = j.result->job.kernel_note;
    if (!note.empty()) facts.push_back(fmt::format("`{}`: {}", j.snap.id, note));
  }
  list(d, facts);
  if (jobs.empty()) {
    paragraph(d, "No job reached a capture: no CONFIG to show.");
    return;
  }
  paragraph(d,
            "Every CONFIG key the firmware reported (docs/protocol.md section 3). Keys with "
            "one value for every job first; then the keys that differ between jobs.");
  std::set<std::string> keys;
  for (const JobView* j : jobs) {
    for (const auto& [k, v] : j->snap.conditions) keys.insert(k);
  }
  Table common{.head = {"key", "value"}, .align = "ll"};
  Table differ{.head = {"key"}, .align = std::string(jobs.size() + 1, 'l')};
  for (const JobView* j : jobs) differ.head.push_back(j->snap.id);
  for (const auto& k : keys) {
    std::vector<std::string> row{k};
    for (const JobView* j : jobs) {
      auto it = j->snap.conditions.find(k);
      row.push_back(it == j->snap.conditions.end() ? "(absent)" : it->second);
    }
    if (std::set<std::string>(row.begin() + 1, row.end()).size() == 1)
      common.rows.push_back({k, row[1]});
    else
      differ.rows.push_back(std::move(row));
  }
  table(d, std::move(common));
  if (!differ.rows.empty()) table(d, std::move(differ));
}

void verify_section(Document& d, const RunView& cur) {
  heading(d, 2, "Verify: warnings, notes and failures");
  std::vector<std::string> failed, ruler;
  for (const auto& j : cur.jobs) {
    if (j.snap.status != "OK") {
      (j.snap.figures_verified() ? ruler : failed)
          .push_back(fmt::format("`{}`: {}{}{}", j.snap.id, j.snap.status,
                                 j.snap.reason.empty() ? "" : ": ", j.snap.reason));
    }
  }
  for (const auto& id : cur.snap.unfinished)
    failed.push_back(fmt::format("`{}`: unfinished (no result.json)", id));
  listed(d, "Jobs that did not end OK (no figures are shown for them):", std::move(failed));
  listed(d,
         "Jobs whose second ruler failed (the logic analyzer; their DWT captures verified OK and "
         "their figures are shown, without an edge comparison):",
         std::move(ruler));
  std::vector<std::string> na;
  for (const auto& j : cur.jobs) {
    for (const auto& [n, r] : j.snap.not_applicable)
      na.push_back(fmt::format("`{}` {}: {}", j.snap.id, n, r));
  }
  listed(d, "Not applicable (the firmware says the figure cannot be measured honestly there):",
         std::move(na));
  Table t{.head = {"job", "attempt", "check", "severity", "line", "message"}, .align = "lrllrw"};
  for (const auto& j : cur.jobs) {
    for (const auto& a : j.result->attempts) {
      for (const auto& v : a.verdicts) {
        t.rows.push_back({j.snap.id, fmt::format("{}", a.number), v.check, v.severity,
                          v.line ? fmt::format("{}", v.line) : "-", v.message});
      }
    }
  }
  if (t.rows.empty()) {
    paragraph(d, "Verify raised no warning and no note on any attempt.");
  } else {
    paragraph(d,
              "Every verdict verify raised on every attempt (severity `valid` is a note that "
              "does not change the outcome).");
    table(d, std::move(t));
  }
}

// Per headline series, its median over the runs, a line per job.
void trend_plots(Document& d, const std::vector<RunView>& runs,
                 const std::vector<std::string>& job_ids) {
  std::vector<std::string> labels;
  for (const auto& r : runs) {
    // "2026-11-29T22:52:05Z" -> "11-29 22:52": short enough for an axis.
    const std::string& t = r.snap.started_at;
    labels.push_back(t.size() >= 16 ? t.substr(5, 5) + " " + t.substr(11, 5) : r.snap.id);
  }
  for (const auto& h : kHeadline) {
    Plot p;
    p.title = fmt::format("{}: median over runs", series_key(h.phase, h.name));
    p.x_label = "run (start time)";
    std::set<std::string> units;
    p.x_categories = labels;
    for (const auto& id : job_ids) {
      PlotLine line;
      line.label = id;
      line.markers = true;
      for (size_t i = 0; i < runs.size(); ++i) {
        const JobSnapshot* j = runs[i].snap.find(id);
        const SeriesValues* s = j && j->figures_verified() ? j->find(h.phase, h.name) : nullptr;
        if (!s || !s->unjudged.empty()) continue;  // shown in the table, marked; never plotted
        if (auto m = value(*s, "median")) {
          line.points.emplace_back(static_cast<double>(i), *m);
          units.insert(unit_label(j->unit));
        }
      }
      if (!line.points.empty()) p.lines.push_back(std::move(line));
    }
    if (p.lines.empty()) continue;
    p.y_label = "median [" + one_unit(units) + "]";
    plot(d, p);
  }
}

void trends(Document& d, const std::vector<RunView>& runs) {
  if (runs.size() < 2) return;
  heading(d, 2, "Across runs");
  paragraph(d,
            "Raw median per job and series over the runs given, oldest first. A job whose "
            "pinned conditions changed from the previous run is marked with the keys that "
            "changed.");
  // Jobs and series in first-seen order over all runs.
  std::vector<std::string> job_ids;
  for (const auto& r : runs) {
    for (const auto& j : r.snap.jobs) {
      if (std::find(job_ids.begin(), job_ids.end(), j.id) == job_ids.end()) job_ids.push_back(j.id);
    }
  }
  std::vector<std::string> ids;
  for (const auto& r : runs) ids.push_back(r.snap.id);
  Table t = figures_table({"job", "series"}, ids);
  t.head.push_back("conditions changed");
  t.align += 'w';
  for (const auto& id : job_ids) {
    std::vector<std::pair<std::string, std::string>> keys;
    std::vector<std::string> changes;
    const JobSnapshot* prev = nullptr;
    for (size_t i = 0; i < runs.size(); ++i) {
      const JobSnapshot* j = runs[i].snap.find(id);
      if (!j) continue;
      for (const auto& s : j->series) {
        auto k = std::make_pair(s.phase, s.name);
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      }
      if (prev && j->figures_verified()) {
        std::vector<std::string> changed;
        for (const auto& m : condition_mismatches(*prev, *j)) changed.push_back(m.key);
        if (!changed.empty())
          changes.push_back(fmt::format("{}: {}", runs[i].snap.id, fmt::join(changed, ", ")));
      }
      if (j->figures_verified()) prev = j;
    }
    for (const auto& [phase, name] : keys) {
      std::vector<std::string> row{id, series_key(phase, name)};
      for (const auto& r : runs) {
        const JobSnapshot* j = r.snap.find(id);
        const SeriesValues* s = j ? j->find(phase, name) : nullptr;
        auto m = s ? value(*s, "median") : std::nullopt;
        row.push_back(m ? ticks(*m) + unjudged_mark(*s)
                        : (j ? (j->figures_verified() ? "-" : j->status) : "absent"));
      }
      row.push_back(changes.empty() ? "" : fmt::format("{}", fmt::join(changes, "; ")));
      t.rows.push_back(std::move(row));
    }
  }
  table(d, std::move(t));
  trend_plots(d, runs, job_ids);
}

// A series an axis is about besides the headline ones: tickless idle moves the
// wake from sleep (seed 000 section 5.3), not the headline.
std::optional<store::HeadlineSeries> axis_series(const model::Axis& axis) {
  if (axis.key == "tickless") return store::HeadlineSeries{"sleep_wake", "wfi", "wake from WFI"};
  return std::nullopt;
}

std::string condition(const JobSnapshot& j, std::string_view key) {
  auto it = j.conditions.find(std::string(key));
  return it == j.conditions.end() ? std::string() : it->second;
}

// Axis values in a reading order: numbers by value, the rest as text
// ("-O0 -g0" < ... < "-O3 -g0" < "-Os -g0").
bool axis_less(const std::string& a, const std::string& b) {
  uint64_t x = 0, y = 0;
  auto [pa, ea] = std::from_chars(a.data(), a.data() + a.size(), x);
  auto [pb, eb] = std::from_chars(b.data(), b.data() + b.size(), y);
  if (ea == std::errc() && eb == std::errc() && pa == a.data() + a.size() &&
      pb == b.data() + b.size())
    return x < y;
  return a < b;
}

// One section per axis the run varies: for each headline series, a table and
// a plot of the median against the axis' values, a line per kernel (and per
// setting of the other axes when the run varies several).
void variants(Document& d, const RunView& cur) {
  auto jobs = measured_jobs(cur);
  bool any = false;
  for (const auto& axis : model::axes()) {
    std::vector<std::string> values;
    for (const JobView* j : jobs) {
      std::string v = condition(j->snap, axis.config);
      if (!v.empty() && std::find(values.begin(), values.end(), v) == values.end())
        values.push_back(v);
    }
    if (values.size() < 2) continue;
    std::sort(values.begin(), values.end(), axis_less);
    // Groups of jobs equal but for this axis: kernel plus the other axes.
    std::vector<std::string> group_order;
    std::map<std::string, std::map<std::string, const JobView*>> groups;
    for (const JobView* j : jobs) {
      std::string v = condition(j->snap, axis.config);
      if (v.empty()) continue;
      std::string label = j->snap.kernel;
      std::vector<std::string> others;
      for (const auto& o : model::axes()) {
        if (&o == &axis) continue;
        std::string ov = condition(j->snap, o.config);
        bool varies = false;
        for (const JobView* k : jobs) varies |= condition(k->snap, o.config) != ov;
        if (varies) others.push_back(fmt::format("{}={}", o.config, ov));
      }
      if (!others.empty()) label += fmt::format(" ({})", fmt::join(others, ", "));
      if (!groups.count(label)) group_order.push_back(label);
      groups[label][v] = j;
    }
    if (!any) {
      heading(d, 2, "Variants");
      paragraph(d,
                "Per build axis this run varies (matrix `variants:` or a sweep, `run --sweep`), "
                "the raw median of each headline series against the axis, a line per kernel: "
                "the jobs of a line differ in that axis only. Read the seed 000 section 5 "
                "findings from these: what one setting does to every kernel.");
      any = true;
    }
    heading(d, 3, fmt::format("{} (CONFIG {})", axis.title, axis.config));
    std::vector<store::HeadlineSeries> plotted = kHeadline;
    if (auto extra = axis_series(axis)) plotted.push_back(*extra);
    for (const auto& h : plotted) {
      Table t = figures_table({"kernel", "series"}, values);
      Plot p;
      p.title = fmt::format("{}: median against {}", series_key(h.phase, h.name), axis.title);
      p.x_label = axis.title;
      p.x_categories = values;
      std::set<std::string> units;
      for (const auto& g : group_order) {
        std::vector<std::string> row{g, series_key(h.phase, h.name)};
        PlotLine line;
        line.label = g;
        line.markers = true;
        bool have = false;
        for (size_t i = 0; i < values.size(); ++i) {
          auto it = groups[g].find(values[i]);
          const SeriesValues* s =
              it == groups[g].end() ? nullptr : it->second->snap.find(h.phase, h.name);
          // A series the board cannot measure, or that the bench moves, is
          // shown marked and never plotted (never ranked, never judged).
          auto m = s ? value(*s, "median") : std::nullopt;
          const bool judged = s && s->unjudged.empty();
          row.push_back(!m ? "-" : ticks(*m) + unjudged_mark(*s));
          have |= m.has_value();
          if (m && judged) {
            line.points.emplace_back(static_cast<double>(i), *m);
            units.insert(unit_label(it->second->snap.unit));
          }
        }
        if (!have) continue;
        t.rows.push_back(std::move(row));
        if (line.points.size() >= 2) p.lines.push_back(std::move(line));
      }
      if (t.rows.empty()) continue;
      table(d, std::move(t));
      p.y_label = "median [" + one_unit(units) + "]";
      if (!p.lines.empty()) plot(d, p);
    }
  }
}

}  // namespace

Document build_report(const std::vector<RunView>& runs) {
  Document d;
  d.title =
      runs.empty() ? "rtosbench report" : fmt::format("rtosbench report: {}", runs.back().snap.id);
  if (runs.empty()) return d;
  const RunView& cur = runs.back();
  overview(d, runs);
  headline(d, cur);
  against_reference(d, cur);
  variants(d, cur);
  critical_phase(d, cur);
  every_series(d, cur);
  edges_section(d, cur);
  distributions(d, cur);
  histograms(d, cur);
  footprint(d, cur);
  reproducibility(d, cur);
  conditions(d, cur);
  verify_section(d, cur);
  trends(d, runs);
  return d;
}

// ---------------------------------------------------------------- Markdown

std::string to_markdown(const Document& doc) {
  std::string out = fmt::format("# {}\n", md_inert(doc.title));
  for (const auto& b : doc.blocks) {
    out += "\n";
    switch (b.kind) {
      case Block::Kind::kHeading:
        out += fmt::format("{} {}\n", std::string(b.level, '#'), md_inert(b.text));
        break;
      case Block::Kind::kParagraph:
        out += md_inert(b.text) + "\n";
        break;
      case Block::Kind::kNote:
        out += "> " + md_inert(b.text) + "\n";
        break;
      case Block::Kind::kList:
        for (const auto& i : b.items) out += "- " + md_inert(i) + "\n";
        break;
      case Block::Kind::kTable: {
        const Table& t = b.table;
        out += "|";
        for (const auto& h : t.head) out += " " + md_cell(h) + " |";
        out += "\n|";
        for (size_t c = 0; c < t.head.size(); ++c)
          out += c < t.align.size() && t.align[c] == 'r' ? "---:|" : "---|";
        out += "\n";
        for (const auto& row : t.rows) {
          out += "|";
          for (const auto& cell : row) out += " " + md_cell(cell) + " |";
          out += "\n";
        }
        break;
      }
      case Block::Kind::kPlot:
        // Plots live in the HTML report; keep the Markdown free of blank lines
        // where a plot would be.
        out.pop_back();
        break;
    }
  }
  return terminal_safe(out);  // no control reaches a terminal that shows it
}

// ---------------------------------------------------------------- HTML

namespace {

// Escapes text and turns `code` spans into <code>.
std::string inline_html(const std::string& s) {
  std::string out;
  bool code = false;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '`') {
      out += xml_escape(s.substr(start, i - start));
      if (i < s.size()) out += code ? "</code>" : "<code>";
      code = !code;
      start = i + 1;
    }
  }
  if (!code) out += "</code>";  // an unbalanced backtick
  return out;
}

const char* kCss = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 0; color: #1d2430; background: #fff; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 32px 64px; }
h1 { font-size: 1.6em; margin: 0.2em 0 0.6em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #d8dde6; padding-bottom: 4px; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em;
       background: #f2f4f8; padding: 0 3px; border-radius: 3px; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: 8px 12px; margin: 12px 0; }
.table-wrap { overflow-x: auto; margin: 10px 0 16px; }
table { border-collapse: collapse; font-size: 0.88em; }
th, td { border: 1px solid #d8dde6; padding: 3px 8px; vertical-align: top; }
th { background: #eef1f6; text-align: left; cursor: pointer; user-select: none; white-space: nowrap; }
th.sorted-asc::after { content: " \25B2"; font-size: 0.7em; }
th.sorted-desc::after { content: " \25BC"; font-size: 0.7em; }
td { white-space: nowrap; }
td.r { text-align: right; font-variant-numeric: tabular-nums; }
td.w { white-space: normal; min-width: 24em; }
tr:nth-child(even) td { background: #fafbfd; }
figure { margin: 12px 0 20px; }
svg.plot { max-width: 100%; height: auto; background: #fff; }
svg.plot .grid { stroke: #e3e7ee; stroke-width: 1; }
svg.plot .frame { fill: none; stroke: #9aa4b2; stroke-width: 1; }
svg.plot .tick { font-size: 11px; fill: #4a5566; }
svg.plot .axis { font-size: 12px; fill: #2b3442; }
svg.plot .legend { font-size: 11px; fill: #2b3442; }
svg.plot .plot-title { font-size: 13px; font-weight: 600; fill: #1d2430; }
@media print { th { cursor: auto; } main { padding: 0; } }
)css";

// Sortable tables (click a header); marks the page ready so a headless
// browser can tell the script ran without an error.
const char* kScript = R"js(
(function () {
  "use strict";
  function key(cell) {
    var t = cell.textContent.trim();
    var m = t.match(/^[-+]?[0-9]+(\.[0-9]+)?/);
    return m ? { n: parseFloat(m[0]), s: t } : { n: null, s: t };
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = !th.classList.contains("sorted-asc");
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      var c = (x.n !== null && y.n !== null) ? x.n - y.n : x.s.localeCompare(y.s);
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.classList.remove("sorted-asc", "sorted-desc");
    });
    th.classList.add(asc ? "sorted-asc" : "sorted-desc");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
  document.documentElement.setAttribute("data-report-ready", "1");
})();
)js";

}  // namespace

std::string to_html(const Document& doc) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta "
      "name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta "
      "name=\"generator\" content=\"rtosbench\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n",
                     xml_escape(doc.title), kCss);
  out += fmt::format("<h1>{}</h1>\n", inline_html(doc.title));
  bool in_list = false;
  for (const auto& b : doc.blocks) {
    if (in_list && b.kind != Block::Kind::kList) in_list = false;
    switch (b.kind) {
      case Block::Kind::kHeading:
        out += fmt::format("<h{0}>{1}</h{0}>\n", b.level, inline_html(b.text));
        break;
      case Block::Kind::kParagraph:
        out += fmt::format("<p>{}</p>\n", inline_html(b.text));
        break;
      case Block::Kind::kNote:
        out += fmt::format("<p class=\"note\">{}</p>\n", inline_html(b.text));
        break;
      case Block::Kind::kList:
        out += "<ul>\n";
        for (const auto& i : b.items) out += fmt::format("<li>{}</li>\n", inline_html(i));
        out += "</ul>\n";
        break;
      case Block::Kind::kTable: {
        const Table& t = b.table;
        out += "<div class=\"table-wrap\"><table class=\"sortable\">\n<thead><tr>";
        for (const auto& h : t.head) out += fmt::format("<th>{}</th>", inline_html(h));
        out += "</tr></thead>\n<tbody>\n";
        for (const auto& row : t.rows) {
          out += "<tr>";
          for (size_t c = 0; c < row.size(); ++c) {
            char a = c < t.align.size() ? t.align[c] : 'l';
            out += fmt::format("<td{}>{}</td>",
                               a == 'r'   ? " class=\"r\""
                               : a == 'w' ? " class=\"w\""
                                          : "",
                               inline_html(row[c]));
          }
          out += "</tr>\n";
        }
        out += "</tbody>\n</table></div>\n";
        break;
      }
      case Block::Kind::kPlot:
        out += fmt::format("<figure>\n{}</figure>\n", b.svg);
        break;
    }
  }
  out += fmt::format("</main>\n<script>{}</script>\n</body>\n</html>\n", kScript);
  return terminal_safe(out);  // no control reaches a terminal that shows it
}

// ---------------------------------------------------------------- CSV

namespace {

// -12, 3.5: a number a spreadsheet reads as one.
bool plain_number(const std::string& s) {
  static const std::regex kNumber("-?[0-9]+(\\.[0-9]+)?");
  return std::regex_match(s, kNumber);
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::vector<std::string> quoted;
  for (const auto& f : fields) quoted.push_back(csv_field(f));
  return fmt::format("{}\n", fmt::join(quoted, ","));
}

}  // namespace

// A field a spreadsheet would run as a formula (OWASP, "CSV Injection": one
// starting with =, +, -, @, a tab or a CR) is written quoted with a leading
// ', so it is shown as text; a number, negative ones too, stays a number.
std::string csv_field(const std::string& s) {
  const bool formula = !s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string::npos &&
                       !plain_number(s);
  if (!formula && s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = formula ? "\"'" : "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

Status write_csv(const std::vector<RunView>& runs, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Error{fmt::format("cannot create CSV directory {}: {}", dir.string(), ec.message())};

  std::string summary =
      csv_row({"run_id", "started_at",  "job_id",    "kernel", "status",  "unit",   "phase",
               "series", "test",        "hz",        "n",      "min",     "median", "net_median",
               "avg",    "p90",         "p99",       "p999",   "max",     "stddev", "jitter",
               "base",   "base_series", "median_ns", "p99_ns", "unjudged"});
  std::string samples = csv_row({"run_id", "job_id", "unit", "phase", "series", "index", "ticks"});
  std::string foot = csv_row({"run_id", "job_id", "kernel", "board", "opt", "tick_hz", "text",
                              "data", "bss", "flash", "ram", "kernel_flash", "kernel_ram"});
  for (const auto& r : runs) {
    for (const auto& j : r.jobs) {
      for (const auto& s : j.snap.series) {
        auto f = [&](const char* m) {
          auto v = value(s, m);
          return v ? format_value(*find_metric(m), *v) : std::string();
        };
        auto nm = net(s, "median");
        auto ns = [&](const char* m) {
          auto v = value(s, m);
          return v && s.hz ? fmt::format("{}", store::ticks_to_ns(static_cast<uint64_t>(*v), s.hz))
                           : std::string();
        };
        summary += csv_row({r.snap.id,     r.snap.started_at,
                            j.snap.id,     j.snap.kernel,
                            j.snap.status, j.snap.unit,
                            s.phase,       s.name,
                            s.test,        fmt::format("{}", s.hz),
                            f("n"),        f("min"),
                            f("median"),   nm ? ticks(*nm) : "",
                            f("avg"),      f("p90"),
                            f("p99"),      f("p999"),
                            f("max"),      f("stddev"),
                            f("jitter"),   f("base"),
                            s.base,        ns("median"),
                            ns("p99"),     s.unjudged});
      }
      if (j.raw) {
        for (const auto& s : j.raw->series) {
          std::string prefix = csv_row({r.snap.id, j.snap.id, j.snap.unit, s.phase, s.name, ""});
          prefix.pop_back();  // its line end
          for (size_t i = 0; i < s.values.size(); ++i)
            samples += fmt::format("{}{},{}\n", prefix, i, s.values[i]);
        }
      }
      if (const store::Sections* fp = footprint_of(*j.result)) {
        const auto k = kernel_alone(r, j);
        const store::JobSpec& job = j.result->job;
        foot +=
            csv_row({r.snap.id, j.snap.id, j.snap.kernel, job.board, job.axis("opt"),
                     job.axis("tick_hz"), std::to_string(fp->text), std::to_string(fp->data),
                     std::to_string(fp->bss), std::to_string(fp->flash), std::to_string(fp->ram),
                     k ? std::to_string(k->flash) : "", k ? std::to_string(k->ram) : ""});
      }
    }
  }
  for (const auto& [name, text] :
       {std::pair<const char*, const std::string*>{"summary.csv", &summary},
        {"samples.csv", &samples},
        {"footprint.csv", &foot}}) {
    if (auto s = write_file_atomic(dir / name, *text); !s.ok()) return s;
  }
  return {};
}

}  // namespace rb::report
