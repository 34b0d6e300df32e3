#include "build/toolchain.h"

#include <fmt/core.h>
#include <fmt/format.h>

namespace rb::build {

namespace {

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  std::string l = s.substr(0, nl);
  while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
  return l;
}

Result<std::string> tool_output(ProcessRunner& runner, std::vector<std::string> argv,
                                const char* package) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::seconds(30);
  auto r = runner.run(spec);
  if (!r.ok()) {
    return Error{fmt::format("`{}` failed ({}); install the Debian package {}",
                             fmt::join(argv, " "), r.describe(), package)};
  }
  return r.output;
}

}  // namespace

Result<Toolchain> probe_toolchain(ProcessRunner& runner) {
  Toolchain tc;
  auto v = tool_output(runner, {"arm-none-eabi-gcc", "-dumpversion"}, "gcc-arm-none-eabi");
  if (!v.ok()) return v.error();
  tc.gcc_version = first_line(*v);
  auto b = tool_output(runner, {"arm-none-eabi-gcc", "--version"}, "gcc-arm-none-eabi");
  if (!b.ok()) return b.error();
  tc.gcc_banner = first_line(*b);
  auto c = tool_output(runner, {"cmake", "--version"}, "cmake");
  if (!c.ok()) return c.error();
  std::string cl = first_line(*c);
  tc.cmake_version = cl.substr(cl.rfind(' ') + 1);
  auto n = tool_output(runner, {"ninja", "--version"}, "ninja-build");
  if (!n.ok()) return n.error();
  tc.ninja_version = first_line(*n);
  return tc;
}

Status check_gcc_pin(const Toolchain& tc, const std::string& pin) {
  if (pin.empty() || pin == tc.gcc_version) return {};
  return Error{fmt::format(
      "arm-none-eabi-gcc is {} but the matrix pins {} ({}); numbers from different compilers "
      "are not comparable: install {} or change toolchain.arm-none-eabi-gcc in the matrix",
      tc.gcc_version, pin, tc.gcc_banner, pin)};
}

}  // namespace rb::build
