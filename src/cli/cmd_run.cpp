// `rtosbench run --matrix FILE [--bench FILE] [--out DIR]` and
// `rtosbench run --resume DIR`: the CLI face of src/run/ (docs/run.md).
#include "build/firmware_builder.h"
#include "build/toolchain.h"
#include "cli/commands.h"
#include "kernels/source.h"
#include "matrix/expand.h"
#include "matrix/load.h"
#include "util/process.h"
#include "run/progress.h"
#include "run/run_directory.h"
#include "run/runner.h"
#include "store/history.h"

#include <fmt/core.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace rb::cli {

namespace {

struct RunArgs {
  std::string matrix;
  std::string bench;
  std::string out = "runs";
  std::string resume;
  std::vector<std::string> kernel_sources;
  std::string kernel_cache;
  std::string build_cache;
  std::string firmware;
  bool fetch = false;
  bool allow_other_commit = false;
  int build_jobs = 0;
  int repeat = 0;  // 0: the matrix's `repeats:`
  std::string history_db;
  bool no_history = false;
  bool json = false;
  bool list = false;
};

std::atomic<int> g_signals{0};  // lock-free: safe in a signal handler

void on_signal(int) {
  // First signal: stop cleanly (children killed, results consistent).
  // Second: leave at once.
  if (g_signals.fetch_add(1) > 0) _exit(kExitInterrupted);
  request_interrupt();
}

void print_diagnostics(const std::vector<matrix::Diagnostic>& errors) {
  for (const auto& d : errors) fmt::print(stderr, "{}\n", d.format());
}

int diagnostics_exit(const std::vector<matrix::Diagnostic>& errors) {
  print_diagnostics(errors);
  bool unreadable = std::all_of(errors.begin(), errors.end(), [](const matrix::Diagnostic& d) {
    return d.message.rfind("cannot read", 0) == 0;
  });
  fmt::print(stderr, "rtosbench run: {} error(s); nothing was run\n", errors.size());
  return unreadable ? kExitNoInput : kExitUsage;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The finished run goes into the SQLite history; the run directory stays
// the record, so a failure here is a warning, never a failed run.
void record_history(const std::string& db_option, const std::filesystem::path& run_dir) {
  std::filesystem::path db;
  if (!db_option.empty()) {
    db = db_option;
  } else {
    auto d = store::default_history_path();
    if (!d.ok()) {
      fmt::print(stderr, "warning: run not recorded in the history: {}\n", d.error().message);
      return;
    }
    db = *d;
  }
  // The run this process just wrote: a later session of it replaces what an earlier one recorded.
  store::RecordOptions options;
  options.replace = true;
  auto rec = store::record_run(db, run_dir, options);
  if (!rec.ok()) {
    fmt::print(stderr, "warning: run not recorded in the history database {}: {} (record it later with "
                       "`rtosbench history import {}`)\n",
               db.string(), rec.error().message, run_dir.string());
    return;
  }
  fmt::print(stderr, "history: {} {} ({} jobs) in {}\n",
             rec->outcome == store::RecordOutcome::kRecorded ? "recorded" : "re-recorded", rec->run_id, rec->jobs,
             db.string());
}

int run_command(RunArgs& a) {
  std::optional<run::RunDirectory> dir;
  matrix::Matrix m;
  matrix::Bench bench;
  std::string original_matrix, original_bench;
  nlohmann::json saved_options = nlohmann::json::object();

  if (!a.resume.empty()) {
    if (!a.matrix.empty()) {
      fmt::print(stderr, "rtosbench run: --resume takes the matrix from the run directory; drop --matrix\n");
      return kExitUsage;
    }
    auto d = run::RunDirectory::open(a.resume);
    if (!d.ok()) {
      fmt::print(stderr, "rtosbench run: {}\n", d.error().message);
      return kExitNoInput;
    }
    dir.emplace(std::move(*d));
    nlohmann::json prev = dir->summary();
    saved_options = prev.value("options", nlohmann::json::object());
    original_matrix = prev["matrix"].value("source", dir->matrix_snapshot().string());
    // Parsed as if at its original place, so its relative paths still hold.
    auto lm = matrix::parse_matrix(slurp(dir->matrix_snapshot()), original_matrix);
    if (!lm.ok()) return diagnostics_exit(lm.errors);
    m = lm.value;
    if (!a.bench.empty()) {
      original_bench = std::filesystem::absolute(a.bench).string();
      auto lb = matrix::load_bench(a.bench);
      if (!lb.ok()) return diagnostics_exit(lb.errors);
      bench = lb.value;
    } else {
      original_bench = prev["bench"].value("source", dir->bench_snapshot().string());
      auto lb = matrix::parse_bench(slurp(dir->bench_snapshot()), original_bench);
      if (!lb.ok()) return diagnostics_exit(lb.errors);
      bench = lb.value;
    }
    // Options of the first session hold unless given again.
    if (a.kernel_sources.empty()) {
      // (Named: a range-for over items() of the temporary value() returns
      // would iterate a destroyed object.)
      const nlohmann::json saved_sources =
          saved_options.value("kernel_sources", nlohmann::json::object());
      for (const auto& [k, v] : saved_sources.items()) {
        a.kernel_sources.push_back(k + "=" + v.get<std::string>());
      }
    }
    if (a.kernel_cache.empty()) a.kernel_cache = saved_options.value("kernel_cache", "");
    if (a.build_cache.empty()) a.build_cache = saved_options.value("build_cache", "");
    if (a.firmware.empty()) a.firmware = saved_options.value("firmware", "");
    a.fetch = a.fetch || saved_options.value("fetch_kernels", false);
    if (a.repeat == 0) a.repeat = saved_options.value("repeats", 0);
    a.allow_other_commit = a.allow_other_commit || saved_options.value("allow_other_commit", false);
  } else {
    if (a.matrix.empty()) {
      fmt::print(stderr, "rtosbench run: give --matrix FILE (or --resume DIR)\n");
      return kExitUsage;
    }
    // Both files are checked before anything is reported: every error at once.
    auto lm = matrix::load_matrix(a.matrix);
    std::vector<matrix::Diagnostic> errors = lm.errors;
    std::filesystem::path bench_file = a.bench.empty() ? lm.value.bench : std::filesystem::path(a.bench);
    if (!a.bench.empty() || !bench_file.empty()) {
      // A bench named in the matrix is shown relative to where the user is.
      std::filesystem::path shown = a.bench.empty() ? bench_file.lexically_proximate(std::filesystem::current_path())
                                                    : bench_file;
      auto lb = matrix::load_bench(shown);
      errors.insert(errors.end(), lb.errors.begin(), lb.errors.end());
      bench = lb.value;
    }
    if (!errors.empty()) return diagnostics_exit(errors);
    m = lm.value;
    original_matrix = m.file.string();
    if (bench_file.empty()) {
      fmt::print(stderr, "rtosbench run: no bench: pass --bench FILE or name one with `bench:` in {}\n",
                 m.file.string());
      return kExitUsage;
    }
    original_bench = bench.file.string();
  }
  if (!a.firmware.empty()) m.firmware = std::filesystem::absolute(a.firmware).lexically_normal();
  // One source of truth for the loads per job: the matrix's `repeats:`,
  // which --repeat replaces for this run (and its resumption).
  if (a.repeat > 0) m.repeats = a.repeat;

  if (a.list) {
    for (const auto& j : matrix::expand_jobs(m)) {
      fmt::print("{}{}\n", j.id, j.port_exists ? "" : "  PORT_MISSING: " + j.port_missing_reason);
    }
    return kExitOk;
  }
  if (auto s = run::check_bench_covers(m, bench); !s.ok()) {
    fmt::print(stderr, "rtosbench run: {}\n", s.error().message);
    return run::kExitRefused;
  }

  kernels::ResolveOptions ko;
  for (const auto& ks : a.kernel_sources) {
    auto o = kernels::parse_override(ks);
    if (!o.ok()) {
      fmt::print(stderr, "rtosbench run: {}\n", o.error().message);
      return kExitUsage;
    }
    ko.overrides[o->first] = o->second;
  }
  ko.cache_dir = a.kernel_cache.empty() ? kernels::default_cache_dir() : std::filesystem::absolute(a.kernel_cache);
  ko.fetch = a.fetch;
  ko.allow_other_commit = a.allow_other_commit;

  auto processes = make_posix_runner();
  auto tc = build::probe_toolchain(*processes);
  if (!tc.ok()) {
    fmt::print(stderr, "rtosbench run: {}\n", tc.error().message);
    return run::kExitRefused;
  }
  if (auto s = build::check_gcc_pin(*tc, m.gcc_pin); !s.ok()) {
    fmt::print(stderr, "rtosbench run: refusing to start: {}\n", s.error().message);
    return run::kExitRefused;
  }

  run::RunConfig cfg;
  cfg.matrix = m;
  cfg.bench = bench;
  cfg.kernel_options = ko;
  cfg.build_cache = a.build_cache.empty() ? build::default_build_cache_dir() : std::filesystem::absolute(a.build_cache);
  cfg.toolchain = *tc;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cfg.build_workers = a.build_jobs > 0 ? a.build_jobs : static_cast<int>(std::min(cores, 4u));
  cfg.build_parallel = static_cast<int>(std::max(1u, cores / static_cast<unsigned>(cfg.build_workers)));
  cfg.original_matrix = original_matrix;
  cfg.original_bench = original_bench;

  nlohmann::json options{{"kernel_cache", ko.cache_dir.string()},
                         {"build_cache", cfg.build_cache.string()},
                         {"firmware", m.firmware.string()},
                         {"fetch_kernels", ko.fetch},
                         {"allow_other_commit", ko.allow_other_commit},
                         {"repeats", m.repeats},
                         {"kernel_sources", nlohmann::json::object()}};
  for (const auto& [k, v] : ko.overrides) options["kernel_sources"][k] = v.string();

  if (!dir) {
    auto d = run::RunDirectory::create(a.out, m.name, m.file, bench.file);
    if (!d.ok()) {
      fmt::print(stderr, "rtosbench run: {}\n", d.error().message);
      return kExitNoInput;
    }
    dir.emplace(std::move(*d));
    nlohmann::json first{{"schema", store::kRunSummarySchema}, {"schema_version", store::kSchemaVersion},
                         {"run_id", dir->id()},                {"state", "starting"},
                         {"started_at", store::utc_timestamp()}, {"options", options}};
    if (auto s = dir->write_summary(first); !s.ok()) {
      fmt::print(stderr, "rtosbench run: {}\n", s.error().message);
      return kExitNoInput;
    }
  } else {
    nlohmann::json prev = dir->summary();
    prev["options"] = options;
    (void)dir->write_summary(prev);
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  run::SteadyClock clock;
  bool live = ::isatty(STDERR_FILENO) != 0;
  int done_before = static_cast<int>(dir->finished_jobs().size());
  run::Progress progress(clock, live, [](std::string_view s) { fmt::print(stderr, "{}", s); },
                         static_cast<int>(matrix::expand_jobs(m).size()), done_before);
  fmt::print(stderr, "run {}: {}\n", dir->id(), dir->root().string());
  if (done_before > 0) fmt::print(stderr, "resuming: {} job(s) already finished are kept\n", done_before);
  run::Runner runner(*processes, progress, clock);
  run::RunOutcome out = runner.run(cfg, *dir);
  progress.close();

  std::string table = run::format_table(out.results);
  if (a.json) {
    fmt::print(stderr, "{}", table);
    fmt::print("{}\n", store::dump_json(out.summary));
  } else {
    fmt::print("{}", table);
  }
  if (out.interrupted) {
    fmt::print(stderr, "interrupted: finish with `rtosbench run --resume {}`\n", dir->root().string());
  }
  if (!out.interrupted && !a.no_history) record_history(a.history_db, dir->root());
  fmt::print(stderr, "run directory: {} (exit {})\n", dir->root().string(), out.exit_code);
  return out.exit_code;
}

}  // namespace

std::function<int()> add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("--matrix", a->matrix, "test matrix YAML (what to measure)");
  app.add_option("--bench", a->bench, "bench YAML (what is plugged in); default: the matrix's `bench:`");
  app.add_option("--out", a->out, "directory under which the run directory is made")->capture_default_str();
  app.add_option("--resume", a->resume, "finish an interrupted run directory without redoing finished jobs");
  app.add_option("--kernel-source", a->kernel_sources, "NAME=PATH: a local checkout of kernel NAME (repeatable)");
  app.add_option("--kernel-cache", a->kernel_cache, "kernel source cache (default ~/.cache/rtosbench/kernels)");
  app.add_option("--build-cache", a->build_cache, "firmware build cache (default ~/.cache/rtosbench/builds)");
  app.add_option("--firmware", a->firmware, "firmware CMake project (default: the matrix's `firmware:`)");
  app.add_flag("--fetch-kernels", a->fetch, "clone missing kernel sources at their pinned tags (network)");
  app.add_flag("--allow-other-commit", a->allow_other_commit,
               "accept a kernel checkout that is not at the pinned tag (recorded in the results)");
  app.add_option("--build-jobs", a->build_jobs, "images built at the same time (default: cores, at most 4)");
  app.add_option("--repeat", a->repeat,
                 "loads per job, each a cold start of the same image, judged for reproducibility "
                 "(default: the matrix's `repeats:`)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--history-db", a->history_db,
                 "SQLite history the finished run is recorded in (default $RTOSBENCH_HISTORY, else "
                 "~/.local/share/rtosbench/history.sqlite)");
  app.add_flag("--no-history", a->no_history, "do not record the run in the history database");
  app.add_flag("--json", a->json, "print the run summary (run.json) on stdout");
  app.add_flag("--list", a->list, "print the expanded job ids and exit");
  return [a] { return run_command(*a); };
}

}  // namespace rb::cli
