// The human-readable report of `rtosbench verify`. Figures derived from RAW
// and figures only the firmware vouches for are never shown alike.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "stats/summary.h"
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
  std::vector<std::string> what;  // first two columns (series, n) only on the first row
  Cell min, median, mean, p90, p99, p999, max, stddev, jitter;
};

std::string cell(const Cell& c) {
  return c ? *c : std::string("-");
}

std::string series_label(const SeriesStats& s) {
  std::string l;
  if (!s.test.empty()) l += s.test + "/";
  if (!s.phase.empty()) l += s.phase + "/";
  return l + s.name;
}

std::optional<uint64_t> reported(const SeriesStats& s, std::string_view key) {
  for (const auto& [k, v] : s.reported) {
    if (k != key) continue;
    uint64_t x = 0;
    if (v.empty() || v.size() > 19) return std::nullopt;
    for (char c : v) {
      if (c < '0' || c > '9') return std::nullopt;
      x = x * 10 + static_cast<uint64_t>(c - '0');
    }
    return x;
  }
  return std::nullopt;
}

Cell rep(const SeriesStats& s, std::string_view key) {
  auto v = reported(s, key);
  if (!v) return std::nullopt;
  return num(*v);
}

std::vector<Row> rows_for(const SeriesStats& s, const std::string& unit) {
  std::vector<Row> rows;
  if (!s.has_raw) {
    Row t{unit + " (firmware only)",
          {},
          rep(s, "min_ticks"),
          rep(s, "median_ticks"),
          rep(s, "avg_ticks"),
          rep(s, "p90_ticks"),
          rep(s, "p99_ticks"),
          rep(s, "p999_ticks"),
          rep(s, "max_ticks"),
          std::nullopt,
          std::nullopt};
    Row n{"ns (firmware only)", {},
          rep(s, "min_ns"),     rep(s, "median_ns"),
          rep(s, "avg_ns"),     rep(s, "p90_ns"),
          rep(s, "p99_ns"),     rep(s, "p999_ns"),
          rep(s, "max_ns"),     std::nullopt,
          std::nullopt};
    rows.push_back(std::move(t));
    rows.push_back(std::move(n));
    return rows;
  }
  auto ns = [&](uint64_t t) { return num(stats::ticks_to_ns(t, s.hz)); };
  const double ns_per_tick = s.hz ? 1e9 / static_cast<double>(s.hz) : 0.0;
  // A count (bytes, per-mille) has no time to convert to.
  const bool time = unit != "bytes" && unit != "per-mille";
  rows.push_back(Row{unit,
                     {},
                     num(s.min),
                     num(s.median),
                     dec(s.mean, 2),
                     num(s.p90),
                     num(s.p99),
                     num(s.p999),
                     num(s.max),
                     dec(s.stddev, 2),
                     dec(s.jitter, 3)});
  if (s.hz && time) {
    rows.push_back(Row{"ns",
                       {},
                       ns(s.min),
                       ns(s.median),
                       num(s.avg_ns),
                       ns(s.p90),
                       ns(s.p99),
                       ns(s.p999),
                       ns(s.max),
                       dec(s.stddev * ns_per_tick, 2),
                       std::nullopt});
  }
  if (s.base_ticks) {
    const uint64_t b = *s.base_ticks;
    auto net = [&](uint64_t v) { return stats::minus_baseline(v, b); };
    const double net_mean = s.mean > static_cast<double>(b) ? s.mean - static_cast<double>(b) : 0.0;
    rows.push_back(Row{"net " + unit,
                       {},
                       num(net(s.min)),
                       num(net(s.median)),
                       dec(net_mean, 2),
                       num(net(s.p90)),
                       num(net(s.p99)),
                       num(net(s.p999)),
                       num(net(s.max)),
                       std::nullopt,
                       std::nullopt});
    if (s.hz) {
      const unsigned __int128 base_sum = static_cast<unsigned __int128>(b) * s.n;
      const unsigned __int128 net_sum = s.sum > base_sum ? s.sum - base_sum : 0;
      auto nns = [&](uint64_t v) { return num(stats::ticks_to_ns(net(v), s.hz)); };
      rows.push_back(Row{"net ns",
                         {},
                         nns(s.min),
                         nns(s.median),
                         num(stats::mean_ns(net_sum, s.n, s.hz)),
                         nns(s.p90),
                         nns(s.p99),
                         nns(s.p999),
                         nns(s.max),
                         std::nullopt,
                         std::nullopt});
    }
  }
  return rows;
}

}  // namespace

std::string to_text(const Report& r) {
  std::string out;
  auto line = [&](const std::string& s) {
    out += s;
    out += '\n';
  };
  line(fmt::format("rtosbench verify: {}", r.source));
  if (r.protocol.empty()) {
    line("protocol: none (no BEGIN line)");
  } else if (r.integrity_checked) {
    line(fmt::format("protocol: {} (line sequence and CRC-32C checked)", r.protocol));
  } else {
    line(fmt::format("protocol: {} (integrity unchecked: no sequence numbers or checksums)",
                     r.protocol));
  }
  line(fmt::format("lines: {} total, {} protocol, {} other, {} overlong, {} with control bytes",
                   r.lines, r.protocol_lines, r.other_lines, r.overlong_lines, r.control_lines));
  if (!r.config.empty()) {
    std::string c;
    for (const auto& [k, v] : r.config) c += (c.empty() ? "" : " ") + k + "=" + v;
    line("config: " + c);
  }
  if (!r.end_fields.empty()) {
    std::string c;
    for (const auto& [k, v] : r.end_fields) c += (c.empty() ? "" : " ") + k + "=" + v;
    line("end: " + c);
  }
  if (r.dwt_read_pair) line(fmt::format("counter read pair: {} {}", *r.dwt_read_pair, r.unit));
  if (r.unit == "instructions") {
    line(
        "unit: instructions (an emulated counter: instruction counts, not CPU cycles; ns use "
        "each RESULT's hz)");
  } else if (r.unit == "cycles") {
    line("unit: cycles");
  } else {
    line(fmt::format("unit: {} (CONFIG names no unit)", r.unit));
  }

  if (!r.series.empty()) {
    line("");
    line("series (re-derived from RAW unless marked \"firmware only\"):");
    size_t w = 6;
    for (const SeriesStats& s : r.series) w = std::max(w, series_label(s).size());
    size_t lw = 4;
    std::vector<std::vector<Row>> all;
    for (const SeriesStats& s : r.series) {
      all.push_back(rows_for(s, series_unit(s.name, r.unit)));
      for (const Row& row : all.back()) lw = std::max(lw, row.label.size());
    }
    line(fmt::format(
        "  {:<{}} {:>8}  {:<{}} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}",
        "series", w, "n", "row", lw, "min", "median", "mean", "p90", "p99", "p99.9", "max",
        "stddev", "p99/med"));
    for (size_t i = 0; i < r.series.size(); ++i) {
      const SeriesStats& s = r.series[i];
      bool first = true;
      for (const Row& row : all[i]) {
        line(fmt::format(
            "  {:<{}} {:>8}  {:<{}} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}",
            first ? series_label(s) : "", w, first ? std::to_string(s.n) : "", row.label, lw,
            cell(row.min), cell(row.median), cell(row.mean), cell(row.p90), cell(row.p99),
            cell(row.p999), cell(row.max), cell(row.stddev), cell(row.jitter)));
        first = false;
      }
      if (s.base_ticks)
        line(fmt::format("  {:<{}} {:>8}  baseline {} {} ({} median)", "", w, "", *s.base_ticks,
                         r.unit, s.base));
      if (s.calls && s.refused)
        line(fmt::format(
            "  {:<{}} {:>8}  calls {}, refused {} (served {})", "", w, "", *s.calls, *s.refused,
            *s.calls
                ? fmt::format("{:.1f} %", 100.0 * double(*s.calls - *s.refused) / double(*s.calls))
                : std::string("-")));
      if (!s.not_checked.empty()) {
        std::string k;
        for (const std::string& x : s.not_checked) k += (k.empty() ? "" : ", ") + x;
        line(fmt::format("  {:<{}} {:>8}  not checked (unknown RESULT fields): {}", "", w, "", k));
      }
    }
  }

  if (!r.phases.empty()) {
    line("");
    line("phases:");
    for (const PhaseCounters& p : r.phases) {
      line(fmt::format("  line {:>7}  {}{} irq={} task={} bad={} status={}{}", p.line,
                       p.test.empty() ? "" : p.test + "/", p.name, p.irq, p.task, p.bad, p.status,
                       p.expected ? fmt::format(" expected={}", *p.expected) : std::string()));
      for (const DelayFigures& d : p.delay) {
        line(
            fmt::format("  {:>12}  {}: {} of {} above the busy maximum {} (delayed), worst {}, "
                        "{} beyond the {}-tick masking window",
                        "", d.series, d.delayed, d.n, d.limit, d.worst, d.beyond, *p.window));
      }
    }
  }
  if (!r.checks.empty()) {
    line("");
    line("checks:");
    for (const CheckOutcome& c : r.checks) {
      line(fmt::format("  line {:>7}  {} rounds={} pass={} fail={} status={}", c.line, c.name,
                       c.rounds, c.pass, c.fail, c.status));
    }
  }
  line("");
  size_t problems = 0;
  for (const Verdict& v : r.verdicts) problems += v.severity != Outcome::kValid;
  line(
      fmt::format("verdicts ({} problem(s), {} note(s)):", problems, r.verdicts.size() - problems));
  if (r.verdicts.empty()) line("  none: every check passed");
  for (const Verdict& v : r.verdicts) {
    line(fmt::format("  {:<12} {:<20} {:<14} {}",
                     v.line ? fmt::format("line {}", v.line) : std::string("whole log"), v.check,
                     v.severity == Outcome::kValid ? "note" : to_string(v.severity), v.message));
  }
  for (const auto& [check, count] : r.suppressed) {
    line(fmt::format("  {:<12} {:<20} {:<14} ... and {} more like this", "", check, "", count));
  }
  line("");
  line(fmt::format("outcome: {} (exit {})", to_string(r.outcome), exit_code(r.outcome)));
  return out;
}

}  // namespace rb::verify
