#include "util/sha256.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

// FIPS 180-2 appendix B / NIST CSRC example values.
TEST(Sha256, FipsVectors) {
  EXPECT_EQ(rb::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(rb::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(rb::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(rb::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(rb::sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmno"
                           "pjklmnopqklmnopqrlmnop"
                           "qrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, PaddingBoundaries) {
  // 55, 56, 63, 64 and 65 bytes straddle the length field and block edges;
  // splitting the input anywhere must not change the digest.
  for (size_t len : {55u, 56u, 63u, 64u, 65u, 119u, 120u, 128u}) {
    std::string s(len, 'q');
    const std::string whole = rb::sha256_hex(s);
    for (size_t cut = 0; cut <= len; cut += 7) {
      rb::Sha256 h;
      h.update(std::string_view(s).substr(0, cut));
      h.update(std::string_view(s).substr(cut));
      ASSERT_EQ(h.hex_digest(), whole) << len << " cut " << cut;
    }
  }
  EXPECT_EQ(rb::sha256_hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256, FileMatchesMemory) {
  const auto path =
      std::filesystem::temp_directory_path() / ("rb_sha256_" + std::to_string(::getpid()));
  std::string data;
  for (int i = 0; i < 300000; ++i) data += static_cast<char>(i * 7);
  {
    std::ofstream f(path, std::ios::binary);
    f << data;
  }
  auto h = rb::sha256_file(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(*h, rb::sha256_hex(data));
}

TEST(Sha256, FileErrorsNameThePath) {
  auto missing = rb::sha256_file("/nonexistent/rtosbench/file.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/rtosbench/file.bin"), std::string::npos);
  EXPECT_NE(missing.error().message.find("No such file"), std::string::npos)
      << missing.error().message;

  auto dir = rb::sha256_file(std::filesystem::temp_directory_path());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("directory"), std::string::npos) << dir.error().message;
}

}  // namespace
