#include "util/decimal.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "util/utf8.h"

namespace {

TEST(ParseU64, AcceptsOnlyPlainDigitsThatFit) {
  EXPECT_EQ(rb::parse_u64("0"), 0u);
  EXPECT_EQ(rb::parse_u64("007"), 7u);
  EXPECT_EQ(rb::parse_u64("250000000"), 250000000u);
  EXPECT_EQ(rb::parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(rb::parse_u64("18446744073709551616"), std::nullopt);
  EXPECT_EQ(rb::parse_u64("99999999999999999999"), std::nullopt);
  EXPECT_EQ(rb::parse_u64("000000000000000000001"),
            std::nullopt);  // 21 chars: refused, not misread
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.5", "１"}) {
    EXPECT_EQ(rb::parse_u64(bad), std::nullopt) << bad;
  }
}

TEST(DecimalValue8, MatchesDigitByDigitForEveryLength) {
  std::mt19937 rng(1);
  for (int i = 0; i < 200000; ++i) {
    char buf[8];
    const size_t len = 1 + rng() % 8;
    uint64_t want = 0;
    for (size_t k = 0; k < 8; ++k) {
      buf[k] = k < len ? static_cast<char>('0' + rng() % 10) : "|,\xff\0"[rng() % 4];
      if (k < len) want = want * 10 + static_cast<uint64_t>(buf[k] - '0');
    }
    ASSERT_EQ(rb::decimal_value8(buf, len), want) << std::string(buf, len);
  }
  EXPECT_EQ(rb::decimal_value8("99999999", 8), 99999999u);
  EXPECT_EQ(rb::decimal_value8("9999|abc", 4), 9999u);
  EXPECT_EQ(rb::decimal_value8("0|......", 1), 0u);
}

TEST(Hex8, LowercaseOnlyExactlyEightDigits) {
  EXPECT_EQ(rb::parse_hex8_lower("e3069283"), 0xE3069283u);
  EXPECT_EQ(rb::parse_hex8_lower("00000000"), 0u);
  EXPECT_EQ(rb::parse_hex8_lower("E3069283"), std::nullopt);
  EXPECT_EQ(rb::parse_hex8_lower("e306928"), std::nullopt);
  EXPECT_EQ(rb::parse_hex8_lower("e30692830"), std::nullopt);
  EXPECT_EQ(rb::parse_hex8_lower("e306928g"), std::nullopt);
  EXPECT_EQ(rb::parse_hex8_lower("0123456`"), std::nullopt);
  EXPECT_EQ(rb::parse_hex8_lower("/1234567"), std::nullopt);
  EXPECT_EQ(rb::parse_hex8_lower("ffffffff"), 0xFFFFFFFFu);
  EXPECT_EQ(rb::parse_hex8_lower("89abcdef"), 0x89ABCDEFu);
  for (uint32_t v : {0u, 1u, 0x10u, 0xA0B0C0D0u, 0x12345678u}) {
    char buf[8];
    rb::format_hex8_lower(v, buf);
    EXPECT_EQ(rb::parse_hex8_lower(std::string_view(buf, 8)), v);
  }
  char buf[8];
  rb::format_hex8_lower(0x0a0b0c0du, buf);
  EXPECT_EQ(std::string(buf, 8), "0a0b0c0d");
}

TEST(ToDecimal, Handles128Bits) {
  EXPECT_EQ(rb::to_decimal(0), "0");
  unsigned __int128 big = ~static_cast<unsigned __int128>(0);
  EXPECT_EQ(rb::to_decimal(big), "340282366920938463463374607431768211455");
}

TEST(ValidUtf8, KeepsValidTextAndReplacesBrokenBytes) {
  EXPECT_EQ(rb::valid_utf8("plain ascii"), "plain ascii");
  EXPECT_EQ(rb::valid_utf8("时间片 µs"), "时间片 µs");
  EXPECT_EQ(rb::valid_utf8("a\xff"
                           "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(rb::valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(rb::valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(rb::valid_utf8("\xE6\x97"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut sequence
  EXPECT_EQ(rb::valid_utf8("\xF4\x90\x80\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // > U+10FFFF
}

}  // namespace
