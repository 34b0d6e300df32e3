#pragma once
// Writing a whole file so that readers see either the old content or the new,
// never a half-written file (an interrupted run must not leave a truncated
// JSON report behind).
#include <filesystem>
#include <string_view>

#include "util/result.h"

namespace rb {

// Writes `data` to a new temporary file in the directory of `path`, flushes it
// to disk and renames it over `path`. On any failure the temporary file is
// removed, `path` is left as it was, and the error names the path and the
// system's reason. The new file gets mode 0666 minus the umask.
Status write_file_atomic(const std::filesystem::path& path, std::string_view data);

}  // namespace rb
