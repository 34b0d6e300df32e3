#include "util/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {

// Bit-at-a-time CRC-32C straight from the definition (reflected polynomial
// 0x82F63B78), independent of the library.
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
  EXPECT_EQ(reference_crc32c("123456789"), 0xE3069283u);
}

TEST(Crc32c, EmptyInputIsZero) {
  EXPECT_EQ(rb::crc32c(""), 0u);
}

TEST(Crc32c, KnownVectorsFromRfc3720) {
  // iSCSI (RFC 3720 B.4): 32 bytes of zeros, of 0xFF, and ascending bytes.
  EXPECT_EQ(rb::crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(rb::crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string asc;
  for (int i = 0; i < 32; ++i) asc.push_back(static_cast<char>(i));
  EXPECT_EQ(rb::crc32c(asc), 0x46DD794Eu);
}

// Every length up to 700 bytes, at four alignments.
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
}

}  // namespace
