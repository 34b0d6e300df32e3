#include "run/run_setup.h"

#include <fmt/core.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "build/firmware_builder.h"
#include "build/toolchain.h"
#include "kernels/source.h"
#include "matrix/expand.h"
#include "probe/flasher.h"
#include "util/posix_file.h"
#include "util/temp_dir.h"
#include "util/url.h"

namespace rb::run {

namespace {

using nlohmann::json;

std::string slurp(const std::filesystem::path& p) {
  return read_whole_file(p).value_or("");
}

bool readable(const std::filesystem::path& p) {
  return InputFile::open(p).ok();
}

Error invalid(const std::vector<matrix::Diagnostic>& diagnostics, bool unreadable) {
  return make_error(unreadable ? ErrorKind::kCannotRead : ErrorKind::kUsage,
                    fmt::format("{} error(s); nothing was run", diagnostics.size()));
}

// --resume: the snapshots, parsed as if at their original place so their
// relative paths still hold; options of the first session hold unless given again.
Result<RunInputs> load_resumed(RunRequest& req, std::vector<matrix::Diagnostic>& diagnostics) {
  auto d = RunDirectory::open(req.resume);
  if (!d.ok()) return d.error();
  RunInputs in;
  json prev = d->summary();
  const json saved = prev.value("options", json::object());
  in.original_matrix =
      prev.value("matrix", json::object()).value("source", d->matrix_snapshot().string());
  if (req.firmware.empty()) req.firmware = saved.value("firmware", "");
  auto lm = matrix::parse_matrix(slurp(d->matrix_snapshot()), in.original_matrix, req.firmware);
  if (!lm.ok()) {
    diagnostics = lm.errors;
    return invalid(diagnostics, false);
  }
  in.matrix = lm.value;
  if (!req.bench.empty()) {
    in.original_bench = std::filesystem::absolute(req.bench).string();
    auto lb = matrix::load_bench(req.bench, &in.matrix.catalog);
    if (!lb.ok()) {
      diagnostics = lb.errors;
      return invalid(diagnostics, !readable(req.bench));
    }
    in.bench = lb.value;
  } else {
    in.original_bench =
        prev.value("bench", json::object()).value("source", d->bench_snapshot().string());
    auto lb =
        matrix::parse_bench(slurp(d->bench_snapshot()), in.original_bench, &in.matrix.catalog);
    if (!lb.ok()) {
      diagnostics = lb.errors;
      return invalid(diagnostics, false);
    }
    in.bench = lb.value;
    if (in.bench.lava && url_password(in.bench.lava->url) == "***") {
      return make_error(ErrorKind::kUsage,
                        fmt::format("{} keeps lava.url without its password ({}); pass --bench "
                                    "with the bench file to resume",
                                    d->bench_snapshot().string(), in.bench.lava->url));
    }
  }
  if (req.kernel_sources.empty()) {
    const json sources = saved.value("kernel_sources", json::object());
    for (const auto& [k, v] : sources.items())
      req.kernel_sources.push_back(k + "=" + v.get<std::string>());
  }
  for (auto [given, key] :
       {std::pair{&req.kernel_cache, "kernel_cache"}, std::pair{&req.build_cache, "build_cache"},
        std::pair{&req.sweep, "sweep"}})
    if (given->empty()) *given = saved.value(key, "");
  req.fetch = req.fetch || saved.value("fetch_kernels", false);
  if (req.repeat == 0) req.repeat = saved.value("repeats", 0);
  req.allow_other_commit = req.allow_other_commit || saved.value("allow_other_commit", false);
  if (req.only.empty() && req.exclude.empty()) {
    req.only = saved.value("only", std::vector<std::string>{});
    req.exclude = saved.value("exclude", std::vector<std::string>{});
  }
  in.resumed.emplace(std::move(*d));
  return in;
}

// A new run: both files are checked before anything is reported, so every
// error is printed at once.
Result<RunInputs> load_new(const RunRequest& req, std::vector<matrix::Diagnostic>& diagnostics) {
  RunInputs in;
  if (!readable(req.matrix)) {
    diagnostics = matrix::load_matrix(req.matrix).errors;
    return invalid(diagnostics, true);
  }
  auto lm = matrix::load_matrix(req.matrix, req.firmware);
  diagnostics = lm.errors;
  std::filesystem::path bench_file =
      req.bench.empty() ? lm.value.bench : std::filesystem::path(req.bench);
  bool bench_unreadable = false;
  if (!bench_file.empty()) {
    // A bench named in the matrix is shown relative to where the user is.
    std::filesystem::path shown =
        req.bench.empty() ? bench_file.lexically_proximate(std::filesystem::current_path())
                          : bench_file;
    auto lb = matrix::load_bench(shown, lm.ok() ? &lm.value.catalog : nullptr);
    bench_unreadable = !readable(shown);
    diagnostics.insert(diagnostics.end(), lb.errors.begin(), lb.errors.end());
    in.bench = lb.value;
  }
  if (!diagnostics.empty()) return invalid(diagnostics, lm.errors.empty() && bench_unreadable);
  in.matrix = lm.value;
  in.original_matrix = in.matrix.file.string();
  if (bench_file.empty()) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("no bench: pass --bench FILE or name one with `bench:` in {}",
                                  in.matrix.file.string()));
  }
  in.original_bench = in.bench.file.string();
  return in;
}

json options_json(const kernels::ResolveOptions& ko, const RunConfig& cfg) {
  json options{{"kernel_cache", ko.cache_dir.string()},
               {"build_cache", cfg.build_cache.string()},
               {"firmware", cfg.matrix.firmware.string()},
               {"fetch_kernels", ko.fetch},
               {"allow_other_commit", ko.allow_other_commit},
               {"repeats", cfg.matrix.repeats},
               {"only", cfg.matrix.only},
               {"exclude", cfg.matrix.exclude},
               {"sweep", cfg.matrix.sweep},
               {"kernel_sources", json::object()}};
  for (const auto& [k, v] : ko.overrides) options["kernel_sources"][k] = v.string();
  return options;
}

}  // namespace

Result<RunInputs> load_inputs(RunRequest& req, std::vector<matrix::Diagnostic>& diagnostics) {
  auto in = req.resume.empty() ? load_new(req, diagnostics) : load_resumed(req, diagnostics);
  if (!in.ok()) return in;
  if (auto s = matrix::for_boards(in->matrix, in->bench); !s.ok()) return s.error();
  // One source of truth for the loads per job: the matrix's `repeats:`,
  // which --repeat replaces for this run (and its resumption).
  if (req.repeat > 0) in->matrix.repeats = req.repeat;
  in->matrix.only = req.only;
  in->matrix.exclude = req.exclude;
  if (!req.sweep.empty()) {
    if (auto s = matrix::select_sweep(in->matrix, req.sweep); !s.ok()) return s.error();
  }
  if (matrix::expand_jobs(in->matrix).empty() && (!req.only.empty() || !req.exclude.empty())) {
    in->matrix.only.clear();
    in->matrix.exclude.clear();
    std::string ids;
    for (const auto& j : matrix::expand_jobs(in->matrix)) ids += "\n  " + j.id;
    return make_error(
        ErrorKind::kUsage,
        fmt::format("no job of {} matches --only/--exclude; its jobs:{}", in->matrix.name, ids));
  }
  return in;
}

Result<PreparedRun> prepare_run(const RunRequest& req, RunInputs in, ProcessRunner& processes) {
  kernels::ResolveOptions ko;
  for (const auto& ks : req.kernel_sources) {
    auto o = kernels::parse_override(ks);
    if (!o.ok()) return make_error(ErrorKind::kUsage, o.error().message);
    ko.overrides[o->first] = o->second;
  }
  ko.cache_dir = req.kernel_cache.empty() ? kernels::default_cache_dir()
                                          : std::filesystem::absolute(req.kernel_cache);
  ko.fetch = req.fetch;
  ko.allow_other_commit = req.allow_other_commit;

  auto tc = build::probe_toolchain(processes);
  if (!tc.ok()) return make_error(ErrorKind::kUnavailable, tc.error().message);
  if (auto s = build::check_gcc_pin(*tc, in.matrix.gcc_pin); !s.ok()) {
    return make_error(ErrorKind::kUnavailable, "refusing to start: " + s.error().message);
  }
  // The flash tools the bench's boards need (doctor's check): refused, naming the fix.
  if (auto s = probe::check_flash_tools_for_run(in.bench, processes); !s.ok()) return s.error();

  RunConfig cfg;
  cfg.matrix = in.matrix;
  cfg.bench = in.bench;
  cfg.kernel_options = ko;
  cfg.build_cache = req.build_cache.empty() ? build::default_build_cache_dir()
                                            : std::filesystem::absolute(req.build_cache);
  cfg.toolchain = *tc;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cfg.build_workers = req.build_jobs > 0 ? req.build_jobs : static_cast<int>(std::min(cores, 4u));
  cfg.build_parallel =
      static_cast<int>(std::max(1u, cores / static_cast<unsigned>(cfg.build_workers)));
  cfg.original_matrix = in.original_matrix;
  cfg.original_bench = in.original_bench;

  // QEMU's socket folders of runs killed before they could remove them.
  remove_orphaned_temp_dirs("rtosbench-qemu");

  const json options = options_json(ko, cfg);
  std::optional<RunDirectory> dir;
  std::optional<FileLock> lock;
  std::string unclosed_state;
  if (in.resumed) {
    auto l = in.resumed->lock();
    if (!l.ok()) return l.error();
    lock.emplace(std::move(*l));
    // Read again under the lock: the session that held it may have just ended.
    auto d = RunDirectory::open(in.resumed->root());
    if (!d.ok()) return d.error();
    dir.emplace(std::move(*d));
    auto unclosed = dir->close_unclosed_session();
    if (!unclosed.ok()) return unclosed.error();
    unclosed_state = *unclosed;
    json prev = dir->summary();
    prev["options"] = options;
    if (auto s = dir->write_summary(prev); !s.ok()) return s.error();
  } else {
    auto d = RunDirectory::create(req.out, cfg.matrix.name, cfg.matrix.file, cfg.bench.file);
    if (!d.ok()) return d.error();
    dir.emplace(std::move(*d));
    auto l = dir->lock();
    if (!l.ok()) return l.error();
    lock.emplace(std::move(*l));
    json first{{"schema", store::kRunSummarySchema},
               {"schema_version", store::kSchemaVersion},
               {"run_id", dir->id()},
               {"state", "starting"},
               {"started_at", store::utc_timestamp()},
               {"options", options}};
    if (auto s = dir->write_summary(first); !s.ok()) return s.error();
  }
  int done = static_cast<int>(dir->finished_jobs().size());
  int total = static_cast<int>(matrix::expand_jobs(cfg.matrix).size());
  return PreparedRun{std::move(cfg), std::move(*dir), std::move(*lock), total,
                     done,           unclosed_state};
}

}  // namespace rb::run
