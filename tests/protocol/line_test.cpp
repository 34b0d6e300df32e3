#include "protocol/line.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>
#include <string>

#include "util/crc32c.h"

namespace {

using rb::protocol::LineParser;
using rb::protocol::ParsedLine;
using rb::protocol::RecordKind;
using rb::protocol::Suffix;

std::string frame(const std::string& record, uint64_t seq) {
  const std::string head = record + "|" + std::to_string(seq);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", rb::crc32c(head));
  return head + "|" + hex;
}

TEST(LineParser, RecognisesEveryRecordKindAndNothingElse) {
  LineParser p;
  struct {
    const char* line;
    RecordKind kind;
  } cases[] = {
      {"BEGIN,RTOS_BENCH_V2", RecordKind::kBegin},
      {"CONFIG,a=1", RecordKind::kConfig},
      {"DWT_READ_PAIR,1", RecordKind::kDwtReadPair},
      {"TEST,ruler", RecordKind::kTest},
      {"PHASE,idle,irq=1,task=1,bad=0,status=OK", RecordKind::kPhase},
      {"RAW,x,0,1", RecordKind::kRaw},
      {"RESULT,x,n=1", RecordKind::kResult},
      {"CHECK,mutex_pi,rounds=1,pass=1,fail=0,status=OK", RecordKind::kCheck},
      {"NA,x,reason=y", RecordKind::kNa},
      {"END,RTOS_BENCH_V2", RecordKind::kEnd},
      {"END", RecordKind::kEnd},  // exactly the kind
      {"RAWX,1", RecordKind::kOther},
      {"RESULTS,x", RecordKind::kOther},
      {"raw,x,0,1", RecordKind::kOther},
      {" BEGIN,RTOS_BENCH_V2", RecordKind::kOther},
      {"BEGIN RTOS_BENCH_V2", RecordKind::kOther},
      {"CONFIG 行里 tick=1000", RecordKind::kOther},
      {"", RecordKind::kOther},
      {"[boot] RAW,x,0,1", RecordKind::kOther},
  };
  for (const auto& c : cases) EXPECT_EQ(p.parse(c.line).kind, c.kind) << c.line;
}

TEST(LineParser, ValidSuffixIsStrippedAndChecked) {
  LineParser p;
  const std::string line = frame("RESULT,api_overhead,n=3,hz=168000000", 42);
  const ParsedLine& r = p.parse(line);
  EXPECT_EQ(r.suffix, Suffix::kValid);
  EXPECT_EQ(r.seq, 42u);
  EXPECT_EQ(r.crc_given, r.crc_computed);
  EXPECT_EQ(r.record, "RESULT,api_overhead,n=3,hz=168000000");
  ASSERT_EQ(r.fields.size(), 3u);
  EXPECT_EQ(r.fields[2].key, "hz");
  EXPECT_EQ(r.fields[2].value, "168000000");
}

TEST(LineParser, AnyChangedByteBreaksTheCrc) {
  LineParser p;
  const std::string good = frame("RAW,irq_entry,16,26,26,45", 7);
  for (size_t i = 0; i < good.size() - 9; ++i) {
    std::string bad = good;
    bad[i] = bad[i] == '5' ? '6' : '5';
    const ParsedLine& r = p.parse(bad);
    EXPECT_NE(r.suffix, Suffix::kValid) << bad;
  }
}

TEST(LineParser, SuffixForms) {
  LineParser p;
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V1").suffix, Suffix::kAbsent);
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2|0|DC2E733A").suffix, Suffix::kMalformed);  // uppercase
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2|0|dc2e733").suffix, Suffix::kMalformed);
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2||dc2e733a").suffix, Suffix::kMalformed);
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2|x|dc2e733a").suffix, Suffix::kMalformed);
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2|0").suffix, Suffix::kMalformed);
  EXPECT_EQ(p.parse("|0|dc2e733a").suffix, Suffix::kBadCrc);  // a suffix on an empty record
  EXPECT_EQ(p.parse("|0|dc2e733a").kind, RecordKind::kOther);
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2|99999999999999999999999|dc2e733a").suffix,
            Suffix::kMalformed);
  const ParsedLine& r = p.parse("BEGIN,RTOS_BENCH_V2|0|dc2e733b");
  EXPECT_EQ(r.suffix, Suffix::kBadCrc);
  EXPECT_EQ(r.kind, RecordKind::kBegin);
  EXPECT_EQ(r.crc_given, 0xdc2e733bu);
  EXPECT_EQ(r.crc_computed, 0xdc2e733au);
  EXPECT_EQ(p.parse("BEGIN,RTOS_BENCH_V2|0|dc2e733a").suffix, Suffix::kValid);
  // A malformed suffix still lets the record kind be seen.
  const ParsedLine& m = p.parse("RAW,x,0,1,2|3|zz");
  EXPECT_EQ(m.suffix, Suffix::kMalformed);
  EXPECT_EQ(m.record, "RAW,x,0,1,2");
}

TEST(LineParser, RawFastPathDecodesValues) {
  LineParser p;
  const std::string line = frame("RAW,event_to_task,2032,466,0,18446744073709551615", 9);
  const ParsedLine& r = p.parse(line);
  ASSERT_EQ(r.kind, RecordKind::kRaw);
  EXPECT_EQ(r.error, nullptr);
  EXPECT_EQ(r.raw_name, "event_to_task");
  EXPECT_EQ(r.raw_first, 2032u);
  ASSERT_EQ(r.raw_values.size(), 3u);
  EXPECT_EQ(r.raw_values[0], 466u);
  EXPECT_EQ(r.raw_values[1], 0u);
  EXPECT_EQ(r.raw_values[2], UINT64_MAX);
}

TEST(LineParser, RawErrorsAreNamed) {
  LineParser p;
  for (const char* bad :
       {"RAW", "RAW,", "RAW,x", "RAW,x,0", "RAW,x,0,", "RAW,,0,1", "RAW,x,,1", "RAW,x,0,1,,2",
        "RAW,x,0,1 ", "RAW,x,0,-1", "RAW,x,0,0x1", "RAW,x,0,18446744073709551616", "RAW,x,a,1"}) {
    const ParsedLine& r = p.parse(bad);
    EXPECT_EQ(r.kind, RecordKind::kRaw) << bad;
    EXPECT_NE(r.error, nullptr) << bad;
  }
}

TEST(LineParser, FieldsKeepSpacesAndEqualsInValues) {
  LineParser p;
  const ParsedLine& r = p.parse("CONFIG,compiler=14.2.1 20241119,opt=-O2 -DX=1,empty=,=lead");
  ASSERT_EQ(r.fields.size(), 4u);
  EXPECT_EQ(r.fields[0].key, "compiler");
  EXPECT_EQ(r.fields[0].value, "14.2.1 20241119");
  EXPECT_EQ(r.fields[1].value, "-O2 -DX=1");
  EXPECT_EQ(r.fields[2].key, "empty");
  EXPECT_EQ(r.fields[2].value, "");
  EXPECT_EQ(r.fields[3].key, "");  // no key before '=': positional
  EXPECT_EQ(r.fields[3].value, "=lead");
}

TEST(V2Line, FramesLikeTheProtocolSays) {
  EXPECT_EQ(rb::protocol::v2_line("BEGIN,RTOS_BENCH_V2", 0), frame("BEGIN,RTOS_BENCH_V2", 0));
  EXPECT_EQ(rb::protocol::v2_line("END,RTOS_BENCH_V2", 18446744073709551615u),
            frame("END,RTOS_BENCH_V2", 18446744073709551615u));
  // The check value of the protocol's CRC over its own example input.
  EXPECT_EQ(rb::crc32c("123456789"), 0xE3069283u);
}

}  // namespace

namespace {

// The RAW value list the slow, obvious way: split at ',' and convert each
// field digit by digit. nullopt when any field is empty, not all digits, or
// too big; the fast paths (uniform groups, SWAR, SIMD masks) must agree.
std::optional<std::vector<uint64_t>> reference_values(const std::string& list) {
  std::vector<uint64_t> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string f = list.substr(start, comma == std::string::npos ? std::string::npos
                                                                        : comma - start);
    if (f.empty() || f.size() > 20) return std::nullopt;
    unsigned __int128 v = 0;
    for (char c : f) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v > UINT64_MAX) return std::nullopt;
    out.push_back(static_cast<uint64_t>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() < 2) return std::nullopt;
  return out;
}

TEST(LineParser, RawValuesAgreeWithASimpleParserOnRandomLines) {
  std::mt19937 rng(7);
  LineParser parser;
  int uniform_lines = 0;
  for (int round = 0; round < 20000; ++round) {
    // Mostly one width per line (the uniform path), sometimes mixed widths,
    // sometimes a damaged byte; V2 lines (suffix after the list) and V1
    // lines (the list runs to the end of the readable bytes).
    const unsigned width = 1 + rng() % 6;
    const bool mixed = rng() % 4 == 0;
    const int n = 1 + static_cast<int>(rng() % 40);
    std::string list = std::to_string(rng() % 100000);
    for (int i = 0; i < n; ++i) {
      const unsigned w = mixed ? 1 + rng() % 9 : width;
      std::string digits;
      for (unsigned j = 0; j < w; ++j) digits += static_cast<char>('0' + rng() % 10);
      list += "," + digits;
    }
    if (rng() % 5 == 0) {
      const char bad[] = {',', 'x', ' ', '-', '|', '/', ':', '\0'};
      list[rng() % list.size()] = bad[rng() % sizeof bad];
    }
    if (!mixed && rng() % 5 != 0) ++uniform_lines;
    const std::string record = "RAW,series," + list;
    const bool v2 = rng() % 2 == 0;
    const std::string line = v2 ? rb::protocol::v2_line(record, 12345) : record;
    const ParsedLine& p = parser.parse(line);
    const auto want = reference_values(list);
    if (p.kind != RecordKind::kRaw) {
      ADD_FAILURE() << "not RAW: " << line;
      continue;
    }
    // A '|' put into the list starts a suffix: what is left is no list any more.
    if (list.find('|') != std::string::npos) continue;
    ASSERT_EQ(p.error == nullptr, want.has_value()) << line;
    if (!want) continue;
    ASSERT_EQ(p.raw_first, (*want)[0]) << line;
    ASSERT_EQ(std::vector<uint64_t>(p.raw_values.begin(), p.raw_values.end()),
              std::vector<uint64_t>(want->begin() + 1, want->end()))
        << line;
  }
  EXPECT_GT(uniform_lines, 5000);
}


// parse_raw16 either refuses a line or reads exactly what LineParser::parse
// reads; and it takes every plainly written RAW line whose values fit, so
// the short path is the one such lines take.
TEST(ParseRaw16, TakesPlainLinesAndAgreesWithTheParser) {
  std::mt19937 rng(9);
  LineParser parser;
  int taken = 0, plain = 0;
  std::vector<uint16_t> out(16 + 8);
  for (int round = 0; round < 30000; ++round) {
    const unsigned width = 1 + rng() % 5;
    const bool mixed = rng() % 4 == 0;
    const int n = 1 + static_cast<int>(rng() % 18);
    bool is_plain = n <= 16;
    std::string list = std::to_string(rng() % 100000);
    for (int i = 0; i < n; ++i) {
      const unsigned w = mixed ? 1 + rng() % 6 : width;
      uint64_t v = rng() % 70000;
      std::string digits = std::to_string(v);
      if (digits.size() > w) digits = digits.substr(0, w);
      if (rng() % 50 == 0) digits = "0" + digits;  // a leading zero
      if (digits.size() > 5 || std::stoull(digits) > 65535) is_plain = false;
      list += "," + digits;
    }
    if (rng() % 6 == 0) {
      const char bad[] = {',', 'x', ' ', '-', '|', '\0'};
      list[rng() % list.size()] = bad[rng() % sizeof bad];
      is_plain = false;
    }
    const std::string name = rng() % 10 == 0 ? "" : "s" + std::to_string(rng() % 3);
    if (name.empty()) is_plain = false;
    const std::string record = "RAW," + name + "," + list;
    const unsigned form = rng() % 4;  // V2, V1, corrupt V2
    std::string line = form == 3 ? record : rb::protocol::v2_line(record, rng() % 1000000);
    if (form == 2) {
      line[rng() % line.size()] ^= 0x04;
      is_plain = false;
    }
    rb::protocol::Raw16 r;
    std::fill(out.begin(), out.end(), 0xABCD);
    const bool ok = rb::protocol::parse_raw16(line, out.data(), 16, r);
    const ParsedLine& p = parser.parse(line);
    if (is_plain) {
      ++plain;
      EXPECT_TRUE(ok) << line;
    }
    if (!ok) continue;
    ++taken;
    ASSERT_EQ(p.kind, RecordKind::kRaw) << line;
    ASSERT_EQ(p.error, nullptr) << line;
    ASSERT_EQ(p.suffix, r.suffix) << line;
    ASSERT_TRUE(r.suffix == Suffix::kValid || r.suffix == Suffix::kAbsent) << line;
    if (r.suffix == Suffix::kValid) ASSERT_EQ(p.seq, r.seq) << line;
    ASSERT_EQ(p.raw_name, r.name) << line;
    ASSERT_EQ(p.raw_first, r.first) << line;
    ASSERT_EQ(std::vector<uint64_t>(p.raw_values.begin(), p.raw_values.end()),
              std::vector<uint64_t>(out.begin(), out.begin() + static_cast<ptrdiff_t>(r.count)))
        << line;
    ASSERT_EQ(r.lo, *std::min_element(p.raw_values.begin(), p.raw_values.end())) << line;
    ASSERT_EQ(r.hi, *std::max_element(p.raw_values.begin(), p.raw_values.end())) << line;
  }
  EXPECT_GT(plain, 10000);
  EXPECT_GE(taken, plain);
  // Not RAW, or too much for 16 bits or 16 values: refused.
  rb::protocol::Raw16 r;
  for (const std::string& line :
       {std::string("RESULT,a,n=1,hz=2"), std::string("RAW,a,0,65536"), std::string("RAW,a,0,123456"),
        std::string("RAW,a,0"), std::string("RAW,,0,1"), std::string("RAW,a,0,1,"),
        std::string("RAW,a\tb,0,1"), std::string("RAW,a\rb,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14"),
        std::string("RAW,a\x7f,0,1"), std::string("RAW,a,0,1\r"),
        std::string("RAW,a,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17")}) {
    EXPECT_FALSE(rb::protocol::parse_raw16(line, out.data(), 16, r)) << line;
  }
}

}  // namespace
