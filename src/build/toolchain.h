#pragma once
// The host tools a firmware build depends on, as they report themselves.
#include <filesystem>
#include <optional>
#include <string>

#include "util/process.h"
#include "util/result.h"

namespace rb::build {

struct Toolchain {
  std::string gcc_version;    // `arm-none-eabi-gcc -dumpversion`, e.g. "12.2.1"
  std::string gcc_banner;     // first line of `arm-none-eabi-gcc --version`
  std::string cmake_version;  // e.g. "3.25.1"
  std::string ninja_version;
  // The compiler by its bytes (docs/firmware.md, "Reproducible images"): the
  // file `arm-none-eabi-gcc` resolves to on PATH, symbolic links followed, and
  // its SHA-256; the same for the C compiler proper it runs
  // (`-print-prog-name=cc1`). Empty when it cannot be found or read.
  std::string gcc_path, gcc_sha256;
  std::string cc1_path, cc1_sha256;
};

// Runs the tools. Error names the tool that is missing or failed, and how to
// install it (Debian package). `search_path` is the PATH the compiler is
// looked up in for its hash (the process' PATH when nullopt).
Result<Toolchain> probe_toolchain(ProcessRunner& runner,
                                  std::optional<std::string> search_path = std::nullopt);

// The first executable regular file `name` names in a ':'-separated PATH,
// with its symbolic links resolved; empty when there is none.
std::filesystem::path resolve_on_path(const std::string& name, const std::string& search_path);

// Error when `pin` is set and differs from the probed version.
Status check_gcc_pin(const Toolchain& tc, const std::string& pin);

}  // namespace rb::build
