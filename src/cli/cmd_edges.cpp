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
#include "util/temp_dir.h"

namespace rb::cli {
namespace {

namespace fs = std::filesystem;

struct Args {
  std::string capture, job, input_format, json;
  std::string mk = "MK", ev = "EV", tk = "TK";
  std::optional<double> tolerance_ns;
  double gpio_latency_ns = rb::edges::Options::kDefaultGpioLatencyNs;
};

// The capture.raw a --job DIR names: DIR/capture.raw (an attempt), else the
// last attempt-N/capture.raw of a job directory.
fs::path job_capture(const fs::path& dir) {
  if (fs::is_regular_file(dir / "capture.raw")) return dir / "capture.raw";
  int best = -1;
  fs::path found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("attempt-", 0) != 0 || !fs::is_regular_file(e.path() / "capture.raw")) continue;
    const int k = std::atoi(n.c_str() + 8);
    if (k > best) {
      best = k;
      found = e.path() / "capture.raw";
    }
  }
  if (found.empty()) {
    fail(make_error(
        ErrorKind::kCannotRead,
        fmt::format("--job {}: no capture.raw in it or in an attempt-N of it", dir.string())));
  }
  return found;
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
                 "per-sample tolerance of |edge - dwt|; default 2 analyzer sample periods plus "
                 "the GPIO latency")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--gpio-latency-ns", args->gpio_latency_ns,
                 "the GPIO latency in the default tolerance (docs/lab.md)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", args->json,
                 "where the analysis goes as JSON ('-' stdout); default edges.json beside the "
                 "job's capture.raw");
  return [args]() -> int {
    const fs::path raw = job_capture(args->job);
    std::ifstream in(raw);
    if (!in) fail(make_error(ErrorKind::kCannotRead, "cannot read " + raw.string()));
    auto job = value_or_fail(rb::edges::read_job(in), raw.string() + ": ");
    std::string format = args->input_format;
    if (format.empty() && fs::path(args->capture).extension() == ".vcd") format = "vcd";
    auto scratch = value_or_fail(rb::make_owned_temp_dir("rtosbench-edges"));
    auto runner = rb::make_posix_runner();
    auto read = rb::edges::read_with_sigrok(*runner, args->capture, format,
                                            {args->mk, args->ev, args->tk}, scratch);
    std::error_code ec;
    fs::remove_all(scratch, ec);
    auto sig = value_or_fail(std::move(read));
    rb::edges::Options options;
    options.tolerance_ns = args->tolerance_ns;
    options.gpio_latency_ns = args->gpio_latency_ns;
    auto analysis = value_or_fail(rb::edges::analyze(sig.capture, job, options));
    if (sig.overflowed && analysis.status != rb::edges::Status::kOverflow) {
      analysis.status = rb::edges::Status::kOverflow;
      analysis.refusal = "sigrok-cli reports an overflow: " + sig.message;
      analysis.series.clear();
    }
    const bool json_stdout = args->json == "-";
    print_safe(json_stdout ? stderr : stdout, "{}", rb::edges::to_text(analysis));
    nlohmann::json j = rb::edges::to_json(analysis);
    j["capture"] = args->capture;
    j["job_capture"] = raw.string();
    const std::string target =
        args->json.empty() ? (raw.parent_path() / "edges.json").string() : args->json;
    write_output(target, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return rb::edges::exit_code(analysis.status);
  };
}

}  // namespace rb::cli
