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

// kCrc32cZeroPrefix[k]: the register from which k zero bytes lead to the
// initial 0xFFFFFFFF (k = 0..7; computed by running the CRC backwards).
extern const uint32_t kCrc32cZeroPrefix[8];

// crc32c() of n >= 8 bytes in 8-byte steps only: the message is taken as k
// zero bytes and itself (n + k a multiple of 8), from kCrc32cZeroPrefix[k],
// so no byte-by-byte tail lengthens the chain of crc32 instructions. For
// short lines checked one at a time; only call where the CPU has SSE4.2.
__attribute__((target("sse4.2"))) inline uint32_t crc32c_sse42_whole_words(const char* p,
                                                                          size_t n) {
  const size_t k = (8 - n % 8) % 8;
  uint64_t w;
  std::memcpy(&w, p, 8);
  uint64_t s = _mm_crc32_u64(kCrc32cZeroPrefix[k], w << (8 * k));  // k zeros, then p[0..8-k)
  for (const char* q = p + 8 - k; q < p + n; q += 8) {
    std::memcpy(&w, q, 8);
    s = _mm_crc32_u64(s, w);
  }
  return ~static_cast<uint32_t>(s);
}
#endif

}  // namespace rb
