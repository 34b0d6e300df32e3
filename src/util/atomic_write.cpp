#include "util/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

namespace rb {
namespace {

Error sys_error(const std::string& what, const std::filesystem::path& path, int err) {
  return make_error(ErrorKind::kStore,
                    "cannot write " + path.string() + ": " + what + ": " + std::strerror(err));
}

}  // namespace

Status write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  if (path.empty() || !path.has_filename()) {
    return make_error(ErrorKind::kInternal,
                      "cannot write '" + path.string() + "': not a file name");
  }
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  static std::atomic<unsigned> counter{0};
  const auto stamp =
      static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());

  std::filesystem::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = dir / ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                 std::to_string(counter++) + "-" + std::to_string(stamp % 1000000007ull));
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return sys_error("cannot create temporary file " + tmp.string(), path, errno);
  }
  if (fd < 0) return sys_error("cannot create a unique temporary file", path, EEXIST);

  auto fail = [&](const std::string& what, int err) -> Status {
    ::close(fd);
    ::unlink(tmp.c_str());
    return sys_error(what, path, err);
  };
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      return fail("write failed", errno);
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0) return fail("fsync failed", errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return sys_error("close failed", path, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return sys_error("rename from " + tmp.string() + " failed", path, err);
  }
  // Make the rename itself durable; a failure here does not undo the write.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

}  // namespace rb
