// The line-by-line checker behind `rtosbench verify` (docs/verify.md lists
// every check). RAW lines are most of a log: protocol::LineParser decodes
// their values without allocating, and they are added to the open series'
// SampleAccumulator, which is recycled once the series' RESULT is checked.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "protocol/line.h"
#include "protocol/records.h"
#include "stats/accumulator.h"
#include "stats/summary.h"
#include "util/decimal.h"
#include "util/utf8.h"
#include "verify/verify.h"

namespace rb::verify {

using protocol::ParsedLine;
using protocol::RecordKind;
using protocol::Suffix;

namespace {

constexpr size_t kMaxRawValuesPerLine = 16;
constexpr size_t kMaxOpenSeries = 4096;
constexpr size_t kMaxHistogramSeries = 64;
constexpr size_t kMaxSeries = 100000;
constexpr size_t kMaxConfigKeys = 10000;
constexpr size_t kMaxListed = 10000;  // phases, checks, NA entries, tests

using protocol::printable;

// "test/phase/name", leaving out empty parts: how series are named in messages.
std::string series_label(std::string_view test, std::string_view phase, std::string_view name) {
  std::string l;
  if (!test.empty()) l += printable(test, 40) + "/";
  if (!phase.empty()) l += printable(phase, 40) + "/";
  return l + printable(name);
}

// "0x..." or bare hex digits, as registers are written in CONFIG.
std::optional<uint64_t> parse_hex(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || s.size() > 16 || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

// RESULT keys the host re-derives from RAW, and how: the statistic in ticks,
// and whether the key is its value in ns.
struct KnownField {
  const char* key;
  uint64_t SeriesStats::*stat;
  bool ns;
};
constexpr std::array<KnownField, 14> kDerivedFields = {{
    {"min_ticks", &SeriesStats::min, false},
    {"median_ticks", &SeriesStats::median, false},
    {"avg_ticks", &SeriesStats::avg_ticks, false},
    {"p90_ticks", &SeriesStats::p90, false},
    {"p99_ticks", &SeriesStats::p99, false},
    {"p999_ticks", &SeriesStats::p999, false},
    {"max_ticks", &SeriesStats::max, false},
    {"min_ns", &SeriesStats::min, true},
    {"median_ns", &SeriesStats::median, true},
    {"avg_ns", &SeriesStats::avg_ticks, true},
    {"p90_ns", &SeriesStats::p90, true},
    {"p99_ns", &SeriesStats::p99, true},
    {"p999_ns", &SeriesStats::p999, true},
    {"max_ns", &SeriesStats::max, true},
}};

// What the host derives for a RESULT key from the series' statistics.
uint64_t derived_value(const SeriesStats& s, const KnownField& f) {
  if (!f.ns) return s.*f.stat;
  if (f.stat == &SeriesStats::avg_ticks) return s.avg_ns;
  return stats::ticks_to_ns(s.*f.stat, s.hz);
}

struct OpenSeries {
  std::string name;
  stats::SampleAccumulator samples;
  uint64_t first_line = 0;
  // Phase critical: samples above the idle phase's maximum, counted as they
  // arrive (only when the limit is known).
  std::optional<uint64_t> limit;
  uint64_t above = 0;
  bool broken = false;
  bool long_line_reported = false;
};

// A RESULT (or RAW without RESULT) of the current phase, for the phase checks.
struct PhaseEntry {
  std::string name;
  std::optional<uint64_t> n;  // the RESULT's n
  uint64_t raw_count = 0;
  bool has_raw = false;
  uint64_t line = 0;
};

}  // namespace

struct LogChecker::State {
  explicit State(Options o) : opt(std::move(o)) {}

  enum class Stage { kBeforeBegin, kInLog, kAfterEnd };

  Options opt;
  Report r;
  protocol::LineParser parser;
  Stage stage = Stage::kBeforeBegin;
  bool v2 = false;
  bool end_seen = false;
  uint64_t next_seq = 0;
  std::string test, phase;
  std::optional<size_t> phase_index;  // into r.phases
  std::vector<OpenSeries> open;
  size_t last_open = 0;
  std::vector<stats::SampleAccumulator> pool;
  uint64_t stored_total = 0;  // samples the open series hold one by one (max_stored_samples)
  std::vector<PhaseEntry> phase_entries;
  std::map<std::string, uint64_t> config_lines;
  std::map<std::string, size_t> verdict_counts;
  uint64_t first_overlong = 0, first_control = 0;
  uint64_t dwt_line = 0;
  uint64_t end_line_no = 0;
  // The figures of every series re-derived from RAW, by name (the last one
  // of a name): a RESULT's base= names one of them, CHECK tick_drift's
  // figures come from tick_period's (tick_sleep's in a tickless build).
  struct SeriesSum {
    uint64_t n = 0, sum = 0, hz = 0, median = 0;
  };
  std::map<std::string, SeriesSum> sums;
  bool series_capped = false;
  // irq_latency: the busy phase's maximum of irq_entry and event_to_task
  // (from RAW), the limits of phase critical's "delayed".
  std::map<std::string, uint64_t> busy_max;
  // The current PHASE line's delay fields as written (entry_limit=...).
  std::map<std::string, uint64_t> phase_delay_fields;

  static const char* delay_prefix(std::string_view series) {
    if (series == "irq_entry") return "entry";
    if (series == "event_to_task") return "task";
    return nullptr;
  }

  // The limit of a series opened in a phase with a masking window.
  std::optional<uint64_t> delay_limit(const std::string& series) {
    if (!phase_index || !r.phases[*phase_index].window || !delay_prefix(series))
      return std::nullopt;
    auto it = busy_max.find(series);
    if (it == busy_max.end()) return std::nullopt;
    return it->second;
  }

  // At a RESULT of irq_entry/event_to_task: the busy maximum, or phase
  // critical's figures checked against its PHASE line.
  void delay_figures(const SeriesStats& st, const OpenSeries& s, uint64_t line) {
    const char* prefix = delay_prefix(st.name);
    if (!prefix || !st.has_raw) return;
    if (phase == "busy") {
      busy_max[st.name] = st.max;
      return;
    }
    if (!phase_index) return;
    PhaseCounters& pc = r.phases[*phase_index];
    if (!pc.window) return;
    const std::string label = series_label(test, phase, st.name);
    if (!s.limit) {
      add("critical_delay", Outcome::kProtocolError, line,
          fmt::format("{}: no busy phase with RAW before it: its delayed samples cannot be "
                      "re-derived",
                      label));
      return;
    }
    DelayFigures d;
    d.series = st.name;
    d.limit = *s.limit;
    d.n = st.n;
    d.delayed = s.above;
    d.worst = st.max;
    d.beyond = st.max > *pc.window ? st.max - *pc.window : 0;
    std::vector<std::string> diffs;
    for (auto [key, derived] : {std::pair{"limit", d.limit},
                                {"delayed", d.delayed},
                                {"worst", d.worst},
                                {"beyond", d.beyond}}) {
      const std::string k = fmt::format("{}_{}", prefix, key);
      auto it = phase_delay_fields.find(k);
      if (it == phase_delay_fields.end()) {
        diffs.push_back(k + " missing");
      } else if (it->second != derived) {
        diffs.push_back(fmt::format("{}={} (RAW gives {})", k, it->second, derived));
      }
    }
    if (!diffs.empty()) {
      add("critical_delay", Outcome::kProtocolError, pc.line,
          fmt::format("PHASE {} disagrees with the RAW samples of {}: {}", printable(pc.name),
                      label, fmt::join(diffs, ", ")));
    }
    pc.delay.push_back(std::move(d));
  }

  void add(const char* check, Outcome severity, uint64_t line, std::string message) {
    r.outcome = worst(r.outcome, severity);
    size_t& count = verdict_counts[check];
    if (count >= opt.max_verdicts_per_check) {
      ++r.suppressed[check];
      return;
    }
    ++count;
    r.verdicts.push_back(Verdict{check, severity, line, std::move(message)});
  }

  // False, with the verdict malformed, when a record's decoder refused it.
  template <class T>
  bool decoded(const Result<T>& x, uint64_t line) {
    if (!x) add("malformed", Outcome::kProtocolError, line, x.error().message);
    return x.ok();
  }

  // Accumulators are recycled so a long log allocates their memory once.
  stats::SampleAccumulator take_buffer() {
    if (pool.empty()) return {};
    stats::SampleAccumulator a = std::move(pool.back());
    pool.pop_back();
    return a;
  }
  void give_buffer(stats::SampleAccumulator&& a) {
    stored_total -= std::min(stored_total, a.stored());
    a.clear();
    if (pool.size() < 8) pool.push_back(std::move(a));
  }

  // ---- integrity ------------------------------------------------------

  // V2 seq and CRC of a protocol line. Returns whether its content may be used.
  bool integrity(const ParsedLine& p, uint64_t line) {
    if (!v2) return true;
    switch (p.suffix) {
      case Suffix::kAbsent:
        add("suffix", Outcome::kProtocolError, line,
            fmt::format("{} line has no |seq|crc suffix in a V2 log", protocol::to_string(p.kind)));
        return false;
      case Suffix::kMalformed:
        add("suffix", Outcome::kProtocolError, line,
            "malformed integrity suffix: a V2 line ends in |<decimal seq>|<8 lowercase hex crc>");
        return false;
      case Suffix::kBadCrc:
        add("crc", Outcome::kProtocolError, line,
            fmt::format(
                "checksum mismatch: the line says {:08x}, its bytes give {:08x} (corrupt line)",
                p.crc_given, p.crc_computed));
        // Its seq is untrusted; it still most likely occupied the expected slot.
        if (p.seq == next_seq) ++next_seq;
        return false;
      case Suffix::kValid:
        break;
    }
    if (p.seq == next_seq) {
      ++next_seq;
      return true;
    }
    if (p.seq > next_seq) {
      add("seq_gap", Outcome::kProtocolError, line,
          fmt::format("lost line(s): seq jumps from {} to {} ({} line(s) missing)", next_seq - 1,
                      p.seq, p.seq - next_seq));
      next_seq = p.seq + 1;
      return true;
    }
    add("seq_order", Outcome::kProtocolError, line,
        fmt::format(
            "seq {} repeats or goes back (expected {}): duplicate or reordered line, ignored",
            p.seq, next_seq));
    return false;
  }

  // ---- records --------------------------------------------------------

  void begin(const ParsedLine& p, uint64_t line) {
    if (stage != Stage::kBeforeBegin) {
      add("begin_repeated", Outcome::kProtocolError, line,
          stage == Stage::kAfterEnd
              ? "a second log starts after END: two runs are mixed in one capture"
              : "BEGIN again before END: the target restarted (reset) during the run");
      close_phase();
      test.clear();
      phase.clear();
    }
    stage = Stage::kInLog;
    auto b = protocol::decode_begin(p);
    std::string proto = b ? std::string(b->protocol) : std::string();
    decoded(b, line);
    r.protocol = proto;
    if (proto == "RTOS_BENCH_V2") {
      v2 = true;
    } else if (proto == "RTOS_BENCH_V1") {
      v2 = false;
      add("integrity_unchecked", Outcome::kUnverified, line,
          "RTOS_BENCH_V1 lines carry no sequence numbers or checksums: lost or corrupt lines "
          "cannot be detected");
    } else {
      if (b) {
        add("protocol_version", Outcome::kProtocolError, line,
            fmt::format("unknown protocol '{}' (this reader knows RTOS_BENCH_V1 and RTOS_BENCH_V2)",
                        printable(proto)));
      }
      v2 = p.suffix != Suffix::kAbsent;
    }
    r.integrity_checked = v2;
    if (!v2) return;
    next_seq = 0;
    if (p.suffix == Suffix::kValid && p.seq != 0) {
      add("seq_gap", Outcome::kProtocolError, line,
          fmt::format("BEGIN has seq {}; a log starts at seq 0", p.seq));
      next_seq = p.seq + 1;
      return;
    }
    (void)integrity(p, line);
    if (next_seq == 0) next_seq = 1;  // BEGIN's slot is used even when its suffix is bad
  }

  void config(const ParsedLine& p, uint64_t line) {
    auto c = protocol::decode_config(p);
    if (!decoded(c, line)) return;
    for (const protocol::Field& f : *c) {
      std::string key(f.key), value(f.value);
      auto it = r.config.find(key);
      if (it != r.config.end()) {
        if (it->second != value) {
          add("config_conflict", Outcome::kProtocolError, line,
              fmt::format("CONFIG {}={} contradicts {}={} on line {}", printable(key),
                          printable(value), printable(key), printable(it->second),
                          config_lines[key]));
        }
        continue;
      }
      if (r.config.size() >= kMaxConfigKeys) {
        add("malformed", Outcome::kProtocolError, line,
            fmt::format("more than {} CONFIG keys; the rest are ignored", kMaxConfigKeys));
        return;
      }
      r.config.emplace(key, value);
      config_lines[key] = line;
      if (key == "debugger") {
        if (value == "1") {
          add("debugger", Outcome::kInvalid, line,
              "a debugger was attached (CONFIG debugger=1, DHCSR.C_DEBUGEN set): halting debug "
              "perturbs timing");
        } else if (value != "0") {
          add("debugger", Outcome::kValid, line,
              fmt::format("debugger state unknown (CONFIG debugger={})", printable(value)));
        }
      } else if (key == "dhcsr") {
        auto dhcsr = parse_hex(value);
        if (!dhcsr) {
          add("debugger", Outcome::kValid, line,
              fmt::format("CONFIG dhcsr={} is not a hex number; debugger state not checked",
                          printable(value)));
        } else if ((*dhcsr & 1u) != 0) {
          add("debugger", Outcome::kInvalid, line,
              fmt::format("CONFIG dhcsr={} has C_DEBUGEN (bit 0) set: a debugger was attached",
                          printable(value)));
        }
      }
    }
  }

  OpenSeries* find_open(std::string_view name) {
    if (last_open < open.size() && open[last_open].name == name) return &open[last_open];
    for (size_t i = 0; i < open.size(); ++i) {
      if (open[i].name == name) {
        last_open = i;
        return &open[i];
      }
    }
    return nullptr;
  }

  void raw(const ParsedLine& p, uint64_t line) {
    if (p.error != nullptr) {
      add("malformed", Outcome::kProtocolError, line, fmt::format("RAW: {}", p.error));
      if (!p.raw_name.empty()) {
        if (OpenSeries* s = find_open(p.raw_name)) {
          s->broken = true;
          give_buffer(std::move(s->samples));
        }
      }
      return;
    }
    OpenSeries* s = find_open(p.raw_name);
    if (s == nullptr) {
      if (open.size() >= kMaxOpenSeries) {
        add("malformed", Outcome::kProtocolError, line,
            fmt::format("more than {} series open at once; RAW of '{}' ignored", kMaxOpenSeries,
                        printable(p.raw_name)));
        return;
      }
      OpenSeries fresh;
      fresh.name = std::string(p.raw_name);
      fresh.samples = take_buffer();
      fresh.first_line = line;
      fresh.limit = delay_limit(fresh.name);
      open.push_back(std::move(fresh));
      last_open = open.size() - 1;
      s = &open.back();
    }
    if (s->broken) return;
    if (p.raw_values.size() > kMaxRawValuesPerLine && !s->long_line_reported) {
      s->long_line_reported = true;
      add("malformed", Outcome::kProtocolError, line,
          fmt::format("RAW line of {} carries {} values; at most {} are allowed",
                      series_label(test, phase, s->name), p.raw_values.size(),
                      kMaxRawValuesPerLine));
    }
    const uint64_t have = s->samples.count();
    if (p.raw_first != have) {
      add("raw_index", Outcome::kProtocolError, line,
          p.raw_first > have
              ? fmt::format("RAW {} index jumps from {} to {}: samples {}..{} are missing",
                            series_label(test, phase, s->name), have, p.raw_first, have,
                            p.raw_first - 1)
              : fmt::format("RAW {} index {} again (expected {}): duplicate samples",
                            series_label(test, phase, s->name), p.raw_first, have));
      s->broken = true;
      give_buffer(std::move(s->samples));
      return;
    }
    if (s->limit) {
      for (uint64_t v : p.raw_values) s->above += v > *s->limit ? 1u : 0u;
    }
    // Histograms (128 KB each) only while few series are open at once.
    const uint64_t held = s->samples.stored();
    s->samples.add(p.raw_values, open.size() <= kMaxHistogramSeries);
    stored_total += s->samples.stored() - held;
    if (stored_total > opt.max_stored_samples) {
      stored_total = 0;  // exact again: series closed since may have held some
      for (const auto& o : open) stored_total += o.samples.stored();
    }
    if (stored_total > opt.max_stored_samples) {
      add("sample_limit", Outcome::kProtocolError, line,
          fmt::format("{}: the open series hold more than {} samples outside their {}-tick "
                      "histogram bands ({} of them this series'); verify's memory is bounded, "
                      "so this series is not derived",
                      series_label(test, phase, s->name), opt.max_stored_samples,
                      stats::SampleAccumulator::kBand, s->samples.stored()));
      s->broken = true;
      give_buffer(std::move(s->samples));
    }
  }

  // Fills the statistics of `st` from the series' samples.
  void derive(SeriesStats& st, OpenSeries& series) {
    stats::Summary sum = series.samples.summarize();
    st.has_raw = true;
    std::tie(st.n, st.min, st.median, st.p90, st.p99, st.p999, st.max) =
        std::tie(sum.n, sum.min, sum.median, sum.p90, sum.p99, sum.p999, sum.max);
    if (sum.sum > UINT64_MAX) {
      add("malformed", Outcome::kProtocolError, st.raw_line,
          fmt::format("the samples of {} sum beyond 64 bits",
                      series_label(st.test, st.phase, st.name)));
    }
    st.sum = sum.sum > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(sum.sum);
    st.avg_ticks = sum.avg_ticks;
    st.avg_ns = stats::mean_ns(sum.sum, sum.n, st.hz);
    std::tie(st.mean, st.stddev, st.jitter) = std::tie(sum.mean, sum.stddev, sum.jitter);
  }

  void push_series(SeriesStats&& st) {
    if (r.series.size() >= kMaxSeries) {
      if (!series_capped) {
        series_capped = true;
        add("malformed", Outcome::kProtocolError, st.result_line ? st.result_line : st.raw_line,
            fmt::format("more than {} series; the rest are not kept", kMaxSeries));
      }
      return;
    }
    r.series.push_back(std::move(st));
  }

  // The fields of one RESULT line, the numbers this reader knows parsed.
  struct ResultFields {
    std::map<std::string_view, uint64_t> known;
    std::optional<std::string> base_name;
    bool ok = true;
    std::optional<uint64_t> get(std::string_view k) const {
      auto it = known.find(k);
      if (it == known.end()) return std::nullopt;
      return it->second;
    }
  };

  ResultFields read_fields(const protocol::ResultRecord& rr, SeriesStats& st,
                           const std::string& label, uint64_t line) {
    ResultFields fields;
    for (const protocol::Field& f : rr.fields) {
      st.reported.emplace_back(std::string(f.key), std::string(f.value));
      if (f.key == "base") {  // a series name, not a number
        fields.base_name = std::string(f.value);
        continue;
      }
      const bool is_known = f.key == "n" || f.key == "hz" || f.key == "base_ticks" ||
                            f.key == "calls" || f.key == "refused" ||
                            std::any_of(kDerivedFields.begin(), kDerivedFields.end(),
                                        [&](const KnownField& k) { return f.key == k.key; });
      if (!is_known) {
        st.not_checked.emplace_back(f.key);
        continue;
      }
      auto v = parse_u64(f.value);
      if (!v) {
        add("malformed", Outcome::kProtocolError, line,
            fmt::format("RESULT {}: {}={} is not an unsigned integer", label, f.key,
                        printable(f.value)));
        fields.ok = false;
        continue;
      }
      fields.known[f.key] = *v;
    }
    return fields;
  }

  // n=, hz=, base= and base_ticks=, calls= and refused=: present and coherent.
  void check_fields(ResultFields& fields, SeriesStats& st, const std::string& label,
                    uint64_t line) {
    auto get = [&](std::string_view k) { return fields.get(k); };
    if (!get("n") || !get("hz")) {
      if (fields.ok) {
        add("malformed", Outcome::kProtocolError, line,
            fmt::format("RESULT {} needs n= and hz=", label));
      }
      fields.ok = false;
    } else if (*get("hz") == 0) {
      add("malformed", Outcome::kProtocolError, line, fmt::format("RESULT {} has hz=0", label));
      fields.ok = false;
    }
    st.hz = get("hz").value_or(0);
    st.base_ticks = get("base_ticks");
    if (st.base_ticks) {
      st.base = printable(fields.base_name.value_or("ruler_loop"), 40);
    } else if (fields.base_name) {
      add("malformed", Outcome::kProtocolError, line,
          fmt::format("RESULT {} names base={} but has no base_ticks", label,
                      printable(*fields.base_name)));
    }

    // calls= and refused= (the heap test's allocations): together, refused
    // within calls, and no more samples than calls served.
    st.calls = get("calls");
    st.refused = get("refused");
    if (st.calls.has_value() != st.refused.has_value()) {
      add("calls", Outcome::kProtocolError, line,
          fmt::format("RESULT {} has {} without {}", label,
                      st.calls ? "calls=" : "refused=", st.calls ? "refused=" : "calls="));
    } else if (st.calls && *st.refused > *st.calls) {
      add("calls", Outcome::kProtocolError, line,
          fmt::format("RESULT {} has refused={} of calls={}", label, *st.refused, *st.calls));
    } else if (st.calls && get("n") && *get("n") > *st.calls - *st.refused) {
      add("calls", Outcome::kProtocolError, line,
          fmt::format("RESULT {} has n={} timed samples of {} served calls (calls={}, refused={})",
                      label, *get("n"), *st.calls - *st.refused, *st.calls, *st.refused));
    }
  }

  // The series re-derived from its RAW samples and held against the RESULT.
  void from_raw(SeriesStats& st, OpenSeries& s, const ResultFields& fields,
                const std::string& label, uint64_t line) {
    st.raw_line = s.first_line;
    derive(st, s);
    if (fields.ok) {
      std::vector<std::string> diffs;
      auto note = [&](std::string_view key, uint64_t reported, uint64_t derived) {
        if (reported != derived)
          diffs.push_back(fmt::format("{}={} (RAW gives {})", key, reported, derived));
      };
      note("n", *fields.get("n"), st.n);
      for (const KnownField& k : kDerivedFields) {
        if (auto v = fields.get(k.key)) note(k.key, *v, derived_value(st, k));
      }
      if (!diffs.empty()) {
        add("result_matches_raw", Outcome::kProtocolError, line,
            fmt::format("RESULT {} disagrees with its {} RAW samples: {}", label, st.n,
                        fmt::join(diffs, ", ")));
      }
    }
    delay_figures(st, s, line);
    if (st.n > 0 && st.max == 0) {
      add("zero_counter", Outcome::kInvalid, st.raw_line,
          fmt::format("all {} samples of {} are 0: the counter was not running", st.n, label));
    }
  }

  // Only the firmware's own figures: show them, but they prove nothing.
  void firmware_only(SeriesStats& st, const OpenSeries* s, const ResultFields& fields,
                     const std::string& label, uint64_t line) {
    st.n = fields.get("n").value_or(0);
    for (const KnownField& k : kDerivedFields) {
      if (k.ns) continue;
      if (auto v = fields.get(k.key)) st.*k.stat = *v;
    }
    st.avg_ns = fields.get("avg_ns").value_or(0);
    st.mean = static_cast<double>(st.avg_ticks);
    st.jitter = st.median != 0 ? static_cast<double>(st.p99) / static_cast<double>(st.median) : 0.0;
    if (s == nullptr) {
      add("unverified", Outcome::kUnverified, line,
          fmt::format("RESULT {} has no RAW samples: its figures are the firmware's own and "
                      "cannot be re-derived",
                      label));
    } else {
      st.raw_line = s->first_line;
    }
    auto max_ticks = fields.get("max_ticks");
    if (st.n > 0 && max_ticks && *max_ticks == 0) {
      add("zero_counter", Outcome::kInvalid, line,
          fmt::format("RESULT {} says max_ticks=0 over {} samples: the counter was not running",
                      label, st.n));
    }
  }

  void result(const ParsedLine& p, uint64_t line) {
    auto rr = protocol::decode_result(p);
    if (!decoded(rr, line)) return;
    SeriesStats st;
    st.test = test;
    st.phase = phase;
    st.name = std::string(rr->name);
    st.result_line = line;
    st.has_result = true;
    const std::string label = series_label(test, phase, st.name);
    ResultFields fields = read_fields(*rr, st, label, line);
    check_fields(fields, st, label, line);

    OpenSeries* s = find_open(rr->name);
    PhaseEntry entry{st.name, fields.get("n"), 0, false, line};
    if (s != nullptr && !s->broken) {
      entry.raw_count = s->samples.count();
      entry.has_raw = true;
      from_raw(st, *s, fields, label, line);
    } else {
      firmware_only(st, s, fields, label, line);
    }
    if (s != nullptr) {
      give_buffer(std::move(s->samples));
      const size_t idx = static_cast<size_t>(s - open.data());
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(idx));
      last_open = 0;
    }
    if (st.has_raw) sums[st.name] = SeriesSum{st.n, st.sum, st.hz, st.median};
    phase_entries.push_back(std::move(entry));
    push_series(std::move(st));
  }

  // Ends the current phase: RAW without RESULT, PHASE counters, pairing.
  void close_phase() {
    for (OpenSeries& s : open) {
      if (s.broken) continue;
      add("raw_without_result", Outcome::kProtocolError, s.first_line,
          fmt::format("{} RAW samples of {} have no RESULT line", s.samples.count(),
                      series_label(test, phase, s.name)));
      SeriesStats st;
      st.test = test;
      st.phase = phase;
      st.name = s.name;
      st.raw_line = s.first_line;
      phase_entries.push_back(
          PhaseEntry{s.name, std::nullopt, s.samples.count(), true, s.first_line});
      derive(st, s);
      give_buffer(std::move(s.samples));
      push_series(std::move(st));
    }
    open.clear();
    last_open = 0;

    if (phase_index) {
      const PhaseCounters& pc = r.phases[*phase_index];
      std::vector<std::string> problems;
      if (pc.irq != pc.task) problems.push_back(fmt::format("irq={} but task={}", pc.irq, pc.task));
      if (pc.expected) {
        if (pc.irq != *pc.expected || pc.task != *pc.expected) {
          problems.push_back(
              fmt::format("irq={} task={} but expected={}", pc.irq, pc.task, *pc.expected));
        }
      } else {
        std::vector<uint64_t> declared;
        for (const PhaseEntry& e : phase_entries) {
          if (e.n && std::find(declared.begin(), declared.end(), *e.n) == declared.end())
            declared.push_back(*e.n);
        }
        for (uint64_t n : declared) {
          if (pc.irq != n || pc.task != n) {
            problems.push_back(fmt::format("irq={} task={} but the phase's RESULTs have n={}",
                                           pc.irq, pc.task, n));
          }
        }
      }
      if (pc.bad != 0) problems.push_back(fmt::format("bad={}", pc.bad));
      if (pc.status != "OK") problems.push_back(fmt::format("status={}", printable(pc.status)));
      if (!problems.empty()) {
        add("phase_counters", Outcome::kInvalid, pc.line,
            fmt::format("PHASE {}: {}", printable(pc.name), fmt::join(problems, "; ")));
      }
    }

    const PhaseEntry* irq = nullptr;
    const PhaseEntry* task = nullptr;
    for (const PhaseEntry& e : phase_entries) {
      if (e.name == "irq_entry") irq = &e;
      if (e.name == "event_to_task") task = &e;
    }
    if (irq != nullptr && task != nullptr) {
      std::string where =
          phase.empty() ? std::string("outside a phase") : "in phase " + printable(phase);
      const uint64_t line = std::max(irq->line, task->line);
      if (irq->n && task->n && *irq->n != *task->n) {
        add("paired_counts", Outcome::kInvalid, line,
            fmt::format("irq_entry has n={} but event_to_task has n={} {}", *irq->n, *task->n,
                        where));
      } else if (irq->has_raw && task->has_raw && irq->raw_count != task->raw_count) {
        add("paired_counts", Outcome::kInvalid, line,
            fmt::format("irq_entry has {} RAW samples but event_to_task has {} {}", irq->raw_count,
                        task->raw_count, where));
      }
    }
    phase_entries.clear();
    phase_index.reset();
  }

  void phase_line(const ParsedLine& p, uint64_t line) {
    close_phase();
    auto ph = protocol::decode_phase(p);
    if (!decoded(ph, line)) {
      phase = "?";  // the following series belong to an unknown phase
      return;
    }
    phase = std::string(ph->name);
    phase_delay_fields.clear();
    if (r.phases.size() >= kMaxListed) return;
    PhaseCounters pc;
    for (const protocol::Field& f : ph->unknown) {
      if (f.key != "window" && !f.key.starts_with("entry_") && !f.key.starts_with("task_"))
        continue;  // a key this reader does not know
      const std::optional<uint64_t> v = parse_u64(f.value);
      if (!v) {
        add("malformed", Outcome::kProtocolError, line,
            fmt::format("PHASE {}: {}={} is not a decimal number", printable(phase),
                        printable(f.key), printable(f.value)));
        continue;
      }
      if (f.key == "window") {
        pc.window = *v;
      } else {
        phase_delay_fields[std::string(f.key)] = *v;
      }
    }
    pc.test = test;
    pc.name = phase;
    pc.irq = ph->irq;
    pc.task = ph->task;
    pc.bad = ph->bad;
    pc.status = std::string(ph->status);
    pc.expected = ph->expected;
    pc.line = line;
    r.phases.push_back(std::move(pc));
    phase_index = r.phases.size() - 1;
  }

  void check_line(const ParsedLine& p, uint64_t line) {
    auto c = protocol::decode_check(p);
    if (!decoded(c, line)) return;
    if (c->fail > 0 || c->status != "OK") {
      add("check_failed", Outcome::kInvalid, line,
          fmt::format("CHECK {} failed: {} of {} rounds failed, status={}", printable(c->name),
                      c->fail, c->rounds, printable(c->status)));
    } else if (c->pass + c->fail != c->rounds) {
      add("check_failed", Outcome::kInvalid, line,
          fmt::format("CHECK {}: pass={} + fail={} is not rounds={}", printable(c->name), c->pass,
                      c->fail, c->rounds));
    }
    if (r.checks.size() < kMaxListed) {
      r.checks.push_back(CheckOutcome{test, std::string(c->name), c->rounds, c->pass, c->fail,
                                      std::string(c->status), line});
    }
    if (c->name == "tick_drift") tick_drift(p, c->rounds, line);
  }

  // CHECK tick_drift (docs/protocol.md section 8.1): elapsed=, nominal= and
  // drift_ppm= re-derived from series tick_period's RAW samples and CONFIG
  // tick=. Without tick_period's RAW (already reported) nothing is derived.
  //
  // A tickless build's form (ticks= present) comes from series tick_sleep:
  // elapsed= is its RAW sum, ticks= must be step= * rounds when no sleep was
  // uneven, and nominal= is ticks= kernel ticks at the nominal period.
  void tick_drift(const ParsedLine& p, uint64_t rounds, uint64_t line) {
    auto field = [&](std::string_view key) -> std::optional<std::string_view> {
      for (const protocol::Field& f : p.fields) {
        if (f.key == key) return f.value;
      }
      return std::nullopt;
    };
    const bool tickless = field("ticks").has_value();
    const std::string series = tickless ? "tick_sleep" : "tick_period";
    auto s = sums.find(series);
    if (s == sums.end()) return;
    const SeriesSum& t = s->second;
    auto number = [&](std::string_view key) {
      auto f = field(key);
      return f ? parse_u64(*f) : std::nullopt;
    };
    std::vector<std::string> problems;
    auto tick = r.config.find("tick");
    std::optional<uint64_t> hz_tick;
    if (tick != r.config.end()) hz_tick = parse_u64(tick->second);
    // The kernel ticks the run spans: one per period, or ticks= (checked).
    std::optional<uint64_t> ticks = t.n;
    if (tickless) {
      ticks = number("ticks");
      const std::optional<uint64_t> st = number("step"), un = number("uneven");
      if (!ticks || !st || !un) {
        problems.push_back("ticks=, step= and uneven= must be unsigned numbers");
        ticks.reset();
      } else if (*un == 0 && *ticks != *st * rounds) {
        problems.push_back(fmt::format("ticks={} but step={} * rounds={} is {}", *ticks, *st,
                                       rounds, *st * rounds));
      }
    }
    if (!hz_tick || *hz_tick == 0) {
      problems.push_back("CONFIG has no tick rate (tick=) to derive nominal= from");
    } else if (t.n != rounds) {
      problems.push_back(fmt::format("rounds={} but {} has {} RAW samples", rounds, series, t.n));
    } else if (ticks) {
      const uint64_t nominal =
          static_cast<uint64_t>(static_cast<unsigned __int128>(*ticks) * t.hz / *hz_tick);
      const bool behind = t.sum < nominal;
      const uint64_t diff = behind ? nominal - t.sum : t.sum - nominal;
      const uint64_t ppm =
          nominal == 0
              ? 0
              : static_cast<uint64_t>(static_cast<unsigned __int128>(diff) * 1000000u / nominal);
      const std::string drift = (behind && ppm != 0 ? "-" : "") + std::to_string(ppm);
      const std::array<std::pair<const char*, std::string>, 3> want{
          {{"elapsed", std::to_string(t.sum)},
           {"nominal", std::to_string(nominal)},
           {"drift_ppm", drift}}};
      for (const auto& [key, value] : want) {
        auto got = field(key);
        if (!got) {
          problems.push_back(fmt::format("{}= is missing (RAW gives {})", key, value));
        } else if (*got != value) {
          problems.push_back(fmt::format("{}={} (RAW gives {})", key, printable(*got, 40), value));
        }
      }
    }
    if (!problems.empty()) {
      add("tick_drift", Outcome::kProtocolError, line,
          fmt::format("CHECK tick_drift disagrees with {}'s RAW samples: {}", series,
                      fmt::join(problems, "; ")));
    }
  }

  void na_line(const ParsedLine& p, uint64_t line) {
    auto n = protocol::decode_na(p);
    if (!decoded(n, line)) return;
    if (r.not_applicable.size() < kMaxListed) {
      r.not_applicable.emplace_back(std::string(n->name), std::string(n->reason));
      r.not_applicable_lines.push_back(line);
    }
    add("not_applicable", Outcome::kValid, line,
        fmt::format("n/a: {}: {}", printable(n->name), printable(n->reason, 200)));
  }

  void end_line(const ParsedLine& p, uint64_t line) {
    close_phase();
    stage = Stage::kAfterEnd;
    end_seen = true;
    auto e = protocol::decode_end(p);
    if (!decoded(e, line)) return;
    if (e->protocol != r.protocol) {
      add("end_mismatch", Outcome::kProtocolError, line,
          fmt::format("END says {} but BEGIN said {}", printable(e->protocol),
                      printable(r.protocol)));
    }
    end_line_no = line;
    for (const protocol::Field& f : e->fields)
      r.end_fields[std::string(f.key)] = std::string(f.value);
  }

  void line(std::string_view text, uint64_t number, bool overlong, bool control, bool terminated) {
    r.lines = number;
    if (overlong) {
      ++r.overlong_lines;
      ++r.other_lines;
      if (first_overlong == 0) first_overlong = number;
      return;
    }
    if (control) {
      ++r.control_lines;
      ++r.other_lines;
      if (first_control == 0) first_control = number;
      return;
    }
    const ParsedLine& p = parser.parse(text);
    // An unknown record kind with a valid suffix still occupies a seq slot.
    const bool sequenced_other =
        p.kind == RecordKind::kOther && v2 && stage == Stage::kInLog && p.suffix == Suffix::kValid;
    if (p.kind == RecordKind::kOther && !sequenced_other) {
      ++r.other_lines;
      return;
    }
    if (sequenced_other) {
      ++r.other_lines;
    } else {
      ++r.protocol_lines;
    }
    if (!terminated) {
      const bool complete_v2 = v2 && p.suffix == Suffix::kValid;
      const bool complete_v1_end =
          !v2 && p.kind == RecordKind::kEnd && protocol::decode_end(p).ok();
      if (!complete_v2 && !complete_v1_end) {
        add("truncated", Outcome::kProtocolError, number,
            fmt::format("the log ends inside this {} line (no line end): the capture was cut off",
                        protocol::to_string(p.kind)));
        return;
      }
    }
    if (p.kind == RecordKind::kBegin) {
      begin(p, number);
      return;
    }
    if (stage == Stage::kBeforeBegin) {
      add("begin_missing", Outcome::kProtocolError, number,
          fmt::format("{} line before any BEGIN: the start of the log is missing",
                      protocol::to_string(p.kind)));
      return;
    }
    if (stage == Stage::kAfterEnd) {
      if (!sequenced_other) {
        add("after_end", Outcome::kProtocolError, number,
            fmt::format("{} line after END", protocol::to_string(p.kind)));
      }
      return;
    }
    if (!integrity(p, number)) return;
    record(p, number);
  }

  void test_line(const ParsedLine& p, uint64_t number) {
    close_phase();
    auto t = protocol::decode_test(p);
    if (!decoded(t, number)) {
      test = "?";
    } else {
      test = std::string(*t);
      if (r.tests.size() < kMaxListed) r.tests.push_back(test);
    }
    phase.clear();
  }

  void dwt_read_pair_line(const ParsedLine& p, uint64_t number) {
    auto d = protocol::decode_dwt_read_pair(p);
    if (decoded(d, number)) {
      r.dwt_read_pair = *d;
      dwt_line = number;
    }
  }

  void unknown_record(const ParsedLine& p, uint64_t number) {
    add("unknown_record", Outcome::kValid, number,
        fmt::format("unknown record '{}' (valid checksum), kept as an other line",
                    printable(p.record, 40)));
  }

  // A record of the log, its integrity checked: to its reader, by RecordKind
  // (BEGIN is read before its integrity is known).
  void record(const ParsedLine& p, uint64_t number) {
    using Reader = void (State::*)(const ParsedLine&, uint64_t);
    static constexpr Reader kReaders[] = {&State::unknown_record,
                                          nullptr,
                                          &State::config,
                                          &State::dwt_read_pair_line,
                                          &State::test_line,
                                          &State::phase_line,
                                          &State::raw,
                                          &State::result,
                                          &State::check_line,
                                          &State::na_line,
                                          &State::end_line};
    if (Reader read = kReaders[static_cast<size_t>(p.kind)]) (this->*read)(p, number);
  }

  // END stack_min_free_words against the margin (docs/verify.md).
  void check_stack_margin() {
    auto it = r.end_fields.find("stack_min_free_words");
    if (it == r.end_fields.end()) return;  // no tasks (the template), or a log before the field
    if (it->second == "n/a") {
      add("stack_unseen", Outcome::kValid, end_line_no,
          "END stack_min_free_words=n/a: the kernel does not run its tasks on the harness' "
          "stacks, so their margin is not checked");
      return;
    }
    const std::optional<uint64_t> parsed = parse_u64(it->second);
    if (!parsed) {
      add("malformed", Outcome::kProtocolError, end_line_no,
          fmt::format("END stack_min_free_words={} is not a number", printable(it->second, 40)));
      return;
    }
    const uint64_t free_words = *parsed;
    if (opt.stack_margin_words > 0 && free_words < opt.stack_margin_words) {
      add("stack_margin", Outcome::kInvalid, end_line_no,
          fmt::format("a task stack kept only {} free words (END stack_min_free_words), fewer "
                      "than the margin of {}: the run came close to a stack overflow",
                      free_words, opt.stack_margin_words));
    }
  }

  // Every sample of a series at or above the board's architectural lower
  // bound of it: below it, no core could have run it, so the ruler is broken.
  void check_lower_bounds() {
    if (opt.lower_bounds.empty()) return;
    auto c = r.config.find("core");
    const uint64_t core = c != r.config.end() ? parse_u64(c->second).value_or(0) : 0;
    for (const SeriesStats& st : r.series) {
      auto b = opt.lower_bounds.find(st.name);
      if (b == opt.lower_bounds.end() || !st.has_raw || st.n == 0) continue;
      // The bound in the series' ticks: core cycles at its counter's rate,
      // rounded down so that it stays a lower bound.
      uint64_t bound = b->second.cycles;
      std::string converted;
      if (core > 0 && st.hz > 0 && st.hz != core) {
        bound = static_cast<uint64_t>(static_cast<unsigned __int128>(bound) * st.hz / core);
        converted = fmt::format(" ({} ticks at {} Hz)", bound, st.hz);
      }
      if (st.min >= bound) continue;
      add("lower_bound", Outcome::kInvalid, st.raw_line,
          fmt::format("ruler broken: {} has a sample of {} {}, below the board's lower bound of "
                      "{} core cycles{} for {} ({}): no core runs it faster",
                      series_label(st.test, st.phase, st.name), st.min,
                      converted.empty() ? r.unit : "ticks", b->second.cycles, converted, st.name,
                      b->second.why));
    }
  }

  // base_ticks is the median of the series base= names (a ruler series, or
  // the one the harness test table gives; ruler_loop without base=). One the
  // log does not have (the ruler test was not selected) leaves it unchecked,
  // as before base=.
  void check_baselines() {
    for (const SeriesStats& st : r.series) {
      const std::string label = series_label(st.test, st.phase, st.name);
      // The right baseline by name: the one the harness test table gives
      // the series (a window of two calls against ruler_loop2, none for a
      // span of time).
      if (auto want = opt.baselines.find(st.name); want != opt.baselines.end()) {
        const std::string have = st.base_ticks ? st.base : std::string();
        if (have != want->second) {
          add("baseline", Outcome::kProtocolError, st.result_line,
              want->second.empty()
                  ? fmt::format("RESULT {} names base={}, but the series has no baseline", label,
                                have)
              : have.empty() ? fmt::format("RESULT {} names no baseline, but its baseline is {}",
                                           label, want->second)
                             : fmt::format("RESULT {} names base={}, but its baseline is {}", label,
                                           have, want->second));
          continue;
        }
      }
      if (!st.base_ticks) continue;
      auto m = sums.find(st.base);
      // A ruler series, or another series of the log: the one the harness
      // test table names where verify has the table (a calibration of the
      // same test: tick_overhead's tick_irq_empty; a wrong name is reported
      // above), any without it.
      const bool other_series = opt.baselines.count(st.name) != 0 || m != sums.end();
      if (st.base.rfind("ruler_", 0) != 0 && !other_series) {
        add("baseline", Outcome::kProtocolError, st.result_line,
            fmt::format("RESULT {} names base={}, which is neither a ruler series nor a series "
                        "of the log",
                        label, st.base));
      } else if (m != sums.end() && *st.base_ticks != m->second.median) {
        add("baseline", Outcome::kProtocolError, st.result_line,
            fmt::format("RESULT {} has base_ticks={} but the median of {} is {}", label,
                        *st.base_ticks, st.base, m->second.median));
      }
    }
  }

  Report finish() {
    if (stage == Stage::kInLog) {
      close_phase();
      add("end_missing", Outcome::kProtocolError, r.lines,
          fmt::format("no END line: the log stops after line {} (truncated capture)", r.lines));
    } else if (stage == Stage::kBeforeBegin) {
      add("begin_missing", Outcome::kProtocolError, 0,
          r.lines == 0 ? std::string("the log is empty")
                       : fmt::format("no BEGIN line in {} lines", r.lines));
      if (!end_seen) add("end_missing", Outcome::kProtocolError, 0, "no END line");
    }
    if (first_overlong != 0) {
      add("overlong", Outcome::kValid, first_overlong,
          fmt::format("{} line(s) longer than 4096 bytes skipped (first here)", r.overlong_lines));
    }
    if (first_control != 0) {
      add("control_bytes", Outcome::kValid, first_control,
          fmt::format("{} line(s) holding NUL or other control bytes treated as noise (first here)",
                      r.control_lines));
    }
    for (const auto& [key, want] : opt.expect) {
      auto it = r.config.find(key);
      if (it == r.config.end()) {
        add("expect", Outcome::kInvalid, 0,
            fmt::format("pinned key {} (--expect {}={}) is missing from CONFIG", key, key, want));
      } else if (it->second != want) {
        add("expect", Outcome::kInvalid, config_lines[key],
            fmt::format("CONFIG {}={}, but --expect {}={}", key, printable(it->second), key, want));
      }
    }
    check_baselines();
    auto pair = sums.find("ruler_read_pair");
    if (pair != sums.end() && r.dwt_read_pair && *r.dwt_read_pair != pair->second.median) {
      add("baseline", Outcome::kProtocolError, dwt_line,
          fmt::format("DWT_READ_PAIR,{} but the median of ruler_read_pair is {}", *r.dwt_read_pair,
                      pair->second.median));
    }
    check_stack_margin();
    auto unit = r.config.find("unit");
    r.unit = unit != r.config.end() ? printable(unit->second, 20) : std::string("ticks");
    check_lower_bounds();
    std::stable_sort(r.verdicts.begin(), r.verdicts.end(),
                     [](const Verdict& a, const Verdict& b) { return a.line < b.line; });
    return std::move(r);
  }
};

LogChecker::LogChecker(Options options) : s_(std::make_unique<State>(std::move(options))) {}
LogChecker::~LogChecker() = default;

void LogChecker::add_line(std::string_view text, uint64_t number, bool overlong, bool control,
                          bool terminated) {
  s_->line(text, number, overlong, control, terminated);
}

void LogChecker::add_read_error(const std::string& message) {
  s_->add("read_error", Outcome::kProtocolError, s_->r.lines, message);
}

Report LogChecker::finish() {
  return s_->finish();
}

}  // namespace rb::verify
