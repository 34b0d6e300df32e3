#include "verify/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "protocol/line.h"
#include "util/line_reader.h"

namespace rb::verify {
namespace {

using protocol::ParsedLine;
using protocol::RecordKind;

constexpr size_t kMaxLine = 4096;  // as LineReader's default: overlong beyond

// One line of a piece. RAW lines that parsed cleanly carry their parse (the
// expensive part) and, as text, only their series name; every other line
// keeps its text and is parsed again by the checker's own parser, which is
// cheap for the few lines that are not RAW. Entries and values cross from a
// worker's core to the checker's through memory, so both are kept small:
// values in 16 or 32 bits (a line with a wider value is not pre-parsed).
struct Entry {
  uint64_t seq = 0;
  uint64_t raw_first = 0;
  uint32_t number = 0;      // within the piece, from 1
  uint32_t text_off = 0;
  uint32_t values_off = 0;  // index into the piece's values of this width
  uint16_t text_len = 0;    // a kept line has at most kMaxLine bytes
  uint16_t values_len = 0;  // a kept line has at most kMaxLine / 2 values
  uint8_t width = 0;        // 0: not pre-parsed; else 2 or 4 bytes per value
  protocol::Suffix suffix = protocol::Suffix::kAbsent;
  bool overlong = false, control = false, terminated = true;
};

// What a worker made of one piece; reused, so its buffers are allocated once.
struct Piece {
  uint64_t index = UINT64_MAX;  // which piece this slot holds
  bool ready = false;
  std::string text;  // the lines' bytes (series names for RAW), back to back
  std::vector<uint16_t> values16;
  std::vector<uint32_t> values32;
  std::vector<Entry> entries;
  uint64_t lines = 0, bytes = 0;
  Status status;

  // Empties the buffers (index and ready change only under the feed's lock).
  void clear() {
    text.clear();
    values16.clear();
    values32.clear();
    entries.clear();
    lines = bytes = 0;
    status = Status();
  }
};

class ParallelFeed {
 public:
  ParallelFeed(const InputFile& file, uint64_t size, const Options& options, unsigned threads)
      : file_(file),
        size_(size),
        chunk_(std::max<uint64_t>(options.chunk, 1)),
        pieces_((size + chunk_ - 1) / chunk_),
        slots_(2 * size_t{threads} + 2),
        threads_(threads) {}

  Status run(LogChecker& checker, uint64_t& bytes) {
    std::vector<std::thread> workers;
    workers.reserve(threads_);
    for (unsigned i = 0; i < threads_; ++i) workers.emplace_back([this] { work(); });
    Status result = consume(checker, bytes);
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers) w.join();
    return result;
  }

 private:
  Status consume(LogChecker& checker, uint64_t& bytes) {
    bytes = 0;
    uint64_t line_base = 0;
    for (uint64_t k = 0; k < pieces_; ++k) {
      Piece& piece = slots_[k % slots_.size()];
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return piece.index == k && piece.ready; });
      }
      feed(piece, line_base, checker);
      line_base += piece.lines;
      bytes += piece.bytes;
      Status status = piece.status;
      {
        std::lock_guard lock(mu_);
        consumed_ = k + 1;
      }
      cv_.notify_all();
      if (!status) {
        checker.add_read_error(status.error().message);
        return status;
      }
    }
    return Status();
  }

  void feed(const Piece& piece, uint64_t line_base, LogChecker& checker) {
    const char* const text = piece.text.data();
    ParsedLine p;
    p.kind = RecordKind::kRaw;
    for (const Entry& e : piece.entries) {
      const std::string_view line(text + e.text_off, e.text_len);
      if (e.width == 0) {
        checker.add_line(line, line_base + e.number, e.overlong, e.control, e.terminated);
        continue;
      }
      wide_.resize(e.values_len);
      if (e.width == 2) {
        std::copy_n(piece.values16.data() + e.values_off, e.values_len, wide_.data());
      } else {
        std::copy_n(piece.values32.data() + e.values_off, e.values_len, wide_.data());
      }
      // (The record itself is only quoted for records of an unknown kind;
      // the CRCs only for a bad one, which is never pre-parsed.)
      p.record = line;
      p.suffix = e.suffix;
      p.seq = e.seq;
      p.raw_name = line;
      p.raw_first = e.raw_first;
      p.raw_values = std::span<const uint64_t>(wide_.data(), wide_.size());
      checker.add_parsed_line(line, p, line_base + e.number, e.terminated);
    }
  }

  void work() {
    // Per thread: one reader buffer and one parser for every piece it takes.
    RangeSource source(file_, 0, 0);
    LineReader::Options ro;
    ro.max_line = kMaxLine;
    ro.buffer = std::min<size_t>(size_t{1} << 20, chunk_ + 2 * kMaxLine + 2);
    LineReader reader(source, ro);
    protocol::LineParser parser;
    for (;;) {
      uint64_t k;
      {
        std::unique_lock lock(mu_);
        // A slot is free once the piece it held has been fed to the checker.
        cv_.wait(lock, [&] { return stop_ || next_ >= pieces_ || next_ < consumed_ + slots_.size(); });
        if (stop_ || next_ >= pieces_) return;
        k = next_++;
        slots_[k % slots_.size()].ready = false;
      }
      Piece& piece = slots_[k % slots_.size()];
      piece.clear();
      read_piece(k, source, reader, parser, piece);
      {
        std::lock_guard lock(mu_);
        piece.index = k;
        piece.ready = true;
      }
      cv_.notify_all();
    }
  }

  void read_piece(uint64_t k, RangeSource& source, LineReader& reader,
                  protocol::LineParser& parser, Piece& piece) {
    const uint64_t nominal = k * chunk_;
    const uint64_t nominal_end = std::min(size_, nominal + chunk_);
    uint64_t begin = 0;
    if (k > 0) {
      auto s = next_line_start(file_, size_, nominal, nominal_end);
      if (!s) {
        piece.status = s.error();
        return;
      }
      begin = *s;
      if (begin >= nominal_end) return;  // no line starts here: the piece before covers it
    }
    uint64_t end = size_;
    if (nominal_end < size_) {
      auto e = next_line_start(file_, size_, nominal_end, UINT64_MAX);
      if (!e) {
        piece.status = e.error();
        return;
      }
      end = *e;
    }
    source.set_range(begin, end);
    reader.restart();
    Line line;
    while (reader.next(line)) {
      // Filled in place: an Entry built on the stack and copied costs a
      // store-forwarding stall per line.
      Entry& e = piece.entries.emplace_back();
      e.number = static_cast<uint32_t>(line.number);
      e.text_off = static_cast<uint32_t>(piece.text.size());
      // One byte load per flag: the reader has just stored them one byte at
      // a time, and a wider load the compiler would merge them into cannot
      // be forwarded from those stores (a stall on every line).
      e.overlong = *static_cast<const volatile bool*>(&line.overlong);
      e.control = *static_cast<const volatile bool*>(&line.control);
      e.terminated = *static_cast<const volatile bool*>(&line.terminated);
      if (!e.overlong && !e.control) {
        const ParsedLine& p = parser.parse(line.text);
        if (p.kind == RecordKind::kRaw && p.error == nullptr &&
            (p.suffix == protocol::Suffix::kValid || p.suffix == protocol::Suffix::kAbsent) &&
            pre_parse(p, piece, e)) {
          continue;
        }
      }
      e.text_len = static_cast<uint16_t>(line.text.size());
      piece.text.append(line.text);
    }
    piece.lines = piece.entries.size();
    piece.bytes = reader.bytes_consumed();
    if (!reader.status()) piece.status = reader.status();
  }

  // Keeps the parse of a RAW line in `e` (its values in the narrowest width
  // that holds them all); false when a value needs more than 32 bits.
  static bool pre_parse(const ParsedLine& p, Piece& piece, Entry& e) {
    // The OR of the values has the highest bit any of them has (and, unlike
    // a running maximum, no chain of compares).
    uint64_t bits = 0;
    for (uint64_t v : p.raw_values) bits |= v;
    if (bits > UINT32_MAX) return false;
    e.width = bits <= UINT16_MAX ? 2 : 4;
    e.suffix = p.suffix;
    e.seq = p.seq;
    e.raw_first = p.raw_first;
    e.values_len = static_cast<uint16_t>(p.raw_values.size());
    if (e.width == 2) {
      e.values_off = static_cast<uint32_t>(piece.values16.size());
      piece.values16.insert(piece.values16.end(), p.raw_values.begin(), p.raw_values.end());
    } else {
      e.values_off = static_cast<uint32_t>(piece.values32.size());
      piece.values32.insert(piece.values32.end(), p.raw_values.begin(), p.raw_values.end());
    }
    // The checker needs only the series name of a pre-parsed line.
    e.text_len = static_cast<uint16_t>(p.raw_name.size());
    piece.text.append(p.raw_name);
    return true;
  }

  const InputFile& file_;
  const uint64_t size_;
  const uint64_t chunk_;
  const uint64_t pieces_;
  std::vector<Piece> slots_;
  const unsigned threads_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint64_t> wide_;  // the checker thread's values of one line
  uint64_t next_ = 0;      // next piece a worker takes
  uint64_t consumed_ = 0;  // pieces fed to the checker
  bool stop_ = false;
};

}  // namespace

unsigned parsing_threads(const Options& options) {
  if (options.threads != 0) return options.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

Result<uint64_t> next_line_start(const InputFile& file, uint64_t size, uint64_t from,
                                 uint64_t limit) {
  const uint64_t end = std::min(limit, size);
  if (from == 0 || from >= end) return std::min(from, end);
  char buf[64 << 10];
  uint64_t pos = from - 1;  // offset of buf[0]
  char prev = 0;
  bool have_prev = false;
  while (pos < end) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buf, end + 1 - pos));
    auto got = file.pread(buf, want, pos);
    if (!got) return got.error();
    if (*got == 0) return end;  // the file shrank
    size_t i = 0;
    if (!have_prev) {
      prev = buf[0];
      have_prev = true;
      i = 1;
    }
    for (; i < *got; ++i) {
      const uint64_t q = pos + i;  // candidate line start: is byte q-1 a line end?
      if (q > end) return end;
      if (prev == '\n' || (prev == '\r' && buf[i] != '\n')) return q;
      prev = buf[i];
    }
    pos += *got;
  }
  return end;
}

Status feed_file_parallel(const InputFile& file, uint64_t size, const Options& options,
                          unsigned threads, LogChecker& checker, uint64_t& bytes) {
  ParallelFeed feed(file, size, options, std::max(1u, threads));
  return feed.run(checker, bytes);
}

}  // namespace rb::verify
