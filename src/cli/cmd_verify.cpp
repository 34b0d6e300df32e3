// `rtosbench verify LOG [--expect KEY=VALUE ...] [--image FILE] [--json FILE]`:
// the command line face of rb::verify. Exit codes: docs/verify.md.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "util/atomic_write.h"
#include "verify/image.h"
#include "verify/verify.h"

namespace rb::cli {
namespace {
// sysexits.h EX_CANTCREAT: the --json output file cannot be written.
constexpr int kExitCantCreate = 73;

struct Args {
  std::string log;
  std::vector<std::string> expect;
  std::string json;
  std::string firmware;
  std::string board;
  std::string image;
  uint64_t stack_margin = 64;
};

void add_options(CLI::App& app, const std::shared_ptr<Args>& args) {
  app.add_option("LOG", args->log, "captured serial log (a file; '-' for standard input)")
      ->required();
  app.add_option(
         "--expect", args->expect,
         "KEY=VALUE that CONFIG must carry (repeatable); a key missing from CONFIG also fails")
      ->type_name("KEY=VALUE")
      ->check(CLI::Validator(
          [](std::string& e) -> std::string {
            const size_t eq = e.find('=');
            return eq == std::string::npos || eq == 0 ? "'" + e + "' is not KEY=VALUE"
                                                      : std::string();
          },
          "KEY=VALUE"));
  app.add_option("--stack-margin", args->stack_margin,
                 "least free words every task stack must keep (END stack_min_free_words); "
                 "fewer is the verdict stack_margin; 0 turns the check off")
      ->type_name("WORDS")
      ->check(CLI::Range(0, 4096));
  app.add_option("--json", args->json,
                 "write the full report as JSON to FILE (atomically); '-' for stdout")
      ->type_name("FILE");
  app.add_option("--image", args->image,
                 "also say whether the capture came from this image (the flashed .bin or the "
                 "ELF): every CONFIG value the firmware holds as a constant (nonce, harness, "
                 "board, port, kernel version and commit, opt, tests, compiler) must be in it; "
                 "exit 5 when not, 6 when the capture cannot tell")
      ->type_name("FILE");
  app.add_option("--firmware", args->firmware,
                 "also check that each series names the baseline the harness test table of "
                 "this firmware tree gives it (rtosbench run always does)")
      ->type_name("DIR");
  app.add_option("--board", args->board,
                 "with --firmware: also check every series against this board's architectural "
                 "lower bounds (RB_BOARD_LOWER_BOUND_*; rtosbench run always does); a sample "
                 "below one is the verdict lower_bound")
      ->type_name("NAME");
}

// The options from --stack-margin, --firmware, --board and --expect; an exit
// code when they do not make sense.
std::optional<int> read_options(const Args& args, rb::verify::Options& options) {
  options.stack_margin_words = args.stack_margin;
  if (!args.firmware.empty()) {
    std::vector<rb::Diagnostic> diagnostics;
    auto cat = rb::catalog::load(args.firmware, diagnostics);
    if (!cat) {
      fmt::print(stderr, "rtosbench verify: --firmware {}: {}\n", args.firmware,
                 cat.error().message);
      for (const auto& d : diagnostics) fmt::print(stderr, "  {}\n", d.format());
      return rb::exit_code_for(cat.error().kind);
    }
    options.baselines = cat->series_baselines();
    if (!args.board.empty()) {
      const auto* b = cat->board(args.board);
      if (!b) {
        print_safe(stderr, "rtosbench verify: --board {}: no such board in {}/boards\n", args.board,
                   args.firmware);
        return kExitUsage;
      }
      options.lower_bounds = b->lower_bounds;
    }
  } else if (!args.board.empty()) {
    print_safe(stderr, "rtosbench verify: --board needs --firmware (the tree it is read from)\n");
    return kExitUsage;
  }
  for (const std::string& e : args.expect) {
    const size_t eq = e.find('=');  // checked by the option's validator
    std::string key = e.substr(0, eq), value = e.substr(eq + 1);
    auto [it, inserted] = options.expect.emplace(key, value);
    if (!inserted && it->second != value) {
      print_safe(stderr,
                 "rtosbench verify: --expect {} given twice with different values ({} and {})\n",
                 key, it->second, value);
      return kExitUsage;
    }
  }
  return std::nullopt;
}

// The text report, the JSON one when asked for, and the exit code.
int write_reports(const Args& args, const rb::verify::Report& report,
                  const std::optional<rb::verify::ImageCheck>& image) {
  const bool json_stdout = args.json == "-";
  // With --json -, stdout carries only JSON; the table goes to stderr.
  std::FILE* text_out = json_stdout ? stderr : stdout;
  const std::string text = rb::verify::to_text(report);
  print_safe(text_out, "{}", text);
  if (image) print_safe(text_out, "image {}: {}\n", args.image, image->summary);
  std::fflush(text_out);

  if (!args.json.empty()) {
    nlohmann::json j = rb::verify::to_json(report);
    if (image) {
      j["image"] = rb::verify::to_json(*image);
      j["image"]["file"] = args.image;
    }
    const std::string doc = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (json_stdout) {
      std::fwrite(doc.data(), 1, doc.size(), stdout);
      std::fflush(stdout);
    } else if (auto s = rb::write_file_atomic(args.json, doc); !s) {
      print_safe(stderr, "rtosbench verify: {}\n", s.error().message);
      return kExitCantCreate;
    }
  }
  // The image's answer outranks the measurement's: a capture of another
  // image is no evidence for this one, however valid.
  if (image && image->match != rb::verify::ImageMatch::kFromImage)
    return rb::verify::exit_code(image->match);
  return rb::verify::exit_code(report.outcome);
}

}  // namespace

std::function<int()> add_verify(CLI::App& app) {
  auto args = std::make_shared<Args>();
  add_options(app, args);
  return [args]() -> int {
    rb::verify::Options options;
    if (auto code = read_options(*args, options)) return *code;
    auto read = rb::verify::verify_log(args->log, options);
    if (!read) {
      print_safe(stderr, "rtosbench verify: {}\n", read.error().message);
      return rb::exit_code_for(read.error().kind);
    }
    std::optional<rb::verify::ImageCheck> image;
    if (!args->image.empty()) {
      auto m = rb::verify::match_image_file(read->config, args->image);
      if (!m) {
        print_safe(stderr, "rtosbench verify: {}\n", m.error().message);
        return rb::exit_code_for(m.error().kind);
      }
      image = std::move(*m);
    }
    return write_reports(*args, *read, image);
  };
}

}  // namespace rb::cli
