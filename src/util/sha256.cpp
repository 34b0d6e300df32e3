#include "util/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>
#include <vector>

#include "util/posix_file.h"

namespace rb {

struct Sha256::Context {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  // Only allocation can fail here; a process that cannot hash cannot run.
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: SHA-256 is not available");
  }
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view data) {
  EVP_DigestUpdate(ctx_->md.get(), data.data(), data.size());
}

std::string Sha256::hex_digest() {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx_->md.get(), d, &n);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[d[i] >> 4];
    out += kHex[d[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.hex_digest();
}

Result<std::string> sha256_file(const std::filesystem::path& path) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  Sha256 h;
  std::vector<char> buf(1 << 20);
  for (;;) {
    auto n = file->read(buf.data(), buf.size());
    if (!n) return n.error();
    if (*n == 0) break;
    h.update(std::string_view(buf.data(), *n));
  }
  return h.hex_digest();
}

}  // namespace rb
