#pragma once
// `rtosbench report RUN...`: the figures of one or more runs as a Markdown
// file, one self-contained HTML file (inline CSS and SVG, no network) and
// CSV files. The newest run gives the tables (seed 000's layout: per kernel
// wake latency, API overhead, round trip, IRQ to task, tick overhead; median
// in ticks and µs, p99 and p99/median), the footprint, the conditions and
// every verify verdict; all runs together give the trends. Emulated figures
// are labelled as instruction counts, never as cycles.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/raw_capture.h"
#include "report/snapshot.h"
#include "util/result.h"

namespace rb::report {

// A document both renderers share: headings, paragraphs, notes, lists,
// tables and plots. Text may hold `code` spans.
struct Table {
  std::vector<std::string> head;
  std::string
      align;  // per column: 'l' left, 'r' right (numbers), 'w' left and wrapping (long text)
  std::vector<std::vector<std::string>> rows{};
};

struct Block {
  enum class Kind { kHeading, kParagraph, kNote, kList, kTable, kPlot };
  Kind kind = Kind::kParagraph;
  int level = 2;                     // headings
  std::string text{};                // heading, paragraph, note; a plot's caption
  std::vector<std::string> items{};  // lists
  Table table{};
  std::string svg{};  // plots (HTML only)
};

struct Document {
  std::string title;
  std::vector<Block> blocks;
};

struct ReportOptions {
  // Re-read each job's capture for the distributions (else the statistics
  // are drawn as an approximate CDF).
  bool read_raw = true;
  // The firmware tree a result older than the board record falls back to
  // for its board's declarations (nullptr: matrix::default_catalog());
  // snapshot_of. Also the reference kernel of a run whose results do not
  // name it (RunView::reference).
  const catalog::Catalog* catalog = nullptr;
};

// One job of a run as the report shows it.
struct JobView {
  const store::JobResult* result = nullptr;
  JobSnapshot snap;
  std::optional<RawCapture> raw;  // when read_raw and the capture could be read
  std::string raw_problem;        // why there is no raw capture
};

struct RunView {
  const Run* run = nullptr;
  RunSnapshot snap;
  std::vector<JobView> jobs;
  // The port of the reference kernel (the image kernel-alone footprints are
  // counted against: bare) as the run recorded it (a result's
  // build.footprint_kernel.reference), else the catalog's (ReportOptions);
  // empty when neither names one.
  std::string reference;
  // Whether `job` is a build of the reference port (its port, or its kernel
  // in results without one).
  bool is_reference(const store::JobSpec& job) const {
    return !reference.empty() && (job.port.empty() ? job.kernel : job.port) == reference;
  }
};

// The runs ordered oldest first (by start time, then id), each job's
// capture re-read when asked. `runs` must outlive the result.
std::vector<RunView> view_runs(const std::vector<Run>& runs, const ReportOptions& options);

// The report document of `runs` (oldest first, as view_runs orders them).
Document build_report(const std::vector<RunView>& runs);

std::string to_markdown(const Document& doc);
// One HTML file with inline CSS and SVG and a small inline script (sortable
// tables; marks the page ready); nothing is fetched from elsewhere.
std::string to_html(const Document& doc);

// Writes summary.csv (every statistic of every series), samples.csv (every
// raw sample that could be re-read) and footprint.csv into `dir`, creating
// it. Error names the file that could not be written.
Status write_csv(const std::vector<RunView>& runs, const std::filesystem::path& dir);
// One CSV field: quoted when it holds `,`, `"` or a line end; a field a
// spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a
// CR, and is not a number such as -12) is quoted with a leading `'`.
std::string csv_field(const std::string& s);

}  // namespace rb::report
