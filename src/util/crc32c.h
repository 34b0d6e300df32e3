#pragma once
// CRC-32C (Castagnoli): the integrity check of every V2 protocol line
// (docs/protocol.md section 1.1). Reflected polynomial 0x82F63B78, initial
// value 0xFFFFFFFF, final XOR 0xFFFFFFFF; crc32c("123456789") == 0xE3069283.
// Slicing-by-8 in plain C++, not Boost.CRC: boost::crc_optimal<32,
// 0x1EDC6F41, ~0, ~0, true, true> (Boost 1.74) gives the same values but
// goes a byte at a time. Measured for issue 27 on 60-byte lines: 240-260
// MB/s against 1.1-1.3 GB/s here; verify_throughput's 1 GiB log took 3.70 s
// of verify CPU with it, 1.98-2.22 s with this table (verify must reach
// 400 MB/s, docs/verify.md "Throughput").
#include <cstdint>
#include <string_view>

namespace rb {

// CRC-32C of `data`. Never fails.
uint32_t crc32c(std::string_view data);

}  // namespace rb
