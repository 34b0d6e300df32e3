#include "util/file_lock.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace rb {
namespace {

std::string read_pid(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

bool process_alive(const std::string& pid) {
  pid_t p = 0;
  auto [end, ec] = std::from_chars(pid.data(), pid.data() + pid.size(), p);
  if (ec != std::errc() || end != pid.data() + pid.size() || p <= 0) return false;
  return ::kill(p, 0) == 0 || errno == EPERM;
}

}  // namespace

Result<FileLock> FileLock::acquire(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(ErrorKind::kCannotWrite, fmt::format("cannot create lock file {}: {}",
                                                           file.string(), std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    // The holder writes its pid right after taking the lock, so the file may
    // still name a former holder, now dead, for a moment: wait (up to 1 s)
    // for a pid that is alive.
    std::string pid;
    for (int i = 0; i < 100 && err == EWOULDBLOCK; ++i) {
      pid = read_pid(fd);
      if (!pid.empty() && process_alive(pid)) break;
      pid.clear();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::close(fd);
    if (err == EWOULDBLOCK) {
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
    release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  release();
}

void FileLock::release() noexcept {
  if (fd_ < 0) return;
  // Released: the file no longer names this process. (After a kill -9 it
  // still does; the one refused next skips a pid that is not alive.)
  [[maybe_unused]] int rc = ::ftruncate(fd_, 0);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace rb
