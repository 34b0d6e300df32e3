// libFuzzer target for the matrix and bench loaders (src/matrix/load.cpp):
// the first byte picks the loader (even: matrix, odd: bench), the rest is
// the file's text. Built with clang++ -fsanitize=fuzzer,address,undefined
// when RTOSBENCH_FUZZ is ON (tests/fuzz/tests.cmake). Besides "no crash, no
// hang, no leak" it checks what must hold for any input, aborting when one
// breaks: an accepted file yields only allow-listed strings and unique job
// ids that are one file name; every diagnostic prints as valid UTF-8 without
// control characters.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>

#include "matrix/expand.h"
#include "matrix/load.h"
#include "util/utf8.h"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

bool printable_utf8(const std::string& s) {
  if (rb::valid_utf8(s) != s) return false;
  for (char ch : s) {
    auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7F) return false;
  }
  return true;
}

template <typename T>
void check_diagnostics(const rb::matrix::Loaded<T>& l) {
  for (const auto& d : l.errors) {
    require(printable_utf8(d.format()),
            "a diagnostic prints as valid UTF-8 without control characters");
    require(d.line >= 0 && d.column >= 0, "a diagnostic's place is not negative");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool bench = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  static const std::regex kJobId("^[a-z0-9][A-Za-z0-9_-]*$");
  static const std::regex kSerial("^([A-Za-z0-9][A-Za-z0-9_.:-]*)?$");
  if (!bench) {
    auto m = rb::matrix::parse_matrix(text, "fuzz.yaml");
    check_diagnostics(m);
    if (m.ok()) {
      std::set<std::string> ids;
      for (const auto& j : rb::matrix::expand_jobs(m.value)) {
        require(std::regex_match(j.id, kJobId),
                "a job id is one file name of allow-listed characters");
        require(ids.insert(j.id).second, "job ids are unique");
      }
      for (const auto& k : m.value.kernels) {
        require(rb::valid_utf8(k.note) == k.note, "a note is valid UTF-8");
        require(k.git.empty() || k.git[0] != '-', "a git URL is never an option");
      }
    }
  } else {
    auto b = rb::matrix::parse_bench(text, "fuzz-bench.yaml");
    check_diagnostics(b);
    if (b.ok()) {
      for (const auto& inst : b.value.boards) {
        require(std::regex_match(inst.probe.serial, kSerial), "a probe serial is allow-listed");
        require(inst.serial_port.empty() || inst.serial_port[0] == '/',
                "a serial port is an absolute path");
        require(inst.power_cycle.find_first_of(";|&$`<>(){}'\"\\\n") == std::string::npos,
                "a power-cycle command has no shell syntax");
      }
    }
  }
  return 0;
}
