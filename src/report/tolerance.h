#pragma once
// How far a statistic may move before diff and regress call it a change:
// per metric an absolute allowance (in ticks; for jitter in ratio units) and
// a relative one (percent of the reference value); the larger wins. Built-in
// defaults, overridden by a `tolerances:` key in the matrix (read from the
// run's matrix.yaml snapshot) or a file given with --tolerances, per test or
// per series (docs/reports.md):
//
//   tolerances:
//     default:
//       median: {abs: 2, pct: 2}
//       stddev: off
//     tests:
//       irq_latency: {p99: {pct: 10}}        # every series of the test
//       busy/event_to_task: {max: {pct: 50}}  # one series (phase/name)
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "util/result.h"

namespace YAML {
class Node;
}

namespace rb::report {

struct Tolerance {
  double abs = 0;    // absolute allowance
  double pct = 0;    // percent of the reference value
  bool off = false;  // the metric is not checked

  // The largest |change| allowed against the reference value `ref`.
  double allowed(double ref) const;
  // "abs 2, 2%", or "off".
  std::string describe() const;
};

class Tolerances {
 public:
  // The built-in defaults for every metric of metric_defs() (docs/reports.md).
  static Tolerances defaults();

  // The tolerance of `metric` for a series: the series' own override (by
  // series key "phase/name" or "name") over the test's over the default;
  // fields not given at a level come from the level below.
  Tolerance lookup(const std::string& test, const std::string& series_key,
                   const std::string& metric) const;

  // Where the values came from, for reports: "built-in defaults",
  // "<file> (tolerances:)".
  const std::string& origin() const { return origin_; }

  // Reads the value of a `tolerances:` key over these tolerances. Error lists
  // every problem as `file:line:column: message` (unknown metric, unknown
  // key, negative or non-numeric value); then nothing is merged.
  Status merge_yaml(const YAML::Node& node, const std::string& file);

  // The fields one level gives for one statistic; absent ones come from the
  // level below.
  struct Partial {
    std::optional<double> abs, pct;
    std::optional<bool> off;
  };

 private:
  static void apply(Tolerance& t, const Partial& p);
  std::map<std::string, Partial> default_;  // metric -> values
  std::map<std::string, std::map<std::string, Partial>>
      overrides_;  // test or series -> metric -> values
  std::string origin_ = "built-in defaults";
};

// The tolerances of a matrix file: the defaults with its `tolerances:` key
// applied; just the defaults when it has none. Error when the file cannot be
// read or parsed, or its `tolerances:` is malformed.
Result<Tolerances> tolerances_from_matrix(const std::filesystem::path& matrix_yaml);

// A tolerance file: YAML whose root is either the `tolerances:` value itself
// or a mapping holding a `tolerances:` key (so a matrix file works too).
Result<Tolerances> load_tolerances_file(const std::filesystem::path& file);

}  // namespace rb::report
