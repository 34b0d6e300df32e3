// The human-readable report of `rtosbench verify`. Figures derived from RAW
// and figures only the firmware vouches for are never shown alike.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "stats/summary.h"
#include "util/decimal.h"
#include "verify/verify.h"

namespace rb::verify {
namespace {

using Cell = std::optional<std::string>;

Cell num(uint64_t v) {
  return std::to_string(v);
}
Cell dec(double v, int places) {
  if (!std::isfinite(v)) return std::string("n/a");
  return fmt::format("{:.{}f}", v, places);
}

struct Row {
  std::string label;
  Cell min, median, mean, p90, p99, p999, max, stddev, jitter;
};

// A row whose order statistics all pass through f (a conversion, a baseline).
template <class F>
Row stat_row(std::string label, const SeriesStats& s, F f, Cell mean, Cell stddev = std::nullopt,
             Cell jitter = std::nullopt) {
  return Row{std::move(label), f(s.min),  f(s.median), std::move(mean),   f(s.p90),
             f(s.p99),         f(s.p999), f(s.max),    std::move(stddev), std::move(jitter)};
}

std::string cell(const Cell& c) {
  return c ? *c : std::string("-");
}

std::string series_label(const SeriesStats& s) {
  std::string l;
  if (!s.test.empty()) l += s.test + "/";
  if (!s.phase.empty()) l += s.phase + "/";
  return l + s.name;
}

// A RESULT field as the firmware wrote it, when it is a number of at most 19 digits.
Cell rep(const SeriesStats& s, std::string_view key) {
  for (const auto& [k, v] : s.reported) {
    if (k != key) continue;
    auto x = v.size() > 19 ? std::nullopt : parse_u64(v);
    return x ? num(*x) : std::nullopt;
  }
  return std::nullopt;
}

// The firmware's own figures, keys <statistic>_<suffix>.
Row firmware_row(std::string label, const SeriesStats& s, const std::string& suffix) {
  auto r = [&](const char* stat) { return rep(s, std::string(stat) + "_" + suffix); };
  return Row{std::move(label), r("min"),  r("median"), r("avg"),     r("p90"),
             r("p99"),         r("p999"), r("max"),    std::nullopt, std::nullopt};
}

std::vector<Row> rows_for(const SeriesStats& s, const std::string& unit) {
  std::vector<Row> rows;
  if (!s.has_raw) {
    rows.push_back(firmware_row(unit + " (firmware only)", s, "ticks"));
    rows.push_back(firmware_row("ns (firmware only)", s, "ns"));
    return rows;
  }
  const double ns_per_tick = s.hz ? 1e9 / static_cast<double>(s.hz) : 0.0;
  // A count (bytes, per-mille) has no time to convert to.
  const bool time = unit != "bytes" && unit != "per-mille";
  rows.push_back(stat_row(unit, s, num, dec(s.mean, 2), dec(s.stddev, 2), dec(s.jitter, 3)));
  if (s.hz && time) {
    auto ns = [&](uint64_t t) { return num(stats::ticks_to_ns(t, s.hz)); };
    rows.push_back(stat_row("ns", s, ns, num(s.avg_ns), dec(s.stddev * ns_per_tick, 2)));
  }
  if (s.base_ticks) {
    const uint64_t b = *s.base_ticks;
    auto net = [&](uint64_t v) { return stats::minus_baseline(v, b); };
    const double net_mean = s.mean > static_cast<double>(b) ? s.mean - static_cast<double>(b) : 0.0;
    rows.push_back(stat_row(
        "net " + unit, s, [&](uint64_t v) { return num(net(v)); }, dec(net_mean, 2)));
    if (s.hz) {
      const unsigned __int128 base_sum = static_cast<unsigned __int128>(b) * s.n;
      const unsigned __int128 net_sum = s.sum > base_sum ? s.sum - base_sum : 0;
      auto nns = [&](uint64_t v) { return num(stats::ticks_to_ns(net(v), s.hz)); };
      rows.push_back(stat_row("net ns", s, nns, num(stats::mean_ns(net_sum, s.n, s.hz))));
    }
  }
  return rows;
}

// The report, written line by line.
struct Text {
  std::string out;
  void line(const std::string& s) {
    out += s;
    out += '\n';
  }
};

std::string joined(const std::map<std::string, std::string>& m) {
  std::string c;
  for (const auto& [k, v] : m) c += (c.empty() ? "" : " ") + k + "=" + v;
  return c;
}

void header(Text& t, const Report& r) {
  t.line(fmt::format("rtosbench verify: {}", r.source));
  if (r.protocol.empty()) {
    t.line("protocol: none (no BEGIN line)");
  } else if (r.integrity_checked) {
    t.line(fmt::format("protocol: {} (line sequence and CRC-32C checked)", r.protocol));
  } else {
    t.line(fmt::format("protocol: {} (integrity unchecked: no sequence numbers or checksums)",
                       r.protocol));
  }
  t.line(fmt::format("lines: {} total, {} protocol, {} other, {} overlong, {} with control bytes",
                     r.lines, r.protocol_lines, r.other_lines, r.overlong_lines, r.control_lines));
  if (!r.config.empty()) t.line("config: " + joined(r.config));
  if (!r.end_fields.empty()) t.line("end: " + joined(r.end_fields));
  if (r.dwt_read_pair) t.line(fmt::format("counter read pair: {} {}", *r.dwt_read_pair, r.unit));
  if (r.unit == "instructions") {
    t.line(
        "unit: instructions (an emulated counter: instruction counts, not CPU cycles; ns use "
        "each RESULT's hz)");
  } else if (r.unit == "cycles") {
    t.line("unit: cycles");
  } else {
    t.line(fmt::format("unit: {} (CONFIG names no unit)", r.unit));
  }
}

constexpr const char* kSeriesRow =
    "  {:<{}} {:>8}  {:<{}} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}";

// The lines under a series' rows: its baseline, allocations and unknown fields.
void series_notes(Text& t, const SeriesStats& s, size_t w, const std::string& unit) {
  if (s.base_ticks)
    t.line(fmt::format("  {:<{}} {:>8}  baseline {} {} ({} median)", "", w, "", *s.base_ticks, unit,
                       s.base));
  if (s.calls && s.refused)
    t.line(fmt::format(
        "  {:<{}} {:>8}  calls {}, refused {} (served {})", "", w, "", *s.calls, *s.refused,
        *s.calls ? fmt::format("{:.1f} %", 100.0 * double(*s.calls - *s.refused) / double(*s.calls))
                 : std::string("-")));
  if (!s.not_checked.empty()) {
    std::string k;
    for (const std::string& x : s.not_checked) k += (k.empty() ? "" : ", ") + x;
    t.line(fmt::format("  {:<{}} {:>8}  not checked (unknown RESULT fields): {}", "", w, "", k));
  }
}

void series_section(Text& t, const Report& r) {
  if (r.series.empty()) return;
  t.line("");
  t.line("series (re-derived from RAW unless marked \"firmware only\"):");
  size_t w = 6;
  for (const SeriesStats& s : r.series) w = std::max(w, series_label(s).size());
  size_t lw = 4;
  std::vector<std::vector<Row>> all;
  for (const SeriesStats& s : r.series) {
    all.push_back(rows_for(s, series_unit(s.name, r.unit)));
    for (const Row& row : all.back()) lw = std::max(lw, row.label.size());
  }
  t.line(fmt::format(kSeriesRow, "series", w, "n", "row", lw, "min", "median", "mean", "p90", "p99",
                     "p99.9", "max", "stddev", "p99/med"));
  for (size_t i = 0; i < r.series.size(); ++i) {
    const SeriesStats& s = r.series[i];
    bool first = true;
    for (const Row& row : all[i]) {
      t.line(fmt::format(kSeriesRow, first ? series_label(s) : "", w,
                         first ? std::to_string(s.n) : "", row.label, lw, cell(row.min),
                         cell(row.median), cell(row.mean), cell(row.p90), cell(row.p99),
                         cell(row.p999), cell(row.max), cell(row.stddev), cell(row.jitter)));
      first = false;
    }
    series_notes(t, s, w, r.unit);
  }
}

void phases_and_checks(Text& t, const Report& r) {
  if (!r.phases.empty()) {
    t.line("");
    t.line("phases:");
    for (const PhaseCounters& p : r.phases) {
      t.line(fmt::format("  line {:>7}  {}{} irq={} task={} bad={} status={}{}", p.line,
                         p.test.empty() ? "" : p.test + "/", p.name, p.irq, p.task, p.bad, p.status,
                         p.expected ? fmt::format(" expected={}", *p.expected) : std::string()));
      for (const DelayFigures& d : p.delay) {
        t.line(
            fmt::format("  {:>12}  {}: {} of {} above the busy maximum {} (delayed), worst {}, "
                        "{} beyond the {}-tick masking window",
                        "", d.series, d.delayed, d.n, d.limit, d.worst, d.beyond, *p.window));
      }
    }
  }
  if (!r.checks.empty()) {
    t.line("");
    t.line("checks:");
    for (const CheckOutcome& c : r.checks) {
      t.line(fmt::format("  line {:>7}  {} rounds={} pass={} fail={} status={}", c.line, c.name,
                         c.rounds, c.pass, c.fail, c.status));
    }
  }
}

void verdicts_section(Text& t, const Report& r) {
  t.line("");
  size_t problems = 0;
  for (const Verdict& v : r.verdicts) problems += v.severity != Outcome::kValid;
  t.line(
      fmt::format("verdicts ({} problem(s), {} note(s)):", problems, r.verdicts.size() - problems));
  if (r.verdicts.empty()) t.line("  none: every check passed");
  for (const Verdict& v : r.verdicts) {
    t.line(fmt::format("  {:<12} {:<20} {:<14} {}",
                       v.line ? fmt::format("line {}", v.line) : std::string("whole log"), v.check,
                       v.severity == Outcome::kValid ? "note" : to_string(v.severity), v.message));
  }
  for (const auto& [check, count] : r.suppressed) {
    t.line(fmt::format("  {:<12} {:<20} {:<14} ... and {} more like this", "", check, "", count));
  }
}

}  // namespace

std::string to_text(const Report& r) {
  Text t;
  header(t, r);
  series_section(t, r);
  phases_and_checks(t, r);
  verdicts_section(t, r);
  t.line("");
  t.line(fmt::format("outcome: {} (exit {})", to_string(r.outcome), exit_code(r.outcome)));
  return t.out;
}

}  // namespace rb::verify
