#include "run/runner.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include "build/footprint.h"
#include "edges/edges.h"
#include "matrix/expand.h"
#include "run/plan.h"
#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/sha256.h"
#include "util/version.h"

namespace rb::run {

using nlohmann::json;
using store::JobStatus;

std::map<std::string, std::string> job_expect(const matrix::Matrix& m, const matrix::Job& job,
                                              const std::string& nonce,
                                              const std::string& kernel_commit) {
  std::map<std::string, std::string> fixed{{"nonce", nonce},
                                           {"port", job.kernel.port},
                                           {"board", job.board},
                                           {"kernel_version", job.kernel.version},
                                           {"kernel_commit", kernel_commit},
                                           {"samples", std::to_string(job.samples)},
                                           {"warmup", std::to_string(job.warmup)}};
  for (const auto& a : model::axes()) fixed[std::string(a.config)] = job.axis(std::string(a.key));
  auto pins = matrix::declared_pins(m, job.kernel, job.board, fixed);
  // A kernel's `checks: partial` says that its `off` build keeps checks it
  // cannot compile out (docs/kernels.md); its `on` build has them all.
  if (job.axis("checks") == "on" && pins.count("checks") && pins["checks"] == "partial") {
    pins["checks"] = "on";
  }
  return pins;
}

void add_bench_pins(std::map<std::string, std::string>& pins, const matrix::BoardInstance& b) {
  pins.emplace("start", "host");
  if (!b.emulated) {
    pins.emplace("baud", std::to_string(b.baud));
    pins.emplace("reset_cause", b.reset == matrix::ResetMethod::kPowerCycle ? "por"
                                : b.reset == matrix::ResetMethod::kHardware ? "pin"
                                                                            : "sw");
  }
}

int exit_code_for(const std::vector<store::JobResult>& results, int jobs_total, bool interrupted) {
  auto any = [&](auto pred) { return std::ranges::any_of(results, pred); };
  if (any([](const auto& r) { return r.status == JobStatus::kStoreError; }))
    return kExitStoreFailed;
  if (interrupted) return 130;
  auto failed = [](const store::JobResult& r) { return !store::counts_as_success(r.status); };
  if (any([&](const auto& r) { return failed(r) && store::is_infrastructure_failure(r.status); }))
    return kExitInfrastructureFailed;
  if (any(failed)) return kExitMeasurementFailed;
  // Jobs that never ran are an infrastructure failure.
  return static_cast<int>(results.size()) < jobs_total ? kExitInfrastructureFailed : kExitAllOk;
}

namespace {

// One headline cell of the closing table: the series' median net of its
// ruler baseline (median_minus_base_ticks, as the report's headline), else
// its raw median marked `*`; "-" when the job has no such series.
std::string net_cell(const store::JobResult& r, const store::HeadlineSeries& c) {
  for (const auto& s : r.series) {
    if (s.name != c.name || s.phase != c.phase) continue;
    if (s.median_minus_base_ticks) return std::to_string(*s.median_minus_base_ticks);
    return std::to_string(s.median_ticks) + "*";
  }
  for (const auto& h : r.headline) {  // a result without its series: the raw median
    if (h.name == c.name && h.phase == c.phase) return std::to_string(h.median_ticks) + "*";
  }
  return "-";
}

}  // namespace

std::string format_table(const std::vector<store::JobResult>& results) {
  const auto& kCols = store::headline_series();
  size_t wid = 3, wst = 6;
  std::string unit;
  for (const auto& r : results) {
    wid = std::max(wid, r.job_id.size());
    wst = std::max(wst, std::string(store::to_string(r.status)).size());
    if (r.status == JobStatus::kOk && !r.unit.empty()) unit = r.unit;
  }
  std::string out = fmt::format("{:<{}}  {:<{}}", "job", wid, "status", wst);
  for (const auto& c : kCols) out += fmt::format("  {:>19}", c.column());
  out += "  note\n";
  for (const auto& r : results) {
    const bool ok = r.status == JobStatus::kOk;
    out += fmt::format("{:<{}}  {:<{}}", r.job_id, wid, store::to_string(r.status), wst);
    for (const auto& c : kCols) out += fmt::format("  {:>19}", ok ? net_cell(r, c) : "-");
    std::string note = !ok ? r.reason : r.reproducibility ? r.reproducibility->summary : "";
    if (note.size() > 120) note = note.substr(0, 117) + "...";
    out += "  " + note + "\n";
  }
  if (!unit.empty()) {
    out += fmt::format(
        "net medians in {}{}: the median minus its ruler baseline, as the report's headline "
        "shows and ranks them; *: no ruler baseline, the raw median\n",
        unit, unit == "instructions" ? " (QEMU -icount: instruction counts, not core cycles)" : "");
  }
  return out;
}

namespace {

// A build node's outcome, set by the build worker.
struct BuildGroup {
  const BuildNode* node = nullptr;
  bool ok = false;
  JobStatus status = JobStatus::kOk;
  std::string reason;
  kernels::ResolvedKernel kernel;
  std::optional<build::BuildOutput> output;
  std::vector<store::BuildAttemptRecord> attempts;
  // build.footprint_kernel: the kernel-alone figure against the bare port's
  // image, or {"error": ...}; null for a bare-port image.
  json footprint_kernel;
};

store::KernelSource kernel_json(const kernels::ResolvedKernel& k) {
  store::KernelSource out;
  out.has_source = k.has_source;
  if (!k.has_source) return out;
  auto repo = [](const kernels::ResolvedRepo& r) {
    return store::SourceCheckout{r.name,   r.path.string(), r.origin, r.tag, r.pinned_commit,
                                 r.commit, r.at_tag,        r.dirty,  r.note};
  };
  out.main = repo(k.main);
  for (const auto& e : k.extras) out.extras.push_back(repo(e));
  return out;
}

store::Toolchain toolchain_json(const build::Toolchain& t) {
  return store::Toolchain{t.gcc_version, t.gcc_banner, t.cmake_version, t.ninja_version,
                          t.gcc_path,    t.gcc_sha256, t.cc1_path,      t.cc1_sha256};
}

// `repeats`: the loads this job runs (each a cold start of its image).
store::JobSpec job_json(const matrix::Job& j, int repeats) {
  const auto& k = j.kernel;
  store::JobSpec spec{
      j.id,     j.build_id, k.name,    k.version, k.git,     k.tag,
      k.commit, k.note,     k.port,    j.board,   j.variant, model::opt_id(j.axis("opt")),
      repeats,  j.tests,    j.samples, j.warmup,  {}};
  for (const auto& u : k.unequal) spec.unequal.push_back({u.what, u.series, u.note});
  return spec;
}

JobStatus status_of(verify::Outcome o) {
  using verify::Outcome;
  return o == Outcome::kValid        ? JobStatus::kOk
         : o == Outcome::kInvalid    ? JobStatus::kInvalid
         : o == Outcome::kUnverified ? JobStatus::kUnverified
                                     : JobStatus::kProtocolError;
}

// The first three verdicts of the (failed) report's outcome, and how many more.
std::string verdict_summary(const verify::Report& report) {
  std::vector<std::string> parts;
  size_t all = 0;
  for (const auto& v : report.verdicts) {
    if (v.severity != report.outcome) continue;
    if (++all <= 3)
      parts.push_back(v.line ? fmt::format("line {}: {}", v.line, v.message) : v.message);
  }
  std::string s = fmt::format("{}", fmt::join(parts, "; "));
  if (all > parts.size()) s += fmt::format(" (+{} more)", all - parts.size());
  return s;
}

Status copy_into(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::create_directories(to.parent_path(), ec);
  if (!ec)
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec)
    return make_error(ErrorKind::kStore, fmt::format("cannot copy {} to {}: {}", from.string(),
                                                     to.string(), ec.message()));
  return {};
}

// A store error is never retried: the disk, not the board, failed.
bool retryable_capture(JobStatus s) {
  return s == JobStatus::kTimeout || s == JobStatus::kPortError || s == JobStatus::kProtocolError;
}

double seconds_since(const Clock& clock, std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(clock.now() - t0).count();
}

class Session {
 public:
  Session(ProcessRunner& processes, Progress& progress, const Clock& clock,
          const RunnerParts& parts, const RunConfig& config, RunDirectory& dir)
      : processes_(processes),
        progress_(progress),
        clock_(clock),
        parts_(parts),
        cfg_(config),
        dir_(dir),
        resolver_(processes, config.kernel_options),
        builder_(parts.builder(config.build_cache)),
        bench_(make_bench(config.bench, parts, clock)) {}

  RunOutcome run() {
    auto start = clock_.now();
    plan_ = make_plan(cfg_.matrix, dir_);
    for (const auto& n : plan_.jobs) results_.push_back(n.finished);
    write_summary("running");
    // Jobs without a port are final at once.
    for (size_t i = 0; i < plan_.jobs.size(); ++i) {
      const auto& j = plan_.jobs[i].job;
      if (results_[i] || j.port_exists) continue;
      store::JobResult r = base_result(j);
      r.status = JobStatus::kPortMissing;
      r.reason = j.port_missing_reason;
      finish(i, std::move(r), 0, false);
    }
    for (const auto& b : plan_.builds) groups_.emplace_back().node = &b;
    builds_left_ = groups_.size();

    std::vector<std::thread> threads;
    int workers = std::max(1, std::min<int>(cfg_.build_workers, static_cast<int>(groups_.size())));
    for (int w = 0; w < workers && !groups_.empty(); ++w) {
      threads.emplace_back([this, w] { build_worker(w); });
    }
    for (const auto& b : cfg_.bench.boards) {
      if (std::ranges::find(cfg_.matrix.boards, b.board) == cfg_.matrix.boards.end()) continue;
      // An entry runs as many jobs at once as its bench allows, one worker each.
      const int lanes = bench_->lanes(b);
      for (int k = 1; k <= lanes; ++k) {
        std::string slot = lanes > 1 ? fmt::format("{}#{}", b.id, k) : b.id;
        threads.emplace_back([this, b, slot] { board_worker(b, slot); });
      }
    }
    std::atomic<bool> all_done{false};
    std::thread ticker([&] {
      while (!all_done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        progress_.tick();
      }
    });
    for (auto& t : threads) t.join();
    all_done = true;
    ticker.join();

    RunOutcome out;
    out.interrupted = interrupt_requested();
    for (auto& r : results_) {
      if (r) out.results.push_back(*r);
    }
    out.jobs_total = static_cast<int>(plan_.jobs.size());
    out.wall_seconds = seconds_since(clock_, start);
    out.target_run_seconds = target_run_seconds_;
    out.exit_code = exit_code_for(out.results, out.jobs_total, out.interrupted);
    if (!out.interrupted && static_cast<int>(out.results.size()) < out.jobs_total) {
      progress_.note("some jobs did not run (no board took them)");
    }
    if (!summary_error_.empty()) out.exit_code = kExitStoreFailed;
    out.summary = write_summary(out.interrupted ? "interrupted" : "complete", &out);
    if (!summary_error_.empty()) {
      out.store_error = summary_error_;
      out.exit_code = kExitStoreFailed;
    }
    return out;
  }

 private:
  store::JobResult base_result(const matrix::Job& j) {
    store::JobResult r;
    r.run_id = dir_.id();
    r.job_id = j.id;
    r.build_id = j.build_id;
    r.job = job_json(j, std::max(1, cfg_.matrix.repeats));
    if (const auto* b = cfg_.matrix.catalog.board(j.board)) {
      r.board = store::BoardRecord{b->name, b->not_measured, b->unstable, {}};
      for (const auto& [series, lb] : b->lower_bounds)
        r.board->lower_bounds[series] = store::LowerBoundRecord{lb.cycles, lb.why};
    }
    r.toolchain = toolchain_json(cfg_.toolchain);
    return r;
  }

  void fill_build(store::JobResult& r, const BuildGroup& g) {
    if (g.kernel.has_source || g.ok) r.kernel_source = kernel_json(g.kernel);
    r.build_attempts = g.attempts;
    if (!g.output) return;
    json b = build::to_json(*g.output);
    b["elf"] = "firmware/rtosbench-fw.elf";
    b["map"] = "firmware/rtosbench-fw.map";
    b["bin"] = "firmware/rtosbench-fw.bin";
    b["log"] = "build.log";
    if (!g.footprint_kernel.is_null()) b["footprint_kernel"] = g.footprint_kernel;
    auto record = store::build_from_json(b);  // the result schema's one reader checks it
    if (record.ok())
      r.build = std::move(*record);
    else
      progress_.note(fmt::format("{}: build record: {}", r.job_id, record.error().message));
  }

  // Records a job's final result: result.json first, then run.json.
  void finish(size_t index, store::JobResult r, double seconds, bool counted) {
    r.finished_at = store::utc_timestamp();
    job_log(r.job_id, fmt::format("final status {}{}", store::to_string(r.status),
                                  r.reason.empty() ? "" : ": " + r.reason));
    std::error_code ec;
    std::filesystem::create_directories(dir_.job_dir(r.job_id), ec);
    auto s = ec ? Status(make_error(ErrorKind::kStore,
                                    fmt::format("cannot create {}: {}",
                                                dir_.job_dir(r.job_id).string(), ec.message())))
                : store::write_job_result(dir_.result_file(r.job_id), r);
    if (!s.ok()) {
      // Not kept: the run says so (STORE_ERROR, exit 74) and a resume does the job again.
      progress_.note("cannot write result: " + s.error().message);
      r.status = JobStatus::kStoreError;
      r.reason = (r.reason.empty() ? "" : r.reason + "; ") +
                 "result.json not written: " + s.error().message;
    }
    std::string detail = r.status == JobStatus::kOk ? headline_text(r) : r.reason;
    if (r.status == JobStatus::kOk && r.reproducibility) {
      detail += (detail.empty() ? "" : "; ") + r.reproducibility->summary;
    }
    std::string status = store::to_string(r.status), id = r.job_id;
    {
      std::lock_guard lock(mu_);
      results_[index] = std::move(r);
    }
    write_summary("running");
    progress_.finished(id, status, detail, seconds, counted);
  }

  // One timestamped line in jobs/<id>/job.log: what the runner decided and
  // when, next to the tools' own logs.
  void job_log(const std::string& job, const std::string& line) {
    std::error_code ec;
    std::filesystem::create_directories(dir_.job_dir(job), ec);
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    localtime_r(&t, &tm);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
    // Never through a link (O_NOFOLLOW): the log stays inside the run.
    if (auto s = append_to_file(
            dir_.job_dir(job) / "job.log",
            fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03} {}\n", tm, ms.count() % 1000, line));
        !s.ok()) {
      progress_.note(fmt::format("{}: cannot write job.log: {}", job, s.error().message));
    }
  }

  void jobs_log(const BuildGroup& g, const std::string& line) {
    for (size_t ji : g.node->jobs) job_log(plan_.jobs[ji].job.id, line);
  }

  static std::string headline_text(const store::JobResult& r) {
    std::vector<std::string> parts;
    for (const auto& h : r.headline) parts.push_back(fmt::format("{} {}", h.name, h.median_ticks));
    if (parts.empty()) return "";
    return fmt::format("medians: {} {}", fmt::join(parts, ", "), r.headline.front().unit);
  }

  json write_summary(const std::string& state, const RunOutcome* out = nullptr) {
    std::lock_guard lock(summary_mu_);
    // What an earlier session wrote: its start, options and sessions stay.
    store::RunSummary s;
    if (auto prev = store::run_summary_from_json(dir_.summary()); prev.ok()) {
      s.started_at = prev->started_at;
      s.options = prev->options;
      s.sessions = prev->sessions;
    }
    if (s.started_at.empty()) s.started_at = store::utc_timestamp();
    s.run_id = dir_.id();
    s.state = state;
    s.updated_at = store::utc_timestamp();
    s.rtosbench_version = kVersion;
    auto sha = [](const std::filesystem::path& f) {
      auto h = sha256_file(f);
      return h.ok() ? *h : std::string();
    };
    s.matrix = store::RunInput{cfg_.matrix.name, "matrix.yaml", cfg_.original_matrix,
                               sha(dir_.matrix_snapshot())};
    s.bench = store::RunInput{cfg_.bench.name, "bench.yaml", cfg_.original_bench,
                              sha(dir_.bench_snapshot())};
    s.toolchain = toolchain_json(cfg_.toolchain);
    {
      std::lock_guard l(mu_);
      for (size_t i = 0; i < plan_.jobs.size(); ++i) {
        store::RunJobEntry e;
        e.id = plan_.jobs[i].job.id;
        e.kernel = plan_.jobs[i].job.kernel.name;
        if (const auto& r = results_[i]) {
          e.status = store::to_string(r->status);
          e.reason = r->reason;
          e.result = fmt::format("jobs/{}/result.json", r->job_id);
          e.attempts = static_cast<int64_t>(r->attempts.size());
          e.headline = r->headline;
          if (r->reproducibility) {
            e.loads = r->loads ? static_cast<int64_t>(r->loads->size()) : 0;
            e.reproducible = r->reproducibility->reproducible;
          }
        }
        ++s.counts[e.status];
        s.jobs.push_back(std::move(e));
      }
    }
    if (out) {
      s.sessions.push_back(store::RunSession{store::utc_timestamp(), state, out->wall_seconds,
                                             out->target_run_seconds, out->exit_code, ""});
      s.exit_code = out->exit_code;
      s.finished_at = store::utc_timestamp();
    }
    json doc(s);
    if (auto w = dir_.write_summary(doc); !w.ok()) {
      progress_.note("cannot write run.json: " + w.error().message);
      std::lock_guard l(mu_);
      if (summary_error_.empty()) summary_error_ = w.error().message;
    }
    return doc;
  }

  // The reference port's image (the port whose kernel.yaml says `reference:
  // true`: bare) the matrix builds (or would build) with a kernel job's
  // options: the matrix's own entry of that port when it has one (by name
  // first), so the reference is that job's image (a build-cache hit); else
  // the catalog's. nullopt when the firmware tree has no reference port.
  std::optional<matrix::KernelSpec> reference_kernel() const {
    const model::KernelSpec* ref = cfg_.matrix.catalog.reference();
    if (!ref) return std::nullopt;
    const matrix::KernelSpec* same_port = nullptr;
    for (const auto& k : cfg_.matrix.kernels) {
      if (k.port != ref->port || k.needs_source()) continue;
      if (k.name == ref->name) return k;
      if (!same_port) same_port = &k;
    }
    return same_port ? *same_port : *ref;
  }

  // build.footprint_kernel of a kernel image: the bare port's image with the
  // same board, RB_OPT, tick, FPU, samples, warm-up and tests (never
  // tickless: that is the kernel's), built through the same builder and
  // cache (recorded in builds/<id>/bare-reference/), and the kernel-alone
  // footprint against it. A failure is recorded as {"error": why} and
  // noted; it never fails the job, whose image is fine.
  json kernel_alone(const BuildGroup& g, const matrix::Job& lead) {
    const auto ref = dir_.bare_reference_dir(g.node->build_id);
    const auto log = ref / "build.log";
    const std::string log_rel = std::filesystem::relative(log, dir_.root()).string();
    std::error_code ec;
    std::filesystem::create_directories(ref, ec);
    matrix::Job bare = lead;
    const auto reference = reference_kernel();
    if (reference) bare.kernel = *reference;
    bare.variant["tickless"] = "0";  // a kernel's option: the bare port has no tick to stop
    const std::string what = fmt::format("the {} reference image", bare.kernel.port);
    json fk;
    if (!reference) {
      fk = json{{"error",
                 "the firmware tree has no reference port (no kernel.yaml says "
                 "'reference: true')"}};
    } else if (auto kernel = resolver_.resolve(bare.kernel, ref / "source.log"); !kernel.ok()) {
      fk = json{{"error", what + " has no source: " + kernel.error().message}};
    } else if (auto out = builder_->build(build_request(bare, *kernel, log)); !out.ok()) {
      fk = json{{"error", what + " did not build: " + out.error().message}};
    } else {
      // A record for readers; nothing resumes from it.
      (void)copy_into(out->map, ref / "rtosbench-fw.map");
      (void)copy_into(out->size_json, ref / "size.json");
      auto f = build::kernel_footprint_of(*g.output, lead.kernel.footprint, *out,
                                          bare.kernel.footprint, bare.kernel.port);
      fk = f.ok() ? build::to_json(*f) : json{{"error", f.error().message}};
      fk["bare_key"] = out->key;
      fk["bare_cached"] = out->cached;
    }
    // bare_key, bare_cached, bare_log and the builds/<id>/bare-reference/
    // directory keep the names they had when the reference port was always
    // bare (docs/results.md); `reference` in the figures names its port.
    fk["bare_log"] = log_rel;
    if (reference) fk["reference"] = bare.kernel.port;
    if (fk.contains("error")) {
      std::string line = fmt::format("kernel-alone footprint not computed ({}): {}", log_rel,
                                     fk["error"].get<std::string>());
      progress_.note(fmt::format("{}: {}", g.node->build_id, line));
      jobs_log(g, line);
    } else {
      jobs_log(g,
               fmt::format("kernel alone: flash {} B, RAM {} B (image minus the {} image {}, {})",
                           fk["delta"]["flash"].get<int64_t>(), fk["delta"]["ram"].get<int64_t>(),
                           bare.kernel.port, fk["bare_key"].get<std::string>().substr(0, 16),
                           fk["bare_cached"].get<bool>() ? "from the build cache" : "built"));
    }
    return fk;
  }

  build::BuildRequest build_request(const matrix::Job& job, const kernels::ResolvedKernel& kernel,
                                    const std::filesystem::path& log) const {
    build::BuildRequest req;
    req.job = job;
    req.firmware_dir = cfg_.matrix.firmware;
    req.kernel = kernel;
    req.toolchain = cfg_.toolchain;
    req.log = log;
    req.timeout = std::chrono::milliseconds(static_cast<long>(cfg_.matrix.timeouts.build_s * 1000));
    req.parallel = cfg_.build_parallel;
    return req;
  }

  void build_worker(int worker) {
    std::string slot =
        groups_.size() > 1 && cfg_.build_workers > 1 ? fmt::format("build{}", worker + 1) : "build";
    while (true) {
      size_t gi;
      {
        std::lock_guard lock(mu_);
        if (next_group_ >= groups_.size() || interrupt_requested()) break;
        gi = next_group_++;
      }
      BuildGroup& g = groups_[gi];
      build_group(g, slot);
      progress_.idle(slot);
      {
        std::lock_guard lock(mu_);
        --builds_left_;
        if (g.ok) ready_.insert(g.node->jobs.begin(), g.node->jobs.end());
      }
      if (!g.ok && g.status != JobStatus::kInterrupted && !interrupt_requested()) {
        for (size_t ji : g.node->jobs) {
          store::JobResult r = base_result(plan_.jobs[ji].job);
          fill_build(r, g);
          r.status = g.status;
          r.reason = g.reason;
          finish(ji, std::move(r), 0, true);
        }
      }
      cv_.notify_all();
    }
    {
      std::lock_guard lock(mu_);
      // Groups never started (interrupted) are not coming.
      if (interrupt_requested()) builds_left_ = 0;
    }
    cv_.notify_all();
  }

  // The group's image: its kernel source resolved, built (retried per
  // `retries:`), copied into each job's directory, and its kernel-alone
  // footprint against the reference image. g.ok, or g.status and g.reason.
  void build_group(BuildGroup& g, const std::string& slot) {
    const matrix::Job& lead = plan_.jobs[g.node->jobs.front()].job;
    const std::string& id = g.node->build_id;
    progress_.stage(slot, id, "source");
    auto kernel = resolver_.resolve(lead.kernel, dir_.root() / "builds" / id / "source.log");
    if (!kernel.ok()) {
      g.status = JobStatus::kSourceMissing;
      g.reason = kernel.error().message;
      return;
    }
    g.kernel = *kernel;
    for (int attempt = 0; attempt <= cfg_.matrix.retries.build && !interrupt_requested();
         ++attempt) {
      progress_.stage(slot, id, attempt ? fmt::format("build (retry {})", attempt) : "build");
      int n = dir_.next_build_attempt(id);
      std::filesystem::path log = dir_.build_attempt_dir(id, n) / "build.log";
      auto t0 = clock_.now();
      std::error_code ec;
      std::filesystem::create_directories(log.parent_path(), ec);
      auto out = builder_->build(build_request(lead, g.kernel, log));
      double secs = seconds_since(clock_, t0);
      std::string rel = std::filesystem::relative(log, dir_.root()).string();
      if (out.ok()) {
        g.attempts.push_back({n, true, out->cached ? "cache hit" : "", secs, rel});
        jobs_log(g, fmt::format("image {} ({}, key {}, elf sha256 {})",
                                out->cached ? "from the build cache" : "built", rel,
                                out->key.substr(0, 16), out->elf_sha256));
        keep_image(g, *out, log);
        if (g.ok && g.node->reference && !interrupt_requested()) {
          progress_.stage(slot, id, "reference image");
          g.footprint_kernel = kernel_alone(g, lead);
        }
        return;
      }
      g.attempts.push_back({n, false, out.error().message, secs, rel});
      jobs_log(g, fmt::format("build attempt {} failed: {}", n, out.error().message));
      g.status = interrupt_requested()                   ? JobStatus::kInterrupted
                 : build::variant_not_built(out.error()) ? JobStatus::kPortMissing
                                                         : JobStatus::kBuildError;
      g.reason = out.error().message;
      if (build::rebuild_cannot_help(out.error())) return;  // no retry builds it
    }
  }

  // The jobs flash these copies: a copy not made fails the jobs as STORE_ERROR.
  void keep_image(BuildGroup& g, const build::BuildOutput& out, const std::filesystem::path& log) {
    g.output = out;
    g.ok = true;
    for (size_t ji : g.node->jobs) {
      auto jd = dir_.job_dir(plan_.jobs[ji].job.id);
      auto fw = jd / "firmware";
      for (const auto& [from, to] :
           {std::pair{out.elf, fw / "rtosbench-fw.elf"},
            std::pair{out.map, fw / "rtosbench-fw.map"},
            std::pair{out.bin, fw / "rtosbench-fw.bin"}, std::pair{out.size_json, fw / "size.json"},
            std::pair{log, jd / "build.log"}}) {
        if (auto c = copy_into(from, to); !c.ok() && g.ok) {
          g.ok = false;
          g.status = JobStatus::kStoreError;
          g.reason = c.error().message;
        }
      }
    }
  }

  void board_worker(const matrix::BoardInstance& board, const std::string& slot) {
    auto lane = bench_->lane(board);
    while (true) {
      size_t ji;
      {
        // The first built job of this instance's board type.
        std::unique_lock lock(mu_);
        auto mine = [&] {
          return std::ranges::find_if(
              ready_, [&](size_t j) { return plan_.jobs[j].job.board == board.board; });
        };
        cv_.wait_for(lock, std::chrono::milliseconds(100), [&] {
          return mine() != ready_.end() || builds_left_ == 0 || interrupt_requested();
        });
        if (interrupt_requested()) break;
        auto it = mine();
        if (it == ready_.end()) {
          if (builds_left_ == 0) break;
          continue;
        }
        ji = *it;
        ready_.erase(it);
      }
      run_job(ji, board, slot, *lane);
      progress_.idle(slot);
    }
  }

  void run_job(size_t ji, const matrix::BoardInstance& board, const std::string& slot,
               BenchLane& lane) {
    const JobNode& node = plan_.jobs[ji];
    const matrix::Job& job = node.job;
    const BuildGroup& group = groups_[node.build];
    auto job_start = clock_.now();
    store::JobResult r = base_result(job);
    fill_build(r, group);
    r.expect = job_expect(cfg_.matrix, job, group.output->nonce,
                          group.kernel.has_source ? group.kernel.main.commit : "n/a");
    add_bench_pins(r.expect, board);
    const int planned = plan_.loads_per_job;
    std::vector<LoadOutcome> loads;
    double target_seconds = 0;
    lane.new_job();  // the board holds no image of this job yet: the first load programs it
    for (const LoadNode& l : node.loads) {
      const int k = l.number;
      if (l.kept) {
        job_log(job.id, fmt::format("load {} of {}: kept from an earlier session ({})", k, planned,
                                    store::to_string(l.kept->status)));
        loads.push_back(*l.kept);
      } else {
        auto load = run_load(job, board, slot, lane, l.dir, k, r.expect);
        if (!load) return;  // interrupted: no result; --resume redoes the unfinished loads
        target_seconds += load->target_run_seconds;
        if (k) {
          load->finished_at = store::utc_timestamp();
          if (auto w = store::write_load(l.dir / "load.json", *load); !w.ok()) {
            // Resume would redo it, so the job reports it lost.
            load->status = JobStatus::kStoreError;
            load->reason = w.error().message;
          }
          job_log(job.id,
                  fmt::format("load {} of {}: {}{}", k, planned, store::to_string(load->status),
                              load->reason.empty() ? "" : ": " + load->reason));
        }
        loads.push_back(std::move(*load));
      }
      // A failed load makes the job fail; the remaining loads would not change that.
      if (loads.back().status != JobStatus::kOk) break;
    }
    fill_from_loads(r, loads, planned, reproducibility_policy(cfg_.matrix, board));
    {
      std::lock_guard lock(mu_);
      target_run_seconds_ += target_seconds;
    }
    finish(ji, std::move(r), seconds_since(clock_, job_start), true);
  }

  // Every attempt of one load (flash + capture + verify, retried per
  // `retries:`), its attempt directories under `base`, after those an
  // interrupted earlier session left. `load` is 0 when the job is not
  // repeated. Empty when the run was interrupted.
  std::optional<LoadOutcome> run_load(const matrix::Job& job, const matrix::BoardInstance& board,
                                      const std::string& slot, BenchLane& lane,
                                      const std::filesystem::path& base, int load,
                                      const std::map<std::string, std::string>& expect) {
    LoadOutcome out;
    out.load = std::max(load, 1);
    for (int n = 1; n < RunDirectory::next_attempt_in(base); ++n) {
      auto rec = store::read_attempt(base / fmt::format("attempt-{}", n) / "attempt.json");
      if (rec.ok()) out.attempts.push_back(std::move(*rec));
    }
    const std::string of_load = load ? fmt::format(" (load {}/{})", load, plan_.loads_per_job) : "";
    const std::string prefix = load ? fmt::format("load {}: ", load) : "";
    int flash_tries = 0, capture_tries = 0;
    std::optional<verify::Report> report;
    while (true) {
      const int n = lane.next_attempt(base);
      store::AttemptRecord a;
      BenchAttempt c{cfg_.matrix,
                     job,
                     board,
                     expect,
                     base / fmt::format("attempt-{}", n),
                     dir_.job_dir(job.id),
                     [&](const std::string& st) { progress_.stage(slot, job.id, st + of_load); },
                     [&](const std::string& line) { job_log(job.id, line); },
                     a};
      report.reset();
      a.number = n;
      a.load = load;
      a.board = board.id;
      a.started_at = store::utc_timestamp();
      auto t0 = clock_.now();
      job_log(job.id, fmt::format("{}attempt {} on board {}", prefix, n, board.id));
      std::error_code ec;
      std::filesystem::create_directories(c.dir, ec);
      if (ec) {
        fail_attempt(a, JobStatus::kStoreError,
                     fmt::format("cannot create {}: {}", c.dir.string(), ec.message()));
      } else if (lane.capture(c)) {
        report = verify_step(c);
        if (report) analyzer_step(c);
      }
      job_log(
          job.id,
          fmt::format("{}attempt {}: {}{} (capture {}, {} bytes)", prefix, n,
                      store::to_string(a.status), a.reason.empty() ? "" : ": " + a.reason,
                      a.capture_stop.empty() ? "not started" : a.capture_stop, a.capture_bytes));
      a.seconds = seconds_since(clock_, t0);
      if (!ec) {
        if (auto w = store::write_attempt(c.dir / "attempt.json", a); !w.ok()) {
          // Resume would not know this attempt: the load ends here, unkept.
          a.reason = a.status == JobStatus::kStoreError ? a.reason + "; " + w.error().message
                                                        : w.error().message;
          a.status = JobStatus::kStoreError;
        }
      }
      out.attempts.push_back(a);
      if (a.status == JobStatus::kInterrupted) return std::nullopt;
      bool retry = false;
      if (a.status == JobStatus::kFlashError) {
        retry = flash_tries++ < cfg_.matrix.retries.flash;
      } else if (retryable_capture(a.status)) {
        retry = capture_tries++ < cfg_.matrix.retries.capture;
      }
      if (retry && interrupt_requested()) return std::nullopt;
      if (retry) {
        progress_.note(fmt::format("{}{}: attempt {} {}: {}; retrying", job.id, of_load, n,
                                   store::to_string(a.status), a.reason));
        continue;
      }
      out.status = a.status;
      out.reason = a.reason;
      out.target_run_seconds = a.target_run_seconds;
      out.raw_sha256 = a.raw_sha256;
      if (a.status == JobStatus::kStoreError) report.reset();
      break;
    }
    if (report) {
      out.conditions = report->config;
      out.unit = report->config.count("unit") ? report->config.at("unit") : "";
      for (const auto& s : report->series) {
        out.series.push_back(store::series_record(s));
        out.series.back().unit = cfg_.matrix.catalog.series_unit(s.name, out.unit);
      }
      for (const auto& [name, reason] : report->not_applicable)
        out.not_applicable.push_back({name, reason});
      out.verify = store::verify_document(*report);
      // An analyzer failure keeps the DWT figures it verified OK.
      if (out.status == JobStatus::kOk || store::is_analyzer_failure(out.status))
        out.headline = store::headline_of(*report);
    }
    return out;
  }

  // Verifies the capture against the job's pins; the attempt's status is
  // the verdict's (STORE_ERROR when verify.json cannot be written). The
  // report when verified.
  std::optional<verify::Report> verify_step(BenchAttempt& c) {
    c.stage("verify");
    store::AttemptRecord& a = c.record;
    verify::Options vo;
    vo.expect = c.expect;
    vo.stack_margin_words = static_cast<uint64_t>(cfg_.matrix.stack_margin_words);
    vo.baselines = cfg_.matrix.catalog.series_baselines();
    if (const auto* b = cfg_.matrix.catalog.board(c.job.board)) vo.lower_bounds = b->lower_bounds;
    auto rep = parts_.verify(c.dir / "capture.raw", vo);
    if (!rep.ok()) {
      fail_attempt(a, JobStatus::kProtocolError, rep.error().message);
      return std::nullopt;
    }
    if (auto w = write_file_atomic(c.dir / "verify.json",
                                   store::dump_json(verify::to_json(*rep)) + "\n");
        !w.ok()) {
      fail_attempt(a, JobStatus::kStoreError, w.error().message);
      return std::nullopt;
    }
    a.verify_outcome = verify::to_string(rep->outcome);
    a.verdicts = store::verdicts_of(*rep);
    a.status = status_of(rep->outcome);
    if (a.status != JobStatus::kOk)
      a.reason = fmt::format("{}: {}", a.verify_outcome, verdict_summary(*rep));
    return std::move(*rep);
  }

  // The bench's analyzer after a verified capture: its outcome decides
  // whether an OK attempt stays OK (ANALYZER_MISSING, ANALYZER_OVERFLOW:
  // the DWT verdict, files and figures are kept, the status says why the
  // second ruler is missing); a capture it wrote is analyzed
  // (src/edges) into attempt-N/edges.json and the job's edges.json.
  void analyzer_step(BenchAttempt& c) {
    store::AttemptRecord& a = c.record;
    if (a.analyzer_outcome.empty()) return;  // no analyzer on this bench
    if (a.analyzer_outcome != "ok") {
      const JobStatus s = a.analyzer_outcome == "missing" ? JobStatus::kAnalyzerMissing
                                                          : JobStatus::kAnalyzerOverflow;
      c.log(fmt::format("analyzer: {}: {}", a.analyzer_outcome, a.analyzer_message));
      // A DWT failure says more than the missing ruler: it stays.
      if (a.status == JobStatus::kOk)
        fail_attempt(a, s,
                     a.analyzer_message + "; the DWT capture verified OK, its figures are kept");
      return;
    }
    c.stage("edges");
    json doc;
    auto analysis = [&]() -> Result<edges::Analysis> {
      std::ifstream raw(c.dir / "capture.raw", std::ios::binary);
      auto job = edges::read_job(raw);
      if (!job.ok()) return job.error();
      auto read =
          edges::read_with_sigrok(processes_, c.dir / "edges.sr", "", edges::Roles{}, c.dir);
      if (!read.ok()) return read.error();
      // The matrix's tolerance (`edges:`), as `rtosbench edges` takes it.
      edges::Options options;
      options.tolerance_ns = cfg_.matrix.edges.tolerance_ns;
      options.gpio_latency_ns = cfg_.matrix.edges.gpio_latency_ns;
      auto an = edges::analyze(read->capture, *job, options);
      if (an.ok() && read->overflowed && an->status != edges::Status::kOverflow) {
        an->status = edges::Status::kOverflow;
        an->refusal = "sigrok-cli reports an overflow: " + read->message;
      }
      return an;
    }();
    if (analysis.ok()) {
      doc = edges::to_json(*analysis);
      c.log(fmt::format("edges: {}", edges::to_string(analysis->status)));
      // A capture that ends before the last MK pulse closed is not whole either.
      if (analysis->status == edges::Status::kOverflow && a.status == JobStatus::kOk)
        fail_attempt(
            a, JobStatus::kAnalyzerOverflow,
            "edges: " + analysis->refusal + "; the DWT capture verified OK, its figures are kept");
    } else {
      doc = {{"error", analysis.error().message}};
      c.log("edges: not analyzed: " + analysis.error().message);
    }
    doc["capture"] = a.analyzer_file;
    const std::string text = store::dump_json(doc) + "\n";
    for (const auto& to : {c.dir / "edges.json", c.job_dir / "edges.json"}) {
      if (auto w = write_file_atomic(to, text); !w.ok()) {
        fail_attempt(a, JobStatus::kStoreError, w.error().message);
        return;
      }
    }
  }

  ProcessRunner& processes_;
  Progress& progress_;
  const Clock& clock_;
  const RunnerParts& parts_;
  const RunConfig& cfg_;
  RunDirectory& dir_;
  kernels::SourceResolver resolver_;
  std::unique_ptr<build::FirmwareBuilder> builder_;
  std::unique_ptr<Bench> bench_;

  Plan plan_;
  std::vector<std::optional<store::JobResult>> results_;
  std::vector<BuildGroup> groups_;
  size_t next_group_ = 0;
  size_t builds_left_ = 0;
  std::set<size_t> ready_;
  double target_run_seconds_ = 0;
  std::string summary_error_;  // the first failed write of run.json
  std::mutex mu_;
  std::mutex summary_mu_;
  std::condition_variable cv_;
};

}  // namespace

Runner::Runner(ProcessRunner& processes, Progress& progress, const Clock& clock, RunnerParts parts)
    : processes_(processes), progress_(progress), clock_(clock), parts_(std::move(parts)) {
  fill_real_bench_parts(parts_, processes_);
  if (!parts_.verify) parts_.verify = verify::verify_file;
  if (!parts_.builder) {
    parts_.builder = [&processes](const std::filesystem::path& cache) {
      return std::unique_ptr<build::FirmwareBuilder>(
          std::make_unique<build::CmakeBuilder>(processes, cache));
    };
  }
}

RunOutcome Runner::run(const RunConfig& config, RunDirectory& dir) {
  return Session(processes_, progress_, clock_, parts_, config, dir).run();
}

}  // namespace rb::run
