#include "build/toolchain.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <tuple>
#include <utility>

#include "util/sha256.h"

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

// Path and SHA-256 of a file with its links resolved; both empty when it
// cannot be read.
std::pair<std::string, std::string> hashed(const std::filesystem::path& p) {
  std::error_code ec;
  auto real = std::filesystem::canonical(p, ec);
  if (ec) return {};
  auto h = sha256_file(real);
  if (!h.ok()) return {};
  return {real.string(), *h};
}

}  // namespace

std::filesystem::path resolve_on_path(const std::string& name, const std::string& search_path) {
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t end = search_path.find(':', start);
    if (end == std::string::npos) end = search_path.size();
    std::string dir = search_path.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) dir = ".";  // POSIX: an empty entry is the working directory
    std::filesystem::path cand = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(cand, ec) && ::access(cand.c_str(), X_OK) == 0) {
      auto real = std::filesystem::canonical(cand, ec);
      if (!ec) return real;
    }
  }
  return {};
}

Result<Toolchain> probe_toolchain(ProcessRunner& runner, std::optional<std::string> search_path) {
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

  if (!search_path) {
    const char* p = std::getenv("PATH");
    search_path = p ? p : "";
  }
  if (auto gcc = resolve_on_path("arm-none-eabi-gcc", *search_path); !gcc.empty())
    std::tie(tc.gcc_path, tc.gcc_sha256) = hashed(gcc);
  // cc1: gcc prints its absolute path, or the bare name when it has none.
  if (auto c1 =
          tool_output(runner, {"arm-none-eabi-gcc", "-print-prog-name=cc1"}, "gcc-arm-none-eabi");
      c1.ok()) {
    std::filesystem::path p = first_line(*c1);
    if (p.is_absolute()) std::tie(tc.cc1_path, tc.cc1_sha256) = hashed(p);
  }
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
