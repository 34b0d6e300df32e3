#pragma once
// A deliberately naive reading of one protocol line (docs/protocol.md
// sections 1 and 2), written for tests only: strings are split and copied,
// numbers are converted digit by digit into 128 bits, and the CRC-32C is
// computed bit by bit. It shares no code with src/protocol/ (not even the
// CRC), so the real parser can be compared with it line by line
// (tests/protocol/line_test.cpp, tests/fuzz/fuzz_line_parser.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rb::testing {

struct NaiveLine {
  enum class Suffix { kAbsent, kValid, kBadCrc, kMalformed };
  enum class RawError { kNone, kShape, kEmptyName, kNotANumber, kTooBig };
  Suffix suffix = Suffix::kAbsent;
  std::string record;  // without the suffix; for kMalformed up to the first '|'
  uint64_t seq = 0;
  uint32_t crc_given = 0, crc_computed = 0;
  std::string kind;  // "BEGIN", ..., "END", or "" for any other line
  // RAW: the name, then the first index and the values; or what is wrong.
  RawError raw_error = RawError::kNone;
  std::string raw_name;
  std::vector<uint64_t> raw_numbers;
  // Other records: the fields after the kind as (key, value).
  std::vector<std::pair<std::string, std::string>> fields;
};

inline uint32_t naive_crc32c(std::string_view s) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : s) {
    crc ^= c;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return ~crc;
}

inline std::vector<std::string> naive_split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// An unsigned decimal number of any length: nullopt when empty or not all
// digits; `too_big` when it needs more than 64 bits.
inline std::optional<uint64_t> naive_number(const std::string& s, bool& too_big) {
  too_big = false;
  if (s.empty()) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') {
      too_big = false;  // not a number at all
      return std::nullopt;
    }
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > UINT64_MAX) {
      too_big = true;
      v = static_cast<unsigned __int128>(UINT64_MAX) + 1;  // stays too big
    }
  }
  if (too_big) return std::nullopt;
  return static_cast<uint64_t>(v);
}

inline NaiveLine naive_parse(const std::string& line) {
  NaiveLine out;
  out.record = line;
  const size_t first_bar = line.find('|');
  if (first_bar != std::string::npos) {
    // "<record>|<seq>|<crc>": the last two bars; the record may hold bars.
    out.suffix = NaiveLine::Suffix::kMalformed;
    out.record = line.substr(0, first_bar);
    const size_t crc_bar = line.rfind('|');
    const size_t seq_bar = crc_bar == 0 ? std::string::npos : line.rfind('|', crc_bar - 1);
    if (seq_bar != std::string::npos) {
      const std::string seq = line.substr(seq_bar + 1, crc_bar - seq_bar - 1);
      const std::string crc = line.substr(crc_bar + 1);
      bool hex = crc.size() == 8;
      uint32_t given = 0;
      for (char c : crc) {
        if (c >= '0' && c <= '9') {
          given = given * 16 + static_cast<uint32_t>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
          given = given * 16 + static_cast<uint32_t>(c - 'a' + 10);
        } else {
          hex = false;
        }
      }
      bool too_big = false;
      const auto seq_value = naive_number(seq, too_big);
      if (hex && seq_value && seq.size() <= 20) {
        out.record = line.substr(0, seq_bar);
        out.seq = *seq_value;
        out.crc_given = given;
        out.crc_computed = naive_crc32c(line.substr(0, crc_bar));
        out.suffix = out.crc_given == out.crc_computed ? NaiveLine::Suffix::kValid
                                                       : NaiveLine::Suffix::kBadCrc;
      }
    }
  }
  std::vector<std::string> parts = naive_split(out.record, ',');
  for (const char* k : {"BEGIN", "CONFIG", "DWT_READ_PAIR", "TEST", "PHASE", "RAW", "RESULT",
                        "CHECK", "NA", "END"}) {
    if (parts[0] == k) out.kind = k;
  }
  if (out.kind.empty() || parts.size() == 1) {
    if (out.kind == "RAW") out.raw_error = NaiveLine::RawError::kShape;
    return out;
  }
  parts.erase(parts.begin());
  if (out.kind != "RAW") {
    for (const std::string& f : parts) {
      const size_t eq = f.find('=');
      if (eq != std::string::npos && eq > 0) {
        out.fields.emplace_back(f.substr(0, eq), f.substr(eq + 1));
      } else {
        out.fields.emplace_back("", f);
      }
    }
    return out;
  }
  if (parts.size() < 2) {
    out.raw_error = NaiveLine::RawError::kShape;
    return out;
  }
  out.raw_name = parts[0];
  if (out.raw_name.empty()) {
    out.raw_error = NaiveLine::RawError::kEmptyName;
    return out;
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    bool too_big = false;
    const auto v = naive_number(parts[i], too_big);
    if (!v) {
      out.raw_error = too_big ? NaiveLine::RawError::kTooBig : NaiveLine::RawError::kNotANumber;
      out.raw_numbers.clear();
      return out;
    }
    out.raw_numbers.push_back(*v);
  }
  if (out.raw_numbers.size() < 2) {
    out.raw_error = NaiveLine::RawError::kShape;
    out.raw_numbers.clear();
  }
  return out;
}

}  // namespace rb::testing
