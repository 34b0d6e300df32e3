#include "verify/image.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace rb::verify {
namespace {

using namespace std::string_literals;

// The strings an image holds, as the linker lays them out: NUL-terminated,
// one string's tail possibly merged into another's.
const std::string kImage =
    "\x7f"
    "ELF\x01\x02junk\0"
    "5eed0105\0"
    "0123456789abcdef\0"
    "qemu-netduinoplus2\0bare\0"
    "kernel_version n/a\0"  // "n/a" merged into a longer string's tail
    "-O2 -g0\0"s;

std::map<std::string, std::string> config() {
  return {{"nonce", "5eed0105"}, {"harness", "0123456789abcdef"}, {"board", "qemu-netduinoplus2"},
          {"port", "bare"},      {"kernel_version", "n/a"},       {"opt", "-O2 -g0"},
          {"core", "168000000"}};  // not a constant of the image: not compared
}

TEST(ImageMatch, EveryConstantInTheImageIsAMatch) {
  auto c = match_image(config(), kImage);
  EXPECT_EQ(c.match, ImageMatch::kFromImage) << c.summary;
  EXPECT_EQ(c.found.size(), 6u);
  EXPECT_TRUE(c.missing.empty());
  EXPECT_EQ(exit_code(c.match), 0);
}

TEST(ImageMatch, AnotherNonceIsAnotherImage) {
  auto cfg = config();
  cfg["nonce"] = "5eed0106";
  auto c = match_image(cfg, kImage);
  EXPECT_EQ(c.match, ImageMatch::kNotFromImage);
  ASSERT_EQ(c.missing.size(), 1u);
  EXPECT_EQ(c.missing[0], "nonce=5eed0106");
  EXPECT_NE(c.summary.find("nonce=5eed0106"), std::string::npos) << c.summary;
  EXPECT_EQ(exit_code(c.match), 5);
}

TEST(ImageMatch, APrefixOfAConstantIsNotTheConstant) {
  auto cfg = config();
  cfg["port"] = "ba";  // "bare\0" holds "ba" but not "ba\0"
  EXPECT_EQ(match_image(cfg, kImage).match, ImageMatch::kNotFromImage);
}

TEST(ImageMatch, WithoutNonceOrHarnessItCannotTell) {
  for (const char* key : {"nonce", "harness"}) {
    auto cfg = config();
    cfg.erase(key);
    auto c = match_image(cfg, kImage);
    EXPECT_EQ(c.match, ImageMatch::kCannotTell) << key;
    EXPECT_NE(c.summary.find(key), std::string::npos) << c.summary;
    EXPECT_EQ(exit_code(c.match), 6);
  }
}

TEST(ImageMatch, FileErrorsAreCannotRead) {
  auto missing = match_image_file(config(), "/nonexistent/rtosbench-fw.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kCannotRead);
  auto dir = match_image_file(config(), std::filesystem::temp_directory_path());
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().kind, ErrorKind::kCannotRead);

  auto p = std::filesystem::temp_directory_path() / ("rb-image-" + std::to_string(::getpid()));
  std::ofstream(p, std::ios::binary) << kImage;
  auto ok = match_image_file(config(), p);
  std::filesystem::remove(p);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->match, ImageMatch::kFromImage);
  EXPECT_EQ(to_json(*ok)["match"], "from_image");
}

}  // namespace
}  // namespace rb::verify
