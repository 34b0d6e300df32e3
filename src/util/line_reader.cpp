#include "util/line_reader.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rb {

Result<size_t> StreamSource::read(char* buf, size_t n) {
  if (!in_) return size_t{0};
  in_.read(buf, static_cast<std::streamsize>(n));
  if (in_.bad()) return make_error(ErrorKind::kCannotRead, "read error on input stream");
  return static_cast<size_t>(in_.gcount());
}

Result<size_t> MemorySource::read(char* buf, size_t n) {
  size_t k = std::min(n, data_.size());
  if (k == 0) return k;
  std::memcpy(buf, data_.data(), k);
  data_.remove_prefix(k);
  return k;
}

namespace {

size_t find_control_byte_sse2(const char* p, const char* e) {
  const char* const start = p;
#if defined(__SSE2__)
  const __m128i k1f = _mm_set1_epi8(0x1f);
  const __m128i k7f = _mm_set1_epi8(0x7f);
  while (e - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, k1f), v);  // v <= 0x1f, unsigned
    __m128i del = _mm_cmpeq_epi8(v, k7f);
    int mask = _mm_movemask_epi8(_mm_or_si128(low, del));
    if (mask != 0) return static_cast<size_t>(p - start) + static_cast<size_t>(__builtin_ctz(mask));
    p += 16;
  }
#endif
  for (; p < e; ++p) {
    auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7f) break;
  }
  return static_cast<size_t>(p - start);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RB_FIND_CONTROL_AVX2 1
// 32 bytes per step where the CPU has AVX2 (a line is looked at once, so
// this scan is much of the reader's time); the rest as above.
__attribute__((target("avx2"))) size_t find_control_byte_avx2(const char* p, const char* e) {
  const char* const start = p;
  const __m256i k1f = _mm256_set1_epi8(0x1f);
  const __m256i k7f = _mm256_set1_epi8(0x7f);
  while (e - p >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, k1f), v);
    const __m256i del = _mm256_cmpeq_epi8(v, k7f);
    const auto mask = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_or_si256(low, del)));
    if (mask != 0) return static_cast<size_t>(p - start) + static_cast<size_t>(__builtin_ctz(mask));
    p += 32;
  }
  return static_cast<size_t>(p - start) + find_control_byte_sse2(p, e);
}
#endif

}  // namespace

size_t find_control_byte(const char* p, const char* e) {
#ifdef RB_FIND_CONTROL_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return find_control_byte_avx2(p, e);
#endif
  return find_control_byte_sse2(p, e);
}

namespace {

// First CR or LF in [p, e): once a line is known to hold control bytes, only
// its end matters, and a run of NULs must not cost one call per byte.
size_t find_line_end(const char* p, const char* e) {
  const char* const start = p;
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  while (e - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
    if (mask != 0) return static_cast<size_t>(p - start) + static_cast<size_t>(__builtin_ctz(mask));
    p += 16;
  }
#endif
  for (; p < e; ++p) {
    if (*p == '\n' || *p == '\r') break;
  }
  return static_cast<size_t>(p - start);
}

}  // namespace

LineReader::LineReader(ByteSource& source, Options options) : source_(source), options_(options) {
  if (options_.max_line == 0) options_.max_line = 1;
  size_ = std::max(options_.buffer, 2 * options_.max_line + 2);
  buf_.reset(new char[size_]);
}

bool LineReader::emit(Line& line, size_t end, bool terminated) {
  const uint64_t len = dropped_ + (end - pos_);
  line.number = ++number_;
  line.length = len;
  line.overlong = dropped_ > 0 || len > options_.max_line;
  line.text = line.overlong ? std::string_view() : std::string_view(buf_.get() + pos_, end - pos_);
  line.control = control_;
  line.terminated = terminated;
  dropped_ = 0;
  control_ = false;
  return true;
}

// Makes room and reads more bytes after end_. Returns false at the end of
// the data or on an error.
bool LineReader::fill() {
  const size_t partial = end_ - pos_;
  if (dropped_ > 0 || partial > options_.max_line) {
    // Overlong: keep counting, stop storing.
    dropped_ += partial;
    pos_ = scan_ = end_ = 0;
  } else if (pos_ > 0) {
    std::memmove(buf_.get(), buf_.get() + pos_, partial);
    scan_ -= pos_;
    end_ = partial;
    pos_ = 0;
  }
  auto n = source_.read(buf_.get() + end_, size_ - end_);
  if (!n) {
    status_ = n.error();
    return false;
  }
  if (*n == 0) return false;
  end_ += *n;
  consumed_ += *n;
  return true;
}

bool LineReader::next(Line& line) {
  if (!status_) return false;
  for (;;) {
    if (pending_cr_ && pos_ < end_) {
      pending_cr_ = false;
      if (buf_[pos_] == '\n') {
        ++pos_;
        scan_ = std::max(scan_, pos_);
      }
    }
    if (scan_ < end_) {
      const char* b = buf_.get();
      size_t k =
          control_ ? find_line_end(b + scan_, b + end_) : find_control_byte(b + scan_, b + end_);
      size_t at = scan_ + k;
      if (at < end_) {
        char c = b[at];
        if (c == '\n' || c == '\r') {
          emit(line, at, true);
          pos_ = scan_ = at + 1;
          pending_cr_ = (c == '\r');
          return true;
        }
        control_ = true;
        scan_ = at + 1;
        continue;
      }
      scan_ = end_;
    }
    if (eof_) return false;
    if (!fill()) {
      if (!status_) return false;
      if (options_.follow) return false;
      eof_ = true;
      pending_cr_ = false;
      if (end_ > pos_ || dropped_ > 0) {
        emit(line, end_, false);
        pos_ = scan_ = end_;
        return true;
      }
      return false;
    }
  }
}

void LineReader::restart() {
  pos_ = scan_ = end_ = 0;
  dropped_ = 0;
  control_ = pending_cr_ = eof_ = false;
  number_ = consumed_ = 0;
  status_ = Status();
}

bool LineReader::finish(Line& line) {
  eof_ = true;
  if (end_ > pos_ || dropped_ > 0) {
    emit(line, end_, false);
    pos_ = scan_ = end_;
    return true;
  }
  return false;
}

}  // namespace rb
