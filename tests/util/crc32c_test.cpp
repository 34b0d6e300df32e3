#include "util/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {

// Bit-at-a-time CRC-32C straight from the definition (reflected polynomial
// 0x82F63B78), independent of the library's table and SSE4.2 paths.
uint32_t reference_crc32c(std::string_view s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
  }
  return ~c;
}

TEST(Crc32c, CheckValueFromTheStandard) {
  EXPECT_EQ(rb::crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(rb::crc32c_extend_table(0, "123456789"), 0xE3069283u);
  EXPECT_EQ(reference_crc32c("123456789"), 0xE3069283u);
}

TEST(Crc32c, EmptyInputIsZero) {
  EXPECT_EQ(rb::crc32c(""), 0u);
  EXPECT_EQ(rb::crc32c_extend(0x12345678u, ""), 0x12345678u);
}

TEST(Crc32c, KnownVectorsFromRfc3720) {
  // iSCSI (RFC 3720 B.4): 32 bytes of zeros, of 0xFF, and ascending bytes.
  EXPECT_EQ(rb::crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(rb::crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string asc;
  for (int i = 0; i < 32; ++i) asc.push_back(static_cast<char>(i));
  EXPECT_EQ(rb::crc32c(asc), 0x46DD794Eu);
}

TEST(Crc32c, HardwareTableAndReferenceAgreeOnEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string buf(300, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  for (size_t off = 0; off < 9; ++off) {
    for (size_t len = 0; len + off <= buf.size(); len += (len < 40 ? 1 : 37)) {
      std::string_view s(buf.data() + off, len);
      const uint32_t want = reference_crc32c(s);
      ASSERT_EQ(rb::crc32c(s), want) << "off " << off << " len " << len;
      ASSERT_EQ(rb::crc32c_extend_table(0, s), want) << "off " << off << " len " << len;
    }
  }
}

// Every length up to 700 bytes, at four alignments (the hardware path
// takes 8, 4 and 1 bytes at a time).
TEST(Crc32c, EveryLengthUpTo700MatchesTheReference) {
  std::mt19937 rng(11);
  std::string buf(704, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  for (size_t off = 0; off < 4; ++off) {
    for (size_t len = 0; len + off <= buf.size() && len <= 700; ++len) {
      std::string_view s(buf.data() + off, len);
      ASSERT_EQ(rb::crc32c(s), reference_crc32c(s)) << "off " << off << " len " << len;
    }
  }
  // And from a running state, as crc32c_extend continues a CRC.
  for (size_t cut : {0u, 1u, 24u, 100u, 333u}) {
    const std::string_view a(buf.data(), cut), b(buf.data() + cut, 700 - cut);
    ASSERT_EQ(rb::crc32c_extend(rb::crc32c(a), b),
              reference_crc32c(std::string_view(buf.data(), 700)))
        << cut;
  }
}

TEST(Crc32c, IncrementalEqualsOneShot) {
  const std::string s = "RAW,irq_entry,0,26,26,27,26,26,26,45,26|3";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    rb::Crc32c acc;
    acc.update(std::string_view(s).substr(0, cut));
    acc.update(std::string_view(s).substr(cut));
    ASSERT_EQ(acc.value(), rb::crc32c(s)) << cut;
  }
}

TEST(Crc32c, ReportsItsImplementation) {
  const std::string impl = rb::crc32c_implementation();
  EXPECT_TRUE(impl == "sse4.2" || impl == "table") << impl;
}

}  // namespace
