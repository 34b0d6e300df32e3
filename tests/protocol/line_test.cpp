#include "protocol/line.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "naive_line.h"
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

TEST(LineParser, RawValuesAreDecoded) {
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

using rb::testing::NaiveLine;

// The parser's reading of `line` is the naive reference's, field by field.
void expect_same_as_naive(const std::string& line, const ParsedLine& p) {
  const NaiveLine want = rb::testing::naive_parse(line);
  SCOPED_TRACE(line);
  ASSERT_EQ(static_cast<int>(p.suffix), static_cast<int>(want.suffix));
  ASSERT_EQ(p.record, want.record);
  if (want.suffix == NaiveLine::Suffix::kValid || want.suffix == NaiveLine::Suffix::kBadCrc) {
    ASSERT_EQ(p.seq, want.seq);
    ASSERT_EQ(p.crc_given, want.crc_given);
    ASSERT_EQ(p.crc_computed, want.crc_computed);
  }
  ASSERT_EQ(std::string(p.kind == RecordKind::kOther ? "" : rb::protocol::to_string(p.kind)),
            want.kind);
  if (p.kind == RecordKind::kRaw) {
    using E = NaiveLine::RawError;
    const char* error = p.error == nullptr ? "" : p.error;
    switch (want.raw_error) {
      case E::kNone:
        ASSERT_EQ(p.error, nullptr);
        ASSERT_EQ(p.raw_name, want.raw_name);
        ASSERT_EQ(p.raw_first, want.raw_numbers[0]);
        ASSERT_EQ(std::vector<uint64_t>(p.raw_values.begin(), p.raw_values.end()),
                  std::vector<uint64_t>(want.raw_numbers.begin() + 1, want.raw_numbers.end()));
        break;
      case E::kShape:
        ASSERT_STREQ(error, "RAW needs a series name, a first index and at least one value");
        break;
      case E::kEmptyName:
        ASSERT_STREQ(error, "RAW has an empty series name");
        break;
      case E::kNotANumber:
        ASSERT_STREQ(error, "RAW field is not an unsigned decimal number");
        break;
      case E::kTooBig:
        ASSERT_STREQ(error, "RAW value does not fit in 64 bits");
        break;
    }
  } else if (p.kind != RecordKind::kOther) {
    ASSERT_EQ(p.fields.size(), want.fields.size());
    for (size_t i = 0; i < want.fields.size(); ++i) {
      ASSERT_EQ(p.fields[i].key, want.fields[i].first);
      ASSERT_EQ(p.fields[i].value, want.fields[i].second);
    }
  }
}

// Random RAW lines: values of 1 to 25 digits (some past 64 bits, some with
// leading zeros), V1 and V2 forms, and now and then a damaged byte anywhere
// (a sign, a space, a bar, a control byte, an empty field, a changed CRC).
TEST(LineParser, RawLinesAgreeWithANaiveParserOnRandomLines) {
  std::mt19937 rng(7);
  LineParser parser;
  int clean = 0;
  for (int round = 0; round < 30000; ++round) {
    const unsigned width = 1 + rng() % 6;
    const bool mixed = rng() % 4 == 0;
    const int n = static_cast<int>(rng() % 20);
    std::string list = std::to_string(rng() % 1000000);
    for (int i = 0; i < n; ++i) {
      const unsigned w = rng() % 50 == 0 ? 19 + rng() % 7 : mixed ? 1 + rng() % 9 : width;
      std::string digits;
      for (unsigned j = 0; j < w; ++j) digits += static_cast<char>('0' + rng() % 10);
      list += "," + digits;
    }
    std::string name = rng() % 20 == 0 ? "" : "s" + std::to_string(rng() % 3);
    const std::string record = "RAW," + name + "," + list;
    const unsigned form = rng() % 3;  // V2, V1, V2 then damaged
    std::string line = form == 1 ? record : rb::protocol::v2_line(record, rng() % 100000000000ull);
    if (form == 2 || rng() % 6 == 0) {
      const char bad[] = {',', 'x', ' ', '-', '+', '|', '\0', '\x7f', 'a', '0'};
      line[rng() % line.size()] = bad[rng() % sizeof bad];
    } else {
      ++clean;
    }
    expect_same_as_naive(line, parser.parse(line));
  }
  EXPECT_GT(clean, 10000);
}

// Every other record kind and non-protocol lines, framed or not, whole and
// cut at a random place: the same kind, suffix and fields as the reference.
TEST(LineParser, OtherLinesAgreeWithANaiveParserOnRandomLines) {
  std::mt19937 rng(11);
  LineParser parser;
  const char* starts[] = {"BEGIN,RTOS_BENCH_V2",
                          "CONFIG,core=168000000,opt=-O2 -DX=1",
                          "DWT_READ_PAIR,7",
                          "TEST,ruler",
                          "PHASE,idle,irq=1,task=1,bad=0,status=OK",
                          "RESULT,x,n=3,hz=168000000",
                          "CHECK,m,rounds=1,pass=1,fail=0,status=OK",
                          "NA,x,reason=y",
                          "END,RTOS_BENCH_V2",
                          "END",
                          "RAWX,1",
                          "boot banner|1|x",
                          "[boot] RAW,x,0,1",
                          "|0|dc2e733a",
                          "a|b|7|00000000"};
  for (int round = 0; round < 20000; ++round) {
    std::string line = starts[rng() % (sizeof starts / sizeof starts[0])];
    if (rng() % 4 == 0) {
      // A seq of 18 to 23 digits (zeros in front): up to 20 make a suffix.
      std::string seq = std::to_string(rng() % 1000);
      seq.insert(0, 18 + rng() % 6 - std::min<size_t>(seq.size(), 18), '0');
      char crc[9];
      std::snprintf(crc, sizeof crc, "%08x", rb::testing::naive_crc32c(line + "|" + seq));
      line += "|" + seq + "|" + crc;
    } else if (rng() % 2 == 0) {
      line = rb::protocol::v2_line(line, rng() % 1000);
    }
    if (rng() % 3 == 0) line.resize(rng() % (line.size() + 1));
    if (rng() % 3 == 0 && !line.empty()) line[rng() % line.size()] = "|,=x9f"[rng() % 6];
    expect_same_as_naive(line, parser.parse(line));
  }
}

}  // namespace
