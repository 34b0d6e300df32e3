#pragma once
// `rtosbench verify --image FILE`: whether a capture came from an image.
// The firmware prints in CONFIG values it holds as string constants (the
// build's nonce, the harness hash, board, port, kernel version and commit,
// options, compiler): each one the capture carries must be in the image's
// bytes, as the NUL-terminated string the firmware printed. docs/verify.md,
// "Which image".
#include <filesystem>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rb::verify {

enum class ImageMatch {
  kFromImage,     // every compared value is in the image
  kNotFromImage,  // a compared value is not
  kCannotTell,    // the capture lacks CONFIG nonce or harness: nothing identifies its image
};

struct ImageCheck {
  ImageMatch match = ImageMatch::kCannotTell;
  std::vector<std::string> found;    // KEY=VALUE found in the image
  std::vector<std::string> missing;  // KEY=VALUE the image does not hold
  std::string summary;               // one sentence saying which and why
};

// The CONFIG keys compared, in order; nonce and harness are required.
const std::vector<std::string>& image_keys();

ImageCheck match_image(const std::map<std::string, std::string>& config, std::string_view image);

// Reads the image (an ELF or the flashed .bin); kCannotRead when it cannot be read.
Result<ImageCheck> match_image_file(const std::map<std::string, std::string>& config,
                                    const std::filesystem::path& image);

// 0 from the image, 5 not from it, 6 cannot tell (docs/verify.md).
int exit_code(ImageMatch m);
const char* to_string(ImageMatch m);  // "from_image", "not_from_image", "cannot_tell"
nlohmann::json to_json(const ImageCheck& c);

}  // namespace rb::verify
