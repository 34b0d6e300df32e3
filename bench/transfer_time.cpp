// What a capture costs on the wire (issue 14, "Faster transfer"), from one
// real capture: bytes per kept sample, and the time the whole capture takes
// at 115200, 921600 and 2000000 baud (8N1: 10 bits per byte), with the
// ratios. Not a test: it prints figures.
//
//   transfer_time CAPTURE...
//
// A full-harness capture of the emulated bench:
//   scripts/run-qemu.sh build/fw/rtosbench-fw.elf capture.log 600
// (a bare image built with the defaults: every test, 10000 samples). On a
// real board the counter values are core cycles, longer numbers than QEMU's
// instruction counts: pass a hardware capture (a job's capture.raw) for its
// own figure.
#include <fmt/core.h>

#include <filesystem>

#include "verify/verify.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: transfer_time CAPTURE...\n");
    return 2;
  }
  constexpr unsigned kBauds[] = {115200, 921600, 2000000};
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    auto report = rb::verify::verify_file(path, rb::verify::Options{});
    if (!report.ok()) {
      fmt::print(stderr, "{}: {}\n", path.string(), report.error().message);
      return 1;
    }
    std::error_code ec;
    const uint64_t bytes = std::filesystem::file_size(path, ec);
    uint64_t samples = 0;
    for (const auto& s : report->series) samples += s.n;
    fmt::print("{}: {} bytes, {} series, {} kept samples, {:.2f} bytes per kept sample ({})\n",
               path.string(), bytes, report->series.size(), samples,
               samples ? static_cast<double>(bytes) / static_cast<double>(samples) : 0.0,
               rb::verify::to_string(report->outcome));
    const double at_115200 = static_cast<double>(bytes) * 10.0 / kBauds[0];
    for (unsigned baud : kBauds) {
      const double seconds = static_cast<double>(bytes) * 10.0 / baud;
      fmt::print("  {:>8} baud: {:8.1f} s  ({:5.2f}x the time at 115200: {:4.1f}x faster)\n", baud,
                 seconds, seconds / at_115200, at_115200 / seconds);
    }
  }
  return 0;
}
