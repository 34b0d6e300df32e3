#pragma once
// What parse_raw16's wide paths (raw16_avx512.cpp, raw16_avx2.cpp) share:
// from the byte classes of a line of at most 128 bytes, as 128-bit masks,
// the layout of a RAW line whose values all have one width, and the checks
// a line laid out like a remembered one still needs. Plain scalar code,
// inlined into each path.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "protocol/line.h"
#include "util/crc32c.h"
#include "util/decimal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RB_RAW16_WIDE 1
#endif

namespace rb::protocol::detail {

using U128 = unsigned __int128;

// Bits [0, n) of 128.
inline U128 below(unsigned n) { return n >= 128 ? ~U128{0} : (U128{1} << n) - 1; }

inline unsigned lowest(U128 x) {  // x != 0
  const auto lo = static_cast<uint64_t>(x);
  return lo != 0 ? static_cast<unsigned>(__builtin_ctzll(lo))
                 : 64 + static_cast<unsigned>(__builtin_ctzll(static_cast<uint64_t>(x >> 64)));
}

inline uint64_t low(U128 x) { return static_cast<uint64_t>(x); }
inline uint64_t high(U128 x) { return static_cast<uint64_t>(x >> 64); }

// A line's bytes by class (bit i: byte i; nothing past the line's end).
struct Classified {
  U128 digits = 0, commas = 0, bars = 0;
  U128 hex = 0;          // digits and 'a'..'f'
  bool control = false;  // a byte below 0x20, or 0x7F, anywhere in the line
};

// Where 16 values of width w (1 to 4 digits) have their commas, from the
// first byte of the list.
constexpr U128 value_commas(unsigned w) {
  U128 c = 0;
  for (unsigned m = 0; m < 16; ++m) c |= U128{1} << (m * (w + 1) + w);
  return c;
}

// value_commas by width, computed once.
inline constexpr U128 kValueCommas[5] = {0, value_commas(1), value_commas(2), value_commas(3),
                                         value_commas(4)};

// The layout of "RAW,<name>,<first>,<values>[|<seq>|<crc>]" as the masks
// show it.
struct Shape {
  unsigned name_end = 0;      // the comma after the name
  unsigned first_digits = 0;  // 1 to 8
  unsigned values_at = 0;     // the first byte of the values
  unsigned width = 0;         // of every value, 1 to 4; 0: mixed widths
  unsigned count = 0;         // values, 1 to 16
  unsigned record_end = 0;    // the end of the value list
  bool has_suffix = false;
  unsigned seq_at = 0, seq_digits = 0;  // 1 to 8 digits, when has_suffix
  U128 need_digits = 0;  // first index, values, seq
  U128 need_hex = 0;     // the CRC
};

// The shape of a line of n bytes that starts "RAW," (checked by the caller),
// when its masks show a line a wide path reads: no control byte; the suffix
// absent or exactly "|<1..8 digits>|<8 hex>"; a non-empty name; a first
// index of 1 to 8 digits; 1 to min(max, 16) values of one width of 1 to 4
// digits (with `mixed`, of any widths, width 0 in the shape). False for any
// other line. The CRC is not checked here.
// (Always inlined: each wide path then compiles it for its own instruction
// set, popcnt included.)
__attribute__((always_inline)) inline bool work_out(size_t n, const Classified& m, size_t max,
                                                    Shape& sh, bool mixed = false) {
  if (m.control || n < 8 || n > 128) return false;
  auto record_end = static_cast<unsigned>(n);
  sh = Shape{};
  if (m.bars != 0) {
    if (n < 11) return false;
    const auto crc_bar = static_cast<unsigned>(n - 9);
    const U128 seq_bars = m.bars & ~(U128{1} << crc_bar);
    if (((m.bars >> crc_bar) & 1) == 0 || seq_bars == 0 || (seq_bars & (seq_bars - 1)) != 0)
      return false;
    const unsigned seq_bar = lowest(seq_bars);
    if (seq_bar >= crc_bar) return false;
    sh.seq_digits = crc_bar - seq_bar - 1;
    if (sh.seq_digits == 0 || sh.seq_digits > 8) return false;
    sh.seq_at = seq_bar + 1;
    sh.need_digits = below(crc_bar) & ~below(seq_bar + 1);
    sh.need_hex = below(static_cast<unsigned>(n)) & ~below(crc_bar + 1);
    if ((m.digits & sh.need_digits) != sh.need_digits || (m.hex & sh.need_hex) != sh.need_hex)
      return false;
    sh.has_suffix = true;
    record_end = seq_bar;
  }
  // The name is non-empty, the first index has 1 to 8 digits (and 8 bytes
  // from its start are readable, for decimal_value8).
  U128 c = m.commas & below(record_end) & ~below(4);
  if (c == 0) return false;
  const unsigned c1 = lowest(c);
  c &= c - 1;
  if (c1 == 4 || c == 0) return false;
  const unsigned c2 = lowest(c);
  const unsigned first_digits = c2 - c1 - 1;
  if (first_digits == 0 || first_digits > 8 || c1 + 1 + 8 > n) return false;
  const U128 first_bits = below(c2) & ~below(c1 + 1);
  if ((m.digits & first_bits) != first_bits) return false;
  // The values: k of one width w, so the list is exactly k * (w + 1) - 1
  // bytes with its commas at fixed places and digits everywhere else. Or,
  // when `mixed` is allowed, 1 to 16 values of any widths (width 0): digits
  // and commas only, their widths left to the path to check.
  const unsigned s = c2 + 1;
  if (s >= record_end) return false;
  const U128 region = below(record_end) & ~below(s);
  sh.name_end = c1;
  sh.first_digits = first_digits;
  sh.values_at = s;
  sh.record_end = record_end;
  c &= c - 1;
  const unsigned width = c == 0 ? record_end - s : lowest(c) - s;
  const unsigned len = record_end - s;
  const unsigned k = width == 0 || width > 4 ? 0 : (len + 1) / (width + 1);
  if (k != 0 && k * (width + 1) == len + 1 && k <= 16 && k <= max) {
    const U128 want_commas = (kValueCommas[width] << s) & region;
    if ((m.commas & region) == want_commas && (m.digits & region) == (region & ~want_commas)) {
      sh.width = width;
      sh.count = k;
      sh.need_digits |= first_bits | (region & ~want_commas);
      return true;
    }
  }
  if (!mixed) return false;
  const U128 list_commas = m.commas & region;
  const unsigned count = static_cast<unsigned>(__builtin_popcountll(low(list_commas)) +
                                               __builtin_popcountll(high(list_commas))) + 1;
  if (((m.digits | m.commas) & region) != region || count > 16 || count > max) return false;
  sh.width = 0;
  sh.count = count;
  sh.need_digits |= first_bits | (region & ~list_commas);
  return true;
}

// The key and checks of a shape, kept in a Raw16Layout (the path adds how it
// converts the values).
inline void remember(size_t n, const Classified& m, const Shape& sh, Raw16Layout& L) {
  L.commas[0] = low(m.commas);
  L.commas[1] = high(m.commas);
  L.bars[0] = low(m.bars);
  L.bars[1] = high(m.bars);
  L.digits[0] = low(sh.need_digits);
  L.digits[1] = high(sh.need_digits);
  L.hex[0] = low(sh.need_hex);
  L.hex[1] = high(sh.need_hex);
  L.length = static_cast<uint32_t>(n);
  L.name_end = static_cast<uint8_t>(sh.name_end);
  L.first_digits = static_cast<uint8_t>(sh.first_digits);
  L.values_at = static_cast<uint8_t>(sh.values_at);
  L.width = static_cast<uint8_t>(sh.width);
  L.seq_at = static_cast<uint8_t>(sh.seq_at);
  L.seq_digits = static_cast<uint8_t>(sh.seq_digits);
  L.count = static_cast<uint8_t>(sh.count);
  L.has_suffix = sh.has_suffix;
}

// The remembered layout among `count` whose commas and bars are where the
// line's are (and of its length), or nullptr.
inline const Raw16Layout* find_layout(const Raw16Layout* layouts, size_t count, size_t n,
                                      const Classified& m) {
  const uint64_t cl = low(m.commas), ch = high(m.commas), bl = low(m.bars), bh = high(m.bars);
  for (size_t i = 0; i < count; ++i) {
    const Raw16Layout& L = layouts[i];
    if (((L.commas[0] ^ cl) | (L.commas[1] ^ ch) | (L.bars[0] ^ bl) | (L.bars[1] ^ bh) |
         (L.length ^ n)) == 0) {
      return &L;
    }
  }
  return nullptr;
}

// What a line laid out like L must still show (its CRC aside): no control
// byte, digits and hex digits where L needs them, and no more values than
// `max`. With the same commas and bars, that makes work_out's checks hold.
inline bool fits(const Raw16Layout& L, const Classified& m, size_t max) {
  if (m.control || L.count > max) return false;
  return (((low(m.digits) & L.digits[0]) ^ L.digits[0]) |
          ((high(m.digits) & L.digits[1]) ^ L.digits[1]) |
          ((low(m.hex) & L.hex[0]) ^ L.hex[0]) | ((high(m.hex) & L.hex[1]) ^ L.hex[1])) == 0;
}

#ifdef RB_RAW16_WIDE
// Whether the V2 line of n bytes (n >= 11, its suffix checked by work_out)
// carries the CRC-32C of its first n - 9 bytes, computed inline (the
// library's crc32c() goes through a pointer chosen at run time).
__attribute__((target("sse4.2"))) inline bool crc_matches(const char* d, size_t n) {
  // (A RAW record with its seq has at least 11 bytes; the other form stays
  // for safety.)
  const uint32_t crc = n - 9 >= 8 ? crc32c_sse42_whole_words(d, n - 9)
                                  : ~crc32c_sse42_state(
                                        ~0u, reinterpret_cast<const unsigned char*>(d), n - 9);
  return hex8_value(d + n - 8) == crc;
}

// The minimum and maximum of 16 values in 16-bit lanes, those not counted
// being 0xFFFF in for_min and 0 in for_max.
__attribute__((target("avx2,sse4.1"))) inline void min_max16(__m256i for_min, __m256i for_max,
                                                            Raw16& r) {
  const __m128i mn =
      _mm_min_epu16(_mm256_castsi256_si128(for_min), _mm256_extracti128_si256(for_min, 1));
  const __m128i mx = _mm_xor_si128(
      _mm_max_epu16(_mm256_castsi256_si128(for_max), _mm256_extracti128_si256(for_max, 1)),
      _mm_set1_epi16(-1));
  r.lo = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(mn)));
  r.hi = static_cast<uint16_t>(~_mm_cvtsi128_si32(_mm_minpos_epu16(mx)));
}
#endif

// The name, first index and suffix of a line read by a layout (or a Shape,
// which names them alike).
template <class Layout>
inline void read_fields(const char* d, const Layout& L, Raw16& r) {
  r.name = std::string_view(d + 4, L.name_end - 4u);
  r.first = decimal_value8(d + L.name_end + 1, L.first_digits);
  r.suffix = L.has_suffix ? Suffix::kValid : Suffix::kAbsent;
  // "|<crc>" follows the seq: 8 bytes are readable.
  r.seq = L.has_suffix ? decimal_value8(d + L.seq_at, L.seq_digits) : 0;
}

}  // namespace rb::protocol::detail
