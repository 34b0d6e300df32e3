#include "util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RB_CRC32C_X86 1
#include <nmmintrin.h>
#endif

namespace rb {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // reflected Castagnoli polynomial

// Slicing-by-8 tables, built at compile time: table[k][b] is the CRC state
// change of byte b followed by k zero bytes.
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ ((c & 1u) ? kPoly : 0u);
    t[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (size_t k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  }
  return t;
}
constexpr auto kTables = make_tables();

uint32_t table_state(uint32_t s, const unsigned char* p, size_t n) {
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    lo = __builtin_bswap32(lo);
    hi = __builtin_bswap32(hi);
#endif
    lo ^= s;
    s = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
        kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) s = (s >> 8) ^ kTables[0][(s ^ *p++) & 0xFFu];
  return s;
}

#ifdef RB_CRC32C_X86
// The SSE4.2 crc32 instruction, compiled for SSE4.2 by attribute so the rest
// of the program keeps the baseline instruction set; only called after the
// run-time check.
__attribute__((target("sse4.2"))) uint32_t sse42_state(uint32_t s, const unsigned char* p,
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
  while (n--) s32 = _mm_crc32_u8(s32, *p++);
  return s32;
}
#endif

using StateFn = uint32_t (*)(uint32_t, const unsigned char*, size_t);

StateFn pick() {
#ifdef RB_CRC32C_X86
  __builtin_cpu_init();  // needed when first called from a static initializer
  if (__builtin_cpu_supports("sse4.2")) return sse42_state;
#endif
  return table_state;
}

// A function-local static so that callers in other static initializers are safe.
StateFn state_fn() {
  static const StateFn fn = pick();
  return fn;
}

}  // namespace

uint32_t crc32c_extend(uint32_t crc, std::string_view data) {
  return ~state_fn()(~crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

uint32_t crc32c(std::string_view data) {
  return crc32c_extend(0, data);
}

uint32_t crc32c_extend_table(uint32_t crc, std::string_view data) {
  return ~table_state(~crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

const char* crc32c_implementation() {
  return state_fn() == table_state ? "table" : "sse4.2";
}

}  // namespace rb
