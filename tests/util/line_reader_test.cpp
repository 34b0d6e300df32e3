#include "util/line_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Got {
  std::string text;
  uint64_t number, length;
  bool overlong, control, terminated;
  bool operator==(const Got&) const = default;
};

std::ostream& operator<<(std::ostream& o, const Got& g) {
  return o << "{#" << g.number << " '" << g.text << "' len " << g.length
           << (g.overlong ? " overlong" : "") << (g.control ? " control" : "")
           << (g.terminated ? "" : " unterminated") << "}";
}

std::vector<Got> split(std::string_view data, rb::LineReader::Options opt = {}) {
  rb::MemorySource src(data);
  rb::LineReader reader(src, opt);
  std::vector<Got> out;
  rb::Line l;
  while (reader.next(l)) {
    out.push_back(
        Got{std::string(l.text), l.number, l.length, l.overlong, l.control, l.terminated});
  }
  EXPECT_TRUE(reader.status().ok());
  return out;
}

// The rules of docs/protocol.md 1 written the slow, obvious way.
std::vector<Got> reference_split(std::string_view data, size_t max_line) {
  std::vector<Got> out;
  std::string cur;
  bool control = false;
  uint64_t n = 0;
  auto emit = [&](bool terminated) {
    const bool overlong = cur.size() > max_line;
    out.push_back(Got{overlong ? "" : cur, ++n, cur.size(), overlong, control, terminated});
    cur.clear();
    control = false;
  };
  for (size_t i = 0; i < data.size(); ++i) {
    const char c = data[i];
    if (c == '\n') {
      emit(true);
    } else if (c == '\r') {
      emit(true);
      if (i + 1 < data.size() && data[i + 1] == '\n') ++i;
    } else {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) control = true;
      cur.push_back(c);
    }
  }
  if (!cur.empty()) emit(false);
  return out;
}

TEST(LineReader, EveryLineEndStyle) {
  auto got = split("lf\ncrlf\r\ncr\rlast");
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], (Got{"lf", 1, 2, false, false, true}));
  EXPECT_EQ(got[1], (Got{"crlf", 2, 4, false, false, true}));
  EXPECT_EQ(got[2], (Got{"cr", 3, 2, false, false, true}));
  EXPECT_EQ(got[3], (Got{"last", 4, 4, false, false, false}));
}

TEST(LineReader, EmptyLinesCount) {
  auto got = split("\n\r\n\r\r\nx\n");
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].text, "");
  EXPECT_EQ(got[3].text, "");
  EXPECT_EQ(got[4].text, "x");
  EXPECT_EQ(got[4].number, 5u);
}

TEST(LineReader, EmptyInputHasNoLines) {
  EXPECT_TRUE(split("").empty());
}

TEST(LineReader, ControlBytesAreFlaggedNotLineEnds) {
  std::string s("a\0b\n\x7f\n\tc\n", 9);
  auto got = split(s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].text, std::string("a\0b", 3));
  EXPECT_TRUE(got[0].control);
  EXPECT_TRUE(got[1].control);
  EXPECT_TRUE(got[2].control);
}

TEST(LineReader, OverlongLinesAreCountedNotStored) {
  rb::LineReader::Options opt;
  opt.max_line = 100;
  opt.buffer = 256;  // the 5 MB line passes through a 256-byte buffer
  std::string big(5u << 20, 'x');
  auto got = split(
      "short\n" + big + "\nafter\n" + std::string(101, 'y') + "\n" + std::string(100, 'z') + "\n",
      opt);
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].text, "short");
  EXPECT_TRUE(got[1].overlong);
  EXPECT_EQ(got[1].text, "");
  EXPECT_EQ(got[1].length, big.size());
  EXPECT_EQ(got[2].text, "after");
  EXPECT_EQ(got[2].number, 3u);
  EXPECT_TRUE(got[3].overlong);
  EXPECT_FALSE(got[4].overlong);
  EXPECT_EQ(got[4].text.size(), 100u);
}

TEST(LineReader, CrLfSplitAcrossReads) {
  // With a tiny buffer every byte boundary is also a read boundary.
  rb::LineReader::Options opt;
  opt.max_line = 8;
  opt.buffer = 1;
  auto got = split("ab\r\ncd\r\r\nef\n", opt);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].text, "ab");
  EXPECT_EQ(got[1].text, "cd");
  EXPECT_EQ(got[2].text, "");
  EXPECT_EQ(got[3].text, "ef");
}

TEST(LineReader, MatchesTheReferenceOnRandomBytesWithAnyBufferSize) {
  std::mt19937 rng(42);
  const char alphabet[] = {'a', 'b', ',', '|', '\n', '\r', '\0', '\x7f', '\x01', '9', '\xe6'};
  for (int round = 0; round < 300; ++round) {
    std::string data;
    const size_t len = rng() % 400;
    for (size_t i = 0; i < len; ++i) {
      // Mostly text, sometimes a run that makes an overlong line.
      data.push_back(rng() % 5 ? alphabet[rng() % 4 + (rng() % 3 == 0 ? 4 : 0)]
                               : alphabet[rng() % sizeof alphabet]);
    }
    rb::LineReader::Options opt;
    opt.max_line = 1 + rng() % 40;
    opt.buffer = 1 + rng() % 100;
    ASSERT_EQ(split(data, opt), reference_split(data, opt.max_line))
        << "round " << round << " max_line " << opt.max_line << " buffer " << opt.buffer;
  }
}

TEST(LineReader, ReadsFromAStream) {
  std::istringstream in("one\r\ntwo\n");
  rb::StreamSource src(in);
  rb::LineReader reader(src);
  rb::Line l;
  ASSERT_TRUE(reader.next(l));
  EXPECT_EQ(l.text, "one");
  ASSERT_TRUE(reader.next(l));
  EXPECT_EQ(l.text, "two");
  EXPECT_FALSE(reader.next(l));
  EXPECT_EQ(reader.bytes_consumed(), 9u);
}

// A source whose data arrives in pieces, like a capture file being written.
class GrowingSource : public rb::ByteSource {
 public:
  rb::Result<size_t> read(char* buf, size_t n) override {
    size_t k = std::min(n, data.size() - pos);
    std::copy(data.data() + pos, data.data() + pos + k, buf);
    pos += k;
    return k;
  }
  std::string data;
  size_t pos = 0;
};

TEST(LineReader, FollowModeKeepsThePartialLineUntilItEnds) {
  GrowingSource src;
  rb::LineReader::Options opt;
  opt.follow = true;
  rb::LineReader reader(src, opt);
  rb::Line l;
  src.data = "BEGIN,RTOS";
  EXPECT_FALSE(reader.next(l));
  src.data += "_BENCH_V2\r";
  ASSERT_TRUE(reader.next(l));
  EXPECT_EQ(l.text, "BEGIN,RTOS_BENCH_V2");
  EXPECT_FALSE(reader.next(l));
  src.data += "\nCONFIG,a=1\nEND";  // the LF of CRLF arrives late: not a new line
  ASSERT_TRUE(reader.next(l));
  EXPECT_EQ(l.text, "CONFIG,a=1");
  EXPECT_EQ(l.number, 2u);
  EXPECT_FALSE(reader.next(l));
  ASSERT_TRUE(reader.finish(l));
  EXPECT_EQ(l.text, "END");
  EXPECT_FALSE(l.terminated);
  EXPECT_FALSE(reader.finish(l));
}

class FailingSource : public rb::ByteSource {
 public:
  rb::Result<size_t> read(char* buf, size_t n) override {
    if (calls++ == 0) {
      const char s[] = "ok\npart";
      size_t k = std::min(n, sizeof s - 1);
      std::copy(s, s + k, buf);
      return k;
    }
    return rb::Error{"cannot read capture.log: Input/output error"};
  }
  int calls = 0;
};

TEST(LineReader, AReadErrorStopsAndIsReported) {
  FailingSource src;
  rb::LineReader reader(src);
  rb::Line l;
  ASSERT_TRUE(reader.next(l));
  EXPECT_EQ(l.text, "ok");
  EXPECT_FALSE(reader.next(l));
  ASSERT_FALSE(reader.status().ok());
  EXPECT_NE(reader.status().error().message.find("Input/output error"), std::string::npos);
}

TEST(FindControlByte, FindsTheFirstOneAtEveryOffset) {
  // Every offset of a 100-byte span (the 8-byte steps and the byte
  // loop), each kind of control byte, and fillers at the edges of the range.
  for (char control : {'\n', '\0', '\x1f', '\x7f'}) {
    for (char filler : {'a', ' ', '\x80', '\xff', '\x7e'}) {
      for (size_t at = 0; at < 100; ++at) {
        std::string s(100, filler);
        s[at] = control;
        if (at + 3 < s.size()) s[at + 3] = '\0';
        EXPECT_EQ(rb::find_control_byte(s.data(), s.data() + s.size()), at)
            << static_cast<int>(control) << " " << static_cast<int>(filler);
      }
    }
  }
  std::string none(50, '\xe6');
  EXPECT_EQ(rb::find_control_byte(none.data(), none.data() + none.size()), 50u);
}

}  // namespace
