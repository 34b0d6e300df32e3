#include "protocol/line.h"

#include <algorithm>
#include <cstring>

#include "protocol/raw16_avx2.h"
#include "protocol/raw16_avx512.h"
#include "util/crc32c.h"
#include "util/decimal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace rb::protocol {

const char* to_string(RecordKind kind) {
  switch (kind) {
    case RecordKind::kBegin:
      return "BEGIN";
    case RecordKind::kConfig:
      return "CONFIG";
    case RecordKind::kDwtReadPair:
      return "DWT_READ_PAIR";
    case RecordKind::kTest:
      return "TEST";
    case RecordKind::kPhase:
      return "PHASE";
    case RecordKind::kRaw:
      return "RAW";
    case RecordKind::kResult:
      return "RESULT";
    case RecordKind::kCheck:
      return "CHECK";
    case RecordKind::kNa:
      return "NA";
    case RecordKind::kEnd:
      return "END";
    case RecordKind::kOther:
      break;
  }
  return "other";
}

namespace {

// True when `record` is exactly `kind` or starts with `kind` followed by ','.
bool is_kind(std::string_view record, std::string_view kind) {
  return record.size() >= kind.size() &&
         std::memcmp(record.data(), kind.data(), kind.size()) == 0 &&
         (record.size() == kind.size() || record[kind.size()] == ',');
}

RecordKind classify(std::string_view r) {
  if (r.empty()) return RecordKind::kOther;
  switch (r[0]) {
    case 'R':
      if (is_kind(r, "RAW")) return RecordKind::kRaw;
      if (is_kind(r, "RESULT")) return RecordKind::kResult;
      break;
    case 'B':
      if (is_kind(r, "BEGIN")) return RecordKind::kBegin;
      break;
    case 'C':
      if (is_kind(r, "CONFIG")) return RecordKind::kConfig;
      if (is_kind(r, "CHECK")) return RecordKind::kCheck;
      break;
    case 'D':
      if (is_kind(r, "DWT_READ_PAIR")) return RecordKind::kDwtReadPair;
      break;
    case 'T':
      if (is_kind(r, "TEST")) return RecordKind::kTest;
      break;
    case 'P':
      if (is_kind(r, "PHASE")) return RecordKind::kPhase;
      break;
    case 'N':
      if (is_kind(r, "NA")) return RecordKind::kNa;
      break;
    case 'E':
      if (is_kind(r, "END")) return RecordKind::kEnd;
      break;
    default:
      break;
  }
  return RecordKind::kOther;
}

size_t kind_length(RecordKind k) {
  static constexpr size_t kLength[] = {0, 5, 6, 13, 4, 5, 3, 6, 5, 2, 3};  // in enum order
  return kLength[static_cast<size_t>(k)];
}

}  // namespace

namespace {

#if defined(__SSE2__)
// The suffix of a line of at least 32 bytes from its last 32 bytes at once:
// bit masks of the bars, digits and lowercase hex digits, so the CRC field
// and the seq are checked without a loop over their bytes. False when the
// line does not end in "|<1..22 digits>|<8 lowercase hex>" within them
// (the general path then decides).
template <class Out>
bool parse_suffix_window(const char* d, size_t n, Out& out) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + n - 32));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + n - 16));
  auto mask = [](__m128i v, __m128i (*f)(__m128i)) {
    return static_cast<uint32_t>(_mm_movemask_epi8(f(v)));
  };
  auto bar = [](__m128i v) { return _mm_cmpeq_epi8(v, _mm_set1_epi8('|')); };
  auto digit = [](__m128i v) {
    const __m128i x = _mm_sub_epi8(v, _mm_set1_epi8('0'));
    return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(9)), x);
  };
  auto hex_letter = [](__m128i v) {
    const __m128i x = _mm_sub_epi8(v, _mm_set1_epi8('a'));
    return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(5)), x);
  };
  const uint32_t bars = mask(lo, bar) | mask(hi, bar) << 16;
  const uint32_t digits = mask(lo, digit) | mask(hi, digit) << 16;
  const uint32_t letters = mask(lo, hex_letter) | mask(hi, hex_letter) << 16;
  // Byte 23 of the window is the bar before the CRC, 24..31 the CRC.
  if ((bars & (1u << 23)) == 0 || ((digits | letters) >> 24) != 0xFFu) return false;
  const uint32_t before = bars & ((1u << 23) - 1);
  if (before == 0) return false;
  const unsigned seq_bar = 31 - static_cast<unsigned>(__builtin_clz(before));
  const unsigned seq_digits = 22 - seq_bar;
  const uint32_t seq_bits = ((1u << 23) - 1) & ~((2u << seq_bar) - 1);
  if (seq_digits == 0 || (digits & seq_bits) != seq_bits) return false;
  const char* seq = d + n - 32 + seq_bar + 1;
  if (seq_digits <= 8) {
    out.seq = decimal_value8(seq, seq_digits);  // "|<crc>" follows: 8 bytes readable
  } else {
    auto v = parse_u64(std::string_view(seq, seq_digits));
    if (!v) return false;
    out.seq = *v;
  }
  out.record = std::string_view(d, static_cast<size_t>(seq - 1 - d));
  out.crc_given = hex8_value(d + n - 8);
  out.crc_computed = crc32c(std::string_view(d, n - 9));
  out.suffix = out.crc_given == out.crc_computed ? Suffix::kValid : Suffix::kBadCrc;
  return true;
}
#endif

// What parse_raw16 needs of parse_suffix: a ParsedLine would cost a
// clearing of all its fields per line.
struct SuffixParts {
  std::string_view record;
  Suffix suffix = Suffix::kAbsent;
  uint64_t seq = 0;
  uint32_t crc_given = 0, crc_computed = 0;
};

// parse_suffix into a ParsedLine or into parse_raw16's smaller SuffixParts.
template <class Out>
void parse_suffix_into(std::string_view line, Out& out) {
  out.suffix = Suffix::kAbsent;
  out.seq = 0;
  out.crc_given = out.crc_computed = 0;
  out.record = line;
  const size_t n = line.size();
  if (n == 0) return;  // (an empty view may have a null data pointer)
  const char* const d = line.data();
#if defined(__SSE2__)
  if (n >= 32 && parse_suffix_window(d, n, out)) return;
#endif
  // Fast path: "...|<seq>|<8 hex>" with the crc bar exactly 9 bytes from the end.
  if (n >= 11 && d[n - 9] == '|') {
    auto crc = parse_hex8_lower(std::string_view(d + n - 8, 8));
    size_t bar = n - 10;  // last byte of seq
    size_t digits = 0;
    while (digits <= 20 && bar > 0 &&
           static_cast<unsigned>(static_cast<unsigned char>(d[bar]) - '0') <= 9) {
      --bar;
      ++digits;
    }
    if (crc && digits > 0 && digits <= 20 && d[bar] == '|') {
      // The seq is followed by "|<8 hex>", so 8 bytes can always be read.
      auto seq = digits <= 8 ? std::optional<uint64_t>(decimal_value8(d + bar + 1, digits))
                             : parse_u64(std::string_view(d + bar + 1, digits));
      if (seq) {
        out.record = std::string_view(d, bar);
        out.seq = *seq;
        out.crc_given = *crc;
        out.crc_computed = crc32c(std::string_view(d, n - 9));
        out.suffix = out.crc_given == out.crc_computed ? Suffix::kValid : Suffix::kBadCrc;
        return;
      }
    }
  }
  const void* bar = std::memchr(d, '|', n);
  if (bar != nullptr) {
    out.suffix = Suffix::kMalformed;
    out.record = std::string_view(d, static_cast<size_t>(static_cast<const char*>(bar) - d));
  }
}

}  // namespace

void parse_suffix(std::string_view line, ParsedLine& out) {
  parse_suffix_into(line, out);
}

void LineParser::split_fields(std::string_view rest) {
  fields_.clear();
  for (;;) {
    size_t comma = rest.find(',');
    std::string_view f = rest.substr(0, comma);
    size_t eq = f.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      fields_.push_back(Field{f.substr(0, eq), f.substr(eq + 1)});
    } else {
      fields_.push_back(Field{std::string_view(), f});
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  out_.fields = fields_;
}

namespace {

// Digit by digit with overflow check: the slow, general path.
inline bool digits_value_checked(const char* p, const char* e, uint64_t& v) {
  v = 0;
  for (; p < e; ++p) {
    auto d = static_cast<unsigned>(static_cast<unsigned char>(*p) - '0');
    if (d > 9 || v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

// Parses "v,v,...,v" in [p, e) into out (room for (e - p) / 2 + 1 values).
// Returns nullptr or what is wrong. Bytes up to readable_end may be read.
// Where 16 bytes can be read at once, SSE2 finds every ',' and every
// non-digit of the block as bit masks, so the numbers between commas are
// converted independently of each other (no chain through the text).
const char* parse_value_list(const char* p, const char* e, const char* readable_end, uint64_t* out,
                             size_t& count) {
  count = 0;
  const char* start = p;  // first digit of the current number
  auto emit = [&](const char* end) -> const char* {
    const size_t len = static_cast<size_t>(end - start);
    if (len == 0) return "RAW field is not an unsigned decimal number";
    if (len <= 8 && readable_end - start >= 8) {
      out[count++] = decimal_value8(start, len);
    } else if (!digits_value_checked(start, end, out[count++])) {
      return "RAW value does not fit in 64 bits";
    }
    return nullptr;
  };
#if defined(__SSE2__)
  const __m128i comma_v = _mm_set1_epi8(',');
  const __m128i below0 = _mm_set1_epi8('0' - 1);
  const __m128i above9 = _mm_set1_epi8('9' + 1);
  while (p < e && readable_end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i c = _mm_cmpeq_epi8(v, comma_v);
    const __m128i d = _mm_and_si128(_mm_cmpgt_epi8(v, below0), _mm_cmplt_epi8(v, above9));
    unsigned comma = static_cast<unsigned>(_mm_movemask_epi8(c));
    unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(c, d))) & 0xFFFFu;
    const size_t block = std::min<size_t>(16, static_cast<size_t>(e - p));
    const unsigned keep = (1u << block) - 1;
    comma &= keep;
    // A byte that is neither digit nor ',': a sign, a space, garbage.
    if ((other & keep) != 0) return "RAW field is not an unsigned decimal number";
    while (comma != 0) {
      const char* end = p + __builtin_ctz(comma);
      if (const char* err = emit(end)) return err;
      start = end + 1;
      comma &= comma - 1;
    }
    p += block;
  }
#endif
  for (; p < e; ++p) {
    if (*p == ',') {
      if (const char* err = emit(p)) return err;
      start = p + 1;
    } else if (static_cast<unsigned>(static_cast<unsigned char>(*p) - '0') > 9) {
      return "RAW field is not an unsigned decimal number";
    }
  }
  return emit(e);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RB_UNIFORM_VALUES 1

// Samples of one series mostly share their number of digits, so a RAW line
// is mostly "ddd,ddd,ddd,...". Where values of d <= 4 digits follow each
// other, one 16-byte load holds k of them at fixed places (stride d + 1):
// one compare checks every digit and comma, one shuffle moves each number
// into its own 32-bit lane, two multiply-adds give the values. Any other
// byte, width or the end of the readable data stops this, and the caller
// goes on with the general parser where it stopped.
struct UniformLayout {
  __m128i shuffle;       // digits of number m to bytes 4m..4m+3, right-aligned
  unsigned digit_bits;   // where the digits are in the 16 bytes
  unsigned comma_bits;   // where the commas after them are
  unsigned k;            // numbers per load
  unsigned stride;       // d + 1
};

UniformLayout uniform_layout(unsigned d) {
  UniformLayout l{};
  l.stride = d + 1;
  l.k = d <= 3 ? 4 : 3;
  alignas(16) unsigned char shuf[16];
  std::memset(shuf, 0x80, sizeof shuf);
  for (unsigned m = 0; m < l.k; ++m) {
    for (unsigned j = 0; j < d; ++j) {
      shuf[4 * m + 4 - d + j] = static_cast<unsigned char>(m * l.stride + j);
      l.digit_bits |= 1u << (m * l.stride + j);
    }
    l.comma_bits |= 1u << (m * l.stride + d);
  }
  std::memcpy(&l.shuffle, shuf, sizeof shuf);
  return l;
}

const UniformLayout kUniform[5] = {UniformLayout{}, uniform_layout(1), uniform_layout(2),
                                   uniform_layout(3), uniform_layout(4)};

// From `p`, the first digit of a value in the list that ends at `e`: walks
// the values while they come in whole groups of one width, and hands each
// group's values (one per 32-bit lane) and count to sink(values, k), which
// returns false to stop before that group. Returns where it stopped: the
// first digit of the next value, or e + 1 when the list ended with a group.
template <class Sink>
__attribute__((target("ssse3,sse4.1"))) inline const char* uniform_groups(
    const char* p, const char* e, const char* readable_end, Sink& sink) {
  unsigned d = 0;
  while (d < 5 && p + d < e && static_cast<unsigned>(static_cast<unsigned char>(p[d]) - '0') <= 9)
    ++d;
  if (d == 0 || d > 4 || p + d >= e || p[d] != ',') return p;
  const UniformLayout& l = kUniform[d];
  const __m128i comma_v = _mm_set1_epi8(',');
  const __m128i zero_v = _mm_set1_epi8('0');
  const __m128i nine_v = _mm_set1_epi8(9);
  const __m128i tens = _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1);
  const __m128i hundreds = _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1);
  const size_t span = l.k * l.stride;  // bytes of a group, its last comma included
  while (readable_end - p >= 16 && static_cast<size_t>(e - p) + 1 >= span) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i x = _mm_sub_epi8(v, zero_v);
    // Digits: 0..9 after subtracting '0' (unsigned compare through min).
    const unsigned digits =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, nine_v), x)));
    const unsigned commas = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma_v)));
    // The last comma of the last group of the list is the end of the list.
    unsigned need_commas = l.comma_bits;
    if (static_cast<size_t>(e - p) + 1 == span) need_commas &= ~(1u << (span - 1));
    if ((digits & l.digit_bits) != l.digit_bits || (commas & need_commas) != need_commas) break;
    const __m128i pairs = _mm_maddubs_epi16(_mm_shuffle_epi8(x, l.shuffle), tens);
    if (!sink(_mm_madd_epi16(pairs, hundreds), l.k)) break;
    p += span;
  }
  return p;
}

// Groups as 64-bit values. Four are stored even when k is 3: the caller
// leaves room, and the next group overwrites the extra one.
struct Store64 {
  uint64_t* out;
  size_t count = 0;
  __attribute__((target("sse4.1"))) bool operator()(__m128i values, unsigned k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + count), _mm_cvtepu32_epi64(values));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + count + 2),
                     _mm_cvtepu32_epi64(_mm_srli_si128(values, 8)));
    count += k;
    return true;
  }
};

// Groups as 16-bit values (each at most 9999), at most `room` of them (and
// four more stored, which the caller has room for), with their minimum and
// maximum. Only a group's k lanes count: the others are 0xFFFF for the
// minimum and 0 for the maximum.
struct Store16 {
  uint16_t* out;
  size_t room;
  size_t count = 0;
  __m128i mn = _mm_set1_epi16(-1), mx = _mm_setzero_si128();
  __attribute__((target("sse4.1"))) bool operator()(__m128i values, unsigned k) {
    if (count >= room) return false;
    const __m128i lanes = k == 4 ? _mm_setr_epi16(-1, -1, -1, -1, 0, 0, 0, 0)
                                 : _mm_setr_epi16(-1, -1, -1, 0, 0, 0, 0, 0);
    const __m128i packed = _mm_packus_epi32(values, values);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + count), packed);
    mn = _mm_min_epu16(mn, _mm_or_si128(packed, _mm_xor_si128(lanes, _mm_set1_epi16(-1))));
    mx = _mm_max_epu16(mx, _mm_and_si128(packed, lanes));
    count += k;
    return true;
  }
  // Folds the minimum and maximum into lo and hi.
  __attribute__((target("sse4.1"))) void fold(uint16_t& lo, uint16_t& hi) const {
    if (count == 0) return;
    lo = std::min(lo, static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(mn))));
    hi = std::max(hi, static_cast<uint16_t>(~_mm_cvtsi128_si32(
                          _mm_minpos_epu16(_mm_xor_si128(mx, _mm_set1_epi16(-1))))));
  }
};

// `count` values are written to out, which has room for count + 4.
__attribute__((target("ssse3,sse4.1"))) const char* uniform_values(const char* p, const char* e,
                                                                   const char* readable_end,
                                                                   uint64_t* out, size_t& count) {
  Store64 sink{out};
  p = uniform_groups(p, e, readable_end, sink);
  count = sink.count;
  return p;
}

// uniform_values for parse_raw16: 16-bit values, at most `room` (and four
// more stored), their minimum and maximum folded into lo and hi.
__attribute__((target("ssse3,sse4.1"))) const char* uniform_values16(
    const char* p, const char* e, const char* readable_end, uint16_t* out, size_t room,
    size_t& count, uint16_t& lo, uint16_t& hi) {
  Store16 sink{out, room};
  p = uniform_groups(p, e, readable_end, sink);
  sink.fold(lo, hi);
  count = sink.count;
  return p;
}

// The first two commas in [p, e), by one 32-byte look where the line is
// long enough (a RAW line's name and first index nearly always fit), and
// whether a byte before the first one is a control byte (below 0x20, or
// 0x7F): the series name is the one part of a RAW line no other check
// looks at byte by byte.
inline bool two_commas(const char* p, const char* e, const char* readable_end, const char*& c1,
                       const char*& c2, bool& name_control) {
  if (readable_end - p >= 32) {
    const __m128i comma = _mm_set1_epi8(',');
    const __m128i k1f = _mm_set1_epi8(0x1f);
    const __m128i k7f = _mm_set1_epi8(0x7f);
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    auto control = [&](__m128i v) {
      return static_cast<uint32_t>(_mm_movemask_epi8(
          _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(v, k1f), v), _mm_cmpeq_epi8(v, k7f))));
    };
    uint32_t m = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v0, comma))) |
                 static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v1, comma))) << 16;
    if (e - p < 32) m &= (1u << (e - p)) - 1;
    if (m != 0 && (m & (m - 1)) != 0) {
      const unsigned first = static_cast<unsigned>(__builtin_ctz(m));
      c1 = p + first;
      m &= m - 1;
      c2 = p + __builtin_ctz(m);
      const uint32_t ctl = control(v0) | control(v1) << 16;
      name_control = (ctl & ((1u << first) - 1)) != 0;
      return true;
    }
    if (e - p <= 32) return false;  // fewer than two commas in the record
  }
  c1 = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(e - p)));
  if (c1 == nullptr) return false;
  c2 = static_cast<const char*>(std::memchr(c1 + 1, ',', static_cast<size_t>(e - c1 - 1)));
  name_control = false;
  for (const char* q = p; q < c1; ++q) {
    const auto u = static_cast<unsigned char>(*q);
    if (u < 0x20 || u == 0x7f) name_control = true;
  }
  return c2 != nullptr;
}

// Decided once, when the program starts (a plain load per line after
// that, where a function-local static would cost a guarded call).
bool detect_uniform_values() {
  __builtin_cpu_init();  // static initializers may run before the library's own
  return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1");
}
const bool kUniformValues = detect_uniform_values();

inline bool uniform_values_supported() {
  return kUniformValues;
}
#endif

}  // namespace

void LineParser::parse_raw(std::string_view rest, const char* readable_end) {
  const char* p = rest.data();
  const char* const e = p + rest.size();
  const char* name_end =
      rest.empty() ? nullptr : static_cast<const char*>(std::memchr(p, ',', rest.size()));
  if (name_end == nullptr) {
    out_.error = "RAW needs a series name, a first index and at least one value";
    return;
  }
  out_.raw_name = std::string_view(p, static_cast<size_t>(name_end - p));
  if (out_.raw_name.empty()) {
    out_.error = "RAW has an empty series name";
    return;
  }
  p = name_end + 1;
  // Room for every value the line could hold (and a group more for the
  // uniform path's stores): the list parsers need no checks.
  const size_t most = static_cast<size_t>(e - p) / 2 + 1;
  if (values_.size() < most + 4) values_.resize(most + 4);
  size_t count = 0;
#ifdef RB_UNIFORM_VALUES
  // <first>,<values>: the first index (wider than the samples) the general
  // way, then the samples in uniform groups as far as they go. Only valid
  // numbers are consumed there, so what is left gets exactly the verdict
  // the general parser alone would give.
  const char* first_end = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(e - p)));
  if (first_end != nullptr && first_end > p && first_end - p <= 19 && uniform_values_supported()) {
    uint64_t first = 0;
    if (digits_value_checked(p, first_end, first)) {
      values_[0] = first;
      size_t n = 0;
      const char* rest = uniform_values(first_end + 1, e, readable_end, values_.data() + 1, n);
      count = 1 + n;
      if (rest <= e) {
        size_t tail = 0;
        if (const char* err =
                parse_value_list(rest, e, readable_end, values_.data() + count, tail)) {
          out_.error = err;
          return;
        }
        count += tail;
      }
      out_.raw_first = values_[0];
      out_.raw_values = std::span<const uint64_t>(values_.data() + 1, count - 1);
      return;
    }
  }
#endif
  if (const char* err = parse_value_list(p, e, readable_end, values_.data(), count)) {
    out_.error = err;
    return;
  }
  // <first>, then the values.
  if (count < 2) {
    out_.error = "RAW needs a series name, a first index and at least one value";
    return;
  }
  out_.raw_first = values_[0];
  out_.raw_values = std::span<const uint64_t>(values_.data() + 1, count - 1);
}

bool parse_raw16(std::string_view line, uint16_t* out, size_t max, Raw16& r) {
  if (detail::raw16_avx512_enabled() && detail::parse_raw16_avx512(line, out, max, r)) return true;
  return detail::parse_raw16_sse(line, out, max, r);
}

bool Raw16Reader::read(std::string_view line, const char* readable_end, uint16_t* out,
                       size_t max, Raw16& r) {
  if (line.size() < 8 || std::memcmp(line.data(), "RAW,", 4) != 0) return false;
  const bool avx512 = detail::raw16_avx512_enabled();
  if ((avx512 || detail::raw16_avx2_enabled()) && skip_ == 0) {
    if (avx512 ? detail::read_raw16_avx512(layouts_, kLayouts, next_, line, out, max, r)
               : detail::read_raw16_avx2(layouts_, kLayouts, next_, line, readable_end, out,
                                         max, r)) {
      backoff_ = 0;
      return true;
    }
    // Refused: a line the wide path does not take (values of mixed widths,
    // say) is likely followed by more. Skip it for 1, 2, 4, ... 64 lines
    // while it keeps refusing, so that such a series costs the SSE path
    // little more than on its own.
    backoff_ = static_cast<uint8_t>(backoff_ == 0 ? 1 : std::min(2 * backoff_, 64));
    skip_ = backoff_;
  } else if (skip_ > 0) {
    --skip_;
  }
  return detail::parse_raw16_sse(line, out, max, r);
}

bool detail::parse_raw16_sse(std::string_view line, uint16_t* out, size_t max, Raw16& r) {
#ifdef RB_UNIFORM_VALUES
  if (line.size() < 8 || std::memcmp(line.data(), "RAW,", 4) != 0 || !uniform_values_supported())
    return false;
  SuffixParts s;
  parse_suffix_into(line, s);
  if (s.suffix != Suffix::kValid && s.suffix != Suffix::kAbsent) return false;
  // The record is "RAW,<name>,<first>,<values>", as parse_raw reads it.
  const char* p = s.record.data() + 4;
  const char* const e = s.record.data() + s.record.size();
  const char* const readable_end = line.data() + line.size();
  const char *name_end, *first_end;
  bool name_control = false;
  if (p >= e || !two_commas(p, e, readable_end, name_end, first_end, name_control) ||
      name_end == p || name_control) {
    return false;
  }
  const char* const first = name_end + 1;
  // The first index: at most 19 digits, so it cannot overflow. Up to 8 are
  // checked and converted at once: every byte of the word has high nibble
  // 3, and adding 6 to it leaves that nibble alone (so the digit is 0..9).
  const auto first_len = static_cast<size_t>(first_end - first);
  if (first_len == 0 || first_len > 19) return false;
  uint64_t first_value = 0;
  if (first_len <= 8 && readable_end - first >= 8) {
    uint64_t word;
    std::memcpy(&word, first, 8);
    const uint64_t keep = first_len == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * first_len)) - 1;
    const uint64_t high = 0xF0F0F0F0F0F0F0F0ull & keep;
    const uint64_t threes = 0x3030303030303030ull & keep;
    if ((word & high) != threes || ((word + 0x0606060606060606ull) & high) != threes) return false;
    first_value = decimal_value8(first, first_len);
  } else {
    for (const char* q = first; q < first_end; ++q) {
      const auto d = static_cast<unsigned>(static_cast<unsigned char>(*q) - '0');
      if (d > 9) return false;
      first_value = first_value * 10 + d;
    }
  }
  p = first_end + 1;
  size_t count = 0;
  uint16_t lo = UINT16_MAX, hi = 0;
  p = uniform_values16(p, e, readable_end, out, max, count, lo, hi);
  // A rest of under 64 bytes with 64 readable (and 8 past it): its commas
  // and digits as masks from four loads, so each value's place comes from
  // the next set bit and no value waits for the one before to be scanned.
  if (p <= e && static_cast<size_t>(e - p) < 64 && readable_end - p >= 64 &&
      readable_end - e >= 8) {
    const auto len = static_cast<unsigned>(e - p);
    const __m128i comma = _mm_set1_epi8(','), zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
    uint64_t commas = 0, digits = 0;
    for (unsigned i = 0; i < 4; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      const __m128i x = _mm_sub_epi8(v, zero);
      commas |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)))}
                << (16 * i);
      digits |= uint64_t{static_cast<uint16_t>(
                    _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, nine), x)))}
                << (16 * i);
    }
    const uint64_t list = (uint64_t{1} << len) - 1;
    commas &= list;
    if ((commas | (digits & list)) != list) return false;
    uint64_t ends = commas | uint64_t{1} << len;  // each value's end: a comma, or the list's
    unsigned start = 0;
    while (ends != 0) {
      const auto end = static_cast<unsigned>(__builtin_ctzll(ends));
      ends &= ends - 1;
      const unsigned width = end - start;
      if (width == 0 || width > 5 || count >= max) return false;
      const auto v = static_cast<uint32_t>(decimal_value8(p + start, width));  // 8 readable
      if (v > UINT16_MAX) return false;
      out[count++] = static_cast<uint16_t>(v);
      lo = std::min(lo, static_cast<uint16_t>(v));
      hi = std::max(hi, static_cast<uint16_t>(v));
      start = end + 1;
    }
    p = e + 1;
  }
  // The rest one value at a time; the last one ends the record. Where 8
  // bytes can be read, a value's width comes from a mask of its non-digit
  // bytes and its digits are converted at once: no branch per digit, which
  // values of mixed widths would mispredict.
  while (p <= e && count <= max) {
    const char* q = p;
    uint32_t v = 0;
    if (readable_end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      const uint64_t t = w ^ 0x3030303030303030ull;  // digits become 0..9
      const uint64_t other =
          (t | ((t & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull)) & 0x8080808080808080ull;
      size_t width = other != 0 ? static_cast<size_t>(__builtin_ctzll(other)) / 8 : 8;
      width = std::min(width, static_cast<size_t>(e - p));
      if (width == 0 || width > 5) return false;
      v = static_cast<uint32_t>(decimal_value8(p, width));
      q = p + width;
    } else {
      while (q < e && q - p < 6 &&
             static_cast<unsigned>(static_cast<unsigned char>(*q) - '0') <= 9) {
        v = v * 10 + static_cast<uint32_t>(*q - '0');
        ++q;
      }
    }
    if (q == p || q - p > 5 || v > UINT16_MAX) return false;
    if (q < e && *q != ',') return false;
    out[count++] = static_cast<uint16_t>(v);
    lo = std::min(lo, static_cast<uint16_t>(v));
    hi = std::max(hi, static_cast<uint16_t>(v));
    p = q + 1;
  }
  if (count == 0 || count > max) return false;
  r.name = std::string_view(s.record.data() + 4, static_cast<size_t>(name_end - s.record.data() - 4));
  r.first = first_value;
  r.count = count;
  r.lo = lo;
  r.hi = hi;
  r.suffix = s.suffix;
  r.seq = s.seq;
  return true;
#else
  (void)line, (void)out, (void)max, (void)r;
  return false;
#endif
}

const ParsedLine& LineParser::parse(std::string_view line) {
  out_.fields = {};
  out_.raw_name = {};
  out_.raw_first = 0;
  out_.raw_values = {};
  out_.error = nullptr;
  parse_suffix(line, out_);
  out_.kind = classify(out_.record);
  if (out_.kind == RecordKind::kOther) return out_;
  const size_t klen = kind_length(out_.kind);
  if (out_.record.size() == klen) {
    // The bare kind: a record with no fields. Only the decoders can say
    // whether that is enough; an empty field list is passed on.
    if (out_.kind == RecordKind::kRaw)
      out_.error = "RAW needs a series name, a first index and at least one value";
    return out_;
  }
  const std::string_view rest(out_.record.data() + klen + 1, out_.record.size() - klen - 1);
  if (out_.kind == RecordKind::kRaw) {
    parse_raw(rest, line.data() + line.size());
  } else {
    split_fields(rest);
  }
  return out_;
}

void append_v2_line(std::string& out, std::string_view record, uint64_t seq) {
  const size_t start = out.size();
  out.append(record);
  out.push_back('|');
  char digits[24];
  int i = 24;
  do {
    digits[--i] = static_cast<char>('0' + seq % 10);
    seq /= 10;
  } while (seq != 0);
  out.append(digits + i, digits + 24);
  const uint32_t crc = crc32c(std::string_view(out).substr(start));
  out.push_back('|');
  char hex[8];
  format_hex8_lower(crc, hex);
  out.append(hex, 8);
}

std::string v2_line(std::string_view record, uint64_t seq) {
  std::string s;
  append_v2_line(s, record, seq);
  return s;
}

}  // namespace rb::protocol
