#pragma once
// CRC-32C (Castagnoli): the integrity check of every V2 protocol line
// (docs/protocol.md section 1.1). Reflected polynomial 0x82F63B78, initial
// value 0xFFFFFFFF, final XOR 0xFFFFFFFF; crc32c("123456789") == 0xE3069283.
// Slicing-by-8 in plain C++ (Boost.CRC, byte at a time, verifies under
// 300 MB/s: below the 400 MB/s verify must reach on a large log).
#include <cstdint>
#include <string_view>

namespace rb {

// CRC-32C of `data`. Never fails.
uint32_t crc32c(std::string_view data);

}  // namespace rb
