#include "protocol/raw16_avx512.h"

#include <cstdlib>
#include <cstring>

#include "protocol/raw16_shape.h"

namespace rb::protocol::detail {

#ifdef RB_RAW16_WIDE
namespace {

// Where the digits of up to 16 values of one width go: value m's digits,
// right-aligned, to bytes 4m..4m+3 of a 64-byte register (the rest zero),
// taken from the value list at index[byte].
struct Placement {
  alignas(64) uint8_t index[64];
  uint64_t digit_bytes;
};

struct Placements {
  Placement width[5];  // by the number of digits, 1 to 4
};

Placements make_placements() {
  Placements t{};
  for (unsigned w = 1; w <= 4; ++w) {
    Placement& l = t.width[w];
    for (unsigned m = 0; m < 16; ++m) {
      for (unsigned j = 0; j < w; ++j) {
        const unsigned byte = 4 * m + 4 - w + j;
        l.index[byte] = static_cast<uint8_t>(m * (w + 1) + j);
        l.digit_bytes |= uint64_t{1} << byte;
      }
    }
  }
  return t;
}

const Placements kPlacements = make_placements();

// Byte tables for values of mixed widths (place_mixed).
struct MixedTables {
  alignas(64) uint8_t iota[64];    // i
  alignas(64) uint8_t before[64];  // i - 1
  alignas(64) uint8_t owner[64];   // i / 4: the value whose lane byte i is
  alignas(64) uint8_t offset[64];  // i % 4 - 4 (mod 256): from the value's end
};

MixedTables make_mixed_tables() {
  MixedTables t{};
  for (unsigned i = 0; i < 64; ++i) {
    t.iota[i] = static_cast<uint8_t>(i);
    t.before[i] = static_cast<uint8_t>(i - 1);
    t.owner[i] = static_cast<uint8_t>(i / 4);
    t.offset[i] = static_cast<uint8_t>(i % 4 - 4);
  }
  return t;
}

const MixedTables kMixed = make_mixed_tables();

bool detect() {
  __builtin_cpu_init();  // static initializers may run before the library's own
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") &&
         __builtin_cpu_supports("sse4.2");
}

const bool kSupported = detect();

// RTOSBENCH_SIMD=sse or =avx2 turns the path off for the whole run (to
// compare, or to rule it out when a result is in doubt).
bool wanted() {
  const char* v = std::getenv("RTOSBENCH_SIMD");
  return v == nullptr || (std::strcmp(v, "sse") != 0 && std::strcmp(v, "avx2") != 0);
}

#define RB_AVX512_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt,sse4.2")))

// A line of 8 to 128 bytes, loaded (zero past its end) and classified.
struct Masks {
  __m512i x0, x1;  // the bytes minus '0'
  Classified c;
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
  m.c.control = (control_bytes(k0, v0) | control_bytes(k1, v1)) != 0;
  const __m512i zero = _mm512_set1_epi8('0'), nine = _mm512_set1_epi8(9);
  m.x0 = _mm512_sub_epi8(v0, zero);
  m.x1 = _mm512_sub_epi8(v1, zero);
  m.c.digits = both(_mm512_cmple_epu8_mask(m.x0, nine), _mm512_cmple_epu8_mask(m.x1, nine));
  const __m512i comma = _mm512_set1_epi8(','), bar = _mm512_set1_epi8('|');
  m.c.commas = both(_mm512_cmpeq_epi8_mask(v0, comma), _mm512_cmpeq_epi8_mask(v1, comma));
  m.c.bars = both(_mm512_cmpeq_epi8_mask(v0, bar), _mm512_cmpeq_epi8_mask(v1, bar));
  const __m512i a = _mm512_set1_epi8('a'), five = _mm512_set1_epi8(5);
  m.c.hex = m.c.digits | both(_mm512_cmple_epu8_mask(_mm512_sub_epi8(v0, a), five),
                              _mm512_cmple_epu8_mask(_mm512_sub_epi8(v1, a), five));
  return m;
}

// The values by a layout's permutation: stored to out (room for max + 8),
// their count, minimum and maximum to r.
RB_AVX512_TARGET inline void convert(const Masks& m, __m512i index, uint64_t lanes, unsigned k,
                                     uint16_t* out, size_t max, Raw16& r) {
  const __m512i placed = _mm512_maskz_permutex2var_epi8(lanes, m.x0, index, m.x1);
  const __m512i pairs = _mm512_maddubs_epi16(
      placed, _mm512_set1_epi16(static_cast<short>(0x010A)));  // bytes 10, 1
  const __m512i values32 = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x00010064));  // 100, 1
  // (The zero-masked form: GCC 12 warns of the plain one's undefined source.)
  const __m256i values = _mm512_maskz_cvtepi32_epi16(static_cast<__mmask16>(0xFFFF), values32);
  const auto in = static_cast<__mmask16>(_bzhi_u32(0xFFFFu, k));
  if (max + 8 >= 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), values);
  } else {
    _mm256_mask_storeu_epi16(out, in, values);
  }
  min_max16(_mm256_mask_blend_epi16(in, _mm256_set1_epi16(-1), values),
            _mm256_maskz_mov_epi16(in, values), r);
  r.count = k;
}

// The permutation for values of mixed widths (a shape of width 0): the
// values' ends (the list's commas, and its end) in order, by compressing
// byte positions; value j's digits are the bytes after the end of value
// j - 1 up to its own end, right-aligned into bytes 4j..4j+3. False when a
// value is empty or has more than 4 digits.
RB_AVX512_TARGET inline bool place_mixed(const Masks& m, const Shape& sh, __m512i& index,
                                         uint64_t& lanes) {
  const unsigned e = sh.record_end, k = sh.count;
  if (e >= 128) return false;
  const U128 ends = (m.c.commas & below(e) & ~below(sh.values_at)) | (U128{1} << e);
  const __m512i iota = _mm512_load_si512(kMixed.iota);
  const __m512i c0 = _mm512_maskz_compress_epi8(low(ends), iota);
  const __m512i c1 =
      _mm512_maskz_compress_epi8(high(ends), _mm512_add_epi8(iota, _mm512_set1_epi8(64)));
  const auto p0 = static_cast<unsigned>(__builtin_popcountll(low(ends)));
  // Byte j: the end of value j (c0's p0 ends, then c1's).
  const __m512i join = _mm512_add_epi8(
      iota, _mm512_maskz_mov_epi8(~_bzhi_u64(~uint64_t{0}, p0),
                                  _mm512_set1_epi8(static_cast<char>(64 - p0))));
  const __m512i end = _mm512_permutex2var_epi8(c0, join, c1);
  // Byte j: the end of value j - 1 (for value 0, the byte before the list).
  const __m512i prev =
      _mm512_mask_permutexvar_epi8(_mm512_set1_epi8(static_cast<char>(sh.values_at - 1)),
                                   ~uint64_t{1}, _mm512_load_si512(kMixed.before), end);
  const __m512i width = _mm512_sub_epi8(_mm512_sub_epi8(end, prev), _mm512_set1_epi8(1));
  const __mmask64 values = _bzhi_u64(~uint64_t{0}, k);
  if ((_mm512_mask_cmpeq_epi8_mask(values, width, _mm512_setzero_si512()) |
       _mm512_mask_cmpgt_epu8_mask(values, width, _mm512_set1_epi8(4))) != 0) {
    return false;
  }
  // (Zero-masked permutes: GCC 12 warns of the plain ones' undefined source.)
  const __m512i owner = _mm512_load_si512(kMixed.owner);
  const __mmask64 all = ~uint64_t{0};
  index = _mm512_add_epi8(_mm512_maskz_permutexvar_epi8(all, owner, end),
                          _mm512_load_si512(kMixed.offset));
  lanes = _mm512_mask_cmpgt_epu8_mask(_bzhi_u64(~uint64_t{0}, 4 * k), index,
                                      _mm512_maskz_permutexvar_epi8(all, owner, prev));
  return true;
}

// A classified line worked out whole (work_out, the CRC), read, and its
// layout written to `learned`.
RB_AVX512_TARGET bool decode(const char* d, size_t n, const Masks& m, uint16_t* out, size_t max,
                             Raw16& r, Raw16Layout* learned, bool* remembered = nullptr) {
  Shape sh;
  if (!work_out(n, m.c, max, sh, /*mixed=*/true) || (sh.has_suffix && !crc_matches(d, n)))
    return false;
  __m512i index;
  uint64_t lanes;
  if (sh.width == 0) {
    if (!place_mixed(m, sh, index, lanes)) return false;
  } else {
    const Placement& l = kPlacements.width[sh.width];
    index = _mm512_add_epi8(_mm512_load_si512(l.index),
                            _mm512_set1_epi8(static_cast<char>(sh.values_at)));
    lanes = _bzhi_u64(l.digit_bytes, 4 * sh.count);
  }
  convert(m, index, lanes, sh.count, out, max, r);
  read_fields(d, sh, r);
  // Mixed widths are not remembered: their comma places seldom come again,
  // and each would push out a layout that does.
  if (learned != nullptr && sh.width != 0) {
    remember(n, m.c, sh, *learned);
    _mm512_store_si512(learned->index, index);
    learned->lanes = lanes;
    *remembered = true;
  }
  return true;
}

// A classified line whose commas and bars are where L has them: only the
// digits, the CRC and the values remain to check and read.
RB_AVX512_TARGET inline bool read_as(const Raw16Layout& L, const char* d, size_t n,
                                     const Masks& m, uint16_t* out, size_t max, Raw16& r) {
  if (!fits(L, m.c, max) || (L.has_suffix && !crc_matches(d, n))) return false;
  convert(m, _mm512_load_si512(L.index), L.lanes, L.count, out, max, r);
  read_fields(d, L, r);
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
  const Raw16Layout* L = find_layout(layouts, count, n, m.c);
  if (L != nullptr && L->lanes != 0) return read_as(*L, d, n, m, out, max, r);
  // Into the slot of a layout the AVX2 path learned (without this path's
  // permutation), else the next one. decode writes it only for a line it
  // takes and remembers.
  const bool relearn = L != nullptr;
  bool remembered = false;
  if (!decode(d, n, m, out, max, r, &layouts[relearn ? L - layouts : next], &remembered))
    return false;
  if (remembered && !relearn) next = next + 1 == count ? 0 : next + 1;
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
