// `rtosbench check BUNDLE`: the CLI face of rb::bundle::check. Every refused
// member is printed by name; the exit code is the gravest refusal's
// (docs/cli.md): 0 clean, 1 a result disagrees with its re-derived capture,
// 2 a member's bytes do not match MANIFEST, 3 a member MANIFEST does not
// name, 4 a MANIFEST entry the bundle lacks; 65 not a bundle, or a hostile
// one; 66 it cannot be read.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "bundle/bundle.h"
#include "cli/commands.h"

namespace rb::cli {

std::function<int()> add_check(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  app.add_option("BUNDLE", *file, "the bundle (rtosbench bundle)")->required();
  return [file]() -> int {
    auto r = bundle::check(*file);
    if (!r.ok()) fail(r.error());
    for (const auto& p : r->problems)
      print_safe(stdout, "REFUSED {} [{}]: {}\n", p.member, bundle::to_string(p.kind), p.message);
    const int code = bundle::exit_code(*r);
    print_safe(stdout,
               "{}: {} members, {} results, {} captures re-verified, {} series re-derived: {}\n",
               *file, r->members, r->results, r->captures, r->series,
               code == 0 ? "clean" : fmt::format("{} refused", r->problems.size()));
    return code;
  };
}

}  // namespace rb::cli
