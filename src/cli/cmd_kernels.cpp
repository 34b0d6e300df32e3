// `rtosbench kernels`: the kernel ports of a firmware tree and their pins,
// each declared once, in its port's kernel.yaml (docs/porting.md):
//   kernels list   [--matrix M]          one line per kernel: version, pin, note
//   kernels pins   [--matrix M]          KERNEL EXTRA VERSION TAG COMMIT, "-" for none
//   kernels show   NAME [--matrix M]     the kernel's facts as JSON
//   kernels expect NAME --board B [--matrix M]  KEY=VALUE: the CONFIG pins its captures on
//                                        board B are verified against (board, matrix, kernel)
//   kernels env    [--matrix M]          `export RTOSBENCH_KERNEL_<KEY>=DIR` for each
//                                        source at its pin in the kernel cache; `# ...` why not
//   kernels args   [--matrix M]          `--kernel-source KEY=DIR` for each variable set
//   kernels fetch  [NAME...] [--matrix M]  clone the pinned sources into the cache
// Without --matrix: every port of the firmware tree (--firmware, else the one
// rtosbench was built from). Exit codes (docs/cli.md): 0 done, 64 usage or an
// invalid matrix/kernel.yaml, 66 a file that cannot be read, 69 a source that
// could not be fetched.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "kernels/source.h"
#include "matrix/expand.h"
#include "matrix/load.h"

namespace rb::cli {

namespace {

using nlohmann::json;

struct Args {
  std::string matrix, firmware, cache, name, board;
  std::vector<std::string> names;
};

// The matrix the command is about: --matrix, or one of every discovered
// port of the firmware tree.
matrix::Matrix matrix_of(const Args& a) {
  if (!a.matrix.empty()) {
    auto lm = matrix::load_matrix(a.matrix, a.firmware);
    if (!lm.ok()) {
      fail(
          make_error(ErrorKind::kUsage, fmt::format("{}: {} error(s)", a.matrix, lm.errors.size())),
          lm.errors);
    }
    return lm.value;
  }
  std::vector<Diagnostic> d;
  matrix::Matrix m;
  m.firmware =
      a.firmware.empty() ? catalog::default_firmware_dir() : std::filesystem::path(a.firmware);
  auto cat = catalog::load(m.firmware, d);
  if (!cat.ok()) fail(cat.error(), d);
  m.catalog = std::move(*cat);
  for (const auto& k : m.catalog.kernels)
    if (k.discover) m.kernels.push_back(k);
  return m;
}

std::vector<matrix::KernelSpec> kernels_of(const Args& a) {
  return matrix_of(a).kernels;
}

// `s` as one word of sh: single-quoted, each ' as '\''.
std::string sh_word(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

json facts(const matrix::KernelSpec& k) {
  json extras = json::array();
  for (const auto& x : k.extra_sources)
    extras.push_back({{"name", x.name}, {"git", x.git}, {"tag", x.tag}, {"commit", x.commit}});
  json expect = json::object();
  for (const auto& [key, v] : k.expect) expect[key] = v ? json(*v) : json();
  json files = json::array();
  for (const auto& f : k.footprint.files) files.push_back({{"match", f.match}, {"owner", f.owner}});
  return {{"name", k.name},
          {"port", k.port},
          {"port_exists", k.port_exists},
          {"version", k.version},
          {"git", k.git},
          {"tag", k.tag},
          {"commit", k.commit},
          {"supply", k.supply},
          {"note", k.note},
          {"reference", k.reference},
          {"checks_series", k.checks_series},
          {"extra_sources", extras},
          {"expect", expect},
          {"na", k.na},
          {"defects", k.defects},
          {"defect_cpus", k.defect_cpus},
          {"cpu_ports", k.cpu_ports},
          {"footprint", {{"files", files}, {"sections", k.footprint.sections}}}};
}

kernels::ResolveOptions cache_options(const Args& a, bool fetch) {
  kernels::ResolveOptions o;
  o.cache_dir = a.cache.empty() ? kernels::default_cache_dir() : std::filesystem::path(a.cache);
  o.fetch = fetch;
  return o;
}

int list(const Args& a) {
  for (const auto& k : kernels_of(a)) {
    std::string pin = !k.commit.empty()   ? "commit " + k.commit.substr(0, 12)
                      : !k.tag.empty()    ? "tag " + k.tag
                      : !k.supply.empty() ? "supplied by the user"
                                          : "no source";
    print_safe(stdout, "{:<14} {:<10} {:<30} {}\n", k.name, k.version, pin,
               k.port_exists ? "" : "(no port)");
  }
  return kExitOk;
}

int pins(const Args& a) {
  for (const auto& k : kernels_of(a)) {
    print_safe(stdout, "{} - {} {} {}\n", k.name, dash(k.version), dash(k.tag), dash(k.commit));
    for (const auto& x : k.extra_sources)
      print_safe(stdout, "{} {} - {} {}\n", k.name, x.name, dash(x.tag), dash(x.commit));
  }
  return kExitOk;
}

const model::BoardInfo& board_of(const matrix::Matrix& m, const std::string& name) {
  if (const auto* b = m.catalog.board(name)) return *b;
  fail(make_error(ErrorKind::kUsage, fmt::format("no board '{}' (allowed: {})", name,
                                                 fmt::join(m.catalog.board_names(), ", "))));
}

// With --board: the facts on that board's core (its CPU port, or null when
// the recipe has none: its jobs are PORT_MISSING; the defects found there).
int show(const Args& a) {
  const matrix::Matrix m = matrix_of(a);
  for (const auto& k : m.kernels) {
    if (k.name != a.name) continue;
    json f = facts(k);
    if (!a.board.empty()) {
      const std::string cpu = board_of(m, a.board).cpu;
      const auto port = k.cpu_ports.find(cpu);
      f["board_cpu"] = cpu;
      f["cpu_port"] = port == k.cpu_ports.end() ? json() : json(port->second);
      for (const auto& [check, cpus] : k.defect_cpus)
        if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) f["defects"].erase(check);
    }
    fmt::print("{}\n", f.dump(2));
    return kExitOk;
  }
  fail(make_error(ErrorKind::kUsage, fmt::format("no kernel '{}'", a.name)));
}

int expect(const Args& a) {
  const matrix::Matrix m = matrix_of(a);
  board_of(m, a.board);
  for (const auto& k : m.kernels) {
    if (k.name != a.name) continue;
    for (const auto& [key, v] : matrix::declared_pins(m, k, a.board, {}))
      print_safe(stdout, "{}={}\n", key, v);
    return kExitOk;
  }
  fail(make_error(ErrorKind::kUsage, fmt::format("no kernel '{}'", a.name)));
}

// Each source at its pin in the cache, unmodified: the same check `run` makes.
int env(const Args& a) {
  auto processes = make_posix_runner();
  auto options = cache_options(a, false);
  options.check_only = true;
  kernels::SourceResolver resolver(*processes, options);
  for (const auto& k : kernels_of(a)) {
    if (k.git.empty()) continue;  // no upstream (bare, a supplied kernel)
    for (const auto& pin : kernels::repo_pins(k)) {
      const std::string var = kernels::env_variable(pin.key);
      if (const char* set = std::getenv(var.c_str()); set && *set) continue;  // the caller's wins
      auto r = resolver.resolve_repo(pin, {});
      if (r.ok())
        print_safe(stdout, "export {}={}\n", var, sh_word(r->path.string()));
      else
        print_safe(stdout, "# {} not set: {}\n", var, r.error().message);
    }
  }
  return kExitOk;
}

int args(const Args& a) {
  for (const auto& k : kernels_of(a)) {
    for (const auto& pin : kernels::repo_pins(k)) {
      if (const char* dir = std::getenv(kernels::env_variable(pin.key).c_str()); dir && *dir)
        print_safe(stdout, "--kernel-source\n{}={}\n", pin.key, dir);
    }
  }
  return kExitOk;
}

int fetch(const Args& a) {
  auto processes = make_posix_runner();
  kernels::SourceResolver resolver(*processes, cache_options(a, true));
  int status = kExitOk;
  for (const auto& k : kernels_of(a)) {
    if (!a.names.empty() && std::find(a.names.begin(), a.names.end(), k.name) == a.names.end())
      continue;
    if (k.git.empty()) continue;
    auto r = resolver.resolve(k, {});
    if (r.ok()) {
      print_safe(stdout, "{}: {} at {}\n", k.name, r->main.path.string(),
                 r->main.commit.substr(0, 12));
    } else {
      print_safe(stderr, "rtosbench kernels fetch: {}\n", r.error().message);
      status = std::max(status, exit_code_for(r.error().kind));
    }
  }
  return status;
}

}  // namespace

std::function<int()> add_kernels(CLI::App& app) {
  auto a = std::make_shared<Args>();
  app.require_subcommand(1);
  app.footer(
      "Each kernel's pin, expected CONFIG, NA reasons and known defects live in its port's "
      "firmware/ports/<port>/kernel.yaml (docs/porting.md). Exit status: 0 done; 64 usage or an "
      "invalid file; 66 a file cannot be read; 69 a source could not be fetched.");
  auto common = [&](CLI::App* sub) {
    sub->add_option("--matrix", a->matrix, "the kernels of this matrix (with its overrides)");
    sub->add_option("--firmware", a->firmware, "the firmware tree (default: rtosbench's own)");
    return sub;
  };
  struct Action {
    CLI::App* sub;
    int (*run)(const Args&);
  };
  auto actions = std::make_shared<std::vector<Action>>();
  actions->push_back({common(app.add_subcommand("list", "one line per kernel")), list});
  actions->push_back({common(app.add_subcommand("pins", "KERNEL EXTRA VERSION TAG COMMIT")), pins});
  auto* s = common(app.add_subcommand("show", "a kernel's facts as JSON"));
  s->add_option("NAME", a->name, "the kernel")->required();
  s->add_option("--board", a->board, "its CPU port and defects on this board's core");
  actions->push_back({s, show});
  auto* x = common(app.add_subcommand("expect", "the CONFIG pins of its captures on a board"));
  x->add_option("NAME", a->name, "the kernel")->required();
  x->add_option("--board", a->board, "the board")->required();
  actions->push_back({x, expect});
  auto* e = common(app.add_subcommand("env", "export lines for the sources in the kernel cache"));
  e->add_option("--cache", a->cache, "the kernel cache (default: ~/.cache/rtosbench/kernels)");
  actions->push_back({e, env});
  actions->push_back(
      {common(app.add_subcommand("args", "--kernel-source arguments for the variables set")),
       args});
  auto* f = common(app.add_subcommand("fetch", "clone pinned sources into the kernel cache"));
  f->add_option("NAME", a->names, "kernels to fetch (default: all)");
  f->add_option("--cache", a->cache, "the kernel cache (default: ~/.cache/rtosbench/kernels)");
  actions->push_back({f, fetch});
  return [a, actions] {
    for (const auto& x : *actions)
      if (x.sub->parsed()) return x.run(*a);
    return kExitUsage;
  };
}

}  // namespace rb::cli
