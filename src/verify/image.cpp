#include "verify/image.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace rb::verify {

const std::vector<std::string>& image_keys() {
  static const std::vector<std::string> keys{
      "nonce",         "harness",      "board", "port",  "kernel",  "kernel_version",
      "kernel_commit", "port_variant", "opt",   "tests", "compiler"};
  return keys;
}

ImageCheck match_image(const std::map<std::string, std::string>& config, std::string_view image) {
  ImageCheck c;
  for (const char* required : {"nonce", "harness"}) {
    if (!config.count(required)) {
      c.match = ImageMatch::kCannotTell;
      c.summary = fmt::format(
          "cannot tell: the capture has no CONFIG {} (cut before CONFIG, or an older firmware)",
          required);
      return c;
    }
  }
  for (const auto& key : image_keys()) {
    auto it = config.find(key);
    if (it == config.end()) continue;
    // The firmware prints the constant up to its NUL: value + '\0' is in the
    // image (a preceding NUL is not sure: the linker merges string tails).
    std::string needle = it->second;
    needle.push_back('\0');
    auto& list = image.find(needle) == std::string_view::npos ? c.missing : c.found;
    list.push_back(key + "=" + it->second);
  }
  if (c.missing.empty()) {
    c.match = ImageMatch::kFromImage;
    c.summary = fmt::format("from this image: {} in it", fmt::join(c.found, ", "));
  } else {
    c.match = ImageMatch::kNotFromImage;
    c.summary =
        fmt::format("not from this image: it does not hold CONFIG {}", fmt::join(c.missing, ", "));
  }
  return c;
}

Result<ImageCheck> match_image_file(const std::map<std::string, std::string>& config,
                                    const std::filesystem::path& image) {
  std::error_code ec;
  if (std::filesystem::is_directory(image, ec))
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("--image {}: is a directory, not an image", image.string()));
  std::ifstream in(image, std::ios::binary);
  if (!in)
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("--image {}: cannot be read", image.string()));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("--image {}: read error", image.string()));
  return match_image(config, bytes);
}

int exit_code(ImageMatch m) {
  constexpr int kCodes[] = {0, 5, 6};
  return kCodes[static_cast<size_t>(m)];
}

const char* to_string(ImageMatch m) {
  constexpr const char* kNames[] = {"from_image", "not_from_image", "cannot_tell"};
  return kNames[static_cast<size_t>(m)];
}

nlohmann::json to_json(const ImageCheck& c) {
  return nlohmann::json{{"match", to_string(c.match)},
                        {"found", c.found},
                        {"missing", c.missing},
                        {"summary", c.summary}};
}

}  // namespace rb::verify
