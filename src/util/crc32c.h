#pragma once
// CRC-32C (Castagnoli): the integrity check of every V2 protocol line
// (docs/protocol.md section 1.1). Reflected polynomial 0x82F63B78, initial
// value 0xFFFFFFFF, final XOR 0xFFFFFFFF; crc32c("123456789") == 0xE3069283.
//
// Uses the SSE4.2 crc32 instruction when the CPU has it (detected at run
// time) and a slicing-by-8 table otherwise; both give identical values.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#endif

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RB_CRC32C_X86 1
// The CRC register after n more bytes, with the SSE4.2 crc32 instruction
// (crc32c_extend(crc, x) is ~crc32c_sse42_state(~crc, x)). Inline, for
// callers compiled for SSE4.2 that check one short line at a time; only
// call where the CPU has SSE4.2.
__attribute__((target("sse4.2"))) inline uint32_t crc32c_sse42_state(uint32_t s,
                                                                     const unsigned char* p,
                                                                     size_t n) {
  uint64_t s64 = s;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    s64 = _mm_crc32_u64(s64, v);
    p += 8;
    n -= 8;
  }
  auto s32 = static_cast<uint32_t>(s64);
  if (n >= 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    s32 = _mm_crc32_u32(s32, v);
    p += 4;
    n -= 4;
  }
  while (n--) s32 = _mm_crc32_u8(s32, *p++);
  return s32;
}
#endif

}  // namespace rb
