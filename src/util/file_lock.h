#pragma once
// An exclusive lock held through an open file (flock), released when the
// holder closes it or dies, however it dies. The file holds the holder's pid
// so the one refused can say who has it.
#include <filesystem>

#include "util/result.h"

namespace rb {

class FileLock {
 public:
  // Takes the lock on `file` (created when missing) without waiting. Error
  // kUnavailable "... is locked by process N" when another process holds it;
  // kCannotWrite when the file cannot be created.
  static Result<FileLock> acquire(const std::filesystem::path& file);
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  void release() noexcept;
  int fd_ = -1;
};

}  // namespace rb
