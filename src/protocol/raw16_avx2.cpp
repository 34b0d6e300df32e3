// parse_raw16's AVX2 path, for Raw16Reader on CPUs without the AVX-512 one:
// a line of 32 to 128 bytes, with 128 bytes readable from its start, is
// classified with four 32-byte loads; a line laid out like a remembered one
// is checked against it (raw16_shape.h) and its values (1 to 3 digits wide)
// converted four groups of four at a time.
#include "protocol/raw16_avx2.h"

#include <cstdlib>
#include <cstring>

#include "protocol/raw16_shape.h"

namespace rb::protocol::detail {

#ifdef RB_RAW16_WIDE
namespace {

bool detect() {
  __builtin_cpu_init();  // static initializers may run before the library's own
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("sse4.2");
}

const bool kSupported = detect();

// RTOSBENCH_SIMD=sse turns the path off for the whole run.
bool wanted() {
  const char* v = std::getenv("RTOSBENCH_SIMD");
  return v == nullptr || std::strcmp(v, "sse") != 0;
}

#define RB_AVX2_TARGET __attribute__((target("avx2,bmi,sse4.2")))

// For values of width w (1 to 3), stride w + 1: a group of four at the
// start of 16 bytes, each value's digits right-aligned into its own 32-bit
// lane (0x80: a zero byte); the same in both 128-bit halves.
struct Shuffles {
  alignas(32) uint8_t width[4][32];
};

Shuffles make_shuffles() {
  Shuffles t{};
  for (unsigned w = 1; w <= 3; ++w) {
    for (unsigned half = 0; half < 2; ++half) {
      uint8_t* s = t.width[w] + 16 * half;
      std::memset(s, 0x80, 16);
      for (unsigned m = 0; m < 4; ++m) {
        for (unsigned j = 0; j < w; ++j) s[4 * m + 4 - w + j] = static_cast<uint8_t>(m * (w + 1) + j);
      }
    }
  }
  return t;
}

const Shuffles kShuffles = make_shuffles();

// 0xFFFF in the first k of 16 lanes: 16 - k entries in.
const uint16_t kLanes[32] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
                             0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};

RB_AVX2_TARGET inline uint32_t mask(__m256i v) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(v));
}

// Bytes of 32 at d by class.
struct Classes32 {
  uint32_t digits, commas, bars, hex, control;
};

RB_AVX2_TARGET inline Classes32 classes(const char* d) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d));
  const __m256i x = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
  const __m256i y = _mm256_sub_epi8(v, _mm256_set1_epi8('a'));
  Classes32 c;
  c.digits = mask(_mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(9)), x));
  c.commas = mask(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(',')));
  c.bars = mask(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('|')));
  c.hex = c.digits | mask(_mm256_cmpeq_epi8(_mm256_min_epu8(y, _mm256_set1_epi8(5)), y));
  c.control = mask(_mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v),
                                   _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f))));
  return c;
}

// The first n (32 to 128) bytes at d, 128 of which are readable.
RB_AVX2_TARGET inline Classified classify(const char* d, size_t n) {
  const Classes32 a = classes(d), b = classes(d + 32);
  Classes32 c{}, e{};
  if (n > 64) {
    c = classes(d + 64);
    if (n > 96) e = classes(d + 96);
  }
  auto join = [](uint32_t p, uint32_t q, uint32_t r, uint32_t s) {
    return U128{p | uint64_t{q} << 32} | U128{r | uint64_t{s} << 32} << 64;
  };
  const U128 line = below(static_cast<unsigned>(n));
  Classified m;
  m.digits = line & join(a.digits, b.digits, c.digits, e.digits);
  m.commas = line & join(a.commas, b.commas, c.commas, e.commas);
  m.bars = line & join(a.bars, b.bars, c.bars, e.bars);
  m.hex = line & join(a.hex, b.hex, c.hex, e.hex);
  m.control = (line & join(a.control, b.control, c.control, e.control)) != 0;
  return m;
}

// Eight values: the groups of four at q0 and q1, each 16 bytes from its
// first digit, one per 32-bit lane.
RB_AVX2_TARGET inline __m256i eight_values(const char* q0, const char* q1, __m256i shuffle) {
  const __m256i bytes =
      _mm256_sub_epi8(_mm256_set_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q1)),
                                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(q0))),
                      _mm256_set1_epi8('0'));
  const __m256i pairs = _mm256_maddubs_epi16(_mm256_shuffle_epi8(bytes, shuffle),
                                             _mm256_set1_epi16(static_cast<short>(0x010A)));
  return _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00010064));  // (10, 1) then (100, 1)
}

// Reads the values as L lays them out: four groups of four from the value
// list (the groups past L.count read bytes after it, which the caller has
// made sure are readable), into out (room for 16) and r.
RB_AVX2_TARGET inline void convert(const char* d, const Raw16Layout& L, uint16_t* out,
                                   Raw16& r) {
  const char* const p = d + L.values_at;
  const size_t group = 4u * (L.width + 1u);
  const __m256i shuffle =
      _mm256_load_si256(reinterpret_cast<const __m256i*>(kShuffles.width[L.width]));
  const __m256i v01 = eight_values(p, p + group, shuffle);                  // 0-3 | 4-7
  const __m256i v23 = eight_values(p + 2 * group, p + 3 * group, shuffle);  // 8-11 | 12-15
  // packus takes the halves in turn: 0-3, 8-11 | 4-7, 12-15; reorder.
  const __m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi32(v01, v23), 0xD8);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
  const __m256i in = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 16 - L.count));
  min_max16(_mm256_or_si256(v, _mm256_xor_si256(in, _mm256_set1_epi16(-1))),
            _mm256_and_si256(v, in), r);
  r.count = L.count;
}

// Whether convert() may read L's groups: widths 1 to 3, and every group
// within the 128 readable bytes.
inline bool convertible(const Raw16Layout& L) {
  return L.width >= 1 && L.width <= 3 && L.values_at + 12u * (L.width + 1u) + 16u <= 128u;
}

}  // namespace

bool raw16_avx2_on = kSupported && wanted();

bool use_raw16_avx2(bool on) {
  raw16_avx2_on = on && kSupported;
  return raw16_avx2_on;
}

RB_AVX2_TARGET bool read_raw16_avx2(Raw16Layout* layouts, size_t count, size_t& next,
                                    std::string_view line, const char* readable_end,
                                    uint16_t* out, size_t max, Raw16& r) {
  const size_t n = line.size();
  const char* const d = line.data();
  if (n < 32 || n > 128 || max < 8 || readable_end - d < 128 || std::memcmp(d, "RAW,", 4) != 0)
    return false;
  const Classified m = classify(d, n);
  if (const Raw16Layout* L = find_layout(layouts, count, n, m)) {
    if (!convertible(*L) || !fits(*L, m, max) || (L->has_suffix && !crc_matches(d, n)))
      return false;
    convert(d, *L, out, r);
    read_fields(d, *L, r);
    return true;
  }
  Shape sh;
  if (!work_out(n, m, max, sh) || (sh.has_suffix && !crc_matches(d, n))) return false;
  Raw16Layout& learned = layouts[next];
  remember(n, m, sh, learned);
  learned.lanes = 0;  // no AVX-512 permutation here: that path works it out again
  next = next + 1 == count ? 0 : next + 1;
  if (!convertible(learned)) return false;  // remembered all the same: refused at once next time
  convert(d, learned, out, r);
  read_fields(d, learned, r);
  return true;
}

#else

bool raw16_avx2_on = false;

bool use_raw16_avx2(bool) { return false; }

bool read_raw16_avx2(Raw16Layout*, size_t, size_t&, std::string_view, const char*, uint16_t*,
                     size_t, Raw16&) {
  return false;
}

#endif

}  // namespace rb::protocol::detail
