#pragma once
// CRC-32C (Castagnoli): the integrity check of every V2 protocol line
// (docs/protocol.md section 1.1). Reflected polynomial 0x82F63B78, initial
// value 0xFFFFFFFF, final XOR 0xFFFFFFFF; crc32c("123456789") == 0xE3069283.
//
// Uses the SSE4.2 crc32 instruction when the CPU has it (detected at run
// time) and a slicing-by-8 table otherwise; both give identical values.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rb {

// CRC-32C of `data`. Never fails.
uint32_t crc32c(std::string_view data);

// Incremental form: extends a finished CRC value by more bytes, so that
// crc32c_extend(crc32c(a), b) == crc32c(a + b) and crc32c_extend(0, x) ==
// crc32c(x). Never fails.
uint32_t crc32c_extend(uint32_t crc, std::string_view data);

// The same as a small accumulator object.
class Crc32c {
 public:
  void update(std::string_view data) { value_ = crc32c_extend(value_, data); }
  uint32_t value() const { return value_; }

 private:
  uint32_t value_ = 0;
};

// Which implementation crc32c() uses on this machine: "sse4.2" or "table".
const char* crc32c_implementation();

// The portable table implementation, exposed so tests can compare it with
// the hardware path on the same inputs.
uint32_t crc32c_extend_table(uint32_t crc, std::string_view data);

}  // namespace rb
