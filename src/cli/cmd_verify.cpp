// `rtosbench verify LOG [--expect KEY=VALUE ...] [--image FILE] [--json FILE]`:
// the command line face of rb::verify. Exit codes: docs/verify.md.
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "edges/edges.h"
#include "verify/image.h"
#include "verify/verify.h"

namespace rb::cli {
namespace {

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

// The options from --stack-margin, --firmware, --board and --expect; fails
// when they do not make sense.
rb::verify::Options read_options(const Args& args) {
  rb::verify::Options options;
  options.stack_margin_words = args.stack_margin;
  if (!args.firmware.empty()) {
    std::vector<rb::Diagnostic> diagnostics;
    auto cat = rb::catalog::load(args.firmware, diagnostics);
    if (!cat) {
      std::vector<std::string> lines;
      for (const auto& d : diagnostics) lines.push_back("  " + d.format());
      fail(Error{fmt::format("--firmware {}: {}", args.firmware, cat.error().message),
                 cat.error().kind},
           lines);
    }
    options.baselines = cat->series_baselines();
    if (!args.board.empty()) {
      const auto* b = cat->board(args.board);
      if (!b) {
        fail(make_error(ErrorKind::kUsage, fmt::format("--board {}: no such board in {}/boards",
                                                       args.board, args.firmware)));
      }
      options.lower_bounds = b->lower_bounds;
    }
  } else if (!args.board.empty()) {
    fail(make_error(ErrorKind::kUsage, "--board needs --firmware (the tree it is read from)"));
  }
  for (const std::string& e : args.expect) {
    const size_t eq = e.find('=');  // checked by the option's validator
    std::string key = e.substr(0, eq), value = e.substr(eq + 1);
    auto [it, inserted] = options.expect.emplace(key, value);
    if (!inserted && it->second != value) {
      fail(make_error(ErrorKind::kUsage,
                      fmt::format("--expect {} given twice with different values ({} and {})", key,
                                  it->second, value)));
    }
  }
  return options;
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
    // A job that holds an edges analysis (rtosbench edges, beside the
    // capture): its figures and verdicts beside the DWT series.
    if (args.log != "-") {
      const auto edges = std::filesystem::path(args.log).parent_path() / "edges.json";
      std::ifstream in(edges);
      if (in) {
        auto e = nlohmann::json::parse(in, nullptr, false);
        if (e.is_discarded() || !e.is_object()) {
          fail(make_error(ErrorKind::kBadInput, edges.string() + ": not a JSON object"));
        }
        rb::edges::attach_to_verify(j, e);
      }
    }
    write_output(args.json, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
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
    auto read = value_or_fail(rb::verify::verify_log(args->log, read_options(*args)));
    std::optional<rb::verify::ImageCheck> image;
    if (!args->image.empty())
      image = value_or_fail(rb::verify::match_image_file(read.config, args->image));
    return write_reports(*args, read, image);
  };
}

}  // namespace rb::cli
