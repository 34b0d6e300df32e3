#include "protocol/raw16_avx512.h"

#include <cstdlib>
#include <cstring>

#include "util/decimal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RB_RAW16_AVX512 1
#endif

namespace rb::protocol::detail {

#ifdef RB_RAW16_AVX512
namespace {

using U128 = unsigned __int128;

// Where the digits of up to 16 values of one width go: value m's digits,
// right-aligned, to bytes 4m..4m+3 of a 64-byte register (the rest zero),
// taken from the value list at index[byte]; and where the commas between
// the values are, counted from the list's first byte.
struct Layout {
  alignas(64) uint8_t index[64];
  uint64_t digit_bytes;
  U128 commas;
};

struct Layouts {
  Layout width[5];  // by the number of digits, 1 to 4
};

Layouts make_layouts() {
  Layouts t{};
  for (unsigned w = 1; w <= 4; ++w) {
    Layout& l = t.width[w];
    for (unsigned m = 0; m < 16; ++m) {
      for (unsigned j = 0; j < w; ++j) {
        const unsigned byte = 4 * m + 4 - w + j;
        l.index[byte] = static_cast<uint8_t>(m * (w + 1) + j);
        l.digit_bytes |= uint64_t{1} << byte;
      }
      l.commas |= U128{1} << (m * (w + 1) + w);
    }
  }
  return t;
}

const Layouts kLayouts = make_layouts();

bool detect() {
  __builtin_cpu_init();  // static initializers may run before the library's own
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("sse4.2");
}

const bool kSupported = detect();

// RTOSBENCH_SIMD=sse turns the path off for the whole run (to compare, or
// to rule it out when a result is in doubt).
bool wanted() {
  const char* v = std::getenv("RTOSBENCH_SIMD");
  return v == nullptr || std::strcmp(v, "sse") != 0;
}

#define RB_AVX512_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,bmi,bmi2,sse4.2")))

// Bits [0, n) of 128.
inline U128 below(unsigned n) { return n >= 128 ? ~U128{0} : (U128{1} << n) - 1; }

inline unsigned lowest(U128 x) {  // x != 0
  const auto lo = static_cast<uint64_t>(x);
  return lo != 0 ? static_cast<unsigned>(__builtin_ctzll(lo))
                 : 64 + static_cast<unsigned>(__builtin_ctzll(static_cast<uint64_t>(x >> 64)));
}

inline uint64_t low(U128 x) { return static_cast<uint64_t>(x); }
inline uint64_t high(U128 x) { return static_cast<uint64_t>(x >> 64); }

// CRC-32C of n bytes with the crc32 instruction, inline (the library's
// crc32c() goes through a pointer chosen at run time).
__attribute__((target("sse4.2"))) inline uint32_t crc32c_sse42(const char* p, size_t n) {
  uint64_t s = 0xFFFFFFFFu;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    s = _mm_crc32_u64(s, w);
  }
  auto s32 = static_cast<uint32_t>(s);
  if (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    s32 = _mm_crc32_u32(s32, w);
    p += 4;
    n -= 4;
  }
  for (; n > 0; --n) s32 = _mm_crc32_u8(s32, static_cast<unsigned char>(*p++));
  return ~s32;
}

// A line of 8 to 128 bytes, loaded (zero past its end) and classified.
struct Masks {
  __m512i x0, x1;  // the bytes minus '0'
  U128 digits, commas, bars, hex;
  bool control;  // a byte below 0x20, or 0x7F
};

RB_AVX512_TARGET inline U128 both(uint64_t a, uint64_t b) { return U128{a} | U128{b} << 64; }

RB_AVX512_TARGET inline uint64_t control_bytes(__mmask64 k, __m512i v) {
  return _mm512_mask_cmplt_epu8_mask(k, v, _mm512_set1_epi8(0x20)) |
         _mm512_mask_cmpeq_epi8_mask(k, v, _mm512_set1_epi8(0x7f));
}

RB_AVX512_TARGET inline Masks classify(const char* d, size_t n) {
  // Masked loads read nothing past the line's end.
  const __mmask64 k0 =
      n >= 64 ? ~__mmask64{0} : _bzhi_u64(~uint64_t{0}, static_cast<unsigned>(n));
  const __mmask64 k1 = n > 64 ? _bzhi_u64(~uint64_t{0}, static_cast<unsigned>(n - 64)) : 0;
  const __m512i v0 = _mm512_maskz_loadu_epi8(k0, d);
  const __m512i v1 = _mm512_maskz_loadu_epi8(k1, d + 64);
  Masks m;
  m.control = (control_bytes(k0, v0) | control_bytes(k1, v1)) != 0;
  const __m512i zero = _mm512_set1_epi8('0'), nine = _mm512_set1_epi8(9);
  m.x0 = _mm512_sub_epi8(v0, zero);
  m.x1 = _mm512_sub_epi8(v1, zero);
  m.digits = both(_mm512_cmple_epu8_mask(m.x0, nine), _mm512_cmple_epu8_mask(m.x1, nine));
  const __m512i comma = _mm512_set1_epi8(','), bar = _mm512_set1_epi8('|');
  m.commas = both(_mm512_cmpeq_epi8_mask(v0, comma), _mm512_cmpeq_epi8_mask(v1, comma));
  m.bars = both(_mm512_cmpeq_epi8_mask(v0, bar), _mm512_cmpeq_epi8_mask(v1, bar));
  const __m512i a = _mm512_set1_epi8('a'), five = _mm512_set1_epi8(5);
  m.hex = m.digits | both(_mm512_cmple_epu8_mask(_mm512_sub_epi8(v0, a), five),
                          _mm512_cmple_epu8_mask(_mm512_sub_epi8(v1, a), five));
  return m;
}

// The values by a layout's permutation: stored to out (room for max + 8),
// their minimum and maximum to r.
RB_AVX512_TARGET inline void convert(const Masks& m, const uint8_t* index, uint64_t lanes,
                                     unsigned k, uint16_t* out, size_t max, Raw16& r) {
  const __m512i placed =
      _mm512_maskz_permutex2var_epi8(lanes, m.x0, _mm512_load_si512(index), m.x1);
  const __m512i pairs = _mm512_maddubs_epi16(
      placed, _mm512_set1_epi16(static_cast<short>(0x010A)));  // bytes 10, 1
  const __m512i values32 = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x00010064));  // 100, 1
  const __m256i values = _mm512_cvtepi32_epi16(values32);
  const auto in = static_cast<__mmask16>(_bzhi_u32(0xFFFFu, k));
  if (max + 8 >= 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), values);
  } else {
    _mm256_mask_storeu_epi16(out, in, values);
  }
  const __m256i for_min = _mm256_mask_blend_epi16(in, _mm256_set1_epi16(-1), values);
  const __m256i for_max = _mm256_maskz_mov_epi16(in, values);
  const __m128i mn =
      _mm_min_epu16(_mm256_castsi256_si128(for_min), _mm256_extracti128_si256(for_min, 1));
  const __m128i mx = _mm_xor_si128(
      _mm_max_epu16(_mm256_castsi256_si128(for_max), _mm256_extracti128_si256(for_max, 1)),
      _mm_set1_epi16(-1));
  r.lo = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(mn)));
  r.hi = static_cast<uint16_t>(~_mm_cvtsi128_si32(_mm_minpos_epu16(mx)));
  r.count = k;
}

// Works out the layout of a classified line from its masks: the whole of
// parse_raw16_avx512's checks. Fills `learned` (when not null) for lines
// laid out the same way.
RB_AVX512_TARGET bool decode(const char* d, size_t n, const Masks& m, uint16_t* out, size_t max,
                             Raw16& r, Raw16Layout* learned) {
  if (m.control) return false;
  // The suffix: none, or exactly "|<1..8 digits>|<8 lowercase hex>" with a
  // matching CRC (a bar anywhere else, a longer seq or a bad CRC: not here).
  auto record_end = static_cast<unsigned>(n);
  Suffix suffix = Suffix::kAbsent;
  uint64_t seq = 0;
  U128 need_digits = 0, need_hex = 0;
  unsigned seq_bar = 0, seq_digits = 0;
  if (m.bars != 0) {
    if (n < 11) return false;
    const auto crc_bar = static_cast<unsigned>(n - 9);
    const U128 seq_bars = m.bars & ~(U128{1} << crc_bar);
    if (((m.bars >> crc_bar) & 1) == 0 || seq_bars == 0 || (seq_bars & (seq_bars - 1)) != 0)
      return false;
    seq_bar = lowest(seq_bars);
    seq_digits = crc_bar - seq_bar - 1;
    if (seq_bar >= crc_bar || seq_digits == 0 || seq_digits > 8) return false;
    const U128 seq_bits = below(crc_bar) & ~below(seq_bar + 1);
    need_digits = seq_bits;
    need_hex = below(static_cast<unsigned>(n)) & ~below(crc_bar + 1);
    if ((m.digits & seq_bits) != seq_bits || (m.hex & need_hex) != need_hex) return false;
    if (hex8_value(d + n - 8) != crc32c_sse42(d, n - 9)) return false;
    seq = decimal_value8(d + seq_bar + 1, seq_digits);  // "|<crc>" follows: 8 readable
    record_end = seq_bar;
    suffix = Suffix::kValid;
  }

  // "RAW,<name>,<first>,<values>": the name is non-empty, the first index
  // has 1 to 8 digits.
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
  // bytes with its commas at fixed places and digits everywhere else.
  const unsigned s = c2 + 1;
  if (s >= record_end) return false;
  c &= c - 1;
  const unsigned width = c == 0 ? record_end - s : lowest(c) - s;
  if (width == 0 || width > 4) return false;
  const unsigned len = record_end - s;
  const unsigned k = (len + 1) / (width + 1);
  if (k * (width + 1) != len + 1 || k > 16 || k > max) return false;
  const Layout& l = kLayouts.width[width];
  const U128 region = below(record_end) & ~below(s);
  const U128 want_commas = (l.commas << s) & region;
  if ((m.commas & region) != want_commas || (m.digits & region) != (region & ~want_commas))
    return false;

  alignas(64) uint8_t index[64];
  _mm512_store_si512(index, _mm512_add_epi8(_mm512_load_si512(l.index),
                                            _mm512_set1_epi8(static_cast<char>(s))));
  const uint64_t lanes = _bzhi_u64(l.digit_bytes, 4 * k);
  convert(m, index, lanes, k, out, max, r);
  r.name = std::string_view(d + 4, c1 - 4);
  r.first = decimal_value8(d + c1 + 1, first_digits);
  r.suffix = suffix;
  r.seq = seq;
  if (learned != nullptr) {
    need_digits |= first_bits | (region & ~want_commas);
    Raw16Layout& L = *learned;
    L.commas[0] = low(m.commas);
    L.commas[1] = high(m.commas);
    L.bars[0] = low(m.bars);
    L.bars[1] = high(m.bars);
    L.digits[0] = low(need_digits);
    L.digits[1] = high(need_digits);
    L.hex[0] = low(need_hex);
    L.hex[1] = high(need_hex);
    std::memcpy(L.index, index, sizeof index);
    L.lanes = lanes;
    L.length = static_cast<uint32_t>(n);
    L.name_end = static_cast<uint8_t>(c1);
    L.first_digits = static_cast<uint8_t>(first_digits);
    L.seq_at = static_cast<uint8_t>(seq_bar + 1);
    L.seq_digits = static_cast<uint8_t>(seq_digits);
    L.count = static_cast<uint8_t>(k);
    L.has_suffix = suffix == Suffix::kValid;
  }
  return true;
}

// A classified line whose commas and bars are where L has them: only the
// digits, the CRC and the values remain to check and read.
RB_AVX512_TARGET inline bool read_as(const Raw16Layout& L, const char* d, size_t n,
                                     const Masks& m, uint16_t* out, size_t max, Raw16& r) {
  if (m.control || L.count > max) return false;
  const uint64_t dl = low(m.digits), dh = high(m.digits);
  const uint64_t hl = low(m.hex), hh = high(m.hex);
  if (((dl & L.digits[0]) ^ L.digits[0]) | ((dh & L.digits[1]) ^ L.digits[1]) |
      ((hl & L.hex[0]) ^ L.hex[0]) | ((hh & L.hex[1]) ^ L.hex[1])) {
    return false;
  }
  r.suffix = Suffix::kAbsent;
  r.seq = 0;
  if (L.has_suffix) {
    if (hex8_value(d + n - 8) != crc32c_sse42(d, n - 9)) return false;
    r.suffix = Suffix::kValid;
    r.seq = decimal_value8(d + L.seq_at, L.seq_digits);
  }
  convert(m, L.index, L.lanes, L.count, out, max, r);
  r.name = std::string_view(d + 4, L.name_end - 4u);
  r.first = decimal_value8(d + L.name_end + 1, L.first_digits);
  return true;
}

}  // namespace

bool raw16_avx512_on = kSupported && wanted();

bool use_raw16_avx512(bool on) {
  raw16_avx512_on = on && kSupported;
  return raw16_avx512_on;
}

RB_AVX512_TARGET bool parse_raw16_avx512(std::string_view line, uint16_t* out, size_t max,
                                         Raw16& r) {
  const size_t n = line.size();
  if (n < 8 || n > 128 || std::memcmp(line.data(), "RAW,", 4) != 0) return false;
  return decode(line.data(), n, classify(line.data(), n), out, max, r, nullptr);
}

RB_AVX512_TARGET bool read_raw16_avx512(Raw16Layout* layouts, size_t count, size_t& next,
                                        std::string_view line, uint16_t* out, size_t max,
                                        Raw16& r) {
  const size_t n = line.size();
  if (n < 8 || n > 128 || std::memcmp(line.data(), "RAW,", 4) != 0) return false;
  const char* const d = line.data();
  const Masks m = classify(d, n);
  const uint64_t cl = low(m.commas), ch = high(m.commas), bl = low(m.bars), bh = high(m.bars);
  for (size_t i = 0; i < count; ++i) {
    const Raw16Layout& L = layouts[i];
    if (((L.commas[0] ^ cl) | (L.commas[1] ^ ch) | (L.bars[0] ^ bl) | (L.bars[1] ^ bh) |
         (L.length ^ n)) == 0) {
      return read_as(L, d, n, m, out, max, r);
    }
  }
  if (!decode(d, n, m, out, max, r, &layouts[next])) return false;
  next = next + 1 == count ? 0 : next + 1;
  return true;
}

#else

bool raw16_avx512_on = false;

bool use_raw16_avx512(bool) { return false; }

bool parse_raw16_avx512(std::string_view, uint16_t*, size_t, Raw16&) { return false; }

bool read_raw16_avx512(Raw16Layout*, size_t, size_t&, std::string_view, uint16_t*, size_t,
                       Raw16&) {
  return false;
}

#endif

}  // namespace rb::protocol::detail
