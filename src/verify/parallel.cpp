#include "verify/parallel.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
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
constexpr uint64_t kBatch = 4;     // pieces the consumer waits for at once
// A piece longer than its nominal size by more than this (a long line at
// its end) is read through the LineReader, not whole.
constexpr uint64_t kInMemorySlack = 64 << 10;
// Bytes after a piece read whole that a RAW parser may read (Raw16Reader).
constexpr size_t kReadAhead = 128;

// One line of a piece, or a run of RAW lines. RAW lines that parsed cleanly
// carry their parse (the expensive part) and, as text, only their series
// name; every other line keeps its text and is parsed again by the checker's
// own parser, which is cheap for the few lines that are not RAW. Entries and
// values cross from a worker's core to the checker's through memory, so both
// are kept small: values in 16 or 32 bits (a line with a wider value is not
// pre-parsed).
struct Entry {
  enum Width : uint8_t { kText = 0, kBlock = 1, k16 = 2, k32 = 4 };
  uint64_t seq = 0;
  uint64_t raw_first = 0;
  uint32_t number = 0;      // within the piece, from 1
  uint32_t text_off = 0;
  uint32_t values_off = 0;  // index into the piece's values of this width; kBlock: into blocks
  uint16_t text_len = 0;    // a kept line has at most kMaxLine bytes
  uint16_t values_len = 0;  // a kept line has at most kMaxLine / 2 values
  uint8_t width = kText;
  protocol::Suffix suffix = protocol::Suffix::kAbsent;
  bool overlong = false, control = false, terminated = true;
};

// Consecutive RAW lines whose values all fit in 16 bits (nearly every line
// of a log), of at most kMaxBlockSeries series: the worker counts each
// series' values in a histogram, so the checker adds a few (value, count)
// pairs instead of every sample. Each line's values are kept as well, for
// when the checker must take the lines one by one (LogChecker::add_raw_block).
constexpr size_t kMaxBlockSeries = 8;
constexpr size_t kMaxBlockLineValues = 16;  // as the checker's limit per RAW line
constexpr size_t kHistogramWays = 4;

struct Part {  // one series' lines in a block
  uint64_t first_raw = 0, samples = 0;
  uint32_t first_number = 0;
  uint32_t name_off = 0, counts_off = 0, counts_len = 0;
  uint16_t name_len = 0, lo = UINT16_MAX, hi = 0;
  bool counted = false;  // false: the values spread too wide to be worth counting
};

struct Block {
  uint64_t first_seq = 0;
  uint32_t first_number = 0, lines = 0;
  uint32_t values_off = 0, sizes_off = 0, parts_off = 0, parts_len = 0;
  protocol::Suffix suffix = protocol::Suffix::kAbsent;
};

// 16-bit values appended through room() and commit(): a parser writes into
// the room, and what it wrote counts only once committed (no zero-filling
// as std::vector::resize would do, and nothing to undo when a parse fails).
class Values16 {
 public:
  uint16_t* room(size_t k) {
    if (v_.size() < n_ + k) v_.resize(std::max(2 * v_.size(), n_ + k));
    return v_.data() + n_;
  }
  void commit(size_t k) { n_ += k; }
  size_t size() const { return n_; }
  const uint16_t* data() const { return v_.data(); }
  void clear() { n_ = 0; }

 private:
  std::vector<uint16_t> v_;
  size_t n_ = 0;
};

// What a worker made of one piece; reused, so its buffers are allocated once.
struct Piece {
  uint64_t index = UINT64_MAX;  // which piece this slot holds
  bool ready = false;
  std::string text;  // the lines' bytes (series names for RAW), back to back
  Values16 values16;
  std::vector<uint32_t> values32;
  std::vector<Entry> entries;
  std::vector<Block> blocks;
  std::vector<Part> parts;
  std::vector<uint16_t> sizes;  // per line of a block: series (high byte), values (low byte)
  std::vector<stats::SampleAccumulator::Counted> counts;
  uint64_t lines = 0, bytes = 0;
  Status status;

  // Empties the buffers (index and ready change only under the feed's lock).
  void clear() {
    text.clear();
    values16.clear();
    values32.clear();
    entries.clear();
    blocks.clear();
    parts.clear();
    sizes.clear();
    counts.clear();
    lines = bytes = 0;
    status = Status();
  }
};

// Stores values (each at most 0xFFFF) as 16-bit and widens [lo, hi] to
// cover them.
void pack16(const uint64_t* v, size_t n, uint16_t* out, uint16_t& lo, uint16_t& hi) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint16_t>(v[i]);
    lo = std::min(lo, out[i]);
    hi = std::max(hi, out[i]);
  }
}

class ParallelFeed {
 public:
  ParallelFeed(const InputFile& file, uint64_t size, const Options& options, unsigned threads)
      : file_(file),
        size_(size),
        chunk_(std::max<uint64_t>(options.chunk, 1)),
        pieces_((size + chunk_ - 1) / chunk_),
        slots_(std::max<size_t>(2 * size_t{threads} + 2, 2 * kBatch)),
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
    workers_cv_.notify_all();
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
        if (!ready(k)) {
          // Sleep until a batch of pieces is ready, not piece by piece:
          // every wake-up takes a core from a worker.
          wait_last_ = std::min(pieces_, k + kBatch) - 1;
          consumer_cv_.wait(lock, [&] { return batch_ready(k); });
          wait_last_ = UINT64_MAX;
        }
      }
      feed(piece, line_base, checker);
      line_base += piece.lines;
      bytes += piece.bytes;
      Status status = piece.status;
      bool wake;
      {
        std::lock_guard lock(mu_);
        consumed_ = k + 1;
        wake = workers_waiting_ > 0;
      }
      if (wake) workers_cv_.notify_all();
      if (!status) {
        checker.add_read_error(status.error().message);
        return status;
      }
    }
    return Status();
  }

  // Under the lock: piece k is in its slot; every piece from k to the
  // consumer's wait_last_ is.
  bool ready(uint64_t k) const {
    const Piece& piece = slots_[k % slots_.size()];
    return piece.index == k && piece.ready;
  }
  bool batch_ready(uint64_t k) const {
    for (uint64_t j = k; j <= wait_last_ && j < pieces_; ++j) {
      if (!ready(j)) return false;
    }
    return true;
  }

  void feed(const Piece& piece, uint64_t line_base, LogChecker& checker) {
    const char* const text = piece.text.data();
    for (const Entry& e : piece.entries) {
      const std::string_view line(text + e.text_off, e.text_len);
      switch (e.width) {
        case Entry::kText:
          checker.add_line(line, line_base + e.number, e.overlong, e.control, e.terminated);
          break;
        case Entry::kBlock:
          feed_block(piece, piece.blocks[e.values_off], line_base, checker);
          break;
        case Entry::k16:
          feed_raw(line, e.suffix, e.seq, e.raw_first, piece.values16.data() + e.values_off,
                   e.values_len, line_base + e.number, e.terminated, checker);
          break;
        default:
          feed_raw(line, e.suffix, e.seq, e.raw_first, piece.values32.data() + e.values_off,
                   e.values_len, line_base + e.number, e.terminated, checker);
          break;
      }
    }
  }

  // A block at once when the checker can take it so, else line by line.
  void feed_block(const Piece& piece, const Block& block, uint64_t line_base,
                  LogChecker& checker) {
    const Part* const parts = piece.parts.data() + block.parts_off;
    auto name = [&](const Part& part) {
      return std::string_view(piece.text.data() + part.name_off, part.name_len);
    };
    const bool has_seq = block.suffix == protocol::Suffix::kValid;
    if (std::all_of(parts, parts + block.parts_len, [](const Part& p) { return p.counted; })) {
      raw_parts_.clear();
      for (const Part& part : std::span(parts, block.parts_len)) {
        LogChecker::RawPart& r = raw_parts_.emplace_back();
        r.name = name(part);
        r.first_number = line_base + part.first_number;
        r.first_raw = part.first_raw;
        r.samples = part.samples;
        r.lo = part.lo;
        r.hi = part.hi;
        r.counts = std::span(piece.counts.data() + part.counts_off, part.counts_len);
      }
      LogChecker::RawBlock b;
      b.first_number = line_base + block.first_number;
      b.lines = block.lines;
      b.has_seq = has_seq;
      b.first_seq = block.first_seq;
      b.parts = raw_parts_;
      if (checker.add_raw_block(b)) return;
    }
    std::array<uint64_t, kMaxBlockSeries> raw{};
    for (uint32_t i = 0; i < block.parts_len; ++i) raw[i] = parts[i].first_raw;
    const uint16_t* values = piece.values16.data() + block.values_off;
    for (uint32_t i = 0; i < block.lines; ++i) {
      const uint16_t size = piece.sizes[block.sizes_off + i];
      const size_t slot = size >> 8, n = size & 0xff;
      feed_raw(name(parts[slot]), block.suffix, has_seq ? block.first_seq + i : 0, raw[slot],
               values, n, line_base + block.first_number + i, true, checker);
      raw[slot] += n;
      values += n;
    }
  }

  // One pre-parsed RAW line, as the parser would have given it.
  template <class T>
  void feed_raw(std::string_view name, protocol::Suffix suffix, uint64_t seq, uint64_t raw_first,
                const T* values, size_t n, uint64_t number, bool terminated,
                LogChecker& checker) {
    wide_.assign(values, values + n);
    ParsedLine p;
    p.kind = RecordKind::kRaw;
    // (The record itself is only quoted for records of an unknown kind;
    // the CRCs only for a bad one, which is never pre-parsed.)
    p.record = name;
    p.suffix = suffix;
    p.seq = seq;
    p.raw_name = name;
    p.raw_first = raw_first;
    p.raw_values = std::span<const uint64_t>(wide_.data(), wide_.size());
    checker.add_parsed_line(name, p, number, terminated);
  }

  // A worker thread's reader and parser, the histograms its blocks count
  // in, and where the open block stands.
  struct Worker {
    Worker(const InputFile& file, size_t buffer)
        : source(file, 0, 0),
          reader(source, reader_options(buffer)),
          // calloc: the kernel's zero pages, so only the counters a log
          // touches take memory.
          histograms(static_cast<uint32_t*>(
                         std::calloc(kMaxBlockSeries * kHistogramWays << 16, sizeof(uint32_t))),
                     &std::free) {
      if (!histograms) throw std::bad_alloc();
    }
    static LineReader::Options reader_options(size_t buffer) {
      LineReader::Options ro;
      ro.max_line = kMaxLine;
      ro.buffer = buffer;
      return ro;
    }
    // The kHistogramWays counters of value v for the block's series `slot`
    // are histogram(slot)[(way << 16) | v]: samples in a row go to different
    // ways, so repeated values do not wait on one another's increments.
    uint32_t* histogram(size_t slot) { return histograms.get() + (slot * kHistogramWays << 16); }

    RangeSource source;
    LineReader reader;
    std::vector<char> bytes;  // a piece read whole (split_in_memory)
    protocol::LineParser parser;
    protocol::Raw16Reader raw16;
    std::unique_ptr<uint32_t, decltype(&std::free)> histograms;  // all zero between blocks
    bool block_open = false;
    uint32_t next_number = 0;
    uint64_t next_seq = 0;
    std::array<uint64_t, kMaxBlockSeries> next_raw{};
  };

  void work() {
    // Per thread: one reader buffer, parser and set of histograms for every piece it takes.
    Worker w(file_, std::min<size_t>(size_t{1} << 20, chunk_ + 2 * kMaxLine + 2));
    for (;;) {
      uint64_t k;
      {
        std::unique_lock lock(mu_);
        // A slot is free once the piece it held has been fed to the checker.
        ++workers_waiting_;
        workers_cv_.wait(lock, [&] {
          return stop_ || next_ >= pieces_ || next_ < consumed_ + slots_.size();
        });
        --workers_waiting_;
        if (stop_ || next_ >= pieces_) return;
        k = next_++;
        slots_[k % slots_.size()].ready = false;
      }
      Piece& piece = slots_[k % slots_.size()];
      piece.clear();
      read_piece(k, w, piece);
      bool wake;
      {
        std::lock_guard lock(mu_);
        piece.index = k;
        piece.ready = true;
        wake = wait_last_ != UINT64_MAX && batch_ready(consumed_);
      }
      if (wake) consumer_cv_.notify_one();
    }
  }

  void read_piece(uint64_t k, Worker& w, Piece& piece) {
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
    // A piece of the usual size is read whole and split here; one made
    // long by a long line goes through the LineReader, whose memory is
    // bounded.
    if (end - begin <= chunk_ + kInMemorySlack && split_in_memory(begin, end, w, piece)) return;
    piece.clear();
    w.source.set_range(begin, end);
    w.reader.restart();
    Line line;
    uint64_t lines = 0;
    while (w.reader.next(line)) {
      ++lines;
      // One byte load per flag: the reader has just stored them one byte at
      // a time, and a wider load the compiler would merge them into cannot
      // be forwarded from those stores (a stall on every line).
      const bool overlong = *static_cast<const volatile bool*>(&line.overlong);
      const bool control = *static_cast<const volatile bool*>(&line.control);
      const bool terminated = *static_cast<const volatile bool*>(&line.terminated);
      take_line(line.text, static_cast<uint32_t>(line.number), overlong, control, terminated, w,
                piece);
    }
    close_block(w, piece);
    piece.lines = lines;
    piece.bytes = w.reader.bytes_consumed();
    if (!w.reader.status()) piece.status = w.reader.status();
  }

  // Reads [begin, end) whole and splits it into lines by the LineReader's
  // rules (docs/protocol.md section 1): a line that parse_raw16 takes holds
  // no control byte, so the LF (or CR LF) after it is its end; any other line
  // is split byte by byte as the reader would. False, having changed
  // nothing, when the bytes cannot all be read (the reader then says why).
  bool split_in_memory(uint64_t begin, uint64_t end, Worker& w, Piece& piece) {
    const auto len = static_cast<size_t>(end - begin);
    // (kReadAhead bytes past the piece may be read, not used, by the RAW parser.)
    if (w.bytes.size() < len + kReadAhead) w.bytes.resize(len + kReadAhead);
    char* const b = w.bytes.data();
    const char* const readable_end = b + len + kReadAhead;
    for (size_t got = 0; got < len;) {
      auto r = file_.pread(b + got, len - got, begin + got);
      if (!r || *r == 0) return false;
      got += *r;
    }
    size_t q = 0;
    uint32_t number = 0;
    while (q < len) {
      ++number;
      size_t tried_end = SIZE_MAX;  // where the line parse_raw16 refused ended
      if (const auto* nl = static_cast<const char*>(std::memchr(b + q, '\n', len - q))) {
        const auto line_end = static_cast<size_t>(nl - b);
        const size_t text_end = line_end > q && b[line_end - 1] == '\r' ? line_end - 1 : line_end;
        tried_end = text_end;
        protocol::Raw16 r;
        if (text_end - q <= kMaxLine &&
            w.raw16.read(std::string_view(b + q, text_end - q), readable_end,
                         piece.values16.room(kMaxBlockLineValues + 8), kMaxBlockLineValues, r)) {
          add_to_block(r, number, w, piece);
          q = line_end + 1;
          continue;
        }
      }
      // The reader's rules: LF, CR LF or a lone CR ends the line; any other
      // byte below 0x20, or 0x7F, makes it a control line; the data may end
      // inside the last one.
      size_t at = q + find_control_byte(b + q, b + len);
      bool control = false;
      if (at < len && b[at] != '\n' && b[at] != '\r') {
        control = true;
        while (at < len && b[at] != '\n' && b[at] != '\r') ++at;
      }
      const bool terminated = at < len;
      size_t next = terminated ? at + 1 : len;
      if (terminated && b[at] == '\r' && next < len && b[next] == '\n') ++next;
      const bool overlong = at - q > kMaxLine;
      // (When this is the line parse_raw16 just refused, it is not asked again.)
      take_line(overlong ? std::string_view() : std::string_view(b + q, at - q), number, overlong,
                control, terminated, w, piece, /*short_path_tried=*/at == tried_end);
      q = next;
    }
    close_block(w, piece);
    piece.lines = number;
    piece.bytes = len;
    return true;
  }

  // One line of a piece: into the open block, or an entry of its own.
  static void take_line(std::string_view text, uint32_t number, bool overlong, bool control,
                        bool terminated, Worker& w, Piece& piece, bool short_path_tried = false) {
    if (!overlong && !control) {
      protocol::Raw16 r;
      if (terminated && !short_path_tried) {
        uint16_t* const out = piece.values16.room(kMaxBlockLineValues + 8);
        if (w.raw16.read(text, out, kMaxBlockLineValues, r)) {
          add_to_block(r, number, w, piece);
          return;
        }
      }
      const ParsedLine& p = w.parser.parse(text);
      if (p.kind == RecordKind::kRaw && p.error == nullptr &&
          (p.suffix == protocol::Suffix::kValid || p.suffix == protocol::Suffix::kAbsent)) {
        if (terminated && narrow(p, r, piece)) {
          add_to_block(r, number, w, piece);
          return;
        }
        close_block(w, piece);
        // Filled in place: an Entry built on the stack and copied costs a
        // store-forwarding stall per line.
        Entry& e = piece.entries.emplace_back();
        e.number = number;
        e.terminated = terminated;
        e.text_off = static_cast<uint32_t>(piece.text.size());
        if (pre_parse(p, piece, e)) return;
        e.text_len = static_cast<uint16_t>(text.size());
        piece.text.append(text);
        return;
      }
    }
    close_block(w, piece);
    Entry& e = piece.entries.emplace_back();
    e.number = number;
    e.overlong = overlong;
    e.control = control;
    e.terminated = terminated;
    e.text_off = static_cast<uint32_t>(piece.text.size());
    e.text_len = static_cast<uint16_t>(text.size());
    piece.text.append(text);
  }

  // A parsed RAW line as parse_raw16 gives it, its values written (not
  // committed) at the end of the piece's 16-bit values; false when it has
  // too many values for a block or one above 65535. (parse_raw16 reads
  // nearly every such line itself; this takes the unusually written rest.)
  static bool narrow(const ParsedLine& p, protocol::Raw16& r, Piece& piece) {
    const std::span<const uint64_t> values = p.raw_values;
    if (values.size() > kMaxBlockLineValues) return false;
    uint64_t bits = 0;
    for (uint64_t v : values) bits |= v;
    if (bits > UINT16_MAX) return false;
    r.name = p.raw_name;
    r.first = p.raw_first;
    r.count = values.size();
    r.lo = UINT16_MAX;
    r.hi = 0;
    pack16(values.data(), values.size(), piece.values16.room(kMaxBlockLineValues + 8), r.lo, r.hi);
    r.suffix = p.suffix;
    r.seq = p.seq;
    return true;
  }

  // Adds a clean, terminated RAW line, whose values are written (not yet
  // committed) at the end of the piece's 16-bit values, to the open block,
  // or starts a block with it.
  static void add_to_block(const protocol::Raw16& p, uint32_t number, Worker& w, Piece& piece) {
    const bool has_seq = p.suffix == protocol::Suffix::kValid;
    size_t slot = kMaxBlockSeries;
    if (w.block_open) {
      const Block& b = piece.blocks.back();
      if (number == w.next_number && p.suffix == b.suffix && (!has_seq || p.seq == w.next_seq)) {
        slot = find_part(p.name, piece, b);
        if (slot < b.parts_len ? p.first != w.next_raw[slot]
                               : b.parts_len == kMaxBlockSeries) {
          slot = kMaxBlockSeries;
          close_block(w, piece);
        }
      } else {
        close_block(w, piece);
      }
    }
    if (!w.block_open) {
      Entry& e = piece.entries.emplace_back();
      e.number = number;
      e.width = Entry::kBlock;
      e.values_off = static_cast<uint32_t>(piece.blocks.size());
      Block& b = piece.blocks.emplace_back();
      b.first_seq = has_seq ? p.seq : 0;
      b.first_number = number;
      b.suffix = p.suffix;
      b.values_off = static_cast<uint32_t>(piece.values16.size());
      b.sizes_off = static_cast<uint32_t>(piece.sizes.size());
      b.parts_off = static_cast<uint32_t>(piece.parts.size());
      w.block_open = true;
      slot = 0;
    }
    Block& b = piece.blocks.back();
    if (slot == b.parts_len) {  // the block's first line of this series
      Part& part = piece.parts.emplace_back();
      part.first_raw = p.first;
      part.first_number = number;
      part.name_off = static_cast<uint32_t>(piece.text.size());
      part.name_len = static_cast<uint16_t>(p.name.size());
      piece.text.append(p.name);
      ++b.parts_len;
    }
    Part& part = piece.parts[b.parts_off + slot];
    const size_t n = p.count;
    piece.values16.commit(n);  // (counted when the block closes)
    part.lo = std::min(part.lo, p.lo);
    part.hi = std::max(part.hi, p.hi);
    part.samples += n;
    ++b.lines;
    piece.sizes.push_back(static_cast<uint16_t>(slot << 8 | n));
    w.next_number = number + 1;
    w.next_seq = p.seq + 1;
    w.next_raw[slot] = p.first + n;
  }

  // Slot of the series `name` in block `b`, or b.parts_len when it has none.
  static size_t find_part(std::string_view name, const Piece& piece, const Block& b) {
    for (size_t i = 0; i < b.parts_len; ++i) {
      const Part& part = piece.parts[b.parts_off + i];
      if (part.name_len == name.size() && same_bytes(piece.text.data() + part.name_off,
                                                     name.data(), name.size())) {
        return i;
      }
    }
    return b.parts_len;
  }

  // memcmp(a, b, n) == 0 without a call for the short names series have:
  // two overlapping 8-byte words cover 8 to 16 bytes.
  static bool same_bytes(const char* a, const char* b, size_t n) {
    if (n < 8 || n > 16) return std::memcmp(a, b, n) == 0;
    uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + n - 8, 8);
    std::memcpy(&b1, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }

  // Ends the open block: each series' values are counted in its histogram,
  // which becomes (value, count) pairs, unless they spread so wide that
  // reading the histogram would cost more than the samples themselves.
  // (Counting here, not as each line is added, reads values stored long
  // before: a load right after the parser's wide store of them stalls.)
  static void close_block(Worker& w, Piece& piece) {
    if (!w.block_open) return;
    w.block_open = false;
    const Block& b = piece.blocks.back();
    std::array<bool, kMaxBlockSeries> counted{};
    bool any = false;
    for (uint32_t slot = 0; slot < b.parts_len; ++slot) {
      const Part& part = piece.parts[b.parts_off + slot];
      counted[slot] = uint64_t{part.hi} - part.lo <= 4 * part.samples + 64;
      any = any || counted[slot];
    }
    if (!any) return;
    const uint16_t* values = piece.values16.data() + b.values_off;
    static_assert(kHistogramWays == 4);
    for (uint32_t i = 0; i < b.lines; ++i) {
      const uint16_t size = piece.sizes[b.sizes_off + i];
      const size_t slot = size >> 8, n = size & 0xffu;
      if (counted[slot]) {
        uint32_t* const hist = w.histogram(slot);
        size_t k = 0;
        for (; k + 4 <= n; k += 4) {
          ++hist[values[k]];
          ++hist[(1 << 16) | values[k + 1]];
          ++hist[(2 << 16) | values[k + 2]];
          ++hist[(3 << 16) | values[k + 3]];
        }
        for (; k < n; ++k) ++hist[values[k]];
      }
      values += n;
    }
    for (uint32_t slot = 0; slot < b.parts_len; ++slot) {
      if (!counted[slot]) continue;
      Part& part = piece.parts[b.parts_off + slot];
      uint32_t* const hist = w.histogram(slot);
      part.counted = true;
      part.counts_off = static_cast<uint32_t>(piece.counts.size());
      for (uint32_t v = part.lo; v <= part.hi; ++v) {
        uint32_t count = 0;
        for (uint32_t way = 0; way < kHistogramWays; ++way) {
          count += hist[way << 16 | v];
          hist[way << 16 | v] = 0;
        }
        if (count != 0) piece.counts.push_back({v, count});
      }
      part.counts_len = static_cast<uint32_t>(piece.counts.size()) - part.counts_off;
    }
  }

  // Keeps the parse of a RAW line in `e` (its values in the narrowest width
  // that holds them all); false when a value needs more than 32 bits.
  static bool pre_parse(const ParsedLine& p, Piece& piece, Entry& e) {
    // The OR of the values has the highest bit any of them has (and, unlike
    // a running maximum, no chain of compares).
    uint64_t bits = 0;
    for (uint64_t v : p.raw_values) bits |= v;
    if (bits > UINT32_MAX) return false;
    e.width = bits <= UINT16_MAX ? Entry::k16 : Entry::k32;
    e.suffix = p.suffix;
    e.seq = p.seq;
    e.raw_first = p.raw_first;
    e.values_len = static_cast<uint16_t>(p.raw_values.size());
    if (e.width == Entry::k16) {
      e.values_off = static_cast<uint32_t>(piece.values16.size());
      std::copy(p.raw_values.begin(), p.raw_values.end(), piece.values16.room(e.values_len));
      piece.values16.commit(e.values_len);
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
  std::condition_variable consumer_cv_, workers_cv_;
  uint64_t wait_last_ = UINT64_MAX;  // the consumer sleeps until pieces up to this are ready
  unsigned workers_waiting_ = 0;     // workers asleep until a slot is free
  std::vector<uint64_t> wide_;  // the checker thread's values of one line
  std::vector<LogChecker::RawPart> raw_parts_;  // the checker thread's parts of one block
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
  // Lines are short: a small read nearly always finds the line end, and
  // every byte read here is read again with the piece (so reads grow only
  // when a long line makes them).
  size_t step = 512;
  uint64_t pos = from - 1;  // offset of buf[0]
  char prev = 0;
  bool have_prev = false;
  while (pos < end) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(step, end + 1 - pos));
    step = std::min(sizeof buf, 2 * step);
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
