#include "util/line_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

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

// Eight bytes at a time in plain C++ (the same code on every CPU, so every
// test runs it): a byte is a control byte when it is below 0x20 or 0x7f.
// has_below(x, n) sets the top bit of each byte of x that is below n (bytes
// below 0x80; the others are cleared by ~x), the classic SWAR test.
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHigh = 0x8080808080808080ull;

constexpr uint64_t has_below(uint64_t x, uint8_t n) {
  return (x - kOnes * n) & ~x & kHigh;
}

template <typename Hit, typename Mask>
size_t scan(const char* p, const char* e, Hit hit, Mask mask) {
  const char* const start = p;
  for (; e - p >= 8; p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if (mask(w) != 0) break;  // the byte loop below finds which
  }
  while (p < e && !hit(static_cast<unsigned char>(*p))) ++p;
  return static_cast<size_t>(p - start);
}

}  // namespace

size_t find_control_byte(const char* p, const char* e) {
  return scan(
      p, e, [](unsigned c) { return c < 0x20 || c == 0x7f; },
      [](uint64_t w) { return has_below(w, 0x20) | has_below(w ^ (kOnes * 0x7f), 1); });
}

namespace {

// First CR or LF in [p, e): once a line is known to hold control bytes, only
// its end matters, and a run of NULs must not cost one call per byte.
size_t find_line_end(const char* p, const char* e) {
  return scan(
      p, e, [](unsigned c) { return c == '\n' || c == '\r'; },
      [](uint64_t w) {
        return has_below(w ^ (kOnes * '\n'), 1) | has_below(w ^ (kOnes * '\r'), 1);
      });
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
      pending_cr_ = false;
      return finish(line);
    }
  }
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
