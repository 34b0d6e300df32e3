// How much of a run's wall time is the bench actually running firmware?
//
//   run_overhead [MATRIX] [BUILD_CACHE]
//
// Runs MATRIX (default: configs/qemu.yaml of the source tree) twice through
// the same code as `rtosbench run`: once to warm the build cache, then the
// measured run. Prints the measured run's wall time divided by the sum of
// its target run times (release of the target to END, per job), both taken
// from that same run. Target: 1.10 or less. It prints figures; it never
// fails on a number (the machine is shared and noisy).
#include <fmt/core.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "build/firmware_builder.h"
#include "build/toolchain.h"
#include "kernels/source.h"
#include "matrix/load.h"
#include "run/progress.h"
#include "run/run_directory.h"
#include "run/runner.h"
#include "util/process.h"

namespace {

int fail(const std::string& why) {
  fmt::print(stderr, "run_overhead: {}\n", why);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path matrix_file =
      argc > 1 ? std::filesystem::path(argv[1])
               : std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "configs" / "qemu.yaml";
  auto scratch =
      std::filesystem::temp_directory_path() / fmt::format("rtosbench-run-overhead-{}", ::getpid());
  std::filesystem::path cache = argc > 2 ? std::filesystem::path(argv[2]) : scratch / "build-cache";

  auto lm = rb::matrix::load_matrix(matrix_file);
  if (!lm.ok()) return fail(lm.errors.front().format());
  auto lb = rb::matrix::load_bench(lm.value.bench);
  if (!lb.ok()) return fail(lb.errors.front().format());
  auto processes = rb::make_posix_runner();
  auto tc = rb::build::probe_toolchain(*processes);
  if (!tc.ok()) return fail(tc.error().message);

  rb::run::RunConfig cfg;
  cfg.matrix = lm.value;
  cfg.bench = lb.value;
  cfg.kernel_options.cache_dir = rb::kernels::default_cache_dir();
  cfg.build_cache = cache;
  cfg.toolchain = *tc;
  cfg.build_workers = 2;
  cfg.build_parallel = 1;
  cfg.original_matrix = lm.value.file.string();
  cfg.original_bench = lb.value.file.string();

  rb::run::SteadyClock clock;
  rb::run::RunOutcome measured;
  for (int pass = 0; pass < 2; ++pass) {
    // The wall time starts where `rtosbench run` starts working: before the
    // run directory is made.
    auto t0 = std::chrono::steady_clock::now();
    auto dir = rb::run::RunDirectory::create(scratch / "runs", cfg.matrix.name, cfg.matrix.file,
                                             cfg.bench.file);
    if (!dir.ok()) return fail(dir.error().message);
    rb::run::Progress progress(
        clock, false, [](std::string_view s) { fmt::print(stderr, "{}", s); }, 0, 0);
    rb::run::Runner runner(*processes, progress, clock);
    auto out = runner.run(cfg, *dir);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (out.exit_code != 0) {
      fmt::print(stderr,
                 "run_overhead: pass {} ended with exit code {}; figures below may mean little\n",
                 pass + 1, out.exit_code);
    }
    int cached = 0;
    for (const auto& r : out.results) {
      if (r.build && r.build->cached) ++cached;
    }
    fmt::print(
        "pass {} ({}): wall {:.2f} s, target run {:.2f} s over {} job(s), {} image(s) from the "
        "build cache\n",
        pass + 1, pass == 0 ? "warms the build cache" : "measured", wall, out.target_run_seconds,
        out.results.size(), cached);
    if (pass == 1) {
      measured = out;
      if (out.target_run_seconds <= 0)
        return fail("no job reached END: no target run time to compare with");
      fmt::print("run_overhead: wall / target run = {:.3f} (target: 1.10 or less)\n",
                 wall / out.target_run_seconds);
    }
  }
  std::error_code ec;
  if (argc <= 2) std::filesystem::remove_all(scratch, ec);
  return 0;
}
