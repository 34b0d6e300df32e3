#pragma once
// A fast buffered line splitter for serial captures (docs/protocol.md section
// 1): LF, CRLF and a lone CR each end a line; lines longer than a limit are
// reported as overlong without being stored, so memory stays bounded however
// long a line is; control bytes inside a line are flagged. It reads through a
// ByteSource, so the same code serves whole files, growing capture files
// (follow mode) and in-memory text.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string_view>

#include "util/posix_file.h"
#include "util/result.h"

namespace rb {

// Where the bytes come from. read() returns 0 at the end of the data (for
// now, for a growing file) and an Error when the underlying read fails.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual Result<size_t> read(char* buf, size_t n) = 0;
};

class FileSource final : public ByteSource {
 public:
  explicit FileSource(InputFile file) : file_(std::move(file)) {}
  Result<size_t> read(char* buf, size_t n) override { return file_.read(buf, n); }

 private:
  InputFile file_;
};

class StreamSource final : public ByteSource {
 public:
  explicit StreamSource(std::istream& in) : in_(in) {}
  Result<size_t> read(char* buf, size_t n) override;

 private:
  std::istream& in_;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  Result<size_t> read(char* buf, size_t n) override;

 private:
  std::string_view data_;
};

struct Line {
  // The bytes of the line without its line end. Empty when `overlong`. Valid
  // until the next call to LineReader::next().
  std::string_view text;
  uint64_t number = 0;     // 1-based physical line number
  uint64_t length = 0;     // bytes in the line, also when overlong
  bool overlong = false;   // longer than Options::max_line; text not kept
  bool control = false;    // holds a NUL or other control byte (not a line end)
  bool terminated = true;  // false: the data ended inside this line
};

class LineReader {
 public:
  struct Options {
    size_t max_line = 4096;           // longer lines are overlong
    size_t buffer = size_t{1} << 20;  // read size; at least 2 * max_line is used
    // Follow a growing file: at the end of the data, next() returns false and
    // keeps a partial line for the next call, instead of returning it as an
    // unterminated line. finish() then hands the partial line out.
    bool follow = false;
  };

  explicit LineReader(ByteSource& source) : LineReader(source, Options{}) {}
  LineReader(ByteSource& source, Options options);

  // Fills `line` with the next line and returns true; returns false at the
  // end of the data (or, in follow mode, when no complete line is available
  // yet) and when the source failed (then status() says why).
  bool next(Line& line);

  // Follow mode: the data will not grow any more; returns the partial last
  // line (terminated == false), if there is one.
  bool finish(Line& line);

  // Error of the last failed read, or ok.
  const Status& status() const { return status_; }
  uint64_t bytes_consumed() const { return consumed_; }

 private:
  bool emit(Line& line, size_t end, bool terminated);
  bool fill();

  ByteSource& source_;
  Options options_;
  std::unique_ptr<char[]> buf_;  // not zero-filled: a capture may be read in many short runs
  size_t size_ = 0;
  size_t pos_ = 0;        // start of the current line in buf_
  size_t scan_ = 0;       // where the search for the line end continues
  size_t end_ = 0;        // end of valid data in buf_
  uint64_t dropped_ = 0;  // bytes of the current (overlong) line already dropped
  bool control_ = false;
  bool pending_cr_ = false;  // the last line ended in CR: skip one LF that follows
  bool eof_ = false;
  uint64_t number_ = 0;
  uint64_t consumed_ = 0;
  Status status_;
};

// Offset of the first byte in [p, e) that is below 0x20 or is 0x7F (line end
// or control byte), or e - p when there is none. Exposed for tests.
size_t find_control_byte(const char* p, const char* e);

}  // namespace rb
