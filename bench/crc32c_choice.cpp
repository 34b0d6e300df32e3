// Why the protocol's CRC-32C is our own slicing-by-8 table and not Boost.CRC
// (issue 27, item 6): both checksum the same lines in one run and the program
// prints each one's throughput and the ratio. Not a test: it prints figures.
//
//   crc32c_choice [LINE_BYTES [MIB]]     (defaults: 60-byte lines, 256 MiB)
//
// 60 bytes is about a V2 RAW line (docs/protocol.md section 1.1). The two
// must agree on every line; the program fails if they do not.
#include <fmt/core.h>

#include <boost/crc.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "util/crc32c.h"

namespace {

using Boost32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

uint32_t boost_crc32c(std::string_view s) {
  Boost32c crc;
  crc.process_bytes(s.data(), s.size());
  return crc.checksum();
}

template <typename F>
double mb_per_s(const std::string& buf, size_t line, uint64_t& sum, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t off = 0; off + line <= buf.size(); off += line)
    sum += f(std::string_view(buf).substr(off, line));
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  return static_cast<double>(buf.size()) / 1e6 / dt.count();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t line = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 60;
  const size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 256;
  if (line == 0 || mib == 0) {
    fmt::print(stderr, "usage: crc32c_choice [LINE_BYTES [MIB]]\n");
    return 2;
  }
  std::string buf(mib << 20, '\0');
  uint32_t x = 12345;
  for (char& c : buf) c = static_cast<char>(' ' + (x = x * 1103515245u + 12345u) % 95);
  if (rb::crc32c("123456789") != 0xE3069283u || boost_crc32c("123456789") != 0xE3069283u) {
    fmt::print(stderr, "check value 0xE3069283 not met\n");
    return 1;
  }
  for (size_t off = 0; off + line <= buf.size() && off < (1u << 20); off += line) {
    const auto s = std::string_view(buf).substr(off, line);
    if (rb::crc32c(s) != boost_crc32c(s)) {
      fmt::print(stderr, "the two CRCs differ at offset {}\n", off);
      return 1;
    }
  }
  uint64_t a = 0, b = 0;
  const double boost_rate = mb_per_s(buf, line, a, boost_crc32c);
  const double ours_rate = mb_per_s(buf, line, b, [](std::string_view s) { return rb::crc32c(s); });
  fmt::print("{} MiB in {}-byte lines (sums {:x} {:x})\n", mib, line, a, b);
  fmt::print("  Boost.CRC crc_optimal: {:8.0f} MB/s\n", boost_rate);
  fmt::print("  rb::crc32c slicing-8:  {:8.0f} MB/s  ({:.2f}x Boost.CRC)\n", ours_rate,
             ours_rate / boost_rate);
  return a == b ? 0 : 1;
}
