#include "cli/run_input.h"

#include "cli/commands.h"

namespace rb::cli {

Result<RunInput> open_run_input(const std::string& arg) {
  RunInput in;
  in.path = arg;
  in.shown = arg;
  if (!bundle::looks_like_bundle(arg)) return in;
  auto x = bundle::open_run(arg);
  if (!x.ok()) return x.error();
  in.bundle = std::move(*x);
  in.path = in.bundle->root().string();
  in.shown = arg + " (bundle)";
  return in;
}

report::Tolerances tolerances_for(const std::string& file, const report::RunSnapshot& run) {
  const std::filesystem::path matrix = std::filesystem::path(run.source) / "matrix.yaml";
  Result<report::Tolerances> tol = report::Tolerances::defaults();
  if (!file.empty()) {
    tol = report::load_tolerances_file(file);
  } else if (!run.is_baseline && std::filesystem::exists(matrix)) {
    tol = report::tolerances_from_matrix(matrix);
  }
  if (!tol.ok()) fail(Error{"tolerances: " + tol.error().message, ErrorKind::kUsage});
  return std::move(tol).value();
}

}  // namespace rb::cli
