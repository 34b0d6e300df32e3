// `rtosbench smoke --bench FILE [--board ID]`: first light for a new bench
// (docs/lab.md): a ruler-only image through the whole pipeline on each
// board, and what its capture says about the bench. The work is
// src/doctor/smoke.*. Exit codes: 0 every board OK, 1 a board not OK, 64 usage,
// 69 a tool missing.
#include <fmt/core.h>

#include "cli/commands.h"
#include "doctor/smoke.h"

namespace rb::cli {

std::function<int()> add_smoke(CLI::App& app) {
  auto req = std::make_shared<doctor::SmokeRequest>();
  req->firmware = "firmware";
  req->out = "runs/smoke";
  app.add_option("--bench", req->bench, "bench YAML (what is plugged in)")->required();
  app.add_option("--board", req->board, "only this board id of the bench");
  app.add_option("--firmware", req->firmware, "firmware CMake project")->capture_default_str();
  app.add_option("--out", req->out, "directory under which each board's run directory is made")
      ->capture_default_str();
  app.add_option("--build-cache", req->build_cache,
                 "firmware build cache (default ~/.cache/rtosbench/builds)");
  return [req]() -> int {
    auto processes = make_posix_runner();
    run::SteadyClock clock;
    auto results = doctor::run_smoke(*req, *processes, clock,
                                     [](std::string_view s) { fmt::print(stderr, "{}", s); });
    if (!results.ok()) fail(results.error());
    print_safe(stdout, "{}", doctor::format_smoke(*results));
    for (const auto& r : *results) {
      if (r.status != store::JobStatus::kOk) return 1;
    }
    return kExitOk;
  };
}

}  // namespace rb::cli
