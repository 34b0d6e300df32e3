#pragma once
// One line of the serial protocol (docs/protocol.md sections 1 and 2): its
// record kind, its V2 integrity suffix and its fields, parsed without
// allocating per line. RAW lines, which are nearly all of a log, have their
// sample values decoded here (std::from_chars), the other records are split
// into fields for the decoders in records.h.
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
// The kind a record (a line without its integrity suffix) names: its kind
// alone or followed by ','.
RecordKind record_kind(std::string_view record);

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
  void parse_raw(std::string_view rest);
  ParsedLine out_;
  std::vector<Field> fields_;
  std::vector<uint64_t> values_;
};

// Parses only the integrity suffix of `line` into `out` (suffix, seq, CRCs,
// record). Exposed for tests and for tools that re-frame lines.
void parse_suffix(std::string_view line, ParsedLine& out);

// Appends the V2 form of `record` with sequence number `seq` to `out`:
// "<record>|<seq>|<crc32c of record|seq as 8 lowercase hex>" (no line end).
void append_v2_line(std::string& out, std::string_view record, uint64_t seq);
std::string v2_line(std::string_view record, uint64_t seq);

}  // namespace rb::protocol
