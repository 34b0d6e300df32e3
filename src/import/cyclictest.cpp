#include "import/cyclictest.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "stats/summary.h"
#include "util/atomic_write.h"
#include "util/sha256.h"
#include "util/version.h"

namespace rb::import {

using nlohmann::json;

const char* to_string(Refusal r) {
  switch (r) {
    case Refusal::kInconsistent:
      return "inconsistent";
    case Refusal::kNegative:
      return "negative";
    case Refusal::kTruncated:
      return "truncated";
  }
  return "inconsistent";
}

int exit_code(Refusal r) {
  switch (r) {
    case Refusal::kInconsistent:
      return 1;
    case Refusal::kNegative:
      return 2;
    case Refusal::kTruncated:
      return 3;
  }
  return 1;
}

uint64_t ThreadHistogram::n() const {
  uint64_t total = overflow;
  for (uint64_t c : counts) total += c;
  return total;
}

namespace {

Parsed refuse(Refusal kind, uint64_t line, std::string message) {
  Parsed p;
  p.refused = Refused{kind, line, std::move(message)};
  return p;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

// One count: digits, or a negative number (a refusal of its own); nullopt
// for anything else.
struct Count {
  bool negative = false;
  uint64_t value = 0;
};
std::optional<Count> count_of(const std::string& t) {
  Count c;
  std::string_view v = t;
  if (!v.empty() && v.front() == '-') {
    c.negative = true;
    v.remove_prefix(1);
  }
  if (v.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), c.value);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return c;
}

// The checks every thread's figures must pass, whichever file they came
// from; `where(line)` places a refusal (a line of the text, or 0 and the
// member's name for the JSON).
struct Place {
  uint64_t min_line = 0, max_line = 0, avg_line = 0, overflow_line = 0;
  std::string prefix;  // "thread 0: " (JSON) or "thread 0: " (text)
};
std::optional<Refused> check_thread(const ThreadHistogram& t, uint64_t limit, bool avg_floored,
                                    const Place& at) {
  auto bad = [&](uint64_t line, std::string why) {
    return Refused{Refusal::kInconsistent, line, at.prefix + why};
  };
  const uint64_t n = t.n();
  uint64_t first = limit, last = limit;
  for (uint64_t v = 0; v < t.counts.size(); ++v) {
    if (t.counts[v] == 0) continue;
    if (first == limit) first = v;
    last = v;
  }
  if (n == 0) return std::nullopt;  // a thread that never woke: nothing to contradict
  if (t.min > t.max) return bad(at.min_line, fmt::format("min {} > max {}", t.min, t.max));
  if (t.min < limit && first != t.min) {
    return bad(at.min_line,
               first == limit
                   ? fmt::format("min {} but its bucket and every bucket are empty", t.min)
                   : fmt::format("min {} but the first non-empty bucket is {}", t.min, first));
  }
  if (t.min >= limit && first != limit) {
    return bad(at.min_line, fmt::format("min {} is beyond the last bucket ({}) but bucket {} "
                                        "is not empty",
                                        t.min, limit - 1, first));
  }
  if (t.max < limit) {
    if (t.overflow > 0) {
      return bad(at.overflow_line,
                 fmt::format("{} overflow samples but max {} is below the limit {}", t.overflow,
                             t.max, limit));
    }
    if (last != t.max) {
      return bad(at.max_line,
                 last == limit
                     ? fmt::format("max {} but every bucket is empty", t.max)
                     : fmt::format("max {} but the last non-empty bucket is {}", t.max, last));
    }
  } else if (t.overflow == 0) {
    return bad(at.max_line,
               fmt::format("max {} is beyond the last bucket ({}) but no sample overflowed", t.max,
                           limit - 1));
  }
  if (t.avg < static_cast<double>(t.min) || t.avg > static_cast<double>(t.max)) {
    return bad(at.avg_line, fmt::format("avg {} outside min {} .. max {}", t.avg, t.min, t.max));
  }
  if (t.overflow == 0) {
    // Without overflow the buckets are the samples: their mean is cyclictest's.
    unsigned __int128 sum = 0;
    for (uint64_t v = 0; v < t.counts.size(); ++v)
      sum += static_cast<unsigned __int128>(v) * t.counts[v];
    const double mean = static_cast<double>(sum) / static_cast<double>(n);
    const bool agrees = avg_floored ? static_cast<double>(static_cast<uint64_t>(sum / n)) == t.avg
                                    : std::fabs(mean - t.avg) <= 0.0051;
    if (!agrees) {
      return bad(at.avg_line, fmt::format("avg {} but the buckets' mean is {:.3f}", t.avg, mean));
    }
  }
  return std::nullopt;
}

// ---- the histogram text ------------------------------------------------------

struct TextBucket {
  uint64_t line;
  std::vector<uint64_t> counts;
};
using TextSummary = std::map<std::string, std::pair<uint64_t, std::vector<uint64_t>>>;

// The lines after `# Histogram`: bucket lines, then the `# Key:` summary
// lines (key -> line, values). A value: the refusal or error that ends the
// parse.
std::optional<Result<Parsed>> scan_text(const std::vector<std::string>& lines, size_t header,
                                        bool ends_in_newline, std::vector<TextBucket>& buckets,
                                        TextSummary& summary) {
  bool in_summary = false;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    const uint64_t line = i + 1;
    const std::string& l = lines[i];
    const bool last_partial = i + 1 == lines.size() && !ends_in_newline;
    if (tokens(l).empty()) continue;
    if (l.starts_with("#")) {
      in_summary = true;
      auto colon = l.find(':');
      if (colon == std::string::npos) continue;
      std::string key = l.substr(1, colon - 1);
      key.erase(0, key.find_first_not_of(' '));
      key.erase(key.find_last_not_of(' ') + 1);
      if (key.starts_with("Thread ") || key == "Histogram Overflow at cycle number") continue;
      std::vector<uint64_t> values;
      for (const auto& t : tokens(l.substr(colon + 1))) {
        auto c = count_of(t);
        if (!c) {
          if (last_partial)
            return refuse(Refusal::kTruncated, line, "the file ends inside this line");
          return make_error(ErrorKind::kBadInput,
                            fmt::format("line {}: `{}` is not a number in `# {}:`", line, t, key));
        }
        if (c->negative)
          return refuse(Refusal::kNegative, line, fmt::format("`# {}:` holds {}", key, t));
        values.push_back(c->value);
      }
      if (summary.count(key))
        return refuse(Refusal::kInconsistent, line, fmt::format("`# {}:` a second time", key));
      summary[key] = {line, std::move(values)};
      continue;
    }
    if (in_summary) {
      return refuse(Refusal::kInconsistent, line, "a bucket line after the summary lines");
    }
    const auto t = tokens(l);
    TextBucket b{line, {}};
    for (size_t k = 0; k < t.size(); ++k) {
      auto c = count_of(t[k]);
      if (!c) {
        if (last_partial)
          return refuse(Refusal::kTruncated, line, "the file ends inside this line");
        return make_error(ErrorKind::kBadInput,
                          fmt::format("line {}: `{}` is not a bucket line (`%06d` index, then one "
                                      "count per thread)",
                                      line, l));
      }
      if (c->negative) {
        return refuse(Refusal::kNegative, line,
                      k == 0 ? fmt::format("bucket index {}", t[k])
                             : fmt::format("bucket {}: count {} of thread {}", t[0], t[k], k - 1));
      }
      if (k == 0 && c->value != buckets.size()) {
        return refuse(Refusal::kInconsistent, line,
                      fmt::format("bucket {} where bucket {} belongs", c->value, buckets.size()));
      }
      if (k > 0) b.counts.push_back(c->value);
    }
    if (last_partial && !summary.count("Histogram Overflows")) {
      return refuse(Refusal::kTruncated, line, "the file ends inside this bucket line");
    }
    buckets.push_back(std::move(b));
  }
  return std::nullopt;
}

// The threads of a scanned histogram: each bucket line's counts, checked
// against the summary lines.
Result<Parsed> text_threads(const std::vector<TextBucket>& buckets, TextSummary& summary,
                            size_t threads, size_t columns, bool all_column) {
  Parsed p;
  p.data.format = "histogram";
  p.data.limit = buckets.size();
  p.data.threads.resize(threads);
  for (const auto& b : buckets) {
    if (b.counts.size() != columns) {
      return refuse(
          Refusal::kInconsistent, b.line,
          fmt::format("{} count(s) where the first bucket line has {}", b.counts.size(), columns));
    }
    uint64_t sum = 0;
    for (size_t t = 0; t < threads; ++t) {
      p.data.threads[t].counts.push_back(b.counts[t]);
      sum += b.counts[t];
    }
    if (all_column && b.counts.back() != sum) {
      return refuse(Refusal::kInconsistent, b.line,
                    fmt::format("the all-threads column says {}, the threads add up to {}",
                                b.counts.back(), sum));
    }
  }
  const auto& [total_line, totals] = summary["Total"];
  const auto& [min_line, mins] = summary["Min Latencies"];
  Place at;
  at.min_line = min_line;
  at.avg_line = summary["Avg Latencies"].first;
  at.max_line = summary["Max Latencies"].first;
  at.overflow_line = summary["Histogram Overflows"].first;
  for (size_t t = 0; t < threads; ++t) {
    ThreadHistogram& th = p.data.threads[t];
    th.name = fmt::format("t{}", t);
    th.overflow = summary["Histogram Overflows"].second[t];
    th.min = mins[t];
    th.max = summary["Max Latencies"].second[t];
    th.avg = static_cast<double>(summary["Avg Latencies"].second[t]);
    const uint64_t counted = th.n() - th.overflow;
    if (counted != totals[t]) {
      return refuse(Refusal::kInconsistent, total_line,
                    fmt::format("thread {}: its buckets add up to {}, `# Total:` says {}", t,
                                counted, totals[t]));
    }
    at.prefix = fmt::format("thread {}: ", t);
    if (auto r = check_thread(th, p.data.limit, true, at)) {
      p.refused = *r;
      return p;
    }
  }
  return p;
}

Result<Parsed> parse_text(const std::string& text) {
  const std::vector<std::string> lines = split_lines(text);
  const bool ends_in_newline = !text.empty() && text.back() == '\n';
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "# Histogram") {
      header = i;
      break;
    }
  }
  if (header == lines.size()) {
    return make_error(ErrorKind::kBadInput,
                      "no `# Histogram` line: not cyclictest's histogram output (--histogram=N) "
                      "nor its JSON (--json=FILE)");
  }
  std::vector<TextBucket> buckets;
  TextSummary summary;
  if (auto stop = scan_text(lines, header, ends_in_newline, buckets, summary)) return *stop;
  const uint64_t end_line = lines.size();
  for (const char* key :
       {"Total", "Min Latencies", "Avg Latencies", "Max Latencies", "Histogram Overflows"}) {
    if (!summary.count(key)) {
      return refuse(Refusal::kTruncated, end_line,
                    fmt::format("the file ends before its `# {}:` line ({} bucket line(s) read)",
                                key, buckets.size()));
    }
  }
  if (buckets.empty()) {
    return refuse(Refusal::kInconsistent, header + 1, "a histogram without a bucket line");
  }
  const auto& [min_line, mins] = summary["Min Latencies"];
  const size_t threads = mins.size();
  if (threads == 0) return refuse(Refusal::kInconsistent, min_line, "no thread's min");
  // -H (--histofall) adds a column: the buckets' sum over the threads; the
  // Total and Overflows lines then end with the sum, the Max line with the max.
  const size_t columns = buckets.front().counts.size();
  const bool all_column = threads > 1 && columns == threads + 1;
  if (columns != threads && !all_column) {
    return refuse(Refusal::kInconsistent, buckets.front().line,
                  fmt::format("{} count(s) on a bucket line for {} thread(s)", columns, threads));
  }
  for (const char* key : {"Total", "Avg Latencies", "Max Latencies", "Histogram Overflows"}) {
    auto& [line, values] = summary[key];
    const bool extra =
        all_column && key != std::string("Avg Latencies") && values.size() == threads + 1;
    if (values.size() != threads && !extra) {
      return refuse(
          Refusal::kInconsistent, line,
          fmt::format("`# {}:` has {} value(s) for {} thread(s)", key, values.size(), threads));
    }
    if (extra) {
      const uint64_t all = values.back();
      values.pop_back();
      uint64_t want = 0;
      for (uint64_t v : values)
        want = key == std::string("Max Latencies") ? std::max(want, v) : want + v;
      if (all != want) {
        return refuse(
            Refusal::kInconsistent, line,
            fmt::format("`# {}:` says {} for all threads, the threads give {}", key, all, want));
      }
    }
  }
  return text_threads(buckets, summary, threads, columns, all_column);
}

// ---- the JSON file --------------------------------------------------------------

// N of --histogram=N / -h N / -H N in cyclictest's command line; nullopt if none.
std::optional<uint64_t> limit_of(const std::string& cmdline) {
  static const std::regex re(R"((?:^|\s)(?:--histogram|--histofall|-h|-H)(?:=|\s*)(\d+))");
  std::smatch m;
  if (!std::regex_search(cmdline, m, re)) return std::nullopt;
  return std::stoull(m[1].str());
}

// The 1-based line of byte `offset` of `text`.
uint64_t line_at(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<uint64_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// A member's string, whichever of cyclictest's spellings it has ("cmdline:" with the colon).
std::string member_text(const json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it == j.end()) continue;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number() || it->is_boolean()) return it->dump();
  }
  return "";
}

// The run's conditions in cyclictest's JSON: its command line, version,
// start and end, return code and sysinfo.
void json_conditions(const json& j, Parsed& p) {
  const std::string cmdline = member_text(j, {"cmdline:", "cmdline"});
  if (!cmdline.empty()) p.data.conditions["cmdline"] = cmdline;
  if (auto v = member_text(j, {"rt_test_version:", "rt_test_version"}); !v.empty())
    p.data.conditions["rt_tests_version"] = v;
  p.data.started_at = member_text(j, {"start_time"});
  if (!p.data.started_at.empty()) p.data.conditions["start_time"] = p.data.started_at;
  if (auto v = member_text(j, {"end_time"}); !v.empty()) p.data.conditions["end_time"] = v;
  if (auto v = member_text(j, {"return_code"}); !v.empty()) p.data.conditions["return_code"] = v;
  if (j.contains("sysinfo") && j["sysinfo"].is_object()) {
    for (const auto& [k, v] : j["sysinfo"].items())
      p.data.conditions["sysinfo." + k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
}

Result<Parsed> not_cyclictest_json(const std::string& why) {
  return make_error(ErrorKind::kBadInput, "not cyclictest's JSON (--json=FILE): " + why);
}

// One thread of cyclictest's JSON into `th`; `highest` grows to its last
// bucket + 1. A value: the refusal or error that ends the parse.
std::optional<Result<Parsed>> json_thread(const json& t, const std::string& where,
                                          ThreadHistogram& th, uint64_t& highest) {
  auto not_ours = not_cyclictest_json;
  if (!t.contains("histogram") || !t["histogram"].is_object()) {
    return not_ours(where + " has no `histogram` (cyclictest ran without --histogram=N)");
  }
  if (t.contains("cpu") && t["cpu"].is_number_integer()) th.cpu = t["cpu"].get<int64_t>();
  auto number = [&](const char* key) -> std::optional<json> {
    if (!t.contains(key) || !t[key].is_number()) return std::nullopt;
    return t[key];
  };
  for (const char* key : {"cycles", "min", "max", "avg"}) {
    auto v = number(key);
    if (!v) {
      return refuse(Refusal::kTruncated, 0,
                    fmt::format("{}.{} is missing or not a number", where, key));
    }
    if (v->get<double>() < 0) {
      return refuse(Refusal::kNegative, 0, fmt::format("{}.{} is {}", where, key, v->dump()));
    }
  }
  const uint64_t cycles = t["cycles"].get<uint64_t>();
  th.min = t["min"].get<uint64_t>();
  th.max = t["max"].get<uint64_t>();
  th.avg = t["avg"].get<double>();
  std::map<uint64_t, uint64_t> buckets;
  uint64_t counted = 0;
  for (const auto& [k, v] : t["histogram"].items()) {
    auto b = count_of(k);
    if (!b) return not_ours(fmt::format("{}.histogram bucket `{}`", where, k));
    if (!v.is_number_integer())
      return not_ours(fmt::format("{}.histogram.{} is not an integer", where, k));
    if (b->negative || v.get<int64_t>() < 0) {
      return refuse(Refusal::kNegative, 0,
                    fmt::format("{}.histogram.{} is {}", where, k, v.dump()));
    }
    buckets[b->value] = v.get<uint64_t>();
    counted += v.get<uint64_t>();
    highest = std::max(highest, b->value + 1);
  }
  if (counted > cycles) {
    return refuse(Refusal::kInconsistent, 0,
                  fmt::format("{}: its buckets add up to {}, more than its cycles {}", where,
                              counted, cycles));
  }
  th.overflow = cycles - counted;
  th.counts.assign(buckets.empty() ? 0 : buckets.rbegin()->first + 1, 0);
  for (const auto& [b, c] : buckets) th.counts[b] = c;
  return std::nullopt;
}

Result<Parsed> parse_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    const bool at_end =
        e.byte >= text.size() || text.find_first_not_of(" \t\r\n", e.byte) == std::string::npos;
    if (at_end) {
      return refuse(Refusal::kTruncated, line_at(text, text.size()),
                    "the JSON document ends before it is complete");
    }
    return make_error(ErrorKind::kBadInput,
                      fmt::format("line {}: not JSON: {}", line_at(text, e.byte - 1), e.what()));
  }
  auto not_ours = not_cyclictest_json;
  if (!j.is_object() || !j.contains("thread") || !j["thread"].is_object())
    return not_ours("no `thread` object");
  Parsed p;
  p.data.format = "json";
  json_conditions(j, p);
  const std::string cmdline =
      p.data.conditions.count("cmdline") ? p.data.conditions["cmdline"] : "";
  // Threads by number, in order.
  std::vector<std::pair<uint64_t, const json*>> threads;
  for (const auto& [k, v] : j["thread"].items()) {
    auto c = count_of(k);
    if (!c || c->negative || !v.is_object()) return not_ours(fmt::format("thread `{}`", k));
    threads.emplace_back(c->value, &v);
  }
  std::sort(threads.begin(), threads.end());
  if (threads.empty()) return refuse(Refusal::kInconsistent, 0, "`thread` holds no thread");
  auto limit = limit_of(cmdline);
  // Without the command line's N, the buckets give a lower bound of it.
  uint64_t highest = 0;
  for (const auto& [num, tj] : threads) {
    const std::string where = fmt::format("thread.{}", num);
    ThreadHistogram th;
    th.name = fmt::format("t{}", num);
    if (auto stop = json_thread(*tj, where, th, highest)) return *stop;
    p.data.threads.push_back(std::move(th));
  }
  if (limit && highest > *limit) {
    return refuse(Refusal::kInconsistent, 0,
                  fmt::format("a bucket {} beyond --histogram={}", highest - 1, *limit));
  }
  p.data.limit = limit ? *limit : highest;
  if (!limit) p.data.conditions["histogram_limit"] = "unknown (not in cmdline)";
  for (size_t i = 0; i < p.data.threads.size(); ++i) {
    ThreadHistogram& th = p.data.threads[i];
    th.counts.resize(p.data.limit, 0);
    Place at;
    at.prefix = fmt::format("thread.{}: ", threads[i].first);
    if (!limit && th.overflow > 0) {
      return refuse(Refusal::kInconsistent, 0,
                    at.prefix + "samples beyond the buckets but cmdline names no --histogram=N");
    }
    if (auto r = check_thread(th, p.data.limit, false, at)) {
      p.refused = *r;
      return p;
    }
  }
  return p;
}

}  // namespace

Result<Parsed> parse_cyclictest(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return parse_json(text);
  return parse_text(text);
}

Result<Parsed> read_cyclictest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error(ErrorKind::kCannotRead, fmt::format("cannot read {}", file.string()));
  std::ostringstream s;
  s << in.rdbuf();
  auto p = parse_cyclictest(s.str());
  if (!p.ok()) return make_error(p.error().kind, file.string() + ": " + p.error().message);
  return p;
}

store::SeriesRecord series_of(const ThreadHistogram& t, uint64_t limit, const std::string& phase) {
  constexpr uint64_t kHz = 1000000;  // ticks are µs
  store::SeriesRecord r;
  r.phase = phase;
  r.name = "cyclictest_" + t.name;
  r.test = "cyclictest";
  r.unit = "us";
  r.source = "histogram";
  r.hz = kHz;
  const uint64_t n = t.n();
  const uint64_t counted = n - t.overflow;
  // The runs of equal values: the buckets, then the overflow samples at the max.
  auto runs = [&](auto&& visit) {
    for (uint64_t v = 0; v < t.counts.size(); ++v)
      if (t.counts[v]) visit(v, t.counts[v]);
    if (t.overflow) visit(t.max, t.overflow);
  };
  stats::Summary s = stats::summarize_runs(n, t.min, t.max, runs);
  store::HistogramRecord h;
  h.limit = limit;
  h.overflow = t.overflow;
  for (uint64_t v = 0; v < t.counts.size(); ++v)
    if (t.counts[v]) h.buckets.push_back({v, t.counts[v]});
  const std::pair<const char*, uint64_t> ranks[] = {{"median", stats::nearest_rank(n, 50, 100)},
                                                    {"p90", stats::nearest_rank(n, 90, 100)},
                                                    {"p99", stats::nearest_rank(n, 99, 100)},
                                                    {"p999", stats::nearest_rank(n, 999, 1000)}};
  for (const auto& [name, rank] : ranks)
    if (n > 0 && rank > counted) h.beyond_limit.push_back(name);
  r.n = n;
  if (n > 0) {
    if (t.overflow == 0) {
      r.sum_ticks = static_cast<uint64_t>(s.sum);
      r.avg_ticks = s.avg_ticks;
      r.mean_ticks = s.mean;
      r.stddev_ticks = s.stddev;
    } else {
      // The overflow samples' values are unknown: the mean is cyclictest's,
      // the spread undefined.
      r.mean_ticks = t.avg;
      r.avg_ticks = std::clamp(static_cast<uint64_t>(t.avg), t.min, t.max);
      r.sum_ticks = static_cast<uint64_t>(std::llround(t.avg * static_cast<double>(n)));
    }
    if (s.median > 0) r.jitter = static_cast<double>(s.p99) / static_cast<double>(s.median);
  }
  r.avg_ns = store::ticks_to_ns(r.avg_ticks, kHz);
  store::set_order_stats(r, s);  // all 0 for n == 0 (summarize_runs)
  r.histogram = std::move(h);
  return r;
}

Status write_import(const Cyclictest& data, const std::filesystem::path& file,
                    const std::string& file_text, const ImportOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(options.out, ec) &&
      (!fs::is_directory(options.out, ec) || !fs::is_empty(options.out, ec))) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--out {} already holds something: give a new directory",
                                  options.out.string()));
  }
  // The job id names a folder of jobs/, never a path out of it.
  static const std::regex kJobId("[A-Za-z0-9][A-Za-z0-9._-]*");
  if (!std::regex_match(options.job, kJobId)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--job `{}`: letters, digits, `.`, `_` and `-` only, a letter "
                                  "or digit first",
                                  options.job));
  }
  const fs::path job_dir = options.out / "jobs" / options.job;
  fs::create_directories(job_dir, ec);
  if (ec) {
    return make_error(ErrorKind::kCannotWrite,
                      fmt::format("cannot create {}: {}", job_dir.string(), ec.message()));
  }
  fs::path root = fs::absolute(options.out).lexically_normal();
  if (root.filename().empty()) root = root.parent_path();
  const std::string run_id = root.filename().string();
  const std::string now = store::utc_timestamp();
  const std::string kept = "imported-" + file.filename().string();

  store::JobResult r;
  r.run_id = run_id;
  r.job_id = options.job;
  r.build_id = options.job;
  r.status = store::JobStatus::kOk;
  r.job.id = options.job;
  r.job.build_id = options.job;
  r.job.kernel = "linux";
  r.job.port = "cyclictest";
  r.job.board = options.board;
  r.job.tests = {"cyclictest"};
  r.board = store::BoardRecord{};  // nothing declared: every series is a measurement
  r.board->name = options.board;
  r.job.kernel_version =
      data.conditions.count("sysinfo.release") ? data.conditions.at("sysinfo.release") : "";
  r.unit = "us";
  r.conditions = data.conditions;
  r.conditions["source"] = "cyclictest";
  r.conditions["format"] = data.format;
  r.conditions["unit"] = "us";
  r.conditions["histogram_limit"] = r.conditions.count("histogram_limit")
                                        ? r.conditions["histogram_limit"]
                                        : std::to_string(data.limit);
  r.conditions["imported_file"] = kept;
  r.conditions["imported_sha256"] = sha256_hex(file_text);
  r.conditions["imported_from"] = fs::absolute(file).lexically_normal().string();
  if (!options.phase.empty()) r.conditions["phase"] = options.phase;
  for (const auto& t : data.threads) {
    r.series.push_back(series_of(t, data.limit, options.phase));
    if (t.cpu) r.conditions[t.name + ".cpu"] = std::to_string(*t.cpu);
  }
  r.finished_at = now;
  if (auto st = store::check_figures(r, "import"); !st.ok())
    return make_error(ErrorKind::kInternal, st.error().message);

  if (auto st = write_file_atomic(job_dir / kept, file_text); !st.ok())
    return make_error(ErrorKind::kCannotWrite, st.error().message);
  if (auto st = store::write_job_result(job_dir / "result.json", r); !st.ok())
    return make_error(ErrorKind::kCannotWrite, st.error().message);

  store::RunSummary s;
  s.run_id = run_id;
  s.state = "finished";
  s.started_at = now;
  s.updated_at = now;
  s.finished_at = now;
  s.rtosbench_version = kVersion;
  s.matrix =
      store::RunInput{"import cyclictest", "", fs::absolute(file).string(), sha256_hex(file_text)};
  store::RunJobEntry e;
  e.id = options.job;
  e.kernel = "linux";
  e.status = "OK";
  e.result = "jobs/" + options.job + "/result.json";
  s.jobs.push_back(e);
  s.counts["OK"] = 1;
  s.exit_code = 0;
  if (auto st = write_file_atomic(options.out / "run.json", store::dump_json(json(s)) + "\n");
      !st.ok())
    return make_error(ErrorKind::kCannotWrite, st.error().message);
  return {};
}

}  // namespace rb::import
