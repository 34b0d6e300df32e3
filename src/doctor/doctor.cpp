#include "doctor/doctor.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "build/toolchain.h"
#include "matrix/expand.h"
#include "matrix/load.h"
#include "probe/flasher.h"

namespace rb::doctor {

namespace {

using L = Finding::Level;

std::string read_first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r'))
    line.pop_back();
  return line;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int read_int(const std::filesystem::path& p) {
  try {
    return std::stoi(read_first_line(p));
  } catch (...) {
    return 0;
  }
}

// The kind of debug probe a USB VID:PID is ("" when none): the ST-LINK PIDs
// of OpenOCD's interface/stlink.cfg, DAPLink, SEGGER.
std::string probe_kind(const std::string& vid, const std::string& pid) {
  static const std::set<std::string> kStlink{"3744", "3748", "374b", "374d", "374e",
                                             "374f", "3752", "3753", "3754"};
  if (vid == "0483" && kStlink.count(pid)) return "ST-LINK";
  if (vid == "0d28" && pid == "0204") return "CMSIS-DAP";
  if (vid == "1366") return "J-Link";
  return "";
}

void check_tool(std::vector<Finding>& f, ProcessRunner& processes, const std::string& tool,
                std::vector<std::string> version_args, const std::string& package, bool required,
                const std::string& why) {
  std::vector<std::string> argv{tool};
  argv.insert(argv.end(), version_args.begin(), version_args.end());
  auto r = probe::run_tool(processes, argv, std::chrono::seconds(20));
  if (!r.started) {
    f.push_back(Finding{required ? L::kError : L::kInfo, tool,
                        "not found in PATH" + (why.empty() ? "" : " (" + why + ")"),
                        "install the Debian package " + package});
    return;
  }
  f.push_back(Finding{L::kOk, tool, probe::first_line(r.output) + probe::where(tool), ""});
}

// Every flash tool, asked through its flasher: required when the bench uses it.
void check_flash_tools(std::vector<Finding>& f, ProcessRunner& processes,
                       const matrix::Bench* bench) {
  for (const auto& reg : probe::registered_flashers()) {
    auto users =
        bench ? probe::boards_using(*bench, reg.name) : std::vector<const matrix::BoardInstance*>{};
    auto found = reg.make(processes)->check(reg.tool, users, !users.empty());
    f.insert(f.end(), found.begin(), found.end());
  }
}

}  // namespace

std::vector<UsbProbe> find_usb_probes(const std::filesystem::path& sys_root) {
  std::vector<UsbProbe> out;
  std::error_code ec;
  auto dir = sys_root / "sys" / "bus" / "usb" / "devices";
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string vid = read_first_line(it->path() / "idVendor");
    std::string pid = read_first_line(it->path() / "idProduct");
    if (vid.empty()) continue;
    std::string kind = probe_kind(vid, pid);
    if (kind.empty()) continue;
    UsbProbe p{kind, vid + ":" + pid, read_first_line(it->path() / "serial"),
               it->path().filename().string()};
    p.busnum = read_int(it->path() / "busnum");
    p.devnum = read_int(it->path() / "devnum");
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(),
            [](const UsbProbe& a, const UsbProbe& b) { return a.sysfs < b.sysfs; });
  return out;
}

StlinkSerial stlink_serial_forms(const std::string& sysfs_serial, bool v2) {
  StlinkSerial s;
  s.raw = sysfs_serial;
  bool all_hex = !sysfs_serial.empty() &&
                 std::all_of(sysfs_serial.begin(), sysfs_serial.end(),
                             [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  if (all_hex && sysfs_serial.size() == 24) {
    for (char c : sysfs_serial)
      s.hex += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }
  // The kernel turned each UTF-16 code unit (one raw byte here) into UTF-8:
  // one byte below 0x80, two from 0x80 to 0xFF.
  std::vector<unsigned> bytes;
  for (size_t i = 0; i < sysfs_serial.size();) {
    auto c = static_cast<unsigned char>(sysfs_serial[i]);
    if (c < 0x80) {
      bytes.push_back(c);
      i += 1;
    } else if ((c & 0xE0) == 0xC0 && i + 1 < sysfs_serial.size() &&
               (static_cast<unsigned char>(sysfs_serial[i + 1]) & 0xC0) == 0x80) {
      unsigned v = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(sysfs_serial[i + 1]) & 0x3Fu);
      if (v > 0xFF) return s;
      bytes.push_back(v);
      i += 2;
    } else {
      return s;  // not one byte per code unit: no hex form
    }
  }
  if (bytes.empty() || bytes.size() > 12 || (!v2 && bytes.size() != 12)) return s;
  s.binary = true;
  s.truncated = bytes.size() < 12;
  for (unsigned b : bytes) s.hex += fmt::format("{:02X}", b);
  return s;
}

SerialMatch match_probe_serial(const std::string& wanted, const UsbProbe& probe) {
  if (wanted.empty()) return SerialMatch::kNone;
  if (wanted == probe.serial) return SerialMatch::kExact;
  if (probe.kind != "ST-LINK") return SerialMatch::kNone;
  auto forms = stlink_serial_forms(probe.serial, probe.vid_pid == "0483:3748");
  if (forms.hex.empty()) return SerialMatch::kNone;
  std::string upper;
  for (char c : wanted) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (forms.truncated) {
    return upper.size() == 24 && upper.compare(0, forms.hex.size(), forms.hex) == 0
               ? SerialMatch::kHexPrefix
               : SerialMatch::kNone;
  }
  if (wanted == forms.hex) return SerialMatch::kHex;
  if (upper == forms.hex) return SerialMatch::kHexCase;
  return SerialMatch::kNone;
}

std::string udev_rule(const std::string& vid_pid) {
  auto colon = vid_pid.find(':');
  return fmt::format(
      R"(SUBSYSTEM=="usb", ATTRS{{idVendor}}=="{}", ATTRS{{idProduct}}=="{}", MODE="660", GROUP="plugdev", TAG+="uaccess")",
      vid_pid.substr(0, colon), colon == std::string::npos ? "" : vid_pid.substr(colon + 1));
}

std::vector<PortHolder> port_holders(const std::filesystem::path& device,
                                     const std::filesystem::path& proc_root) {
  std::vector<PortHolder> out;
  std::error_code ec;
  auto target = std::filesystem::weakly_canonical(device, ec);
  if (ec) return out;
  const std::string self = std::to_string(::getpid());
  for (auto it = std::filesystem::directory_iterator(proc_root, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), ::isdigit) || pid == self) continue;
    std::error_code fec;
    for (auto fd = std::filesystem::directory_iterator(it->path() / "fd", fec);
         !fec && fd != std::filesystem::directory_iterator(); fd.increment(fec)) {
      std::error_code lec;
      auto link = std::filesystem::read_symlink(fd->path(), lec);
      if (!lec && link == target) {
        out.push_back(PortHolder{std::stoi(pid), read_first_line(it->path() / "comm")});
        break;
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const PortHolder& a, const PortHolder& b) { return a.pid < b.pid; });
  return out;
}

std::optional<std::string> stlink_firmware(const std::string& output) {
  // OpenOCD's ST-LINK driver at init: "Info : STLINK V2J37S7 (API v2)
  // VID:PID 0483:3748" (0.12 src/jtag/drivers/stlink_usb.c).
  static const std::regex re(R"(STLINK (V[0-9][A-Z0-9]*))");
  std::smatch m;
  if (!std::regex_search(output, m, re)) return std::nullopt;
  return m[1].str();
}

std::optional<uint32_t> parse_idcode(const std::string& output, uint32_t address) {
  // OpenOCD's mdw: "0xe0042000: 10076413 "; pyOCD's read32 (utility/hex.py
  // dump_hex_data): "e0042000:  10076413    |.d..|".
  const std::regex re(fmt::format(R"((?:0x)?{:08x}:\s+(?:0x)?([0-9a-f]{{8}})\b)", address),
                      std::regex::icase);
  std::smatch m;
  if (!std::regex_search(output, m, re)) return std::nullopt;
  return static_cast<uint32_t>(std::stoul(m[1], nullptr, 16));
}

std::string describe_idcode(uint32_t idcode) {
  const unsigned dev = idcode & 0xFFFu;
  const unsigned rev = idcode >> 16;
  std::string name, revision;
  // The chip's name and revisions, as a board with that DEV_ID declares them.
  for (const auto& b : matrix::default_catalog().boards) {
    if (b.dev_id != dev || b.device.empty()) continue;
    name = " (" + b.device + ")";
    if (auto r = b.revisions.find(rev); r != b.revisions.end()) revision = " " + r->second;
    break;
  }
  return fmt::format("device 0x{:03x}{}, revision{} (REV_ID 0x{:04x})", dev, name, revision, rev);
}

namespace {

// Is the current user in group `gid` now (this process), or only in the
// group database (added, not logged in again)?
enum class Membership { kNow, kAfterLogin, kNo };
Membership membership(gid_t gid) {
  if (::getegid() == gid) return Membership::kNow;
  const int count = ::getgroups(0, nullptr);
  if (count > 0) {
    std::vector<gid_t> groups(static_cast<size_t>(count));
    const int got = ::getgroups(count, groups.data());
    groups.resize(static_cast<size_t>(std::max(0, got)));
    if (std::find(groups.begin(), groups.end(), gid) != groups.end()) return Membership::kNow;
  }
  if (const passwd* pw = ::getpwuid(::getuid())) {
    int n = 64;
    std::vector<gid_t> db(static_cast<size_t>(n));
    if (::getgrouplist(pw->pw_name, pw->pw_gid, db.data(), &n) < 0) {
      db.resize(static_cast<size_t>(n));
      ::getgrouplist(pw->pw_name, pw->pw_gid, db.data(), &n);
    }
    db.resize(static_cast<size_t>(std::max(0, n)));
    if (std::find(db.begin(), db.end(), gid) != db.end()) return Membership::kAfterLogin;
  }
  return Membership::kNo;
}

std::string group_name(gid_t gid) {
  const group* g = ::getgrgid(gid);
  return g ? g->gr_name : std::to_string(gid);
}

// How to get read/write access to a device node through its group; "" when
// its group cannot give it (root's group, or no group read+write bits).
std::string group_fix(const struct stat& st) {
  const bool group_rw = (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
  if (!group_rw || st.st_gid == 0) return "";
  const std::string g = group_name(st.st_gid);
  switch (membership(st.st_gid)) {
    case Membership::kAfterLogin:
      return fmt::format(
          "you are in group {} but this login session is not: log in again (or run `newgrp {}`)", g,
          g);
    case Membership::kNo:
      return fmt::format("add yourself to group {} (sudo usermod -aG {} $USER) and log in again", g,
                         g);
    case Membership::kNow:
      break;
  }
  return "";
}

std::filesystem::path under_root(const std::filesystem::path& root, const std::string& path) {
  std::filesystem::path p = path;
  if (!p.is_absolute()) return root / p;
  return root == "/" ? p : root / p.relative_path();
}

// "pid 12 (openocd), pid 40 (gdb)" and " 12 40" for a kill command.
std::pair<std::string, std::string> describe_holders(const std::vector<PortHolder>& holders) {
  std::string who, kill;
  for (const auto& h : holders) {
    who += fmt::format("{}pid {} ({})", who.empty() ? "" : ", ", h.pid, h.command);
    kill += " " + std::to_string(h.pid);
  }
  return {who, kill};
}

std::string mode_text(const struct stat& st) {
  return fmt::format("mode {:04o}, group {}", st.st_mode & 07777, group_name(st.st_gid));
}

// The probe a board instance names, among those attached; nullptr when none.
// `exact`: the flasher matches probe.serial exactly.
const UsbProbe* probe_finding(std::vector<Finding>& f, const matrix::BoardInstance& b,
                              const std::vector<UsbProbe>& probes, const matrix::Bench& bench,
                              bool exact) {
  const std::string topic = "probe of " + b.id;
  if (b.probe.serial.empty()) {
    f.push_back(Finding{
        L::kWarning, topic, "no probe.serial in the bench file",
        "name the probe by serial number so the right board is flashed when several are attached"});
    return probes.size() == 1 ? &probes[0] : nullptr;
  }
  for (const auto& p : probes) {
    auto forms = p.kind == "ST-LINK" ? stlink_serial_forms(p.serial, p.vid_pid == "0483:3748")
                                     : StlinkSerial{};
    switch (match_probe_serial(b.probe.serial, p)) {
      case SerialMatch::kNone:
        continue;
      case SerialMatch::kExact:
        f.push_back(Finding{L::kOk, topic,
                            fmt::format("{} {} attached, serial {}", p.kind, p.vid_pid, p.serial),
                            ""});
        return &p;
      case SerialMatch::kHex:
        f.push_back(Finding{L::kOk, topic,
                            fmt::format("{} {} attached, serial {} (the hex form of its binary "
                                        "serial, as OpenOCD and pyOCD match it)",
                                        p.kind, p.vid_pid, forms.hex),
                            ""});
        return &p;
      case SerialMatch::kHexCase:
        f.push_back(Finding{
            exact ? L::kError : L::kWarning, topic,
            fmt::format("{} {} attached as {}; the bench writes it in lowercase, which OpenOCD's "
                        "`adapter serial` does not match (it compares exactly)",
                        p.kind, p.vid_pid, forms.hex),
            fmt::format("write probe.serial: \"{}\" in {}", forms.hex,
                        bench.file.filename().string())});
        return &p;
      case SerialMatch::kHexPrefix:
        f.push_back(Finding{
            L::kWarning, topic,
            fmt::format("{} {} attached; its serial has a zero byte, so /sys shows only the first "
                        "{} hex digits ({}), which probe.serial starts with",
                        p.kind, p.vid_pid, forms.hex.size(), forms.hex),
            "if several ST-LINKs are attached, check with `pyocd list --probes` (it shows the full "
            "hex form)"});
        return &p;
    }
  }
  std::string seen;
  for (const auto& p : probes) {
    if (!seen.empty()) seen += "; ";
    seen += fmt::format("{} {} serial {}", p.kind, p.vid_pid, p.serial);
    if (p.kind == "ST-LINK") {
      auto forms = stlink_serial_forms(p.serial, p.vid_pid == "0483:3748");
      if (forms.binary)
        seen += fmt::format(" (hex form {}{})", forms.hex, forms.truncated ? "..." : "");
    }
  }
  std::string fix =
      "plug the probe in, or correct probe.serial in " + bench.file.filename().string();
  if (probes.size() == 1 && probes[0].kind == "ST-LINK") {
    auto forms = stlink_serial_forms(probes[0].serial, probes[0].vid_pid == "0483:3748");
    if (!forms.hex.empty() && !forms.truncated)
      fix += fmt::format(" (the attached ST-LINK is probe.serial: \"{}\")", forms.hex);
  }
  f.push_back(Finding{L::kError, topic,
                      fmt::format("no USB debug probe with serial {} is attached ({} probe(s) "
                                  "seen{}{})",
                                  b.probe.serial, probes.size(), seen.empty() ? "" : ": ", seen),
                      fix});
  return nullptr;
}

// The probe's USB device node: openocd and pyocd open it through libusb and
// need read and write access (LIBUSB_ERROR_ACCESS otherwise).
Finding usb_permission_finding(const matrix::BoardInstance& b, const UsbProbe& p,
                               const std::filesystem::path& sys_root,
                               const std::filesystem::path& proc_root) {
  const std::string topic = "USB access to the probe of " + b.id;
  const std::string node = fmt::format("/dev/bus/usb/{:03d}/{:03d}", p.busnum, p.devnum);
  if (p.busnum <= 0 || p.devnum <= 0) {
    return Finding{L::kWarning, topic, "/sys gives no bus and device number for the probe", ""};
  }
  auto path = under_root(sys_root, node);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Finding{L::kWarning, topic, node + " does not exist (no usbfs device nodes?)", ""};
  }
  if (::access(path.c_str(), R_OK | W_OK) == 0) {
    // An IDE's gdb server or a forgotten openocd holds the probe: libusb
    // then fails with LIBUSB_ERROR_BUSY, and every flash with it.
    auto holders = port_holders(path, proc_root);
    if (!holders.empty()) {
      auto [who, kill] = describe_holders(holders);
      return Finding{
          L::kError, topic,
          fmt::format("{} is held open by {}: {} cannot claim the probe", node, who, b.flasher),
          fmt::format("close that program (kill{})", kill)};
    }
    return Finding{L::kOk, topic, node + " readable and writable; no other process holds it", ""};
  }
  std::string fix = group_fix(st);
  if (fix.empty()) {
    fix = fmt::format(
        "install a udev rule: echo '{}' | sudo tee /etc/udev/rules.d/70-rtosbench-probe.rules; "
        "sudo udevadm control --reload; sudo udevadm trigger; then add yourself to group plugdev "
        "(sudo usermod -aG plugdev $USER) and log in again",
        udev_rule(p.vid_pid));
    if (std::filesystem::exists(sys_root / "lib/udev/rules.d/60-openocd.rules") ||
        std::filesystem::exists(sys_root / "usr/lib/udev/rules.d/60-openocd.rules")) {
      fix += " (OpenOCD's 60-openocd.rules is installed: replug the probe after joining plugdev)";
    }
  }
  return Finding{L::kError, topic,
                 fmt::format("{} ({}) is not readable and writable by you: {} cannot open the "
                             "probe (LIBUSB_ERROR_ACCESS)",
                             node, mode_text(st), b.flasher),
                 fix};
}

// A board's serial port: it must be a terminal (a tty or a pty), readable
// and writable, and held by no other process (two readers split the bytes).
Finding serial_finding(const matrix::BoardInstance& b, const std::filesystem::path& sys_root,
                       const std::filesystem::path& proc_root) {
  const std::string topic = "serial of " + b.id;
  auto port = under_root(sys_root, b.serial_port);
  struct stat st {};
  if (::stat(port.c_str(), &st) != 0) {
    return Finding{L::kError, topic, b.serial_port + " does not exist",
                   "plug the board in, or correct serial.port (ls /dev/serial/by-id/)"};
  }
  if (!S_ISCHR(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISREG(st.st_mode)  ? "a regular file"
                                              : "not a device";
    return Finding{L::kError, topic,
                   fmt::format("{} is {}, not a serial port (a tty)", b.serial_port, what),
                   "correct serial.port to the board's tty (ls /dev/serial/by-id/)"};
  }
  if (::access(port.c_str(), R_OK | W_OK) != 0) {
    std::string fix = group_fix(st);
    if (fix.empty())
      fix = "add yourself to group dialout (sudo usermod -aG dialout $USER) and log in again";
    return Finding{L::kError, topic,
                   fmt::format("{}: no read/write permission ({})", b.serial_port, mode_text(st)),
                   fix};
  }
  int fd = ::open(port.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  bool tty = fd >= 0 && ::isatty(fd) == 1;
  if (fd >= 0) ::close(fd);
  if (!tty) {
    return Finding{L::kError, topic,
                   b.serial_port + " is a character device but not a terminal (not a serial port)",
                   "correct serial.port to the board's tty (ls /dev/serial/by-id/)"};
  }
  auto holders = port_holders(port, proc_root);
  if (!holders.empty()) {
    auto [who, kill] = describe_holders(holders);
    return Finding{L::kError, topic,
                   fmt::format("{} is held open by {}: it would read the bytes the capture needs",
                               b.serial_port, who),
                   fmt::format("close that program (kill{}); ModemManager: systemctl stop "
                               "ModemManager or a udev rule ENV{{ID_MM_DEVICE_IGNORE}}=\"1\"",
                               kill)};
  }
  return Finding{L::kOk, topic,
                 fmt::format("{} ({}; no other process holds it)", b.serial_port,
                             std::filesystem::weakly_canonical(port).string()),
                 ""};
}

// Is this port the ST-LINK's own virtual COM port? Its by-id name says so
// ("usb-STMicroelectronics_STM32_STLink_<serial>-if02"), or its USB parent
// device is an ST-LINK.
bool is_stlink_vcp(const matrix::BoardInstance& b, const std::filesystem::path& sys_root) {
  if (lower(b.serial_port).find("stlink") != std::string::npos) return true;
  std::error_code ec;
  auto tty = std::filesystem::weakly_canonical(under_root(sys_root, b.serial_port), ec);
  if (ec) return false;
  auto dev = sys_root / "sys" / "class" / "tty" / tty.filename() / "device";
  auto iface = std::filesystem::canonical(dev, ec);  // .../1-1/1-1:1.2
  if (ec) return false;
  auto usb = iface.parent_path();
  return probe_kind(read_first_line(usb / "idVendor"), read_first_line(usb / "idProduct")) ==
         "ST-LINK";
}

// A board whose console is not wired to the probe's virtual COM port says so
// in its board.cmake (RB_BOARD_VCP_NOTE, RB_BOARD_VCP_FIX; the seed-000 trap
// of the STM32F407G-DISC1).
Finding vcp_wiring_warning(const matrix::BoardInstance& b, const model::BoardInfo& info) {
  return Finding{L::kWarning, "wiring of " + b.id,
                 fmt::format("{} is the ST-LINK's virtual COM port; {}: without two wires every "
                             "job ends TIMEOUT with no bytes",
                             b.serial_port, info.vcp_note),
                 info.vcp_fix + "; `rtosbench smoke` shows whether bytes arrive"};
}

// --probe: the target answers through its flash tool: DBGMCU_IDCODE read.
Finding idcode_finding(const matrix::BoardInstance& b, probe::Flasher* flasher,
                       const model::BoardInfo* info) {
  const std::string topic = "target of " + b.id;
  auto read = flasher ? flasher->read_idcode(b) : std::nullopt;
  if (!read) return Finding{L::kInfo, topic, "no IDCODE read for flasher " + b.flasher, ""};
  const ProcessResult& r = read->result;
  const std::string& cmd = read->command;
  if (!r.started) {
    return Finding{L::kError, topic, fmt::format("`{}` could not start: {}", cmd, r.error),
                   "install " + b.flasher};
  }
  auto id = parse_idcode(r.output, b.target.dbgmcu_base);
  if (!r.ok() || !id) {
    return Finding{
        L::kError, topic,
        fmt::format("the target does not answer: `{}` {}: {}", cmd,
                    r.ok() ? "printed no DBGMCU_IDCODE" : r.describe(), probe::failure_lines(r)),
        fmt::format("check the board's power, the SWD wiring and jumpers (docs/lab.md) and "
                    "probe.serial; `--probe` reads DBGMCU_IDCODE at 0x{:08X} only",
                    b.target.dbgmcu_base)};
  }
  const unsigned want = info ? info->dev_id : 0;
  const unsigned dev = *id & 0xFFFu;
  std::string detail =
      fmt::format("answers: DBGMCU_IDCODE 0x{:08x}: {}", *id, describe_idcode(*id));
  if (auto fw = stlink_firmware(r.output)) detail += "; ST-LINK firmware " + *fw;
  if (want != 0 && dev != want) {
    return Finding{L::kError, topic,
                   fmt::format("{}; a {} has device 0x{:03x}", detail, b.board, want),
                   "this probe is wired to another chip: check probe.serial and the SWD cable"};
  }
  return Finding{L::kOk, topic, detail, ""};
}

// A uhubctl power cycle: uhubctl asked (no action) for the hub and port the
// command names must list that hub as switching each port's power ("ppps";
// "ganged" hubs cut every port, "nops" none) and the port.
Finding hub_finding(const matrix::BoardInstance& b, ProcessRunner& processes) {
  const std::string topic = "power cycle of " + b.id;
  std::vector<std::string> words;
  for (size_t at = 0; at <= b.power_cycle.size();) {
    size_t sp = std::min(b.power_cycle.find(' ', at), b.power_cycle.size());
    words.push_back(b.power_cycle.substr(at, sp - at));
    at = sp + 1;
  }
  std::string location, port;
  for (size_t i = 1; i + 1 < words.size(); ++i) {
    if (words[i] == "-l" || words[i] == "--location") location = words[i + 1];
    if (words[i] == "-p" || words[i] == "--ports") port = words[i + 1];
  }
  if (location.empty() || port.empty()) {
    return Finding{L::kWarning, topic,
                   fmt::format("`{}` names no hub (-l) or port (-p): every hub uhubctl finds "
                               "would be cycled",
                               b.power_cycle),
                   "name the board's hub and port: uhubctl -l LOCATION -p PORT -a cycle"};
  }
  const std::vector<std::string> argv{"uhubctl", "-l", location, "-p", port};
  auto r = probe::run_tool(processes, argv, std::chrono::seconds(10));
  const std::string cmd = probe::quoted_command(argv);
  std::istringstream in(r.output);
  std::string line, hub;
  bool port_listed = false;
  while (std::getline(in, line)) {
    if (line.rfind("Current status for hub " + location + " ", 0) == 0) hub = line;
    if (!hub.empty() && line.find("Port " + port + ":") != std::string::npos) port_listed = true;
  }
  if (!r.ok() || hub.empty() || !port_listed) {
    return Finding{L::kError, topic,
                   fmt::format("`{}` does not list hub {} port {} ({}): {}", cmd, location, port,
                               r.describe(), probe::failure_lines(r)),
                   "plug the board's power into a hub uhubctl can switch, and correct -l/-p "
                   "(`uhubctl` lists the hubs; it needs write access to them, docs/lab.md)"};
  }
  if (hub.find("ppps") == std::string::npos) {
    return Finding{L::kError, topic,
                   fmt::format("hub {} does not switch each port's power: {}", location, hub),
                   "use a hub that uhubctl lists as ppps (ganged hubs also cut the probe and "
                   "the serial adapter)"};
  }
  return Finding{L::kOk, topic, fmt::format("{}; {} switches port {}", b.power_cycle, hub, port),
                 ""};
}

// Probes attached, and each board instance's probe, port, wiring and power cycle.
void check_bench_hardware(std::vector<Finding>& f, const matrix::Bench* bench,
                          const DoctorInputs& in, ProcessRunner& processes) {
  auto probes = find_usb_probes(in.sys_root);
  for (const auto& p : probes) {
    std::string detail = fmt::format("{} serial {}", p.vid_pid, p.serial);
    if (p.kind == "ST-LINK") {
      auto forms = stlink_serial_forms(p.serial, p.vid_pid == "0483:3748");
      if (forms.binary)
        detail += fmt::format(" (binary; hex form {}{})", forms.hex, forms.truncated ? "..." : "");
    }
    f.push_back(Finding{L::kInfo, "probe " + p.kind, detail, ""});
  }
  if (!bench) return;
  const catalog::Catalog& catalog = in.matrix && !in.matrix->catalog.boards.empty()
                                        ? in.matrix->catalog
                                        : matrix::default_catalog();
  for (const auto& b : bench->boards) {
    if (b.emulated) continue;
    auto flasher = probe::make_flasher(b.flasher, processes);
    const model::BoardInfo* info = catalog.board(b.board);
    const UsbProbe* p =
        probe_finding(f, b, probes, *bench, flasher && flasher->serial_matched_exactly());
    if (p) f.push_back(usb_permission_finding(b, *p, in.sys_root, in.proc_root));
    if (flasher) {
      auto more = flasher->check_board(b);
      f.insert(f.end(), more.begin(), more.end());
    }
    f.push_back(serial_finding(b, in.sys_root, in.proc_root));
    if (info && !info->vcp_note.empty() && is_stlink_vcp(b, in.sys_root))
      f.push_back(vcp_wiring_warning(b, *info));
    if (b.reset == matrix::ResetMethod::kPowerCycle) {
      std::string tool = b.power_cycle.substr(0, b.power_cycle.find(' '));
      if (find_in_path(tool).empty()) {
        f.push_back(
            Finding{L::kError, "power cycle of " + b.id, tool + " not found in PATH",
                    tool == "uhubctl" ? "install the Debian package uhubctl" : "install " + tool});
      } else if (tool == "uhubctl") {
        f.push_back(hub_finding(b, processes));
      } else {
        f.push_back(Finding{L::kOk, "power cycle of " + b.id, b.power_cycle, ""});
      }
    }
    if (in.probe_targets) f.push_back(idcode_finding(b, flasher.get(), info));
  }
  std::error_code ec;
  auto byid = in.sys_root / "dev" / "serial" / "by-id";
  for (auto it = std::filesystem::directory_iterator(byid, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    f.push_back(Finding{L::kInfo, "serial port",
                        "/dev/serial/by-id/" + it->path().filename().string(), ""});
  }
}

// The toolchain against the matrix's pin, and git when a kernel needs a source.
void check_toolchain(std::vector<Finding>& f, ProcessRunner& processes, const matrix::Matrix* m) {
  auto tc = build::probe_toolchain(processes);
  if (!tc.ok()) {
    f.push_back(Finding{L::kError, "toolchain", tc.error().message, "run scripts/setup-deps.sh"});
  } else {
    std::string pin = m ? m->gcc_pin : "";
    auto pinned = build::check_gcc_pin(*tc, pin);
    if (!pinned.ok()) {
      f.push_back(Finding{
          L::kError, "arm-none-eabi-gcc", pinned.error().message,
          fmt::format("install arm-none-eabi-gcc {} or change toolchain.arm-none-eabi-gcc in {}",
                      pin, m->file.filename().string())});
    } else {
      f.push_back(Finding{
          L::kOk, "arm-none-eabi-gcc",
          fmt::format("{}{}", tc->gcc_version, pin.empty() ? " (no pin)" : " (matches the pin)"),
          ""});
    }
    f.push_back(Finding{L::kOk, "cmake", tc->cmake_version, ""});
    f.push_back(Finding{L::kOk, "ninja", tc->ninja_version, ""});
  }
  bool needs_git = false;
  if (m) {
    for (const auto& k : m->kernels) needs_git = needs_git || k.needs_source();
  }
  check_tool(f, processes, "git", {"--version"}, "git", needs_git,
             needs_git ? "" : "needed for kernel sources");
}

// The firmware project, and each kernel's source (never cloned here).
void check_firmware_and_kernels(std::vector<Finding>& f, ProcessRunner& processes,
                                const matrix::Matrix& m, const kernels::ResolveOptions& options) {
  auto toolchain_file = m.firmware / "cmake" / "arm-none-eabi.cmake";
  if (!std::filesystem::exists(toolchain_file)) {
    f.push_back(Finding{L::kError, "firmware", toolchain_file.string() + " does not exist",
                        "set firmware: in the matrix to the firmware CMake project"});
  } else {
    f.push_back(Finding{L::kOk, "firmware", m.firmware.string(), ""});
  }
  kernels::ResolveOptions ro = options;
  ro.fetch = false;  // doctor never clones
  kernels::SourceResolver resolver(processes, ro);
  for (const auto& kernel : m.kernels) {
    std::string topic = "kernel " + kernel.name;
    if (!kernel.port_exists) {
      f.push_back(Finding{L::kInfo, topic,
                          fmt::format("PORT_MISSING: no firmware port '{}' yet "
                                      "(firmware/ports/{}/port.cmake does not exist)",
                                      kernel.port, kernel.port),
                          ""});
      continue;
    }
    if (!kernel.needs_source() && !ro.overrides.count(kernel.name)) {
      f.push_back(Finding{L::kOk, topic, "no kernel source needed", ""});
      continue;
    }
    auto r = resolver.resolve(kernel, {});
    if (!r.ok()) {
      f.push_back(
          Finding{L::kError, topic, r.error().message,
                  "the run reports SOURCE_MISSING for this kernel's jobs until this is fixed"});
    } else {
      f.push_back(
          Finding{L::kOk, topic,
                  fmt::format("{} at {} ({}, {})", kernel.version, r->main.commit.substr(0, 12),
                              r->main.path.string(), r->main.origin),
                  ""});
    }
  }
}
}  // namespace

std::vector<Finding> run_doctor(const DoctorInputs& in, ProcessRunner& processes) {
  std::vector<Finding> f;
  const auto* m = in.matrix ? &*in.matrix : nullptr;
  const auto* bench = in.bench ? &*in.bench : nullptr;
  check_toolchain(f, processes, m);
  check_flash_tools(f, processes, bench);
  check_bench_hardware(f, bench, in, processes);
  if (bench && bench->analyzer) check_analyzer(f, processes, *bench->analyzer, in.sys_root);
  if (m) check_firmware_and_kernels(f, processes, *m, in.kernel_options);
  return f;
}

bool has_errors(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& x) { return x.level == L::kError; });
}

nlohmann::json to_json(const std::vector<Finding>& findings) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : findings) {
    a.push_back(
        {{"level", to_string(x.level)}, {"topic", x.topic}, {"detail", x.detail}, {"fix", x.fix}});
  }
  return nlohmann::json{{"ok", !has_errors(findings)}, {"findings", a}};
}

std::string format_findings(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& x : findings) {
    out += fmt::format("{:<8} {}: {}\n", to_string(x.level), x.topic, x.detail);
    if (!x.fix.empty() && x.level != L::kOk) out += fmt::format("{:<8}   fix: {}\n", "", x.fix);
  }
  size_t errors = std::count_if(findings.begin(), findings.end(),
                                [](const Finding& x) { return x.level == L::kError; });
  size_t warnings = std::count_if(findings.begin(), findings.end(),
                                  [](const Finding& x) { return x.level == L::kWarning; });
  if (errors) {
    out += fmt::format("{} problem(s) must be fixed before a run\n", errors);
  } else if (warnings) {
    out += fmt::format("ready, with {} warning(s) to read\n", warnings);
  } else {
    out += "ready\n";
  }
  return out;
}

}  // namespace rb::doctor
