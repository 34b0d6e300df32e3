#include "util/temp_dir.h"

#include <fmt/core.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace rb {

Result<std::filesystem::path> make_owned_temp_dir(const std::string& prefix) {
  std::error_code ec;
  auto base = std::filesystem::temp_directory_path(ec);
  if (ec) return make_error(ErrorKind::kCannotWrite, "no temporary directory: " + ec.message());
  std::string tmpl = (base / fmt::format("{}-{}-XXXXXX", prefix, ::getpid())).string();
  if (!::mkdtemp(tmpl.data())) {
    return make_error(ErrorKind::kCannotWrite,
                      fmt::format("mkdtemp {}: {}", tmpl, std::strerror(errno)));
  }
  return std::filesystem::path(tmpl);
}

int remove_orphaned_temp_dirs(const std::string& prefix, std::filesystem::path parent) {
  std::error_code ec;
  if (parent.empty()) parent = std::filesystem::temp_directory_path(ec);
  if (ec) return 0;
  const std::string head = prefix + "-";
  int removed = 0;
  for (auto it = std::filesystem::directory_iterator(parent, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(head, 0) != 0) continue;
    const char* first = name.data() + head.size();
    const char* last = name.data() + name.size();
    long pid = 0;
    auto [end, err] = std::from_chars(first, last, pid);
    if (err != std::errc() || end == first || end == last || *end != '-' || pid <= 0) continue;
    if (pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;  // alive (or not ours to judge)
    std::error_code rec;
    if (std::filesystem::is_directory(it->symlink_status(rec)) &&
        std::filesystem::remove_all(it->path(), rec) > 0) {
      ++removed;
    }
  }
  return removed;
}

}  // namespace rb
