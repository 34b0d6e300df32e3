#include "protocol/line.h"

#include <charconv>
#include <cstring>
#include <iterator>

#include "util/crc32c.h"
#include "util/decimal.h"

namespace rb::protocol {

namespace {

// Record names in RecordKind's order ("other" for kOther).
constexpr std::string_view kKindNames[] = {"other", "BEGIN", "CONFIG", "DWT_READ_PAIR",
                                           "TEST",  "PHASE", "RAW",    "RESULT",
                                           "CHECK", "NA",    "END"};

// True when `record` is exactly `kind` or starts with `kind` followed by ','.
bool is_kind(std::string_view record, std::string_view kind) {
  return record.size() >= kind.size() &&
         std::memcmp(record.data(), kind.data(), kind.size()) == 0 &&
         (record.size() == kind.size() || record[kind.size()] == ',');
}

// The whole of [p, e) as an unsigned decimal number: digits only, no sign,
// no space, at most 64 bits.
bool whole_u64(const char* p, const char* e, uint64_t& v) {
  const auto [end, ec] = std::from_chars(p, e, v);
  return ec == std::errc() && end == e;
}

}  // namespace

RecordKind record_kind(std::string_view r) {
  if (r.empty()) return RecordKind::kOther;
  // RAW first: it is nearly every line of a log.
  if (is_kind(r, "RAW")) return RecordKind::kRaw;
  for (size_t k = 1; k < std::size(kKindNames); ++k) {
    if (r[0] == kKindNames[k][0] && is_kind(r, kKindNames[k])) return static_cast<RecordKind>(k);
  }
  return RecordKind::kOther;
}

const char* to_string(RecordKind kind) {
  return kKindNames[static_cast<size_t>(kind)].data();
}

// "<record>|<seq>|<crc>": the CRC is the last 8 bytes after a '|', the seq
// the digits between that bar and the one before it.
void parse_suffix(std::string_view line, ParsedLine& out) {
  out.suffix = Suffix::kAbsent;
  out.seq = 0;
  out.crc_given = out.crc_computed = 0;
  out.record = line;
  const size_t first_bar = line.find('|');
  if (first_bar == std::string_view::npos) return;
  out.suffix = Suffix::kMalformed;
  out.record = line.substr(0, first_bar);
  const size_t n = line.size();
  if (n < 11 || line[n - 9] != '|') return;
  // The 8 hex digits without a branch per digit (they are random).
  uint32_t given = 0;
  unsigned bad = 0;
  for (const char c : line.substr(n - 8)) {
    const auto u = static_cast<unsigned char>(c);
    const unsigned digit = u - '0', letter = u - 'a';
    bad |= static_cast<unsigned>(digit > 9) & static_cast<unsigned>(letter > 5);
    given = given << 4 | (digit <= 9 ? digit : letter + 10);
  }
  if (bad != 0) return;
  const size_t seq_bar = line.rfind('|', n - 10);
  const size_t digits = n - 10 - seq_bar;
  if (seq_bar == std::string_view::npos || digits == 0 || digits > 20) return;
  uint64_t seq = 0;
  if (!whole_u64(line.data() + seq_bar + 1, line.data() + n - 9, seq)) return;
  out.record = line.substr(0, seq_bar);
  out.seq = seq;
  out.crc_given = given;
  out.crc_computed = crc32c(line.substr(0, n - 9));
  out.suffix = given == out.crc_computed ? Suffix::kValid : Suffix::kBadCrc;
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

// "<name>,<first>,<value>,...": every number by std::from_chars, which
// takes digits only (no sign, no space) and says when one exceeds 64 bits.
void LineParser::parse_raw(std::string_view rest) {
  const size_t name_end = rest.find(',');
  if (name_end == std::string_view::npos) {
    out_.error = "RAW needs a series name, a first index and at least one value";
    return;
  }
  out_.raw_name = rest.substr(0, name_end);
  if (out_.raw_name.empty()) {
    out_.error = "RAW has an empty series name";
    return;
  }
  values_.clear();
  const char* p = rest.data() + name_end + 1;
  const char* const e = rest.data() + rest.size();
  for (;;) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(p, e, v);
    if (ec == std::errc::invalid_argument || (end != e && *end != ',')) {
      out_.error = "RAW field is not an unsigned decimal number";
      return;
    }
    if (ec == std::errc::result_out_of_range) {
      out_.error = "RAW value does not fit in 64 bits";
      return;
    }
    values_.push_back(v);
    if (end == e) break;
    p = end + 1;
  }
  if (values_.size() < 2) {
    out_.error = "RAW needs a series name, a first index and at least one value";
    return;
  }
  out_.raw_first = values_[0];
  out_.raw_values = std::span<const uint64_t>(values_.data() + 1, values_.size() - 1);
}

const ParsedLine& LineParser::parse(std::string_view line) {
  out_.fields = {};
  out_.raw_name = {};
  out_.raw_first = 0;
  out_.raw_values = {};
  out_.error = nullptr;
  parse_suffix(line, out_);
  out_.kind = record_kind(out_.record);
  if (out_.kind == RecordKind::kOther) return out_;
  const size_t klen = kKindNames[static_cast<size_t>(out_.kind)].size();
  if (out_.record.size() == klen) {
    // The bare kind: a record with no fields. Only the decoders can say
    // whether that is enough; an empty field list is passed on.
    if (out_.kind == RecordKind::kRaw)
      out_.error = "RAW needs a series name, a first index and at least one value";
    return out_;
  }
  const std::string_view rest(out_.record.data() + klen + 1, out_.record.size() - klen - 1);
  if (out_.kind == RecordKind::kRaw) {
    parse_raw(rest);
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
