#pragma once
// Loading and validating matrix and bench files. Validation collects every
// problem of a file before failing, each as `file:line:column: message`, with
// the allowed values when the set is closed.
#include <string>
#include <vector>

#include "matrix/model.h"
#include "util/result.h"

namespace rb::matrix {

struct Diagnostic {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
  std::string message;
  std::string format() const;  // "file:line:column: error: message"
};

// The outcome of loading one file: the model when `errors` is empty.
template <typename T>
struct Loaded {
  T value;
  std::vector<Diagnostic> errors;
  bool ok() const { return errors.empty(); }
};

// Reads and validates a matrix. Relative paths in it (bench, firmware,
// kernel sources) are resolved against the matrix file's directory. An
// unreadable file or a YAML syntax error is one diagnostic.
Loaded<Matrix> load_matrix(const std::filesystem::path& file);
Loaded<Matrix> parse_matrix(const std::string& text, const std::filesystem::path& file);

Loaded<Bench> load_bench(const std::filesystem::path& file);
Loaded<Bench> parse_bench(const std::string& text, const std::filesystem::path& file);

// Applies the sweep `name` of m.sweeps to m (its variants, samples, warmup,
// excludes); ErrorKind::kUsage naming the sweeps there are when m has none
// of that name.
Status select_sweep(Matrix& m, const std::string& name);

// Test names the harness knows (docs/protocol.md section 8).
const std::vector<std::string>& known_tests();

// Statistics a `reproducibility:` tolerance can name, as diff and regress
// name them: n, min, median, avg, p90, p99, p999, max, stddev, jitter, base.
const std::vector<std::string>& known_statistics();

// How far a statistic may move between cold starts of one board before a
// change is called real (seed 000: medians by a few cycles, tails and
// maxima much more): absolute ticks and percent of the first value. The
// hardware defaults of both `diff`/`regress` and `run --repeat`.
struct StatisticAllowance {
  const char* statistic;
  double abs;
  double pct;
};
const std::vector<StatisticAllowance>& hardware_allowances();

}  // namespace rb::matrix
