// `rtosbench footprint KERNEL_BUILD_DIR BARE_BUILD_DIR [--json] [--firmware DIR]`:
// the CLI face of rb::build::kernel_footprint for two firmware build
// directories, their maps sorted by their kernels' kernel.yaml rules (the
// catalog of the firmware tree). Exit codes: docs/cli.md.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>

#include "build/footprint.h"
#include "catalog/catalog.h"
#include "cli/commands.h"

namespace rb::cli {

namespace {
constexpr int kExitRefused = 3;

std::string row(const char* what, int64_t flash, int64_t ram, const std::string& note) {
  return fmt::format("  {:<16} {:>8} {:>8}  {}\n", what, flash, ram, note);
}

std::string part_note(const build::SectionBytes& b) {
  return fmt::format("text {}, data {}, bss {}", b.text, b.data, b.bss);
}

// The table `footprint` prints: the images, their difference and its parts.
std::string footprint_text(const build::KernelFootprint& x, const std::string& kernel_dir,
                           const std::string& bare_dir) {
  int64_t sum_flash =
      static_cast<int64_t>(x.kernel.flash() + x.kernel_support.flash() + x.port_glue.flash()) +
      x.libs_flash + x.startup_flash - static_cast<int64_t>(x.bare_port.flash());
  int64_t sum_ram =
      static_cast<int64_t>(x.kernel.ram() + x.kernel_support.ram() + x.port_glue.ram()) +
      x.libs_ram + x.startup_ram - static_cast<int64_t>(x.bare_port.ram());
  std::string out = fmt::format("{} on {}, bytes                flash      RAM\n", x.port, x.board);
  out += row("image", x.image_flash, x.image_ram, kernel_dir);
  out += row("bare image", x.bare_flash, x.bare_ram, bare_dir);
  out += row("kernel alone", x.delta_flash(), x.delta_ram(), "image - bare image");
  out += "  by the map files:\n";
  out += row("kernel objects", x.kernel.flash(), x.kernel.ram(), part_note(x.kernel));
  if (x.kernel_support.flash() + x.kernel_support.ram() > 0)
    out += row("kernel support", x.kernel_support.flash(), x.kernel_support.ram(),
               part_note(x.kernel_support));
  out += row("port glue", x.port_glue.flash(), x.port_glue.ram(), part_note(x.port_glue));
  out += row("C library", x.libs_flash, x.libs_ram, "kernel image minus bare image");
  if (x.startup_flash != 0 || x.startup_ram != 0)
    out += row("board start-up", x.startup_flash, x.startup_ram,
               "kernel image minus bare image (the kernel owns start-up)");
  out += row("- bare port", -static_cast<int64_t>(x.bare_port.flash()),
             -static_cast<int64_t>(x.bare_port.ram()), part_note(x.bare_port));
  out += row("= sum", sum_flash, sum_ram, "equals `kernel alone` up to section alignment");
  return out;
}

}  // namespace

std::function<int()> add_footprint(CLI::App& app) {
  struct Args {
    std::string kernel, bare, firmware;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  app.footer(
      "Flash and RAM of a kernel alone: a kernel port's firmware build compared with the bare "
      "port's build of the same board and options (docs/kernels.md, \"Footprint\"). Both "
      "directories hold CMakeCache.txt, size.json and rtosbench-fw.map; they must agree in "
      "RB_BOARD, RB_OPT, RB_TICK_HZ, RB_FPU_CONTEXT, RB_SAMPLES, RB_WARMUP and RB_TESTS.\n"
      "Exit status: 0 printed; 3 refused (the builds differ, the second is not the reference "
      "port's (kernel.yaml `reference: true`), the first "
      "has no kernel object); 64 usage; 66 a build directory lacks a file or it cannot be read.");
  app.add_option("KERNEL_BUILD_DIR", args->kernel, "the kernel port's firmware build directory")
      ->required();
  app.add_option("BARE_BUILD_DIR", args->bare, "the bare port's firmware build directory")
      ->required();
  app.add_flag(
      "--json", args->json,
      "print one JSON object (image, bare, delta, kernel, kernel_support, port_glue, libs, "
      "startup, bare_port; bytes)");
  app.add_option("--firmware", args->firmware,
                 "the firmware tree whose ports' kernel.yaml say how a kernel that links its "
                 "own image sorts its map file (default: the tree KERNEL_BUILD_DIR was "
                 "configured from, else the one rtosbench was built from)")
      ->type_name("DIR");

  return [args]() -> int {
    // The rules of the tree the kernel image was built from, unless named.
    std::filesystem::path tree = args->firmware;
    if (tree.empty()) {
      std::error_code ec;
      tree = build::firmware_tree_of(args->kernel);
      if (tree.empty() || !std::filesystem::is_directory(tree / "ports", ec))
        tree = catalog::default_firmware_dir();
    }
    std::vector<Diagnostic> diagnostics;
    auto cat = catalog::load(tree, diagnostics);
    if (!cat.ok()) fail(cat.error(), diagnostics);
    // The image kernels are counted against: the port whose kernel.yaml says
    // `reference: true` (catalog::load refuses a tree without exactly one).
    const model::KernelSpec* reference = cat->reference();
    if (!reference) {
      fail(make_error(ErrorKind::kUsage, fmt::format("the firmware tree {} has no reference port",
                                                     cat->firmware.string())));
    }
    // A build directory that cannot be read is 66, whatever the cause (docs/cli.md).
    auto read = [&](const std::string& dir) {
      auto r = build::read_build_dir(dir, cat->kernels);
      if (!r.ok()) fail(Error{r.error().message, ErrorKind::kCannotRead});
      return std::move(r).value();
    };
    auto k = read(args->kernel);
    auto b = read(args->bare);
    if (auto s = build::check_like_for_like(k.options, args->kernel, b.options, args->bare,
                                            reference->port);
        !s.ok()) {
      print_safe(stderr, "rtosbench footprint: {}\n", s.error().message);
      return kExitRefused;
    }
    auto f = build::kernel_footprint(k.figures, b.figures, reference->port);
    if (!f.ok()) {
      print_safe(stderr, "rtosbench footprint: {}: {}\n", args->kernel, f.error().message);
      return kExitRefused;
    }
    if (args->json) {
      fmt::print("{}\n", build::to_json(*f).dump());
      return kExitOk;
    }
    const std::string out = footprint_text(*f, args->kernel, args->bare);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  };
}

}  // namespace rb::cli
