#include "util/file_lock.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace rb {

Result<FileLock> FileLock::acquire(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(ErrorKind::kCannotWrite, fmt::format("cannot create lock file {}: {}",
                                                           file.string(), std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {};
    ssize_t n = 0;
    // The holder writes its pid right after taking the lock: give it a moment.
    for (int i = 0; i < 50 && err == EWOULDBLOCK && (n = ::pread(fd, buf, sizeof buf - 1, 0)) <= 0;
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::close(fd);
    if (err == EWOULDBLOCK) {
      std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      return make_error(ErrorKind::kUnavailable,
                        fmt::format("{} is locked by process {}", file.string(),
                                    pid.empty() ? "(unknown)" : pid));
    }
    return make_error(ErrorKind::kCannotWrite,
                      fmt::format("cannot lock {}: {}", file.string(), std::strerror(err)));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    int err = errno;
    ::close(fd);
    return make_error(ErrorKind::kStore, fmt::format("cannot write lock file {}: {}", file.string(),
                                                     std::strerror(err)));
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace rb
