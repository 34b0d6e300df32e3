#include "probe/qemu_monitor.h"

#include <fmt/core.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <regex>
#include <thread>
#include <vector>

#include "util/process.h"

namespace rb::probe {

QemuMonitor::~QemuMonitor() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int> connect_unix_socket(const std::filesystem::path& path, const std::string& what,
                                std::chrono::milliseconds timeout,
                                const std::function<std::optional<Error>()>& gone) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof addr.sun_path) {
    return Error{fmt::format("{} path too long: {}", what, path.string())};
  }
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Error{fmt::format("socket: {}", std::strerror(errno))};
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    std::string last_error = std::strerror(errno);
    ::close(fd);
    if (auto e = gone()) return *e;
    if (std::chrono::steady_clock::now() >= deadline || interrupt_requested()) {
      return Error{fmt::format("cannot connect to {} {} within {} ms: {}", what, path.string(),
                               timeout.count(), last_error)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Status QemuMonitor::connect(const std::filesystem::path& socket_path,
                            std::chrono::milliseconds timeout) {
  auto fd = connect_unix_socket(socket_path, "the QEMU monitor", timeout,
                                [] { return std::optional<Error>(); });
  if (!fd) return fd.error();
  fd_ = *fd;
  auto banner = read_prompt(timeout);
  if (!banner.ok()) return banner.error();
  return {};
}

Result<std::string> QemuMonitor::read_prompt(std::chrono::milliseconds timeout) {
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (text.find("(qemu) ") == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return Error{fmt::format("QEMU monitor did not answer within {} ms", timeout.count())};
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{"QEMU monitor closed the connection"};
    text.append(buf, static_cast<size_t>(n));
  }
  text.erase(text.find("(qemu) "));
  // Drop the line editor's echo and escape sequences.
  static const std::regex kEscape("\x1b\\[[0-9;]*[A-Za-z]");
  return std::regex_replace(text, kEscape, "");
}

Status QemuMonitor::send(const std::string& command) {
  if (fd_ < 0) return Error{"QEMU monitor not connected"};
  std::string line = command + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{
          fmt::format("QEMU monitor: cannot send '{}': {}", command, std::strerror(errno))};
    }
    off += static_cast<size_t>(n);
  }
  return {};
}

Result<std::string> QemuMonitor::command(const std::string& command,
                                         std::chrono::milliseconds timeout) {
  if (auto s = send(command); !s.ok()) return s.error();
  return read_prompt(timeout);
}

std::vector<uint32_t> parse_xp_words(const std::string& text) {
  std::vector<uint32_t> words;
  static const std::regex kLine("([0-9a-fA-F]{8,16}):((?: +0x[0-9a-fA-F]{8})+)");
  static const std::regex kWord("0x([0-9a-fA-F]{8})");
  for (std::sregex_iterator it(text.begin(), text.end(), kLine), end; it != end; ++it) {
    std::string ws = (*it)[2];
    for (std::sregex_iterator w(ws.begin(), ws.end(), kWord); w != end; ++w) {
      words.push_back(static_cast<uint32_t>(std::stoul((*w)[1], nullptr, 16)));
    }
  }
  return words;
}

}  // namespace rb::probe
