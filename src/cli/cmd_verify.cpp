// `rtosbench verify LOG [--expect KEY=VALUE ...] [--json FILE]`: the command
// line face of rb::verify. Exit codes: docs/verify.md.
#include <fmt/core.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/atomic_write.h"
#include "verify/verify.h"

namespace rb::cli {
namespace {
// sysexits.h EX_CANTCREAT: the --json output file cannot be written.
constexpr int kExitCantCreate = 73;
}  // namespace

std::function<int()> add_verify(CLI::App& app) {
  struct Args {
    std::string log;
    std::vector<std::string> expect;
    std::string json;
    unsigned threads = 0;
    size_t chunk = size_t{512} << 10;
  };
  auto args = std::make_shared<Args>();
  app.add_option("LOG", args->log, "captured serial log (a file; '-' for standard input)")
      ->required();
  app.add_option(
         "--expect", args->expect,
         "KEY=VALUE that CONFIG must carry (repeatable); a key missing from CONFIG also fails")
      ->type_name("KEY=VALUE");
  app.add_option("--json", args->json,
                 "write the full report as JSON to FILE (atomically); '-' for stdout")
      ->type_name("FILE");
  app.add_option("--threads", args->threads,
                 "threads that split and parse a file's lines while one checks them (0: one per "
                 "core, the default; 1: none); the report is the same")
      ->type_name("N");
  app.add_option("--chunk-bytes", args->chunk,
                 "bytes of the file each parsing thread takes at a time (default 524288)")
      ->type_name("BYTES")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));

  return [args]() -> int {
    rb::verify::Options options;
    options.threads = args->threads;
    options.chunk = args->chunk;
    for (const std::string& e : args->expect) {
      const size_t eq = e.find('=');
      if (eq == std::string::npos || eq == 0) {
        fmt::print(stderr, "rtosbench verify: --expect '{}' is not KEY=VALUE\n", e);
        return kExitUsage;
      }
      std::string key = e.substr(0, eq), value = e.substr(eq + 1);
      auto [it, inserted] = options.expect.emplace(key, value);
      if (!inserted && it->second != value) {
        fmt::print(stderr,
                   "rtosbench verify: --expect {} given twice with different values ({} and {})\n",
                   key, it->second, value);
        return kExitUsage;
      }
    }

    rb::verify::Report report;
    if (args->log == "-") {
      report = rb::verify::verify_stream(std::cin, options);
      report.source = "<stdin>";
    } else {
      auto r = rb::verify::verify_file(args->log, options);
      if (!r) {
        fmt::print(stderr, "rtosbench verify: {}\n", r.error().message);
        return kExitNoInput;
      }
      report = std::move(*r);
    }

    const bool json_stdout = args->json == "-";
    // With --json -, stdout carries only JSON; the table goes to stderr.
    std::FILE* text_out = json_stdout ? stderr : stdout;
    const std::string text = rb::verify::to_text(report);
    std::fwrite(text.data(), 1, text.size(), text_out);
    std::fflush(text_out);

    if (!args->json.empty()) {
      const std::string doc = rb::verify::to_json(report).dump(
                                  2, ' ', false, nlohmann::json::error_handler_t::replace) +
                              "\n";
      if (json_stdout) {
        std::fwrite(doc.data(), 1, doc.size(), stdout);
        std::fflush(stdout);
      } else if (auto s = rb::write_file_atomic(args->json, doc); !s) {
        fmt::print(stderr, "rtosbench verify: {}\n", s.error().message);
        return kExitCantCreate;
      }
    }
    return rb::verify::exit_code(report.outcome);
  };
}

}  // namespace rb::cli
