// ThreadSanitizer check of verify's parallel reader (src/verify/parallel.cpp):
// built with clang++ -fsanitize=thread by the sanitizer project next to the
// fuzz target. For every log given, and for a multi-megabyte log it writes
// itself, verify_file with three parsing threads and small pieces must give
// the sequential report; TSan aborts the program on any data race.
//
//   tsan_parallel_verify SCRATCH_DIR LOG...
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/line.h"
#include "verify/verify.h"

namespace {

bool same_report(const std::string& path, size_t chunk) {
  rb::verify::Options seq, par;
  seq.threads = 1;
  par.threads = 3;
  par.chunk = chunk;
  auto a = rb::verify::verify_file(path, seq);
  auto b = rb::verify::verify_file(path, par);
  if (!a.ok() || !b.ok()) {
    std::fprintf(stderr, "%s: cannot verify\n", path.c_str());
    return false;
  }
  if (rb::verify::to_json(*a).dump() != rb::verify::to_json(*b).dump()) {
    std::fprintf(stderr, "%s (chunk %zu): the parallel report differs\n", path.c_str(), chunk);
    return false;
  }
  return true;
}

// A valid V2 log of a few megabytes: one series of 100 000 samples.
std::string big_log() {
  std::string out;
  uint64_t seq = 0;
  auto line = [&](const std::string& r) {
    rb::protocol::append_v2_line(out, r, seq++);
    out += "\r\n";
  };
  line("BEGIN,RTOS_BENCH_V2");
  line("CONFIG,core=168000000,unit=cycles,debugger=0");
  line("TEST,wake_latency");
  const int n = 100000;
  for (int first = 0; first < n; first += 16) {
    std::string r = "RAW,wake_latency," + std::to_string(first);
    for (int i = first; i < first + 16; ++i) r += "," + std::to_string(200 + (i * 7919) % 97);
    line(r);
  }
  line("END,RTOS_BENCH_V2");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tsan_parallel_verify SCRATCH_DIR LOG...\n");
    return 64;
  }
  bool ok = true;
  for (int i = 2; i < argc; ++i) ok = same_report(argv[i], 97) && ok;
  const std::filesystem::path big = std::filesystem::path(argv[1]) / "big.log";
  std::filesystem::create_directories(big.parent_path());
  std::ofstream(big, std::ios::binary) << big_log();
  ok = same_report(big.string(), 4096) && same_report(big.string(), 65536) && ok;
  std::printf("%s: %d logs and %s\n", ok ? "ok" : "FAILED", argc - 2, big.string().c_str());
  return ok ? 0 : 1;
}
