#include "cli/run_input.h"

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

}  // namespace rb::cli
