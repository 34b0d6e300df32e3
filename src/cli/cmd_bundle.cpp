// `rtosbench bundle RUN_DIR -o FILE`: a run as one publishable file, the CLI
// face of rb::bundle::write_bundle (docs/results.md, "Bundles"). Exit codes:
// 0 written, 64 usage, 65 the run directory holds a link or special file,
// 66 it is no run directory or cannot be read, 73 FILE cannot be written.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "bundle/bundle.h"
#include "cli/commands.h"

namespace rb::cli {

std::function<int()> add_bundle(CLI::App& app) {
  struct Args {
    std::string run, out;
  };
  auto args = std::make_shared<Args>();
  app.add_option("RUN_DIR", args->run, "the run directory")->required();
  app.add_option("-o,--output", args->out, "the bundle to write, e.g. run.tar.zst")
      ->required()
      ->type_name("FILE");
  return [args]() -> int {
    auto w = bundle::write_bundle(args->run, args->out);
    if (!w.ok()) fail(w.error());
    print_safe(stdout, "{}: {} members ({} bytes) under {}/, and their MANIFEST\n",
               w->file.string(), w->members, w->bytes, w->top);
    return kExitOk;
  };
}

}  // namespace rb::cli
