#include "protocol/line.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <vector>
#include <string>

#include "protocol/raw16_avx2.h"
#include "protocol/raw16_avx512.h"
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


// The ways of reading a RAW line parse_raw16's contract covers: parse_raw16
// itself (with its AVX-512 path where the CPU has one), its SSE path alone,
// and a Raw16Reader that remembers layouts across the lines it is given.
struct Raw16Way {
  const char* name;
  std::function<bool(std::string_view, uint16_t*, rb::protocol::Raw16&)> read;
};

// Runs f with the widest RAW paths limited: AVX-512 and AVX2 each on only
// where allowed (and the CPU has it); as before afterwards.
template <class F>
bool with_paths(bool avx512, bool avx2, F f) {
  namespace d = rb::protocol::detail;
  const bool was512 = d::raw16_avx512_enabled(), was2 = d::raw16_avx2_enabled();
  d::use_raw16_avx512(avx512 && was512);
  d::use_raw16_avx2(avx2 && was2);
  const bool ok = f();
  d::use_raw16_avx512(was512);
  d::use_raw16_avx2(was2);
  return ok;
}

// A reader's read of `line` as verify's pieces give it, with 128 readable
// bytes after it (the line is copied to `buffer`), the AVX-512 path allowed
// or not. r.name then points into `buffer`.
bool read_padded(rb::protocol::Raw16Reader& reader, std::string& buffer, std::string_view line,
                 bool avx512, uint16_t* out, size_t max, rb::protocol::Raw16& r) {
  buffer.assign(line);
  buffer.append(128, 'x');
  return with_paths(avx512, true, [&] {
    return reader.read(std::string_view(buffer.data(), line.size()),
                       buffer.data() + buffer.size(), out, max, r);
  });
}

// A reader with its own buffer, output and result, for tests that feed it
// line after line.
struct PaddedReader {
  rb::protocol::Raw16Reader reader;
  std::string buffer;
  std::vector<uint16_t> out = std::vector<uint16_t>(16 + 8);
  rb::protocol::Raw16 r;
  bool read(const std::string& line, bool avx512, size_t max = 16) {
    return read_padded(reader, buffer, line, avx512, out.data(), max, r);
  }
};

std::vector<Raw16Way> raw16_ways() {
  auto reader = std::make_shared<rb::protocol::Raw16Reader>();
  auto avx2_reader = std::make_shared<rb::protocol::Raw16Reader>();
  return {
      {"parse_raw16",
       [](std::string_view l, uint16_t* o, rb::protocol::Raw16& r) {
         return rb::protocol::parse_raw16(l, o, 16, r);
       }},
      {"parse_raw16_sse",
       [](std::string_view l, uint16_t* o, rb::protocol::Raw16& r) {
         return rb::protocol::detail::parse_raw16_sse(l, o, 16, r);
       }},
      {"Raw16Reader",
       [reader](std::string_view l, uint16_t* o, rb::protocol::Raw16& r) {
         return reader->read(l, o, 16, r);
       }},
      // The line in a buffer with 128 bytes after it, as verify's pieces
      // have, and the AVX-512 path off: the AVX2 path where the CPU has it.
      {"Raw16Reader (AVX2)",
       [avx2_reader, buffer = std::make_shared<std::string>()](
           std::string_view l, uint16_t* o, rb::protocol::Raw16& r) {
         return read_padded(*avx2_reader, *buffer, l, false, o, 16, r);
       }}};
}

// A reading agrees with LineParser::parse, value by value.
void expect_same_as_parser(const std::string& line, const ParsedLine& p, const uint16_t* out,
                           const rb::protocol::Raw16& r, const char* way) {
  ASSERT_EQ(p.kind, RecordKind::kRaw) << way << ": " << line;
  ASSERT_EQ(p.error, nullptr) << way << ": " << line;
  ASSERT_EQ(p.suffix, r.suffix) << way << ": " << line;
  ASSERT_TRUE(r.suffix == Suffix::kValid || r.suffix == Suffix::kAbsent) << way << ": " << line;
  if (r.suffix == Suffix::kValid) ASSERT_EQ(p.seq, r.seq) << way << ": " << line;
  ASSERT_EQ(p.raw_name, r.name) << way << ": " << line;
  ASSERT_EQ(p.raw_first, r.first) << way << ": " << line;
  ASSERT_EQ(std::vector<uint64_t>(p.raw_values.begin(), p.raw_values.end()),
            std::vector<uint64_t>(out, out + r.count))
      << way << ": " << line;
  ASSERT_EQ(r.lo, *std::min_element(p.raw_values.begin(), p.raw_values.end()))
      << way << ": " << line;
  ASSERT_EQ(r.hi, *std::max_element(p.raw_values.begin(), p.raw_values.end()))
      << way << ": " << line;
}

// parse_raw16 either refuses a line or reads exactly what LineParser::parse
// reads; and it takes every plainly written RAW line whose values fit, so
// the short path is the one such lines take. So do its SSE path alone and a
// Raw16Reader (whose remembered layouts meet lines laid out like earlier
// ones, some of them corrupt).
TEST(ParseRaw16, TakesPlainLinesAndAgreesWithTheParser) {
  std::mt19937 rng(9);
  LineParser parser;
  const std::vector<Raw16Way> ways = raw16_ways();
  std::vector<int> taken(ways.size());
  int plain = 0;
  std::vector<uint16_t> out(16 + 8);
  for (int round = 0; round < 30000; ++round) {
    const unsigned width = 1 + rng() % 5;
    const bool mixed = rng() % 4 == 0;
    const int n = 1 + static_cast<int>(rng() % 18);
    bool is_plain = n <= 16;
    std::string list = std::to_string(rng() % (rng() % 8 == 0 ? 10000000000ull : 100000));
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
      const char bad[] = {',', 'x', ' ', '-', '|', '\0', '\x7f', 'a'};
      list[rng() % list.size()] = bad[rng() % sizeof bad];
      is_plain = false;
    }
    std::string name = rng() % 10 == 0 ? "" : "s" + std::to_string(rng() % 3);
    if (rng() % 8 == 0) name += std::string(rng() % 60, 'n');  // lines past 64 and 128 bytes
    if (name.empty()) is_plain = false;
    const std::string record = "RAW," + name + "," + list;
    const unsigned form = rng() % 4;  // V2, V1, corrupt V2
    const uint64_t seq = rng() % (rng() % 8 == 0 ? 100000000000ull : 1000000);
    std::string line = form == 3 ? record : rb::protocol::v2_line(record, seq);
    if (form == 2) {
      line[rng() % line.size()] ^= static_cast<char>(1u << (rng() % 7));
      is_plain = false;
    }
    const ParsedLine& p = parser.parse(line);
    if (is_plain) ++plain;
    for (size_t w = 0; w < ways.size(); ++w) {
      rb::protocol::Raw16 r;
      std::fill(out.begin(), out.end(), 0xABCD);
      const bool ok = ways[w].read(line, out.data(), r);
      if (is_plain) EXPECT_TRUE(ok) << ways[w].name << ": " << line;
      if (!ok) continue;
      ++taken[w];
      expect_same_as_parser(line, p, out.data(), r, ways[w].name);
    }
  }
  EXPECT_GT(plain, 10000);
  for (size_t w = 0; w < ways.size(); ++w) EXPECT_GE(taken[w], plain) << ways[w].name;
  // Not RAW, or too much for 16 bits or 16 values: refused.
  rb::protocol::Raw16 r;
  for (const std::string& line :
       {std::string("RESULT,a,n=1,hz=2"), std::string("RAW,a,0,65536"), std::string("RAW,a,0,123456"),
        std::string("RAW,a,0"), std::string("RAW,,0,1"), std::string("RAW,a,0,1,"),
        std::string("RAW,a\tb,0,1"), std::string("RAW,a\rb,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14"),
        std::string("RAW,a\x7f,0,1"), std::string("RAW,a,0,1\r"),
        std::string("RAW,a,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17")}) {
    for (const Raw16Way& way : ways) EXPECT_FALSE(way.read(line, out.data(), r)) << way.name << ": " << line;
  }
}

// A line laid out exactly like one the reader has read (its commas and bars
// in the same places, the same length) is still checked byte by byte: a
// letter among the digits, a control byte in the name, a CRC that is not
// hex or does not match, each makes it refuse; a good line with the layout
// is read, value by value.
TEST(Raw16Reader, ChecksLinesLaidOutLikeOnesItHasRead) {
  // Once with the paths this CPU has, once with AVX2 at most; lines with 128
  // readable bytes after them, as in verify's pieces.
  for (const bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "widest path" : "AVX2 at most");
    PaddedReader pr;
    LineParser parser;
    std::vector<uint16_t>& out = pr.out;
    rb::protocol::Raw16& r = pr.r;
    auto read = [&](const std::string& line, size_t max) { return pr.read(line, avx512, max); };
    const std::string record = "RAW,event_to_task,299408,466,473,469,467,474,474,470,472,471,470,470,466,471,466,468,474";
    const std::string good = rb::protocol::v2_line(record, 100000);
    ASSERT_TRUE(read(good, 16));
    expect_same_as_parser(good, parser.parse(good), out.data(), r, "first");
    // The same layout, other digits: read as the parser reads it.
    const std::string other = rb::protocol::v2_line(
        "RAW,irq_to_task_X,399408,123,456,789,012,345,678,901,234,567,890,111,222,333,444,555,999", 123456);
    ASSERT_EQ(other.size(), good.size());
    ASSERT_TRUE(read(other, 16));
    expect_same_as_parser(other, parser.parse(other), out.data(), r, "other");
    // Each corrupt line to a reader that has just learned the good layout
    // (a reader that refused a line leaves the next few to the SSE path).
    auto refused = [&](std::string line, const char* why) {
      pr.reader = rb::protocol::Raw16Reader();
      ASSERT_TRUE(read(good, 16));
      EXPECT_FALSE(read(line, 16)) << why << ": " << line;
      EXPECT_FALSE(rb::protocol::parse_raw16(line, out.data(), 16, r)) << why << ": " << line;
    };
    std::string letter = record;
    letter[record.size() - 2] = 'a';
    refused(rb::protocol::v2_line(letter, 100000), "a letter in a value");
    std::string control = record;
    control[6] = '\x01';
    refused(rb::protocol::v2_line(control, 100000), "a control byte in the name");
    std::string bad_crc = good;
    bad_crc[good.size() - 1] = bad_crc[good.size() - 1] == '0' ? '1' : '0';
    refused(bad_crc, "a CRC that does not match");
    std::string upper = good;
    upper[good.size() - 8] = 'G';
    refused(upper, "a CRC that is not lowercase hex");
    std::string seq_letter = good;
    seq_letter[good.size() - 10] = 'q';
    refused(seq_letter, "a letter in the seq");
    std::string first_letter = record;
    first_letter[19] = 'z';
    refused(rb::protocol::v2_line(first_letter, 100000), "a letter in the first index");
    // Fewer values allowed than the layout holds: refused, as by parse_raw16.
    pr.reader = rb::protocol::Raw16Reader();
    ASSERT_TRUE(read(good, 16));
    EXPECT_FALSE(read(good, 15));
    EXPECT_FALSE(rb::protocol::parse_raw16(good, out.data(), 15, r));
  }
}

// One reader whose paths change between lines (as tests change them): a
// layout the AVX2 path learned is worked out again by the AVX-512 path, and
// one the AVX-512 path learned serves the AVX2 path; each line is read as
// the parser reads it. (On a CPU without both, the same lines take what it
// has.)
TEST(Raw16Reader, ALayoutLearnedOnOnePathServesTheOther) {
  PaddedReader pr;
  LineParser parser;
  auto read = [&](const std::string& line, bool avx512) { return pr.read(line, avx512); };
  const std::vector<uint16_t>& out = pr.out;
  const rb::protocol::Raw16& r = pr.r;
  std::mt19937 rng(5);
  const std::string names[] = {"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg"};
  for (int i = 0; i < 120; ++i) {
    // Three names (each its own layout) in turn, one of them replaced every
    // 12 lines by the next of seven: a new layout is learned by the path
    // that is on (AVX2, at each twelfth line) into a slot the other path
    // filled, and read by both. (The first index and the seq also gain a
    // digit on the way.)
    const std::string& name = names[(i / 12 + i % 3) % 7];
    std::string record = "RAW," + name + "," + std::to_string(99800 + 16 * i);
    for (int k = 0; k < 16; ++k) record += "," + std::to_string(400 + rng() % 100);
    const std::string line = rb::protocol::v2_line(record, 99990 + i);
    const bool avx512 = (i / 3) % 2 == 1;  // runs of three lines on each, AVX2 first
    ASSERT_TRUE(read(line, avx512)) << line;
    expect_same_as_parser(line, parser.parse(line), out.data(), r, avx512 ? "AVX-512" : "AVX2");
  }
}

// Where the CPU has AVX2, a Raw16Reader with 128 readable bytes after the
// line reads typical lines by that path (widths 1 to 3; 4 is left to SSE),
// the first time by working the layout out, then by the remembered layout.
TEST(Raw16Avx2, ReadsTypicalLinesWhereTheCpuHasIt) {
  namespace d = rb::protocol::detail;
  if (!d::raw16_avx2_enabled()) GTEST_SKIP() << "this CPU has no AVX2 (or RTOSBENCH_SIMD=sse)";
  LineParser parser;
  std::vector<uint16_t> out(16 + 8);
  rb::protocol::detail::Raw16Layout layouts[4];
  size_t next = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& line :
         {rb::protocol::v2_line("RAW,irq_entry,299424,28,30,31,26,27,33,27,27,31,29,28,31,31,26,31,28", 100001),
          rb::protocol::v2_line("RAW,ctx,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6", 7),
          rb::protocol::v2_line("RAW,event_to_task,299408,466,473,469,467,474,474,470,472,471,470,470,466,471,466,468,474", 100000),
          rb::protocol::v2_line("RAW,ctx,16,466,473,469", 8)}) {
      std::string padded = line + std::string(128, '\0');
      rb::protocol::Raw16 r;
      ASSERT_TRUE(d::read_raw16_avx2(layouts, 4, next, std::string_view(padded.data(), line.size()),
                                     padded.data() + padded.size(), out.data(), 16, r))
          << "pass " << pass << ": " << line;
      expect_same_as_parser(line, parser.parse(line), out.data(), r, "AVX2");
    }
  }
  // 4-digit values: refused by this path, read by the reader all the same.
  const std::string wide = rb::protocol::v2_line("RAW,ctx,16,1000,2000,3000,4000,5000,6000,7000,8000,9000,1234,2345,3456,4567,5678,6789,9999", 9);
  const std::string padded = wide + std::string(128, '\0');
  rb::protocol::Raw16 r;
  EXPECT_FALSE(d::read_raw16_avx2(layouts, 4, next, std::string_view(padded.data(), wide.size()),
                                  padded.data() + padded.size(), out.data(), 16, r));
  // Without 128 readable bytes after its start: refused.
  EXPECT_FALSE(d::read_raw16_avx2(layouts, 4, next, std::string_view(padded.data(), wide.size()),
                                  padded.data() + 100, out.data(), 16, r));
}

// Where the CPU has AVX-512 (VBMI, VBMI2), parse_raw16 reads typical lines
// by that path, values of one width and of mixed widths (up to 4 digits),
// as the parser reads them; it leaves 5-digit and empty values to the
// others. Turning it off leaves the SSE path.
TEST(Raw16Avx512, ReadsTypicalLinesWhereTheCpuHasIt) {
  namespace d = rb::protocol::detail;
  if (!d::use_raw16_avx512(true)) GTEST_SKIP() << "this CPU has no AVX-512 VBMI and VBMI2";
  LineParser parser;
  std::vector<uint16_t> out(16 + 8);
  rb::protocol::Raw16 r;
  for (const std::string& line :
       {rb::protocol::v2_line("RAW,irq_entry,299424,28,30,31,26,27,33,27,27,31,29,28,31,31,26,31,28", 100001),
        rb::protocol::v2_line("RAW,ctx,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6", 7),
        rb::protocol::v2_line("RAW,ctx,16,1000,2000,3000,4000,5000,6000,7000,8000,9000,1234,2345,3456,4567,5678,6789,9999", 8),
        std::string("RAW,ctx,0,466,473"),
        rb::protocol::v2_line("RAW,wake,32,95,100,105,99,1,1000,9999,10,0,007,98,101,102,97,96,103", 9),
        rb::protocol::v2_line("RAW,wake,48,5,9999", 10), rb::protocol::v2_line("RAW,wake,50,12,3", 11)}) {
    ASSERT_TRUE(d::parse_raw16_avx512(line, out.data(), 16, r)) << line;
    expect_same_as_parser(line, parser.parse(line), out.data(), r, "AVX-512");
  }
  for (const std::string& line :
       {rb::protocol::v2_line("RAW,wake,32,95,100,12345", 9), rb::protocol::v2_line("RAW,wake,32,95,,100", 9),
        rb::protocol::v2_line("RAW,wake,32,,95", 9), rb::protocol::v2_line("RAW,wake,32,95,", 9)}) {
    EXPECT_FALSE(d::parse_raw16_avx512(line, out.data(), 16, r)) << line;
  }
  EXPECT_FALSE(d::use_raw16_avx512(false));
  EXPECT_FALSE(d::raw16_avx512_enabled());
  EXPECT_TRUE(d::use_raw16_avx512(true));
}

}  // namespace
