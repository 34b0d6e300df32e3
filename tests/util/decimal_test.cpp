#include "util/decimal.h"

#include <gtest/gtest.h>

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

TEST(Hex8, FormatsEightLowercaseDigits) {
  char buf[8];
  rb::format_hex8_lower(0x0a0b0c0du, buf);
  EXPECT_EQ(std::string(buf, 8), "0a0b0c0d");
  rb::format_hex8_lower(0xE3069283u, buf);
  EXPECT_EQ(std::string(buf, 8), "e3069283");
  rb::format_hex8_lower(0u, buf);
  EXPECT_EQ(std::string(buf, 8), "00000000");
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
