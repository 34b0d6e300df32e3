#pragma once
// Test helper: writes run directories as `rtosbench run` lays them out
// (run.json, matrix.yaml, jobs/<id>/result.json, jobs/<id>/attempt-1/
// capture.raw) from a few lines of description. Each job's capture is a real
// V2 log built here and checked with rb::verify, and its result.json is made
// with the store library's own to_json, so diff, regress, history and report
// read exactly what the run pipeline writes.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/line.h"
#include "store/result.h"
#include "util/atomic_write.h"
#include "util/sha256.h"
#include "verify/verify.h"

namespace rb::testrun {

struct SeriesSpec {
  std::string test;
  std::string phase;  // "" outside a phase
  std::string name;
  std::vector<uint64_t> samples;
  std::optional<uint64_t> base;  // base_ticks of the RESULT
};

// The board record the fixture's results carry, as the run pipeline writes
// it (result.json `board`): the declarations of the emulated board frozen
// here, so a report of a fixture run never depends on today's board.cmake.
inline store::BoardRecord fixture_board() {
  store::BoardRecord b;
  b.name = "qemu-netduinoplus2";
  b.not_measured = {
      {"irq_entry",
       "QEMU charges nothing for exception entry so every kernel reads the same ISR prologue"},
      {"time_slice", "QEMU ends every slice on the tick so every kernel reads one tick"},
      {"sleep_wake_entry",
       "QEMU charges nothing for exception entry or wake-up so every kernel "
       "reads the same ISR prologue"}};
  b.unstable = {{"sleep_wake",
                 "QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU "
                 "issue 2703"},
                {"sleep_wake_entry",
                 "QEMU 7.2 may warp virtual time while the core is halted in WFI - "
                 "QEMU issue 2703"}};
  return b;
}

struct JobSpec {
  std::string id;
  std::string kernel;
  std::string status = "OK";  // OK, INVALID and ANALYZER_* write a capture and figures
  std::string reason;
  std::map<std::string, std::string> config;  // CONFIG overrides (kernel, compiler, ...)
  std::vector<SeriesSpec> series;
  std::vector<std::pair<std::string, std::string>> not_applicable;  // NA name, reason
  std::string opt = "-O2 -g0";
  int tick_hz = 1000;
  int64_t text = 0, data = 0, bss = 0;  // footprint; none when all 0
  nlohmann::json footprint_kernel;      // build.footprint_kernel when not null (needs a footprint)
  bool write_capture = true;            // false: result.json names a capture that is not there
  std::string extra_noise;              // an other line in the capture (verify notes it)
  nlohmann::json loads;                 // written as `loads` when not null
  nlohmann::json spread;                // written as `spread` when not null
  nlohmann::json reproducibility;       // written as `reproducibility` when not null
  // result.json `board`; std::nullopt: a result older than the record.
  std::optional<store::BoardRecord> board = fixture_board();
};

struct RunSpec {
  std::string id;
  std::string started_at = "2026-01-01T00:00:00Z";
  std::string finished_at = "2026-01-01T00:01:00Z";
  std::string matrix_yaml = "matrix: fixture\n";
  std::vector<JobSpec> jobs;
  std::vector<std::string> pending;  // listed in run.json without a result.json
};

// Deterministic samples around `base`: a spread and a rare spike.
inline std::vector<uint64_t> samples(uint32_t seed, size_t n, uint64_t base, uint64_t spread,
                                     uint64_t spike = 0) {
  std::mt19937 rng(seed);
  std::vector<uint64_t> v;
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = base + (spread ? rng() % spread : 0);
    if (spike && rng() % 40 == 0) x += spike;
    v.push_back(x);
  }
  return v;
}

inline uint64_t median_of(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[(50 * v.size() + 99) / 100 - 1];
}

// The usual headline series of a kernel: ruler, api_overhead, wake_latency,
// round_trip, irq_latency idle pair, tick_overhead.
inline std::vector<SeriesSpec> kernel_series(uint32_t seed, uint64_t scale, size_t n = 64) {
  auto loop = samples(seed, n, 12, 3);
  uint64_t base = median_of(loop);
  return {
      {"ruler", "", "ruler_loop", loop, std::nullopt},
      {"api_overhead", "", "api_overhead", samples(seed + 1, n, 70 * scale / 10, 6), base},
      {"wake_latency", "", "wake_latency", samples(seed + 2, n, 120 * scale / 10, 8, 30), base},
      {"round_trip", "", "round_trip", samples(seed + 3, n, 250 * scale / 10, 10), base},
      {"irq_latency", "idle", "irq_entry", samples(seed + 4, n, 26, 3), std::nullopt},
      {"irq_latency", "idle", "event_to_task", samples(seed + 5, n, 140 * scale / 10, 6, 50),
       std::nullopt},
      {"tick_overhead", "", "tick_overhead", samples(seed + 6, n / 2, 40 * scale / 10, 4),
       std::nullopt},
  };
}

// The masking window of the fixture's phase critical, in event-timer ticks.
inline constexpr uint64_t kCriticalWindow = 2000;

// Phase critical's PHASE fields (docs/protocol.md section 6), computed here
// with plain loops from the job's busy and critical series.
inline std::string critical_fields(const std::vector<SeriesSpec>& all) {
  std::string out = ",window=" + std::to_string(kCriticalWindow);
  for (const auto& [name, prefix] : std::vector<std::pair<std::string, std::string>>{
           {"irq_entry", "entry"}, {"event_to_task", "task"}}) {
    const std::vector<uint64_t>* busy = nullptr;
    const std::vector<uint64_t>* crit = nullptr;
    for (const auto& s : all) {
      if (s.name == name && s.phase == "busy") busy = &s.samples;
      if (s.name == name && s.phase == "critical") crit = &s.samples;
    }
    if (!busy || !crit) continue;
    const uint64_t limit = *std::max_element(busy->begin(), busy->end());
    const uint64_t worst = *std::max_element(crit->begin(), crit->end());
    uint64_t delayed = 0;
    for (uint64_t v : *crit) delayed += v > limit ? 1 : 0;
    out += "," + prefix + "_limit=" + std::to_string(limit) + "," + prefix +
           "_delayed=" + std::to_string(delayed) + "," + prefix +
           "_worst=" + std::to_string(worst) + "," + prefix +
           "_beyond=" + std::to_string(worst > kCriticalWindow ? worst - kCriticalWindow : 0);
  }
  return out;
}

inline std::string raw_result(const std::string& name, const std::vector<uint64_t>& v,
                              std::optional<uint64_t> base, std::vector<std::string>& out) {
  for (size_t i = 0; i < v.size(); i += 16) {
    std::string r = "RAW," + name + "," + std::to_string(i);
    for (size_t k = i; k < std::min(v.size(), i + 16); ++k) r += "," + std::to_string(v[k]);
    out.push_back(r);
  }
  std::string r = "RESULT," + name + ",n=" + std::to_string(v.size()) + ",hz=1000000000";
  if (base) r += ",base_ticks=" + std::to_string(*base);
  out.push_back(r);
  return r;
}

// The V2 capture of a job: BEGIN, CONFIG, every test with its RAW and
// RESULT (PHASE lines for phased series), NA, END.
inline std::string capture_of(const JobSpec& j, std::map<std::string, std::string>& config) {
  config = {{"core", "168000000"},
            {"core_measured", "n/a"},
            {"tick", std::to_string(j.tick_hz)},
            {"fpu", "0"},
            {"compiler", "12.2.1 20221205"},
            {"opt", j.opt},
            {"kernel", j.kernel},
            {"kernel_version", "n/a"},
            {"board", "qemu-netduinoplus2"},
            {"harness", "00000000deadbeef"},
            {"counter", "tim2"},
            {"unit", "instructions"},
            {"debugger", "0"},
            {"nonce", "0badc0de"}};
  for (const auto& [k, v] : j.config) config[k] = v;
  std::vector<std::string> recs{"BEGIN,RTOS_BENCH_V2"};
  std::string c = "CONFIG";
  for (const auto& [k, v] : config) c += "," + k + "=" + v;
  recs.push_back(c);
  std::string test, phase;
  for (const auto& s : j.series) {
    if (s.test != test) {
      recs.push_back("TEST," + s.test);
      test = s.test;
      phase.clear();
    }
    if (s.phase != phase) {
      // The phase's counters: every series of the phase has the same n.
      recs.push_back("PHASE," + s.phase + ",irq=" + std::to_string(s.samples.size()) +
                     ",task=" + std::to_string(s.samples.size()) + ",bad=0,status=OK" +
                     (s.phase == "critical" ? critical_fields(j.series) : ""));
      phase = s.phase;
    }
    raw_result(s.name, s.samples, s.base, recs);
  }
  for (const auto& [n, r] : j.not_applicable) recs.push_back("NA," + n + ",reason=" + r);
  recs.push_back("END,RTOS_BENCH_V2");
  std::string text;
  if (!j.extra_noise.empty()) text += j.extra_noise + "\r\n";
  for (size_t i = 0; i < recs.size(); ++i) text += protocol::v2_line(recs[i], i) + "\r\n";
  return text;
}

inline void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  if (auto s = write_file_atomic(p, text); !s.ok()) throw std::runtime_error(s.error().message);
}

// One entry of a result's `loads` array: load `k`, OK, one sample per
// series at the given median (every statistic consistent), no attempts.
inline nlohmann::json load_entry(int k,
                                 const std::vector<std::pair<std::string, uint64_t>>& medians) {
  store::LoadRecord l;
  l.load = k;
  for (const auto& [name, median] : medians) {
    verify::SeriesStats s;
    s.name = name;
    s.n = 1;
    s.hz = 1000000000;
    s.min = s.median = s.p90 = s.p99 = s.p999 = s.max = s.sum = s.avg_ticks = median;
    s.avg_ns = median;
    l.series.push_back(store::series_record(s));
  }
  return nlohmann::json(l);
}

// Writes the run under `parent`/<id> and returns that directory.
inline std::filesystem::path write_run(const std::filesystem::path& parent, const RunSpec& run) {
  std::filesystem::path root = parent / run.id;
  std::filesystem::create_directories(root / "jobs");
  write(root / "matrix.yaml", run.matrix_yaml);
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobSpec& j : run.jobs) {
    store::JobResult r;
    r.run_id = run.id;
    r.job_id = j.id;
    r.build_id = j.id;
    r.status = *store::status_from_string(j.status);
    r.reason = j.reason;
    r.job.id = j.id;
    r.job.kernel = j.kernel;
    r.job.board = "qemu-netduinoplus2";
    r.board = j.board;
    r.job.variant = {{"opt", j.opt}, {"tick_hz", std::to_string(j.tick_hz)}};
    r.job.kernel_version = "n/a";
    r.kernel_source = store::KernelSource{};
    if (j.text || j.data || j.bss) {
      r.build = store::BuildRecord{};
      r.build->footprint = store::Sections{j.text, j.data, j.bss, j.text + j.data, j.data + j.bss};
      if (!j.footprint_kernel.is_null()) {
        auto fk = store::kernel_footprint_from_json(j.footprint_kernel);
        if (!fk.ok()) throw std::runtime_error(fk.error().message);
        r.build->footprint_kernel = *fk;
      }
    }
    r.finished_at = run.finished_at;
    if (j.status == "OK" || j.status == "INVALID" ||
        store::is_analyzer_failure(r.status)) {  // the DWT capture verified OK
      std::map<std::string, std::string> config;
      std::string capture = capture_of(j, config);
      std::istringstream in(capture);
      verify::Options options;
      verify::Report report = verify::verify_stream(in, options);
      store::AttemptRecord a;
      a.number = 1;
      a.status = r.status;
      a.board = "qemu-0";
      a.started_at = run.started_at;
      a.capture_stop = "end";
      a.raw_file = "attempt-1/capture.raw";
      a.raw_sha256 = sha256_hex(capture);
      a.verify_outcome = verify::to_string(report.outcome);
      a.verdicts = store::verdicts_of(report);
      r.attempts.push_back(a);
      r.conditions = report.config;
      r.unit = report.config.count("unit") ? report.config.at("unit") : "";
      for (const auto& s : report.series) r.series.push_back(store::series_record(s));
      for (const auto& [n, reason] : report.not_applicable) {
        r.not_applicable.push_back({n, reason});
      }
      r.verify = store::verify_document(report);
      r.headline = store::headline_of(report);
      if (j.write_capture) write(root / "jobs" / j.id / "attempt-1" / "capture.raw", capture);
    }
    nlohmann::json doc = store::to_json(r);
    if (!j.loads.is_null()) doc["loads"] = j.loads;
    if (!j.spread.is_null()) doc["spread"] = j.spread;
    if (!j.reproducibility.is_null()) doc["reproducibility"] = j.reproducibility;
    write(root / "jobs" / j.id / "result.json", doc.dump(2) + "\n");
    jobs.push_back({{"id", j.id}, {"kernel", j.kernel}, {"status", j.status}});
  }
  for (const auto& p : run.pending) jobs.push_back({{"id", p}, {"status", "PENDING"}});
  nlohmann::json summary{{"schema", store::kRunSummarySchema},
                         {"schema_version", store::kSchemaVersion},
                         {"run_id", run.id},
                         {"state", "finished"},
                         {"started_at", run.started_at},
                         {"finished_at", run.finished_at},
                         {"rtosbench_version", "0.1.0"},
                         {"matrix", {{"name", "fixture"}, {"snapshot", "matrix.yaml"}}},
                         {"bench", {{"name", "qemu"}, {"snapshot", "bench.yaml"}}},
                         {"toolchain",
                          {{"arm_none_eabi_gcc", "12.2.1"},
                           {"arm_none_eabi_gcc_banner", "arm-none-eabi-gcc 12.2.1 20221205"},
                           {"cmake", "3.25.1"},
                           {"ninja", "1.11.1"}}},
                         {"jobs", jobs}};
  write(root / "run.json", summary.dump(2) + "\n");
  return root;
}

// The run most tests start from: the bare reference scheduler, two kernels and one job
// that did not build. `scale` stretches the kernels' figures (in tenths).
inline RunSpec standard_run(const std::string& id, const std::string& started_at,
                            uint64_t scale = 10) {
  RunSpec r;
  r.id = id;
  r.started_at = started_at;
  r.finished_at = started_at.substr(0, 17) + "59Z";
  JobSpec bare{"bare-O2-tick1000-fpu0", "bare"};
  bare.series = kernel_series(10, 3);
  bare.text = 17832;
  bare.bss = 20360;
  JobSpec fr{"freertos-O2-tick1000-fpu0", "freertos"};
  fr.series = kernel_series(20, 10 * scale / 10);
  fr.config = {{"kernel_version", "10.5.1"}};
  fr.text = 26120;
  fr.data = 16;
  fr.bss = 23432;
  JobSpec tx{"threadx-O2-tick1000-fpu0", "threadx"};
  tx.series = kernel_series(30, 7 * scale / 10);
  tx.series.pop_back();  // no tick_overhead
  tx.not_applicable = {{"tick_overhead", "the tick is a ThreadX timer thread and not an ISR"}};
  tx.config = {{"kernel_version", "6.2.0"}};
  tx.text = 24040;
  tx.data = 8;
  tx.bss = 22304;
  tx.write_capture = false;  // drawn from statistics
  tx.extra_noise = "ThreadX banner";
  JobSpec nx{"nuttx-O2-tick1000-fpu0", "nuttx"};
  nx.status = "BUILD_ERROR";
  nx.reason = "cmake configure failed (exit status 1)";
  r.jobs = {bare, fr, tx, nx};
  return r;
}

// A fresh, empty directory under the system's temporary directory.
inline std::filesystem::path temp_dir(const std::string& name) {
  std::filesystem::path d = std::filesystem::temp_directory_path() /
                            ("rtosbench-" + name + "-" + std::to_string(::getpid()) + "-" +
                             std::to_string(std::random_device{}()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace rb::testrun
