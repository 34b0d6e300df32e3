#pragma once
// `rtosbench import cyclictest FILE`: cyclictest's (rt-tests) latency
// histograms read into the result model the runs use, so that report, diff
// and history treat them like any other run (docs/import.md).
//
// Two inputs: the histogram text (`--histogram=N`, on stdout or in
// `--histfile`: one line per bucket, then the `# Total/Min/Avg/Max/Histogram
// Overflows` summary lines) and the JSON file (`--json=FILE`, rt-tests 2.x:
// per thread a sparse `histogram`, `cycles`, `min`, `max`, `avg`). Either is
// checked whole before anything is written: a file that stops early
// (truncated), whose figures contradict each other (inconsistent: buckets
// that do not add up to the total, a max beyond the last counted bucket
// without overflow, ...) or holds a negative count is refused, naming the
// line (the JSON file: the member) and the kind of refusal.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/result.h"
#include "util/result.h"

namespace rb::import {

enum class Refusal {
  kInconsistent,  // figures that contradict each other (exit 1)
  kNegative,      // a negative count (exit 2)
  kTruncated,     // the file stops before its summary (exit 3)
};
const char* to_string(Refusal r);  // "inconsistent", "negative", "truncated"
int exit_code(Refusal r);

struct Refused {
  Refusal kind = Refusal::kInconsistent;
  uint64_t line = 0;  // 1-based; 0 when the place is a JSON member (named in `message`)
  std::string message;
};

// One measuring thread: its counted buckets (index = latency in µs).
struct ThreadHistogram {
  std::string name;              // "t0", "t1", ... (thread number)
  std::optional<int64_t> cpu;    // JSON only
  std::vector<uint64_t> counts;  // counts[v]: samples of v µs, v < limit
  uint64_t overflow = 0;         // samples at or beyond limit
  uint64_t min = 0, max = 0;     // cyclictest's, µs
  double avg = 0;                // cyclictest's mean, µs (text: floored)
  uint64_t n() const;            // every sample: the buckets plus the overflow
};

struct Cyclictest {
  std::string format;  // "histogram" (text) or "json"
  uint64_t limit = 0;  // buckets 0 .. limit-1 (--histogram=limit)
  std::vector<ThreadHistogram> threads;
  // What the file says of its run (JSON: cmdline, version, sysinfo, times).
  std::map<std::string, std::string> conditions;
  std::string started_at;  // as the JSON gives it; "" for text
};

// The parse of one file: the data, or why it is refused. Error kBadInput
// (with the line) when it is no cyclictest output at all.
struct Parsed {
  std::optional<Refused> refused;
  Cyclictest data;
};
Result<Parsed> parse_cyclictest(const std::string& text);
Result<Parsed> read_cyclictest(const std::filesystem::path& file);  // kCannotRead when unreadable

// A thread's series: unit µs (ticks at 1 MHz, so ns = 1000 * ticks), source
// `histogram`, percentiles by nearest rank over the buckets with the
// overflow samples at the max (an upper bound; those statistics are named in
// histogram.beyond_limit), min, max and n as cyclictest counted them.
store::SeriesRecord series_of(const ThreadHistogram& t, uint64_t limit, const std::string& phase);

struct ImportOptions {
  std::filesystem::path out;  // the run directory to make (must not exist or be empty)
  std::string job = "cyclictest";
  std::string phase;  // the load phase of every series ("" none)
  std::string board;  // the machine the file was measured on ("" unknown)
};

// Writes `out` as a run directory of one job (run.json, jobs/<job>/result.json
// and the imported file beside it) from `file`, already parsed as `data`.
// Errors: kUsage for an `out` that holds something, kCannotWrite when it
// cannot be written.
Status write_import(const Cyclictest& data, const std::filesystem::path& file,
                    const std::string& file_text, const ImportOptions& options);

}  // namespace rb::import
