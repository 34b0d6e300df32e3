#pragma once
// The host tools a firmware build depends on, as they report themselves.
#include <string>

#include "util/process.h"
#include "util/result.h"

namespace rb::build {

struct Toolchain {
  std::string gcc_version;    // `arm-none-eabi-gcc -dumpversion`, e.g. "12.2.1"
  std::string gcc_banner;     // first line of `arm-none-eabi-gcc --version`
  std::string cmake_version;  // e.g. "3.25.1"
  std::string ninja_version;
};

// Runs the tools. Error names the tool that is missing or failed, and how to
// install it (Debian package).
Result<Toolchain> probe_toolchain(ProcessRunner& runner);

// Error when `pin` is set and differs from the probed version.
Status check_gcc_pin(const Toolchain& tc, const std::string& pin);

}  // namespace rb::build
