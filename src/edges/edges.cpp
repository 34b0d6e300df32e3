#include "edges/edges.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "protocol/line.h"
#include "protocol/records.h"
#include "util/temp_dir.h"

namespace rb::edges {
namespace {

Error bad(std::string m) {
  return make_error(ErrorKind::kBadInput, std::move(m));
}

std::optional<int64_t> to_i64(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Nearest rank (docs/protocol.md section 4) over a sorted copy.
Figures figures(std::vector<double> v) {
  Figures f;
  if (v.empty()) return f;
  std::sort(v.begin(), v.end());
  auto rank = [&](uint64_t p, uint64_t d) {
    uint64_t r = (p * v.size() + d - 1) / d;
    return v[std::clamp<uint64_t>(r, 1, v.size()) - 1];
  };
  f.median = rank(50, 100);
  f.p99 = rank(99, 100);
  f.max = v.back();
  return f;
}

// A grid of equal periods fitted to edge times: the period is the median
// interval, the phase the median residual of the edges near the grid.
struct Grid {
  double period = 0, phase = 0;
  double slot(double t) const { return (t - phase) / period; }
  bool on(double t, double tol) const {
    const double s = slot(t);
    return std::abs(s - std::round(s)) * period <= tol;
  }
};

std::optional<Grid> fit_grid(const std::vector<double>& t) {
  if (t.size() < 2) return std::nullopt;
  std::vector<double> d;
  for (size_t i = 1; i < t.size(); ++i) d.push_back(t[i] - t[i - 1]);
  std::sort(d.begin(), d.end());
  Grid g;
  g.period = d[(d.size() - 1) / 2];
  if (g.period <= 0) return std::nullopt;
  const double tol = g.period / 4;
  // The reference edge: of the first three, the one most edges agree with
  // (an extra edge first must not shift the grid).
  size_t best_count = 0;
  for (size_t r = 0; r < std::min<size_t>(3, t.size()); ++r) {
    Grid c{g.period, t[r]};
    std::vector<double> res;
    for (double x : t) {
      if (c.on(x, tol)) {
        const double s = c.slot(x);
        res.push_back((s - std::round(s)) * g.period);
      }
    }
    if (res.size() > best_count) {
      best_count = res.size();
      std::sort(res.begin(), res.end());
      g.phase = t[r] + res[(res.size() - 1) / 2];
    }
  }
  return g;
}

std::vector<double> between(const std::vector<Edge>& e, int64_t lo, int64_t hi, bool rising_only) {
  std::vector<double> out;
  for (const Edge& x : e) {
    if (x.t_ps < lo || x.t_ps > hi) continue;
    if (rising_only && !x.rising) continue;
    out.push_back(static_cast<double>(x.t_ps) / 1000.0);
  }
  return out;
}

// What a pairing found, before it meets the DWT samples: the edge figure of
// each sample number it could place (ns), and the edges it could not.
struct Placed {
  std::map<int64_t, double> edge_ns;  // sample number -> the edge figure
  std::vector<Extra> extra;
};

// The common end of every kind: each sample with its edge figure is paired
// (edge, dwt, diff, sample number), the others are missing; then the
// figures and the verdict.
void finish(SeriesResult& s, const DwtSeries& d, Placed placed, uint64_t core_hz) {
  const double tol = s.tolerance_ns;
  std::vector<double> edge, dwt, diff;
  std::vector<int64_t> seq;
  for (uint64_t j = 0; j < s.n; ++j) {
    auto it = placed.edge_ns.find(static_cast<int64_t>(j));
    if (it == placed.edge_ns.end()) {
      s.missing.push_back(static_cast<int64_t>(j));
      continue;
    }
    const double w = static_cast<double>(d.samples[j]) * 1e9 / static_cast<double>(d.hz);
    edge.push_back(it->second);
    dwt.push_back(w);
    diff.push_back(it->second - w);
    seq.push_back(static_cast<int64_t>(j));
  }
  s.extra = std::move(placed.extra);
  s.paired = diff.size();
  s.paired_dwt_ns = dwt;
  s.paired_edge_ns = edge;
  s.dwt_ns = figures(dwt);
  s.edge_ns = figures(edge);
  s.diff_ns = figures(diff);
  for (size_t i = 0; i < diff.size(); ++i) {
    if (std::abs(diff[i]) > tol) ++s.beyond;
    if (s.worst_seq < 0 || std::abs(diff[i]) > std::abs(s.worst_diff_ns)) {
      s.worst_diff_ns = diff[i];
      s.worst_seq = seq[i];
    }
  }
  const double c = static_cast<double>(core_hz) / 1e9;
  s.diff_median_cycles = s.diff_ns.median * c;
  s.diff_p99_cycles = s.diff_ns.p99 * c;
  s.diff_max_cycles = s.diff_ns.max * c;
  if (s.beyond > 0 || s.period_disagrees || (s.paired == 0 && s.n > 0)) {
    s.status = Status::kDisagree;
  } else if (!s.missing.empty() || !s.extra.empty()) {
    s.status = Status::kSequence;
  }
}

// event_to_task: TK rises after the read that ends the window and the
// sample's bookkeeping; the firmware measured that lag (its least and most
// over the phase). The least is subtracted from every TK edge, the spread
// widens the series' tolerance. A capture whose PHASE has no lag (an older
// firmware) keeps its edges as they are, and says so.
void subtract_tk_lag(SeriesResult& s, const DwtSeries& d, Placed& placed) {
  if (!d.tk_lag) {
    s.notes.push_back(
        "the firmware reported no TK lag (PHASE tk_lag_min=, tk_lag_max=): TK's lag after the "
        "read is in the edge figures (docs/lab.md, section 8)");
    return;
  }
  const double tick_ns = 1e9 / static_cast<double>(d.hz);
  const double lo = static_cast<double>(d.tk_lag->first) * tick_ns;
  const double hi = static_cast<double>(d.tk_lag->second) * tick_ns;
  for (auto& [j, e] : placed.edge_ns) e -= lo;
  s.tolerance_ns += hi - lo;
  s.tk_lag_ns = std::make_pair(lo, hi);
  s.notes.push_back(fmt::format(
      "TK lag after the read: {:.1f} to {:.1f} ns ({} to {} ticks); {:.1f} ns subtracted from "
      "every TK edge, tolerance {:.1f} ns",
      lo, hi, d.tk_lag->first, d.tk_lag->second, lo, s.tolerance_ns));
}

// wake_latency: software forces EV high just before the window and TK rises
// right after it, so EV is on no grid. In time order an EV rise opens a
// slot and the first TK rise after it (the same sample counts) closes it; a
// TK rise with no open slot is a slot of its own (its EV is missing). Slot
// j is sample j; when there are more slots than samples, the incomplete
// ones are the extra edges first, then the last ones.
Placed place_ordered(SeriesResult& s, const std::vector<double>& ev,
                     const std::vector<double>& tk) {
  struct Slot {
    std::optional<double> ev, tk;
  };
  std::vector<Slot> slots;
  size_t i = 0, k = 0;
  while (i < ev.size() || k < tk.size()) {
    if (i < ev.size() && (k == tk.size() || ev[i] <= tk[k])) {
      slots.push_back(Slot{ev[i++], std::nullopt});
    } else if (!slots.empty() && slots.back().ev && !slots.back().tk) {
      slots.back().tk = tk[k++];
    } else {
      slots.push_back(Slot{std::nullopt, tk[k++]});
    }
  }
  Placed out;
  const auto n = static_cast<int64_t>(s.n);
  auto surplus = static_cast<int64_t>(slots.size()) - n;
  std::vector<bool> drop(slots.size(), false);
  for (size_t x = 0; x < slots.size() && surplus > 0; ++x) {
    if (!slots[x].ev || !slots[x].tk) drop[x] = true, --surplus;
  }
  for (size_t x = slots.size(); x-- > 0 && surplus > 0;) {
    if (!drop[x]) drop[x] = true, --surplus;
  }
  int64_t j = 0;
  for (size_t x = 0; x < slots.size(); ++x) {
    const Slot& sl = slots[x];
    if (drop[x]) {
      out.extra.push_back(Extra{j, sl.ev ? *sl.ev : *sl.tk});
      continue;
    }
    if (sl.ev && sl.tk) out.edge_ns[j] = *sl.tk - *sl.ev;
    ++j;
  }
  if (j < n) {
    s.notes.push_back(fmt::format(
        "{} EV/TK slots for {} samples: samples {} to {} have no edges (listed missing)", j, n, j,
        n - 1));
  }
  return out;
}

// event_to_task: EV is the event timer's output compare, on the event grid;
// sample j <-> grid slot k0 + j of the EV rises, k0 the slot at or before
// the first TK rise; its TK is the first TK rise after it, within a period.
Placed place_grid(SeriesResult& s, const std::vector<double>& ev, const std::vector<double>& tk,
                  double period_ratio) {
  Placed out;
  auto grid = fit_grid(ev);
  if (!grid || tk.empty()) {
    s.notes.push_back(fmt::format("{} EV and {} TK rising edges in the MK pulse: nothing to pair",
                                  ev.size(), tk.size()));
    return out;
  }
  s.grid_period_ns = grid->period;
  if (s.config_period_ns) {
    s.period_disagrees = std::abs(grid->period / *s.config_period_ns - 1.0) > period_ratio;
  }
  const double gtol = grid->period / 4;
  const auto k0 = static_cast<int64_t>(std::floor(grid->slot(tk.front()) + 0.05));
  std::map<int64_t, double> by_slot;
  for (double t : ev) {
    const auto k = static_cast<int64_t>(std::llround(grid->slot(t))) - k0;
    if (!grid->on(t, gtol) || k < 0 || k >= static_cast<int64_t>(s.n) || by_slot.count(k)) {
      out.extra.push_back(Extra{k, t});
      continue;
    }
    by_slot[k] = t;
  }
  for (const auto& [j, t0] : by_slot) {
    auto t = std::lower_bound(tk.begin(), tk.end(), t0);  // the same sample counts
    if (t != tk.end() && *t - t0 < grid->period) out.edge_ns[j] = *t - t0;
  }
  return out;
}

// tick_period: TK toggles after each kept stamp, n + 1 edges for n periods,
// on a grid; sample j <-> the interval between slots k0 + j and k0 + j + 1.
Placed place_periodic(SeriesResult& s, const std::vector<double>& tk) {
  Placed out;
  auto grid = fit_grid(tk);
  if (!grid) {
    s.notes.push_back(fmt::format("{} TK edges in the MK pulse: nothing to pair", tk.size()));
    return out;
  }
  s.grid_period_ns = grid->period;
  const double gtol = grid->period / 4;
  std::optional<int64_t> k0;
  std::map<int64_t, double> by_slot;
  for (double t : tk) {
    const auto k = static_cast<int64_t>(std::llround(grid->slot(t)));
    if (!k0 && grid->on(t, gtol)) k0 = k;
    const int64_t rel = k0 ? k - *k0 : -1;
    if (!grid->on(t, gtol) || rel < 0 || rel > static_cast<int64_t>(s.n) || by_slot.count(rel)) {
      out.extra.push_back(Extra{rel, t});
      continue;
    }
    by_slot[rel] = t;
  }
  for (const auto& [j, t] : by_slot) {
    auto b = by_slot.find(j + 1);
    if (b != by_slot.end()) out.edge_ns[j] = b->second - t;
  }
  return out;
}

uint64_t config_u64(const std::map<std::string, std::string>& c, const std::string& key) {
  auto it = c.find(key);
  if (it == c.end()) return 0;
  auto v = to_i64(it->second);
  return v && *v > 0 ? static_cast<uint64_t>(*v) : 0;
}

}  // namespace

std::optional<Kind> edge_kind(const std::string& series, const std::string& phase) {
  if (series == "wake_latency" && phase.empty()) return Kind::kOrdered;
  if (series == "event_to_task" && (phase == "idle" || phase == "busy" || phase == "critical"))
    return Kind::kGrid;
  if (series == "tick_period" && phase.empty()) return Kind::kPeriodic;
  return std::nullopt;
}

const char* to_string(Kind k) {
  switch (k) {
    case Kind::kOrdered:
      return "ordered";
    case Kind::kGrid:
      return "grid";
    case Kind::kPeriodic:
      return "periodic";
  }
  return "?";
}

const char* to_string(Status s) {
  switch (s) {
    case Status::kAgree:
      return "agree";
    case Status::kSequence:
      return "sequence";
    case Status::kDisagree:
      return "disagree";
    case Status::kOverflow:
      return "overflow";
  }
  return "?";
}

int exit_code(Status s) {
  switch (s) {
    case Status::kAgree:
      return 0;
    case Status::kDisagree:
      return 1;
    case Status::kSequence:
      return 2;
    case Status::kOverflow:
      return 3;
  }
  return 70;
}

Result<Capture> parse_vcd(std::istream& in, const Roles& roles) {
  Capture c;
  std::map<std::string, std::vector<Edge>*> by_id;
  std::map<std::string, int> level;
  int64_t unit_ps = 0;
  int64_t now = 0;
  bool header = true;
  std::string line, pending;
  uint64_t number = 0;
  auto change = [&](std::string_view tok) -> rb::Status {
    if (tok.size() < 2 || (tok[0] != '0' && tok[0] != '1'))
      return bad(fmt::format("VCD line {}: '{}' is no value change", number,
                             protocol::printable(tok, 40)));
    const std::string id(tok.substr(1));
    const int v = tok[0] - '0';
    auto it = by_id.find(id);
    if (it == by_id.end()) return rb::Status{};  // a channel of no role
    auto l = level.find(id);
    if (l != level.end() && l->second != v && now > 0) it->second->push_back(Edge{now, v == 1});
    level[id] = v;
    return rb::Status{};
  };
  while (std::getline(in, line)) {
    ++number;
    if (header) {
      pending += line + " ";
      if (line.find("$end") == std::string::npos) continue;
      std::istringstream words(pending);
      pending.clear();
      std::vector<std::string> w;
      for (std::string x; words >> x;) w.push_back(x);
      if (w.empty()) continue;
      if (w[0] == "META" && w.size() >= 3 && w[1] == "samplerate:") {
        c.samplerate = static_cast<uint64_t>(to_i64(w[2]).value_or(0));
      }
      if (w[0] == "$timescale" && w.size() >= 3) {
        std::string num = w[1], u = w[2];
        if (u == "$end") {  // "1ns"
          size_t k = 0;
          while (k < num.size() && std::isdigit(static_cast<unsigned char>(num[k]))) ++k;
          u = num.substr(k);
          num = num.substr(0, k);
        }
        const std::map<std::string, int64_t> units{
            {"s", 1000000000000}, {"ms", 1000000000}, {"us", 1000000}, {"ns", 1000}, {"ps", 1}};
        auto n = to_i64(num);
        auto it = units.find(u);
        if (!n || it == units.end()) return bad(fmt::format("VCD line {}: timescale", number));
        unit_ps = *n * it->second;
      }
      if (w[0] == "$var" && w.size() >= 6) {
        const std::string& name = w[4];
        if (name == roles.mk) by_id[w[3]] = &c.mk;
        if (name == roles.ev) by_id[w[3]] = &c.ev;
        if (name == roles.tk) by_id[w[3]] = &c.tk;
      }
      if (w[0] == "$enddefinitions") header = false;
      // "META samplerate" (sigrok-cli writes it into the file) ends with no $end
      continue;
    }
    std::istringstream words(line);
    for (std::string tok; words >> tok;) {
      if (tok[0] == '#') {
        auto t = to_i64(std::string_view(tok).substr(1));
        if (!t || *t * unit_ps < now)
          return bad(
              fmt::format("VCD line {}: bad timestamp '{}'", number, protocol::printable(tok, 40)));
        now = *t * unit_ps;
        c.end_ps = now;
      } else if (tok[0] == '$') {
        continue;  // $dumpvars, $end
      } else if (auto s = change(tok); !s) {
        return s.error();
      }
    }
  }
  if (header || unit_ps == 0) return bad("VCD: no $timescale or $enddefinitions");
  int found = 0;
  for (auto& [id, p] : by_id) found |= p == &c.mk ? 1 : p == &c.ev ? 2 : 4;
  if (found != 7) {
    return bad(fmt::format("VCD: the capture lacks a channel for {}{}{} (roles {}, {}, {})",
                           found & 1 ? "" : "MK ", found & 2 ? "" : "EV ", found & 4 ? "" : "TK ",
                           roles.mk, roles.ev, roles.tk));
  }
  if (c.samplerate == 0) c.samplerate = static_cast<uint64_t>(1000000000000 / unit_ps);
  return c;
}

Result<Job> read_job(std::istream& in) {
  Job job;
  protocol::LineParser parser;
  std::string phase;
  std::optional<std::pair<uint64_t, uint64_t>> phase_lag;  // the PHASE's tk_lag_min/max
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::string line;
  bool v2 = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto& p = parser.parse(line);
    if (p.kind == protocol::RecordKind::kOther || p.error) continue;
    if (p.kind == protocol::RecordKind::kBegin)
      v2 = line.find("RTOS_BENCH_V2") != std::string::npos;
    if (v2 && p.suffix != protocol::Suffix::kValid) continue;
    switch (p.kind) {
      case protocol::RecordKind::kConfig: {
        auto c = protocol::decode_config(p);
        if (!c) break;
        for (const auto& f : *c) job.config[std::string(f.key)] = std::string(f.value);
        break;
      }
      case protocol::RecordKind::kTest:
        phase.clear();
        break;
      case protocol::RecordKind::kPhase: {
        auto r = protocol::decode_phase(p);
        if (!r) break;
        phase = std::string(r->name);
        std::optional<int64_t> lo, hi;
        for (const auto& f : r->unknown) {
          if (f.key == "tk_lag_min") lo = to_i64(f.value);
          if (f.key == "tk_lag_max") hi = to_i64(f.value);
        }
        phase_lag.reset();
        if (lo && hi && *lo >= 0 && *hi >= *lo)
          phase_lag = std::make_pair(static_cast<uint64_t>(*lo), static_cast<uint64_t>(*hi));
        break;
      }
      case protocol::RecordKind::kRaw: {
        const std::string name(p.raw_name);
        auto kind = edge_kind(name, phase);
        if (!kind) break;
        auto [it, fresh] = index.emplace(std::make_pair(phase, name), job.series.size());
        if (fresh)
          job.series.push_back(DwtSeries{
              phase, name, *kind, 0, {}, *kind == Kind::kGrid ? phase_lag : std::nullopt});
        auto& s = job.series[it->second];
        if (p.raw_first != s.samples.size()) {
          return bad(fmt::format("RAW,{} (phase '{}'): index {} after {} samples", name, phase,
                                 p.raw_first, s.samples.size()));
        }
        s.samples.insert(s.samples.end(), p.raw_values.begin(), p.raw_values.end());
        break;
      }
      case protocol::RecordKind::kResult: {
        auto r = protocol::decode_result(p);
        if (!r) break;
        auto it = index.find({phase, std::string(r->name)});
        if (it == index.end()) break;
        for (const auto& f : r->fields) {
          if (f.key == "hz")
            job.series[it->second].hz = static_cast<uint64_t>(to_i64(f.value).value_or(0));
        }
        break;
      }
      default:
        break;
    }
  }
  for (const auto& s : job.series) {
    if (s.hz == 0)
      return bad(fmt::format("series {} (phase '{}'): no RESULT with hz", s.name, s.phase));
  }
  return job;
}

Result<Analysis> analyze(const Capture& capture, const Job& job, const Options& options) {
  Analysis a;
  auto e = job.config.find("edges");
  if (e == job.config.end() || e->second != "on") {
    return bad("the job's capture has no CONFIG edges=on: it is no edge-variant build");
  }
  if (auto p = job.config.find("edge_pins"); p != job.config.end()) a.edge_pins = p->second;
  a.samplerate = capture.samplerate;
  a.core_hz = config_u64(job.config, "core");
  const double sample_ns = 1e9 / static_cast<double>(capture.samplerate);
  a.tolerance_ns = options.tolerance_ns.value_or(2 * sample_ns + options.gpio_latency_ns);

  // MK pulses: a rise and the fall after it.
  std::vector<std::pair<int64_t, int64_t>> pulses;
  bool open = false;  // MK is high since `rise`
  int64_t rise = 0;
  for (const Edge& x : capture.mk) {
    if (x.rising) {
      open = true;
      rise = x.t_ps;
    } else if (open) {
      pulses.emplace_back(rise, x.t_ps);
      open = false;
    }
  }
  a.mk_pulses = pulses.size();
  if (pulses.size() > job.series.size()) {
    return bad(fmt::format("{} MK pulses, but the job has {} edge-mapped series", pulses.size(),
                           job.series.size()));
  }
  if (open || pulses.size() < job.series.size()) {
    a.status = Status::kOverflow;
    a.refusal = fmt::format(
        "the capture ends at {:.6f} s {}: {} of {} MK pulses complete; refused, nothing compared",
        static_cast<double>(capture.end_ps) / 1e12,
        open ? "with MK still high (the last series' window not closed)" : "early", pulses.size(),
        job.series.size());
    return a;
  }
  const uint64_t irq_hz = config_u64(job.config, "irq_hz");
  const uint64_t irq_period = config_u64(job.config, "irq_period_ticks");
  for (size_t k = 0; k < job.series.size(); ++k) {
    const DwtSeries& d = job.series[k];
    SeriesResult s;
    s.phase = d.phase;
    s.name = d.name;
    s.kind = d.kind;
    s.n = d.samples.size();
    const auto [lo, hi] = pulses[k];
    Placed placed;
    switch (d.kind) {
      case Kind::kOrdered:
        placed =
            place_ordered(s, between(capture.ev, lo, hi, true), between(capture.tk, lo, hi, true));
        break;
      case Kind::kGrid:
        if (irq_hz > 0 && irq_period > 0)
          s.config_period_ns = static_cast<double>(irq_period) * 1e9 / static_cast<double>(irq_hz);
        placed = place_grid(s, between(capture.ev, lo, hi, true), between(capture.tk, lo, hi, true),
                            options.period_ratio);
        break;
      case Kind::kPeriodic:
        placed = place_periodic(s, between(capture.tk, lo, hi, false));
        break;
    }
    s.tolerance_ns = a.tolerance_ns;
    if (d.kind == Kind::kGrid) subtract_tk_lag(s, d, placed);
    finish(s, d, std::move(placed), a.core_hz);
    if (s.period_disagrees) {
      s.notes.push_back(fmt::format(
          "the EV edges' period is {:.1f} ns, CONFIG's event period {:.1f} ns (irq_period_ticks / "
          "irq_hz): the clock is not what CONFIG says",
          s.grid_period_ns, *s.config_period_ns));
    }
    a.status = std::max(a.status, s.status);
    a.series.push_back(std::move(s));
  }
  return a;
}

Result<SigrokRead> read_with_sigrok(ProcessRunner& runner, const std::filesystem::path& file,
                                    const std::string& input_format, const Roles& roles,
                                    const std::filesystem::path& scratch) {
  if (find_in_path("sigrok-cli").empty()) {
    return make_error(ErrorKind::kUnavailable,
                      "sigrok-cli is not installed (Debian: sigrok-cli); it reads the capture");
  }
  ProcessSpec spec;
  spec.argv = {"sigrok-cli", "-i", file.string()};
  if (!input_format.empty()) {
    spec.argv.push_back("-I");
    spec.argv.push_back(input_format);
  }
  const auto out = scratch / "edges.sigrok.vcd";
  spec.argv.insert(spec.argv.end(), {"-O", "vcd", "-o", out.string()});
  spec.timeout = std::chrono::minutes(10);
  const ProcessResult r = runner.run(spec);
  if (!r.ok()) {
    return make_error(ErrorKind::kBadInput, fmt::format("sigrok-cli -i {}: {}: {}", file.string(),
                                                        r.describe(), r.tail(4)));
  }
  std::ifstream in(out);
  if (!in)
    return make_error(ErrorKind::kCannotRead, "cannot read sigrok-cli's output " + out.string());
  auto c = parse_vcd(in, roles);
  std::filesystem::remove(out);
  if (!c)
    return Error{fmt::format("{} (sigrok-cli's VCD of {})", c.error().message, file.string()),
                 c.error().kind};
  SigrokRead read{std::move(*c), false, r.output};
  std::string lower = r.output;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  read.overflowed = lower.find("overflow") != std::string::npos;
  return read;
}

Result<std::filesystem::path> job_capture(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(dir) && dir.filename() == "capture.raw") return dir;
  if (fs::is_regular_file(dir / "capture.raw")) return dir / "capture.raw";
  int best = -1;
  fs::path found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("attempt-", 0) != 0 || !fs::is_regular_file(e.path() / "capture.raw")) continue;
    const int k = std::atoi(n.c_str() + 8);
    if (k > best) {
      best = k;
      found = e.path() / "capture.raw";
    }
  }
  if (found.empty()) {
    return make_error(
        ErrorKind::kCannotRead,
        fmt::format("job {}: no capture.raw in it or in an attempt-N of it", dir.string()));
  }
  return found;
}

Result<Analysis> analyse(ProcessRunner& runner, const std::filesystem::path& capture,
                         const std::filesystem::path& job_dir, const Options& options) {
  auto raw = job_capture(job_dir);
  if (!raw) return raw.error();
  std::ifstream in(*raw);
  if (!in) return make_error(ErrorKind::kCannotRead, "cannot read " + raw->string());
  auto job = read_job(in);
  if (!job) return Error{raw->string() + ": " + job.error().message, job.error().kind};
  std::string format = options.input_format;
  if (format.empty() && capture.extension() == ".vcd") format = "vcd";
  auto scratch = make_owned_temp_dir("rtosbench-edges");
  if (!scratch) return scratch.error();
  auto read = read_with_sigrok(runner, capture, format, options.roles, *scratch);
  std::error_code ec;
  std::filesystem::remove_all(*scratch, ec);
  if (!read) return read.error();
  auto a = analyze(read->capture, *job, options);
  if (!a) return a;
  if (read->overflowed && a->status != Status::kOverflow) {
    a->status = Status::kOverflow;
    a->refusal = "sigrok-cli reports an overflow: " + read->message;
    a->series.clear();
  }
  a->capture = capture.string();
  a->job_capture = raw->string();
  return a;
}

nlohmann::json to_json(const Analysis& a) {
  auto fig = [](const Figures& f) {
    return nlohmann::json{{"median", f.median}, {"p99", f.p99}, {"max", f.max}};
  };
  nlohmann::json j{{"status", to_string(a.status)},  {"samplerate", a.samplerate},
                   {"tolerance_ns", a.tolerance_ns}, {"core_hz", a.core_hz},
                   {"mk_pulses", a.mk_pulses},       {"series", nlohmann::json::array()}};
  if (!a.edge_pins.empty()) j["edge_pins"] = a.edge_pins;
  if (!a.refusal.empty()) j["refusal"] = a.refusal;
  if (!a.capture.empty()) j["capture"] = a.capture;
  if (!a.job_capture.empty()) j["job_capture"] = a.job_capture;
  for (const auto& s : a.series) {
    nlohmann::json e{{"phase", s.phase},
                     {"name", s.name},
                     {"kind", to_string(s.kind)},
                     {"status", to_string(s.status)},
                     {"n", s.n},
                     {"paired", s.paired},
                     {"beyond_tolerance", s.beyond},
                     {"tolerance_ns", s.tolerance_ns},
                     {"dwt_ns", fig(s.dwt_ns)},
                     {"edge_ns", fig(s.edge_ns)},
                     {"diff_ns", fig(s.diff_ns)},
                     {"diff_cycles",
                      {{"median", s.diff_median_cycles},
                       {"p99", s.diff_p99_cycles},
                       {"max", s.diff_max_cycles}}},
                     {"grid_period_ns", s.grid_period_ns},
                     {"pairs", {{"dwt_ns", s.paired_dwt_ns}, {"edge_ns", s.paired_edge_ns}}},
                     {"missing", s.missing},
                     {"extra", nlohmann::json::array()},
                     {"notes", s.notes}};
    if (s.tk_lag_ns) e["tk_lag_ns"] = {{"min", s.tk_lag_ns->first}, {"max", s.tk_lag_ns->second}};
    if (s.worst_seq >= 0) e["worst"] = {{"sample", s.worst_seq}, {"diff_ns", s.worst_diff_ns}};
    if (s.config_period_ns) {
      e["config_period_ns"] = *s.config_period_ns;
      e["period_disagrees"] = s.period_disagrees;
    }
    for (const auto& x : s.extra) e["extra"].push_back({{"seq", x.seq}, {"t_ns", x.t_ns}});
    j["series"].push_back(std::move(e));
  }
  return j;
}

void attach_to_verify(nlohmann::json& v, const nlohmann::json& e) {
  nlohmann::json top{{"status", e.value("status", "")},
                     {"samplerate", e.value("samplerate", 0)},
                     {"tolerance_ns", e.value("tolerance_ns", 0.0)},
                     {"disagree", nlohmann::json::array()}};
  if (e.contains("refusal")) top["refusal"] = e["refusal"];
  if (e.contains("capture")) top["capture"] = e["capture"];
  for (const auto& s : e.value("series", nlohmann::json::array())) {
    const std::string phase = s.value("phase", ""), name = s.value("name", "");
    if (s.value("status", "") == "disagree")
      top["disagree"].push_back(phase.empty() ? name : name + "@" + phase);
    if (!v.contains("series") || !v["series"].is_array()) continue;
    for (auto& x : v["series"]) {
      if (x.value("phase", "") != phase || x.value("name", "") != name) continue;
      nlohmann::json o{{"status", s.value("status", "")},
                       {"tolerance_ns", s.value("tolerance_ns", e.value("tolerance_ns", 0.0))}};
      for (const char* k : {"n", "paired", "beyond_tolerance", "dwt_ns", "edge_ns", "diff_ns",
                            "diff_cycles", "missing", "extra", "tk_lag_ns"}) {
        if (s.contains(k)) o[k] = s[k];
      }
      x["edges"] = std::move(o);
    }
  }
  v["edges"] = std::move(top);
}

std::string to_text(const Analysis& a) {
  std::string out;
  if (a.status == Status::kOverflow) return fmt::format("edges: overflow: {}\n", a.refusal);
  out += fmt::format("analyzer {} Hz, tolerance {:.1f} ns per sample{}\n", a.samplerate,
                     a.tolerance_ns, a.edge_pins == "emulated" ? " (edge_pins=emulated)" : "");
  out += fmt::format("{:<22} {:>5} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10}  {}\n", "series",
                     "n", "paired", "dwt med ns", "edge med ns", "diff med", "diff p99", "diff max",
                     "cycles med", "status");
  for (const auto& s : a.series) {
    const std::string name = s.phase.empty() ? s.name : s.name + "@" + s.phase;
    out += fmt::format(
        "{:<22} {:>5} {:>6} {:>12.1f} {:>12.1f} {:>10.1f} {:>10.1f} {:>10.1f} "
        "{:>10.1f}  {}\n",
        name, s.n, s.paired, s.dwt_ns.median, s.edge_ns.median, s.diff_ns.median, s.diff_ns.p99,
        s.diff_ns.max, s.diff_median_cycles, to_string(s.status));
    if (s.beyond > 0)
      out += fmt::format("  {} samples beyond {:.1f} ns; worst sample {}: edge - dwt = {:.1f} ns\n",
                         s.beyond, s.tolerance_ns, s.worst_seq, s.worst_diff_ns);
    auto list = [](const auto& v, auto f) {
      std::string l;
      for (size_t i = 0; i < v.size() && i < 20; ++i) l += (i ? " " : "") + f(v[i]);
      if (v.size() > 20) l += fmt::format(" ... ({} in all)", v.size());
      return l;
    };
    if (!s.missing.empty())
      out += "  missing edges for samples: " +
             list(s.missing, [](int64_t x) { return std::to_string(x); }) + "\n";
    if (!s.extra.empty())
      out +=
          "  extra edges near samples: " +
          list(s.extra, [](const Extra& x) { return fmt::format("{}@{:.0f}ns", x.seq, x.t_ns); }) +
          "\n";
    for (const auto& n : s.notes) out += "  " + n + "\n";
  }
  out += fmt::format("edges: {}\n", to_string(a.status));
  return out;
}

}  // namespace rb::edges
