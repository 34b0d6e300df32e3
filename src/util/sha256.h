#pragma once
// SHA-256 by OpenSSL's libcrypto (EVP): fingerprints of captured logs,
// firmware images, build manifests and harness sources.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace rb {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  // Finishes the hash as 64 lowercase hex digits; the object must not be
  // updated afterwards.
  std::string hex_digest();

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

// SHA-256 of a file's bytes as 64 lowercase hex digits. Error (naming the path
// and the reason) when the file cannot be opened or read, or is a directory.
Result<std::string> sha256_file(const std::filesystem::path& path);

}  // namespace rb
