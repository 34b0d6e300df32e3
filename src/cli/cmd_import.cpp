// `rtosbench import cyclictest FILE [--out DIR] [--job ID] [--phase NAME]
// [--board NAME]`: the CLI face of rb::import. A refused file is printed as
// `REFUSED FILE:LINE [kind]: why` (the JSON's member instead of a line) and
// exits with its kind's code (docs/cli.md): 0 imported, 1 inconsistent,
// 2 a negative count, 3 truncated; 65 not cyclictest output, 66 unreadable,
// 64 an --out that already holds something, 73 it cannot be written.
#include <fmt/core.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "import/cyclictest.h"

namespace rb::cli {

std::function<int()> add_import(CLI::App& app) {
  struct Args {
    std::string file, out, job = "cyclictest", phase, board;
  };
  auto args = std::make_shared<Args>();
  app.require_subcommand(1);
  CLI::App* cyc = app.add_subcommand(
      "cyclictest", "cyclictest's --histogram output or --json file as a run directory");
  cyc->add_option("FILE", args->file, "the histogram text (stdout or --histfile) or the JSON file")
      ->required();
  cyc->add_option("--out", args->out,
                  "the run directory to make (default: runs/cyclictest-<UTC time>)")
      ->type_name("DIR");
  cyc->add_option("--job", args->job, "the job id")->capture_default_str();
  cyc->add_option("--phase", args->phase, "the load phase of its series (idle, cpu, ...)");
  cyc->add_option("--board", args->board, "the machine it was measured on");

  return [args]() -> int {
    auto parsed = value_or_fail(import::read_cyclictest(args->file));
    if (parsed.refused) {
      const auto& r = *parsed.refused;
      print_safe(stdout, "REFUSED {}{} [{}]: {}\n", args->file,
                 r.line ? fmt::format(":{}", r.line) : "", import::to_string(r.kind), r.message);
      return import::exit_code(r.kind);
    }
    import::ImportOptions options;
    options.out = args->out;
    if (options.out.empty()) {
      std::string stamp = store::utc_timestamp();
      std::erase(stamp, '-');
      std::erase(stamp, ':');
      options.out = std::filesystem::path("runs") / ("cyclictest-" + stamp);
    }
    options.job = args->job;
    options.phase = args->phase;
    options.board = args->board;
    std::ifstream in(args->file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (auto st = import::write_import(parsed.data, args->file, text, options); !st.ok())
      fail(st.error());
    uint64_t overflow = 0;
    for (const auto& t : parsed.data.threads) overflow += t.overflow;
    print_safe(stdout, "imported {} thread(s) of {} ({}, {} buckets, {} overflow sample(s)): {}\n",
               parsed.data.threads.size(), args->file, parsed.data.format, parsed.data.limit,
               overflow, options.out.string());
    return kExitOk;
  };
}

}  // namespace rb::cli
