#pragma once
// SHA-256 (FIPS 180-4), written here so the tool needs no crypto library. Used
// to fingerprint captured logs, firmware images and harness sources.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.h"

namespace rb {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  // Finishes the hash; the object must not be updated afterwards.
  std::array<uint8_t, 32> digest();
  // digest() as 64 lowercase hex digits.
  std::string hex_digest();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

// SHA-256 of a file's bytes as 64 lowercase hex digits. Error (naming the path
// and the reason) when the file cannot be opened or read, or is a directory.
Result<std::string> sha256_file(const std::filesystem::path& path);

}  // namespace rb
