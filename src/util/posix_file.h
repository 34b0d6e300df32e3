#pragma once
// A file opened for reading through POSIX calls, with errors that name the
// path and the reason (missing, a directory, no permission) as values.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace rb {

class InputFile {
 public:
  // Error when the path does not exist, is a directory, or cannot be opened
  // for reading; the message names the path and the system's reason.
  static Result<InputFile> open(const std::filesystem::path& path);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  // Reads up to `n` bytes; 0 means end of file (for now, on a growing file).
  // Retries on EINTR. Error names the path and the reason.
  Result<size_t> read(char* buf, size_t n);

  const std::filesystem::path& path() const { return path_; }

 private:
  InputFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

// `root` / `rel` when that is a regular file inside `root`: `rel` is
// relative, has no `..` (nor `.`) part, and no part of it is a symbolic link
// (a file a foreign run directory names cannot lead outside it, or to a
// device or a FIFO). Error kCannotRead when the file does not exist; else
// kBadInput, the message naming `rel` and why.
Result<std::filesystem::path> regular_file_inside(const std::filesystem::path& root,
                                                  const std::filesystem::path& rel);

// The whole file at `path`, bytes as they are; nullopt when it cannot be
// opened or read (the callers say what was missing).
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// Appends `text` to the file at `path` (created, mode 0644, when missing),
// never through a symbolic link (O_NOFOLLOW): a run's logs stay inside its
// directory. Error kCannotWrite names the path and the reason.
Status append_to_file(const std::filesystem::path& path, std::string_view text);

}  // namespace rb
