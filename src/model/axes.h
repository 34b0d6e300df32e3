#pragma once
// The variant axes a matrix varies its jobs over, and the statistics every
// series has: one table each, read by the loader and its schema, the
// expansion into jobs, the build defines, the CONFIG pins, the job ids, the
// record (result.json), the history's pinned keys, diff, regress and the
// report. A new axis or statistic is one row here (docs/ARCHITECTURE.md).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rb::model {

struct Axis {
  std::string_view key;            // `variants:` key, e.g. "tick_hz"
  std::string_view define;         // the firmware's CMake variable, e.g. "RB_TICK_HZ"
  std::string_view config;         // the CONFIG key the firmware echoes it as, e.g. "tick"
  std::string_view title;          // as a report heads it
  std::string_view default_value;  // the matrix's value when it names none
  std::string_view value_schema;   // JSON Schema of one value (docs/schema/matrix.schema.json)
  // The job id's part for `value` ("" for none): the defaults of the later
  // axes add nothing, so ids of runs made before an axis existed stay valid.
  std::string (*id_part)(const std::string& value);
  // Two jobs are the same experiment only when they agree on it (the
  // history's pinned keys, diff's pairing).
  bool pinned = true;
};

// In expansion order: opt, tick_hz, fpu_context, checks, ramfunc, tickless,
// edges.
const std::vector<Axis>& axes();
const Axis* find_axis(std::string_view key);

// Axis key -> value (as text: "-O2 -g0", "1000", "off"), every axis present.
using Variant = std::map<std::string, std::string>;
Variant default_variant();

// "-O2 -g0" -> "O2", "-Os" -> "Os"; flags without an -O level are reduced to
// [A-Za-z0-9]; the result only ever holds [A-Za-z0-9].
std::string opt_id(const std::string& opt);

// <kernel>-<opt id>-tick<hz>-fpu<0|1>[-checks][-ram][-tickless][-edges].
std::string job_id(const std::string& kernel, const Variant& v);

// Which way a statistic gets worse.
enum class Worse { kHigher, kLower, kEither };

struct Statistic {
  std::string_view name;  // as a tolerance, diff and regress name it: "median"
  std::string_view key;   // result.json SeriesRecord key: "median_ticks"
  Worse worse;
  // The hardware default of how far it may move between cold starts before
  // a change is called real (seed 000: medians by a few cycles, tails and
  // maxima much more): max(abs ticks, pct % of the first value).
  double abs, pct;
};

// n, min, median, avg, p90, p99, p999, max, stddev, jitter, base.
const std::vector<Statistic>& statistics();
const Statistic* find_statistic(std::string_view name);

}  // namespace rb::model
