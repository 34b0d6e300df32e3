#pragma once
// One line of the serial protocol (docs/protocol.md sections 1 and 2): its
// record kind, its V2 integrity suffix and its fields, parsed without
// allocating per line. RAW lines, which are nearly all of a log, take a fast
// path that decodes their sample values directly.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rb::protocol {

enum class RecordKind : uint8_t {
  kOther,  // not a protocol line (banner, prompt, noise, unknown record kind)
  kBegin,
  kConfig,
  kDwtReadPair,
  kTest,
  kPhase,
  kRaw,
  kResult,
  kCheck,
  kNa,
  kEnd,
};

// "BEGIN", "CONFIG", ..., and "other".
const char* to_string(RecordKind kind);

enum class Suffix : uint8_t {
  kAbsent,     // no '|' in the line: a V1 line, or a V2 line that lost its suffix
  kValid,      // "|<seq>|<crc>" present and the CRC matches
  kBadCrc,     // well formed, but the CRC does not match: a corrupt line
  kMalformed,  // a '|' is present but the suffix is not "|<digits>|<8 lowercase hex>"
};

// A field after the record kind: `key=value`, or positional (empty key).
struct Field {
  std::string_view key;
  std::string_view value;
};

struct ParsedLine {
  RecordKind kind = RecordKind::kOther;
  // The line without its integrity suffix (for kMalformed: up to the first '|').
  std::string_view record;
  Suffix suffix = Suffix::kAbsent;
  uint64_t seq = 0;           // for kValid and kBadCrc
  uint32_t crc_given = 0;     // for kValid and kBadCrc
  uint32_t crc_computed = 0;  // for kValid and kBadCrc
  // Fields after the kind, in order (not filled for RAW lines).
  std::span<const Field> fields;
  // RAW lines: series name, index of the first value, and the values.
  std::string_view raw_name;
  uint64_t raw_first = 0;
  std::span<const uint64_t> raw_values;
  // Set when a protocol record's own syntax is broken (e.g. a RAW value that is
  // not a number); a static description. nullptr when the record is well formed.
  const char* error = nullptr;
};

class LineParser {
 public:
  // Parses one line given without its line end. Never fails: a line that is
  // not a protocol line is kOther, a broken record has `error` set. The
  // result's views point into `line` and into this parser and stay valid until
  // the next call.
  const ParsedLine& parse(std::string_view line);

 private:
  void split_fields(std::string_view rest);
  void parse_raw(std::string_view rest, const char* readable_end);
  ParsedLine out_;
  std::vector<Field> fields_;
  std::vector<uint64_t> values_;
};

// Parses only the integrity suffix of `line` into `out` (suffix, seq, CRCs,
// record). Exposed for tests and for tools that re-frame lines.
void parse_suffix(std::string_view line, ParsedLine& out);

// A RAW line whose samples all fit in 16 bits, as parse_raw16 reads it.
struct Raw16 {
  std::string_view name;
  uint64_t first = 0;
  size_t count = 0;                  // values written
  uint16_t lo = UINT16_MAX, hi = 0;  // smallest and largest of them
  Suffix suffix = Suffix::kAbsent;   // kValid or kAbsent
  uint64_t seq = 0;                  // for kValid
};

// The short path for the lines that make up nearly all of a log: reads
// `line` when it is a RAW line with a valid integrity suffix or none, a
// non-empty name, a first index, and 1 to `max` values of 1 to 5 digits,
// each at most 65535, and no control byte (below 0x20, or 0x7F) anywhere
// (so a line it takes is a whole line by the rules of LineReader too). Writes the values to `out`, which has room for
// max + 8. For such a line it gives what LineParser::parse gives; for any
// other line (or one written unusually, such as with a 6-digit value) it
// returns false, and the caller uses LineParser::parse.
bool parse_raw16(std::string_view line, uint16_t* out, size_t max, Raw16& r);

namespace detail {
// Where a RAW line's commas and bars are, and what follows from that, as
// one of parse_raw16's wide paths worked it out for one line: the next line
// laid out the same way (nearly every line of a series is) is only checked
// against it. Plain data; see protocol/raw16_shape.h. `index` and `lanes`
// are the AVX-512 path's (lanes 0: that path has not worked this one out).
struct Raw16Layout {
  uint64_t commas[2] = {}, bars[2] = {};  // with `length`, the key
  uint64_t digits[2] = {};                // bytes that must be digits
  uint64_t hex[2] = {};                   // bytes that must be hex digits (the CRC)
  alignas(64) uint8_t index[64] = {};     // moves the values' digits into 32-bit lanes
  uint64_t lanes = 0;                     // the bytes of those lanes that get a digit
  uint32_t length = 0;                    // of the line; 0: an empty slot
  uint8_t name_end = 0, first_digits = 0, values_at = 0, width = 0, seq_at = 0, seq_digits = 0,
          count = 0;
  bool has_suffix = false;
};

// parse_raw16 without its wide paths: the path every x86-64 CPU runs
// (tests compare them).
bool parse_raw16_sse(std::string_view line, uint16_t* out, size_t max, Raw16& r);
}  // namespace detail

// parse_raw16 for one thread's stream of lines: gives exactly what
// parse_raw16 gives, faster where the CPU has AVX-512 (VBMI) or AVX2, by
// remembering the layouts of the last few lines it read. When the wide path
// keeps refusing lines, it is tried only now and then (lines of
// mixed-width values, which only the SSE path reads, cost little more than
// there).
class Raw16Reader {
 public:
  bool read(std::string_view line, uint16_t* out, size_t max, Raw16& r) {
    return read(line, line.data() + line.size(), out, max, r);
  }
  // The same, where the bytes after the line up to readable_end may be read
  // too (the AVX2 path reads 128 from the line's start).
  bool read(std::string_view line, const char* readable_end, uint16_t* out, size_t max,
            Raw16& r);

 private:
  static constexpr size_t kLayouts = 4;
  detail::Raw16Layout layouts_[kLayouts];
  size_t next_ = 0;      // the slot the next new layout takes
  uint8_t skip_ = 0;     // lines still to leave to the SSE path
  uint8_t backoff_ = 0;  // lines skipped after the last refusal
};

// Appends the V2 form of `record` with sequence number `seq` to `out`:
// "<record>|<seq>|<crc32c of record|seq as 8 lowercase hex>" (no line end).
void append_v2_line(std::string& out, std::string_view record, uint64_t seq);
std::string v2_line(std::string_view record, uint64_t seq);

}  // namespace rb::protocol
