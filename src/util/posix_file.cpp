#include "util/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rb {

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return s.str();
}

Result<InputFile> InputFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const std::string why =
        fd >= 0 && S_ISDIR(st.st_mode) ? "it is a directory, not a file" : std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return make_error(ErrorKind::kCannotRead, "cannot read " + path.string() + ": " + why);
  }
#ifdef POSIX_FADV_SEQUENTIAL
  if (S_ISREG(st.st_mode)) (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return InputFile(fd, path);
}

InputFile::InputFile(InputFile&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> InputFile::read(char* buf, size_t n) {
  for (;;) {
    ssize_t r = ::read(fd_, buf, n);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno == EINTR) continue;
    int err = errno;
    return make_error(ErrorKind::kCannotRead,
                      "cannot read " + path_.string() + ": " + std::strerror(err));
  }
}

Result<std::filesystem::path> regular_file_inside(const std::filesystem::path& root,
                                                  const std::filesystem::path& rel) {
  namespace fs = std::filesystem;
  auto bad = [&](const std::string& why) -> Error {
    return make_error(ErrorKind::kBadInput, "'" + rel.string() + "' " + why);
  };
  if (rel.empty()) return bad("is no file name");
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    return bad("is an absolute path, not one inside " + root.string());
  fs::path at = root;
  size_t parts = 0;
  for (const auto& part : rel) {
    if (part.empty()) continue;  // "a//b", a trailing '/'
    if (part == ".." || part == ".") return bad("has a '" + part.string() + "' part");
    at /= part;
    ++parts;
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(at, ec);
    if (st.type() == fs::file_type::not_found) {
      return make_error(ErrorKind::kCannotRead, "'" + rel.string() + "' does not exist");
    }
    if (ec)
      return make_error(ErrorKind::kCannotRead, "cannot read " + at.string() + ": " + ec.message());
    if (fs::is_symlink(st)) return bad("leads through a symbolic link (" + at.string() + ")");
  }
  if (parts == 0) return bad("is no file name");
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(at, ec)))
    return bad("is not a regular file (a folder, a device or a FIFO)");
  return at;
}

Status append_to_file(const std::filesystem::path& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    return make_error(
        ErrorKind::kCannotWrite,
        "cannot write " + path.string() + ": " +
            (err == ELOOP ? std::string("it is a symbolic link") : std::strerror(err)));
  }
  while (!text.empty()) {
    ssize_t w = ::write(fd, text.data(), text.size());
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int err = errno;
      ::close(fd);
      return make_error(ErrorKind::kCannotWrite,
                        "cannot write " + path.string() + ": " + std::strerror(err));
    }
    text.remove_prefix(static_cast<size_t>(w));
  }
  ::close(fd);
  return {};
}

}  // namespace rb
