#pragma once
// The footprint of a kernel alone: a kernel port's image compared with the
// reference port's image of the same board and build options (the port whose
// kernel.yaml says `reference: true`, catalog::Catalog::reference(): bare;
// "bare" below means that image, whatever the port's directory is named).
// Two ways of counting that must agree up to section alignment:
// - the image delta (size.json of both images): what choosing the kernel
//   costs instead of the bare port's own small scheduler;
// - the map file's input sections by owner: the kernel's objects (the
//   firmware's `rb_kernel` object library), the port glue
//   (ports/<port>/*.c), the C library members (lib*.a), and in the bare
//   image the bare port itself.
// docs/kernels.md ("Footprint") says what each figure holds.
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "build/firmware_builder.h"
#include "model/catalog.h"
#include "util/result.h"

namespace rb::build {

// Input-section bytes of one owner by kind: text (output sections .text,
// .isr_vector, .ARM.exidx: flash only; the firmware's linker scripts put
// .rodata into .text), data (.data: flash and RAM), bss (.bss: RAM only).
struct SectionBytes {
  uint64_t text = 0, data = 0, bss = 0;
  uint64_t flash() const { return text + data; }
  uint64_t ram() const { return data + bss; }
  bool operator==(const SectionBytes&) const = default;
};

// A linked image's input sections summed by owner. The generic owners
// below hold in every image; a kernel that builds its own image (Zephyr,
// NuttX: docs/porting.md) declares in its kernel.yaml (`footprint:`,
// model::FootprintRules) which of its own input files are `kernel`,
// `kernel_support` or nobody's (its application archive, like the harness
// in every image), and which of its output sections hold text, data and bss
// beyond .text, .isr_vector, .ARM.exidx, .data and .bss. The POSIX port
// ("/ports/posix/") is port glue of the system built on it.
struct MapOwners {
  SectionBytes kernel;     // objects of the rb_kernel object library (path holds "rb_kernel.dir/")
  SectionBytes port_glue;  // objects under "/ports/<port>/"
  SectionBytes libs;       // archive members, "/lib<name>.a(" (libc, libgcc)
  SectionBytes kernel_support;  // the files the kernel's rules name kernel_support (its devices,
                                // init, SoC and HAL objects, its own C library)
  SectionBytes startup;  // the boards' start-up code ("/boards/common/startup.c") and main stack
                         // (.msp_stack)
  bool operator==(const MapOwners&) const = default;
};

// Sums the input sections of a GNU ld map file (`-Wl,-Map=`), from its
// "Linker script and memory map" part on, by owner and kind. `port` names
// the port whose glue is counted, `rules` the kernel's own files and output
// sections (its KernelSpec::footprint; empty for most kernels). A long input-section name puts its
// address, size and file on the next line; both layouts are read. `origin`
// names the text in messages. Error when the text has no "Linker script and
// memory map" line (not a map file) or a size is not hexadecimal.
Result<MapOwners> sum_map(std::string_view map_text, std::string_view port,
                          const model::FootprintRules& rules, const std::string& origin);

// sum_map of a file; the error names the file and why it cannot be read.
Result<MapOwners> sum_map_file(const std::filesystem::path& map, std::string_view port,
                               const model::FootprintRules& rules);

// `{"flash", "ram"}` of size.json (the firmware's size report); the error
// names the file and the cause.
Result<Footprint> read_size_json(const std::filesystem::path& size_json);

// What the comparison needs of one image.
struct ImageFigures {
  std::string port;   // RB_PORT
  std::string board;  // RB_BOARD
  Footprint size;     // size.json
  MapOwners map;      // sum_map with `port` and its kernel's rules
};

// The kernel-alone footprint (the JSON object `rtosbench footprint --json`
// prints and result.json holds as build.footprint_kernel).
struct KernelFootprint {
  std::string port, board;
  std::string reference;                    // the reference image's port (RB_PORT)
  uint64_t image_flash = 0, image_ram = 0;  // the kernel image (size.json)
  uint64_t bare_flash = 0, bare_ram = 0;    // the bare image (size.json)
  SectionBytes kernel;                      // kernel objects in the kernel image
  SectionBytes kernel_support;              // the files its rules name kernel_support
  SectionBytes port_glue;                   // the kernel port's glue in the kernel image
  SectionBytes bare_port;                   // the bare port in the bare image
  int64_t libs_flash = 0, libs_ram = 0;     // C library bytes: kernel image minus bare image
  // Board start-up code, kernel image minus bare image: 0, or minus the bare
  // image's when the kernel owns start-up (its reset and vectors are `kernel`).
  int64_t startup_flash = 0, startup_ram = 0;
  int64_t delta_flash() const {
    return static_cast<int64_t>(image_flash) - static_cast<int64_t>(bare_flash);
  }
  int64_t delta_ram() const {
    return static_cast<int64_t>(image_ram) - static_cast<int64_t>(bare_ram);
  }
};

// The arithmetic: delta = image - bare; libs = C library bytes of the kernel
// image minus those of the bare image. Error when `bare` is not a build of
// `reference_port` (the catalog's reference kernel's port), or the kernel
// image holds no kernel text (not a kernel port: nothing to attribute the
// delta to).
Result<KernelFootprint> kernel_footprint(const ImageFigures& kernel, const ImageFigures& bare,
                                         std::string_view reference_port);

// {port, board, reference, image{flash,ram}, bare{flash,ram}, delta{flash,ram},
//  kernel{text,data,bss,flash,ram}, kernel_support{...}, port_glue{...}, libs{flash,ram},
//  startup{flash,ram}, bare_port{...}}. `bare` and `bare_port` are the
// reference image's figures; they keep the names result.json and
// `rtosbench footprint --json` have always had (docs/results.md), and
// `reference` names its port.
nlohmann::json to_json(const KernelFootprint& f);

// The build options two images must share to be compared: the harness, the
// board and the sample buffers are the same only then.
inline constexpr std::array<const char*, 7> kLikeForLikeOptions{
    "RB_BOARD", "RB_OPT", "RB_TICK_HZ", "RB_FPU_CONTEXT", "RB_SAMPLES", "RB_WARMUP", "RB_TESTS"};

// Refuses a comparison that is not like with like: `bare` must be built
// with RB_PORT=`reference_port` and both must agree in every kLikeForLikeOptions value
// (a missing value counts as empty). The labels name the two builds in the
// message, e.g. "the builds differ in RB_OPT ('-O2 -g0' in K, '-Os' in B)".
Status check_like_for_like(const std::map<std::string, std::string>& kernel_options,
                           const std::string& kernel_label,
                           const std::map<std::string, std::string>& bare_options,
                           const std::string& bare_label, std::string_view reference_port);

// The firmware tree a build directory was configured from (CMakeCache.txt's
// CMAKE_HOME_DIRECTORY); empty when the file cannot be read or names none.
std::filesystem::path firmware_tree_of(const std::filesystem::path& build_dir);

// A firmware build directory (scripts/fw-build.sh, tests/ports, a build
// cache entry's build/): its RB_* options and figures, its map summed by
// the rules of the kernel in `kernels` (a catalog's) whose port is its
// RB_PORT. Error names the missing or unreadable file, or the RB_PORT no
// kernel of `kernels` has.
struct BuildDirImage {
  std::filesystem::path dir;
  std::map<std::string, std::string> options;  // RB_* from CMakeCache.txt
  ImageFigures figures;
};
Result<BuildDirImage> read_build_dir(const std::filesystem::path& dir,
                                     const std::vector<model::KernelSpec>& kernels);

// The kernel-alone footprint of two images the run pipeline built (the
// defines and files of BuildOutput): like-for-like check, both maps summed
// (each by its kernel's footprint rules), kernel_footprint. `bare` is the
// image of `reference_port`.
Result<KernelFootprint> kernel_footprint_of(const BuildOutput& kernel,
                                            const model::FootprintRules& kernel_rules,
                                            const BuildOutput& bare,
                                            const model::FootprintRules& bare_rules,
                                            std::string_view reference_port);

}  // namespace rb::build
