#pragma once
// QEMU's human monitor over a Unix socket: send one command, read up to the
// next "(qemu) " prompt.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace rb::probe {

class QemuMonitor {
 public:
  QemuMonitor() = default;
  ~QemuMonitor();
  QemuMonitor(const QemuMonitor&) = delete;
  QemuMonitor& operator=(const QemuMonitor&) = delete;

  // Connects (retrying until `timeout`: QEMU creates the socket while it
  // starts) and reads the banner up to the first prompt.
  Status connect(const std::filesystem::path& socket, std::chrono::milliseconds timeout);
  // Sends `command` and returns the text QEMU printed before the next
  // prompt, terminal escapes removed. `quit` returns at hang-up.
  Result<std::string> command(const std::string& command, std::chrono::milliseconds timeout);
  // Sends without waiting for an answer (for `cont`, whose prompt comes back
  // at once anyway, and for `quit`).
  Status send(const std::string& command);
  bool connected() const { return fd_ >= 0; }

 private:
  Result<std::string> read_prompt(std::chrono::milliseconds timeout);
  int fd_ = -1;
};

// Connects to a Unix socket that QEMU creates while it starts, retrying
// until `timeout` or an interruption; `gone` returns the error that ends the
// wait early (QEMU exited), else nullopt. The connected descriptor.
Result<int> connect_unix_socket(const std::filesystem::path& path, const std::string& what,
                                std::chrono::milliseconds timeout,
                                const std::function<std::optional<Error>()>& gone);

// Parses `xp /Nwx ADDR` output ("0000000008000000: 0x20020000 0x08000431 ...")
// into the words it shows, in address order.
std::vector<uint32_t> parse_xp_words(const std::string& text);

}  // namespace rb::probe
