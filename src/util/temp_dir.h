#pragma once
// Temporary folders that name their owner: <tmp>/<prefix>-<pid>-XXXXXX. A
// process killed before it could remove its folder leaves it behind; the
// next start removes every such folder whose owner is gone.
#include <filesystem>
#include <string>

#include "util/result.h"

namespace rb {

// Creates <temp_directory_path>/<prefix>-<this pid>-XXXXXX (mode 0700).
Result<std::filesystem::path> make_owned_temp_dir(const std::string& prefix);

// Removes the folders <prefix>-<pid>-* in `parent` (default: the system's
// temporary directory) whose pid is not a running process. Returns how many.
int remove_orphaned_temp_dirs(const std::string& prefix, std::filesystem::path parent = {});

}  // namespace rb
