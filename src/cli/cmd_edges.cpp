// `rtosbench edges CAPTURE --job DIR`: the command line face of rb::edges
// (docs/cli.md, docs/lab.md "Reading an edges disagreement").
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "edges/edges.h"
#include "matrix/load.h"
#include "util/temp_dir.h"

namespace rb::cli {
namespace {

namespace fs = std::filesystem;

struct Args {
  std::string capture, job, input_format, json;
  std::string mk = "MK", ev = "EV", tk = "TK";
  std::optional<double> tolerance_ns;
  std::optional<double> gpio_latency_ns;
};

// The `edges:` key of the run a job belongs to: the matrix.yaml snapshot
// beside run.json in the job's directory or one above it (jobs/ID,
// jobs/ID/attempt-N, jobs/ID/load-N/attempt-N); the default when the job is
// in no run directory.
rb::matrix::EdgesSpec run_edges_spec(const fs::path& job) {
  std::error_code ec;
  fs::path p = fs::absolute(job, ec).lexically_normal();
  for (int up = 0; up < 5 && !p.empty(); ++up, p = p.parent_path()) {
    if (!fs::is_regular_file(p / "matrix.yaml") || !fs::is_regular_file(p / "run.json")) continue;
    std::ifstream in(p / "matrix.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto spec = rb::matrix::parse_matrix_edges(text, p / "matrix.yaml");
    if (!spec.ok()) {
      fail(make_error(ErrorKind::kBadInput, spec.errors.front().format()));
    }
    return spec.value;
  }
  return {};
}

}  // namespace

std::function<int()> add_edges(CLI::App& app) {
  auto args = std::make_shared<Args>();
  app.add_option("CAPTURE", args->capture,
                 "the logic analyzer's capture (srzip, or any format sigrok-cli reads with -I)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--job", args->job,
                 "the job (or one attempt) of an edges=on run whose capture.raw the capture saw")
      ->required();
  app.add_option("--input-format", args->input_format,
                 "sigrok-cli's -I for CAPTURE (e.g. vcd, vcd:downsample=40); default: sigrok's "
                 "own detection, vcd for a .vcd file");
  app.add_option("--mk", args->mk, "the capture's channel name of the MK (marker) pin");
  app.add_option("--ev", args->ev, "the capture's channel name of the EV (event) pin");
  app.add_option("--tk", args->tk, "the capture's channel name of the TK (task/stamp) pin");
  app.add_option("--tolerance-ns", args->tolerance_ns,
                 "per-sample tolerance of |edge - dwt|; default the run matrix's "
                 "edges.tolerance_ns, else 2 analyzer sample periods plus the GPIO latency")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--gpio-latency-ns", args->gpio_latency_ns,
                 "the GPIO latency in the default tolerance (an estimate; default the run "
                 "matrix's edges.gpio_latency_ns, else 50)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", args->json,
                 "where the analysis goes as JSON ('-' stdout); default edges.json beside the "
                 "job's capture.raw");
  return [args]() -> int {
    const rb::matrix::EdgesSpec spec = run_edges_spec(args->job);
    rb::edges::Options options;
    options.tolerance_ns = args->tolerance_ns ? args->tolerance_ns : spec.tolerance_ns;
    options.gpio_latency_ns = args->gpio_latency_ns.value_or(spec.gpio_latency_ns);
    options.input_format = args->input_format;
    options.roles = {args->mk, args->ev, args->tk};
    auto runner = rb::make_posix_runner();
    auto analysis = value_or_fail(rb::edges::analyse(*runner, args->capture, args->job, options));
    const bool json_stdout = args->json == "-";
    print_safe(json_stdout ? stderr : stdout, "{}", rb::edges::to_text(analysis));
    nlohmann::json j = rb::edges::to_json(analysis);
    const std::string target =
        args->json.empty() ? (fs::path(analysis.job_capture).parent_path() / "edges.json").string()
                           : args->json;
    write_output(target, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return rb::edges::exit_code(analysis.status);
  };
}

}  // namespace rb::cli
