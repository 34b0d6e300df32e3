#pragma once
// `rtosbench edges`: a second ruler. A logic analyzer's capture of the edge
// variant's pins (docs/lab.md, "EDGE PROTOCOL v1"), read through sigrok-cli's
// own VCD output, paired sample by sample with the DWT samples of the job's
// capture.raw, and the difference judged against a tolerance.
#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/process.h"
#include "util/result.h"

namespace rb::edges {

// How a series' samples map onto edges (EDGE PROTOCOL v1, docs/firmware.md
// "Edges"). A capture holds one MK pulse per edge-mapped series, in capture
// order: wake_latency; event_to_task of irq_latency's phases idle, busy,
// critical; tick_period (tick_drift). A test that is NA makes no pulse.
enum class Kind {
  // wake_latency: EV is forced by software, on no event grid; a sample is
  // the TK rise after an EV rise, paired by order within the MK pulse.
  kOrdered,
  // event_to_task: EV is the event timer's output compare, on the event
  // grid; a sample is the first TK rise (after the task's read) minus it.
  kGrid,
  // tick_period: TK toggles after each kept stamp (n + 1 edges for n
  // periods, no EV); a sample is the interval between toggles j and j + 1.
  kPeriodic,
};
const char* to_string(Kind k);  // "ordered", "grid", "periodic"
// The kind of an edge-mapped series (name, phase); nullopt for a series the
// variant does not mark (it has no MK pulse).
std::optional<Kind> edge_kind(const std::string& series, const std::string& phase);

// One level change of a channel, in picoseconds from the capture's start.
struct Edge {
  int64_t t_ps = 0;
  bool rising = false;
};

// The three roles' edges as sigrok-cli wrote them.
struct Capture {
  uint64_t samplerate = 0;  // Hz; 0 when the output did not say
  int64_t end_ps = 0;       // the last timestamp: where the capture ends
  std::vector<Edge> mk, ev, tk;
};

// The capture's channel names for the three roles.
struct Roles {
  std::string mk = "MK", ev = "EV", tk = "TK";
};

// Parses a VCD as sigrok-cli writes it (`-O vcd`): header, `#t` stamps, value
// changes `0!`/`1!` on the stamp's line or the next ones. The first value of
// a channel sets its level, it is no edge. Fails (kBadInput) without the
// three channels or on a malformed line.
Result<Capture> parse_vcd(std::istream& in, const Roles& roles);

// The DWT side: every RAW sample of each edge-mapped series, in log order.
struct DwtSeries {
  std::string phase, name;
  Kind kind = Kind::kOrdered;
  uint64_t hz = 0;
  std::vector<uint64_t> samples;  // index j = sample j
  // event_to_task of an edges build: how long after the read that ends the
  // window hi stored TK, least and most over the phase's kept samples (the
  // PHASE record's tk_lag_min=, tk_lag_max=, in the series' ticks).
  std::optional<std::pair<uint64_t, uint64_t>> tk_lag{};
};
struct Job {
  std::map<std::string, std::string> config;
  std::vector<DwtSeries> series;  // in the order their RAW lines start
};
// Reads a job's capture.raw (through the protocol's LineParser, as verify
// does; only lines with a valid integrity suffix count in a V2 log).
Result<Job> read_job(std::istream& in);

struct Options {
  // Per-sample tolerance; nullopt: 2 analyzer sample periods + gpio_latency_ns.
  std::optional<double> tolerance_ns;
  // The documented GPIO latency (docs/lab.md, "Reading an edges
  // disagreement"): a store to the pin's set/reset register reaching the
  // pin, after the DWT read it follows.
  double gpio_latency_ns = kDefaultGpioLatencyNs;
  static constexpr double kDefaultGpioLatencyNs = 50.0;
  // The observed event period may differ from CONFIG's by this share.
  double period_ratio = 0.01;
  // How analyse() reads the capture: sigrok-cli's -I (empty: sigrok's own
  // detection, "vcd" for a .vcd file) and the channel names of the roles.
  std::string input_format;
  Roles roles;
};

// Figures of one distribution: nearest-rank median and p99, and the maximum.
struct Figures {
  double median = 0, p99 = 0, max = 0;
};

struct Extra {
  int64_t seq = 0;  // the grid slot nearest to it, from the series' first
  double t_ns = 0;  // from the capture's start
};

enum class Status { kAgree, kSequence, kDisagree, kOverflow };
const char* to_string(Status s);  // "agree", "sequence", "disagree", "overflow"
int exit_code(Status s);          // 0, 2, 1, 3

struct SeriesResult {
  std::string phase, name;
  Kind kind = Kind::kOrdered;
  uint64_t n = 0, paired = 0, beyond = 0;
  Figures dwt_ns, edge_ns, diff_ns;                   // diff = edge - dwt, per paired sample
  std::vector<double> paired_dwt_ns, paired_edge_ns;  // the paired samples, in sample order
  double diff_median_cycles = 0, diff_p99_cycles = 0, diff_max_cycles = 0;
  double worst_diff_ns = 0;  // the paired sample with the largest |diff|
  int64_t worst_seq = -1;
  std::vector<int64_t> missing;  // sample numbers without their edge(s)
  std::vector<Extra> extra;
  double grid_period_ns = 0;               // observed (median interval)
  std::optional<double> config_period_ns;  // event_to_task: CONFIG irq_period_ticks / irq_hz
  bool period_disagrees = false;
  double tolerance_ns = 0;  // the analysis' tolerance plus the TK lag's spread
  std::optional<std::pair<double, double>> tk_lag_ns;  // subtracted: least, most (ns)
  Status status = Status::kAgree;
  std::vector<std::string> notes;
};

struct Analysis {
  Status status = Status::kAgree;
  std::string refusal;  // why, when kOverflow
  uint64_t samplerate = 0;
  double tolerance_ns = 0;
  uint64_t core_hz = 0;
  std::string edge_pins;  // CONFIG edge_pins (empty when absent)
  uint64_t mk_pulses = 0;
  std::vector<SeriesResult> series;
  std::string capture, job_capture;  // the files analyse() read (to_json writes them)
};

// Pairs the capture with the job. Fails (kBadInput) when the job is no
// edges=on capture or the capture has more MK pulses than edge-mapped series.
Result<Analysis> analyze(const Capture& capture, const Job& job, const Options& options);

// Runs sigrok-cli on `file` (input format `input_format` when not empty, e.g.
// "vcd" or "vcd:downsample=40"; else sigrok's own detection, srzip) with an
// argument vector and reads its VCD output. kUnavailable without sigrok-cli;
// an output saying "overflow" makes `overflowed` true.
struct SigrokRead {
  Capture capture;
  bool overflowed = false;
  std::string message;
};
Result<SigrokRead> read_with_sigrok(ProcessRunner& runner, const std::filesystem::path& file,
                                    const std::string& input_format, const Roles& roles,
                                    const std::filesystem::path& scratch);

// The capture.raw a job names: DIR/capture.raw (an attempt, or the file
// itself), else the last attempt-N/capture.raw of a job directory.
Result<std::filesystem::path> job_capture(const std::filesystem::path& job);

// The whole analysis, as `rtosbench edges` and the run call it: the job's
// capture.raw (job_capture), the analyzer's capture through sigrok-cli
// (scratch in a temporary directory), the pairing, and sigrok's own overflow
// report made the verdict. Tolerance: options.tolerance_ns, else 2 analyzer
// sample periods + options.gpio_latency_ns (the matrix's `edges:` key sets
// both, matrix::EdgesSpec). Errors: kUnavailable without sigrok-cli,
// kCannotRead, kBadInput (a capture or job that is not an edges=on pair).
Result<Analysis> analyse(ProcessRunner& runner, const std::filesystem::path& capture,
                         const std::filesystem::path& job, const Options& options);

nlohmann::json to_json(const Analysis& a);

// Adds an analysis (to_json's object, as edges.json holds it) to verify's
// JSON: each series entry (phase, name) the analysis covers gains "edges":
// {status, tolerance_ns, n, paired, dwt_ns, edge_ns, diff_ns, diff_cycles,
// missing, extra}, both figures and the verdict; and the top level
// "edges": {status, samplerate, tolerance_ns, refusal?, disagree: [series]}.
void attach_to_verify(nlohmann::json& verify_json, const nlohmann::json& edges_json);
std::string to_text(const Analysis& a);

}  // namespace rb::edges
