// `rtosbench run --matrix FILE [--bench FILE] [--out DIR]` and
// `rtosbench run --resume DIR`: the CLI face of src/run/ (docs/run.md). It
// parses, prints and handles signals; loading, resuming and locking are
// src/run/run_setup.*, the work is src/run/runner.*.
#include <fmt/core.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

#include "cli/commands.h"
#include "matrix/expand.h"
#include "run/progress.h"
#include "run/run_setup.h"
#include "run/runner.h"
#include "store/history.h"
#include "util/process.h"

namespace rb::cli {

namespace {

struct RunArgs {
  run::RunRequest request;
  std::string history_db;
  bool no_history = false;
  bool json = false;
  bool list = false;
};

std::atomic<int> g_signals{0};  // lock-free: safe in a signal handler

void on_signal(int) {
  // First signal: stop cleanly (children killed, results consistent).
  // Second: kill every child's process group and leave at once; run.json
  // stays "running", which the next --resume records as interrupted.
  if (g_signals.fetch_add(1) > 0) {
    kill_all_children();
    _exit(kExitInterrupted);
  }
  request_interrupt();
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// The finished run goes into the history (an SQLite file or a PostgreSQL
// database); the run directory stays the record, so a failure here is a
// warning, never a failed run.
void record_history(const std::string& db_option, const std::filesystem::path& run_dir) {
  std::string db;
  if (!db_option.empty()) {
    db = db_option;
  } else {
    auto d = store::default_history_location();
    if (!d.ok()) {
      print_safe(stderr, "warning: run not recorded in the history: {}\n", d.error().message);
      return;
    }
    db = *d;
  }
  // The run this process just wrote: a later session of it replaces what an earlier one recorded.
  store::RecordOptions options;
  options.replace = true;
  auto rec = store::record_run(db, run_dir, options);
  if (!rec.ok()) {
    print_safe(stderr,
               "warning: run not recorded in the history database {}: {} (record it later with "
               "`rtosbench history import {}`)\n",
               store::redact_history_location(db), rec.error().message, run_dir.string());
    return;
  }
  print_safe(stderr, "history: {} {} ({} jobs) in {}\n",
             rec->outcome == store::RecordOutcome::kRecorded ? "recorded" : "re-recorded",
             rec->run_id, rec->jobs, store::redact_history_location(db));
}

int run_command(RunArgs& a) {
  std::vector<matrix::Diagnostic> diagnostics;
  auto inputs = run::load_inputs(a.request, diagnostics);
  if (!inputs.ok()) fail(inputs.error(), diagnostics);
  if (a.list) {
    for (const auto& j : matrix::expand_jobs(inputs->matrix)) {
      print_safe(stdout, "{}{}\n", j.id,
                 j.port_exists ? "" : "  PORT_MISSING: " + j.port_missing_reason);
    }
    return kExitOk;
  }
  auto processes = make_posix_runner();
  auto prepared = run::prepare_run(a.request, std::move(*inputs), *processes);
  if (!prepared.ok()) fail(prepared.error());
  run::PreparedRun& p = *prepared;

  install_signal_handlers();
  run::SteadyClock clock;
  run::Progress progress(
      clock, ::isatty(STDERR_FILENO) != 0, [](std::string_view s) { fmt::print(stderr, "{}", s); },
      p.jobs_total, p.done_before);
  print_safe(stderr, "run {}: {}\n", p.dir.id(), p.dir.root().string());
  if (!p.unclosed_state.empty()) {
    print_safe(stderr,
               "the previous session of this run ended without closing run.json (state '{}'); "
               "recorded as interrupted\n",
               p.unclosed_state);
  }
  if (p.done_before > 0)
    print_safe(stderr, "resuming: {} job(s) already finished are kept\n", p.done_before);
  run::Runner runner(*processes, progress, clock);
  run::RunOutcome out = runner.run(p.config, p.dir);
  progress.close();

  std::string table = run::format_table(out.results);
  if (a.json) {
    print_safe(stderr, "{}", table);
    fmt::print("{}\n", store::dump_json(out.summary));
  } else {
    print_safe(stdout, "{}", table);
  }
  if (!out.store_error.empty()) {
    print_safe(stderr, "run.json not written: {}; this run's record is incomplete\n",
               out.store_error);
  }
  if (out.interrupted) {
    print_safe(stderr, "interrupted: finish with `rtosbench run --resume {}`\n",
               p.dir.root().string());
  }
  if (!out.interrupted && out.exit_code != run::kExitStoreFailed && !a.no_history) {
    record_history(a.history_db, p.dir.root());
  }
  print_safe(stderr, "run directory: {} (exit {})\n", p.dir.root().string(), out.exit_code);
  return out.exit_code;
}

}  // namespace

std::function<int()> add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  run::RunRequest& r = a->request;
  auto* matrix = app.add_option("--matrix", r.matrix, "test matrix YAML (what to measure)");
  app.add_option("--bench", r.bench,
                 "bench YAML (what is plugged in); default: the matrix's `bench:`");
  auto* out = app.add_option("--out", r.out, "directory under which the run directory is made")
                  ->capture_default_str();
  auto* resume = app.add_option(
      "--resume", r.resume, "finish an interrupted run directory without redoing finished jobs");
  // --resume takes the matrix (and its run directory) from the run.
  resume->excludes(matrix)->excludes(out);
  app.add_option("--kernel-source", r.kernel_sources,
                 "NAME=PATH: a local checkout of kernel NAME (repeatable)");
  app.add_option("--kernel-cache", r.kernel_cache,
                 "kernel source cache (default ~/.cache/rtosbench/kernels)");
  app.add_option("--build-cache", r.build_cache,
                 "firmware build cache (default ~/.cache/rtosbench/builds)");
  app.add_option("--firmware", r.firmware,
                 "firmware CMake project (default: the matrix's `firmware:`)");
  app.add_flag("--fetch-kernels", r.fetch,
               "clone missing kernel sources at their pinned tags (network)");
  app.add_flag("--allow-other-commit", r.allow_other_commit,
               "accept a kernel checkout that is not at the pinned tag (recorded in the results)");
  app.add_option("--build-jobs", r.build_jobs,
                 "images built at the same time (default: cores, at most 4)")
      ->check(CLI::Range(1, 256));
  app.add_option("--loads,--repeat", r.repeat,
                 "loads per job, each a cold start of the same image, judged for reproducibility "
                 "(default: the matrix's `loads:`, else 5 on hardware and 1 emulated)")
      ->check(CLI::Range(1, 1000));
  auto* db =
      app.add_option(
             "--history-db", a->history_db,
             "history the finished run is recorded in: an SQLite file or a postgresql:// URL "
             "(default $RTOSBENCH_HISTORY, else ~/.local/share/rtosbench/history.sqlite)")
          ->type_name("FILE|URL");
  app.add_flag("--no-history", a->no_history, "do not record the run in the history database")
      ->excludes(db);
  app.add_option("--only", r.only,
                 "run only the jobs whose id matches this glob (repeatable; e.g. 'freertos-*')")
      ->type_name("PATTERN");
  app.add_option("--sweep", r.sweep,
                 "run the matrix's sweep NAME (its `sweeps:`) instead of its `variants:`")
      ->type_name("NAME");
  app.add_option("--exclude", r.exclude, "skip the jobs whose id matches this glob (repeatable)")
      ->type_name("PATTERN");
  app.add_flag("--json", a->json, "print the run summary (run.json) on stdout");
  app.add_flag("--list", a->list, "print the expanded job ids and exit");
  // One of --matrix and --resume says what to run.
  app.callback([matrix, resume] {
    if (matrix->count() == 0 && resume->count() == 0)
      throw CLI::RequiredError("--matrix FILE (or --resume DIR)");
  });
  return [a] { return run_command(*a); };
}

}  // namespace rb::cli
