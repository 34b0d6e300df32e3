#pragma once
// Hand-written decimal conversions for the hot path of log parsing: no
// locale, no exceptions, no allocation.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace rb {

// Parses the whole of `s` as an unsigned decimal integer: one or more ASCII
// digits, nothing else (no sign, no spaces). nullopt when `s` is empty, holds
// any other byte, or the value does not fit in 64 bits.
inline std::optional<uint64_t> parse_u64(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char ch : s) {
    auto d = static_cast<unsigned>(static_cast<unsigned char>(ch) - '0');
    if (d > 9) return std::nullopt;
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// Value of the `len` (1..8) ASCII digits at p (the caller has checked they are
// digits); reads 8 bytes from p, which must all be readable. SWAR: no loop,
// no branch on the digits. Timing samples mostly have at most 4 digits, which
// take a cheaper 32-bit form.
inline uint64_t decimal_value8(const char* p, size_t len) {
  uint64_t w;
  std::memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  if (len <= 4) {
    uint32_t d = (static_cast<uint32_t>(w) - 0x30303030u) << (8 * (4 - len));
    d = (d * (10 * 256 + 1)) >> 8;
    return ((d & 0x00FF00FFu) * (100 * 65536 + 1)) >> 16;
  }
  uint64_t d = (w - 0x3030303030303030ull) << (8 * (8 - len));
  d = (d * (10 * 256 + 1)) >> 8;
  d = ((d & 0x00FF00FF00FF00FFull) * (100 * 65536 + 1)) >> 16;
  return ((d & 0x0000FFFF0000FFFFull) * (10000ull * (1ull << 32) + 1)) >> 32;
}

// Value of the 8 hex digits at p, which the caller has checked are
// '0'..'9' or 'a'..'f' (parse_hex8_lower without the check).
inline uint32_t hex8_value(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  uint64_t n = (w & 0x0F0F0F0F0F0F0F0Full) + ((w >> 6) & 0x0101010101010101ull) * 9;
  n = ((n * (16 * 256 + 1)) >> 8) & 0x00FF00FF00FF00FFull;
  n = ((n * (256 * 65536 + 1)) >> 16) & 0x0000FFFF0000FFFFull;
  return static_cast<uint32_t>((n * (65536ull * (1ull << 32) + 1)) >> 32);
}

// Parses exactly 8 lowercase hex digits. nullopt otherwise. Branch-free
// SWAR: each byte's nibble is (b & 15) + 9 for 'a'..'f', then the nibbles are
// packed pairwise.
inline std::optional<uint32_t> parse_hex8_lower(std::string_view s) {
  if (s.size() != 8) return std::nullopt;
  uint64_t w;
  std::memcpy(&w, s.data(), 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  unsigned bad = 0;
  for (int i = 0; i < 8; ++i) {
    const unsigned c = static_cast<unsigned>(w >> (8 * i)) & 0xFFu;
    bad |= static_cast<unsigned>((c - '0' > 9u) & (c - 'a' > 5u));
  }
  if (bad) return std::nullopt;
  return hex8_value(s.data());
}

// Writes `v` as 8 lowercase hex digits into out[0..7].
inline void format_hex8_lower(uint32_t v, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 7; i >= 0; --i) {
    out[i] = kHex[v & 15u];
    v >>= 4;
  }
}

// Decimal text of an unsigned 128-bit value.
inline std::string to_decimal(unsigned __int128 v) {
  char buf[40];
  int i = 40;
  do {
    buf[--i] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(buf + i, buf + 40);
}

}  // namespace rb
