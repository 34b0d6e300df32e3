#pragma once
// `rtosbench doctor`: is this machine ready to run a matrix on a bench?
// Every finding says what was found and, when something is wrong, how to
// fix it. The outside world (processes, /sys, /dev, /proc) is injected so
// tests can describe machines that are not this one. Every process doctor
// starts goes through the ProcessRunner as an argv (no shell): a bench
// file's strings never reach a shell (docs/security.md).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernels/source.h"
#include "matrix/model.h"
#include "probe/flasher.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::doctor {

// Findings, the flash tools' version checks and run's check of them live
// with the flashers (probe/flasher.h): each flasher answers for its tool.
using probe::check_flash_tools_for_run;
using probe::Finding;
using probe::openocd_version_ok;
using probe::parse_openocd_version;
using probe::to_string;
using probe::ToolVersion;

struct DoctorInputs {
  std::optional<matrix::Matrix> matrix;
  std::optional<matrix::Bench> bench;
  kernels::ResolveOptions kernel_options;
  std::filesystem::path sys_root = "/";       // where sys/bus/usb/devices, dev/... are read
  std::filesystem::path proc_root = "/proc";  // where other processes' fds are read
  bool probe_targets = false;                 // --probe: read each target's IDCODE
};

// Runs every check. Never fails: problems are findings.
std::vector<Finding> run_doctor(const DoctorInputs& in, ProcessRunner& processes);

// True when some finding is an error (something required is missing).
bool has_errors(const std::vector<Finding>& findings);

nlohmann::json to_json(const std::vector<Finding>& findings);
std::string format_findings(const std::vector<Finding>& findings);

// USB debug probes seen under <sys_root>/sys/bus/usb/devices.
struct UsbProbe {
  std::string kind;     // "ST-LINK", "CMSIS-DAP", "J-Link"
  std::string vid_pid;  // "0483:374b"
  std::string serial;   // the sysfs `serial` attribute (the descriptor as UTF-8)
  std::string sysfs;    // the device's sysfs directory name, e.g. "1-1.2"
  int busnum = 0;       // /dev/bus/usb/BBB/DDD
  int devnum = 0;
};
std::vector<UsbProbe> find_usb_probes(const std::filesystem::path& sys_root);

// ST-LINK serial numbers. An ST-LINK/V2-1, V3 or recent V2 reports 24 ASCII
// hex digits; an ST-LINK/V2 with old firmware reports 12 raw bytes, one per
// UTF-16 code unit, which Linux's sysfs shows as UTF-8 (and cuts at a zero
// byte). OpenOCD (libusb_helper.c string_descriptor_equal, then
// stlink_usb.c stlink_usb_get_alternate_serial: "%02X" per byte) and pyOCD
// (stlink/usb.py: hexlify(...).upper()) accept the uppercase hex form.
struct StlinkSerial {
  std::string raw;         // as sysfs shows it
  std::string hex;         // the 24-digit uppercase hex form OpenOCD and pyOCD use
  bool binary = false;     // the raw form is 12 bytes, not hex digits
  bool truncated = false;  // sysfs cut the raw form at a zero byte: hex is a prefix
};
// `v2`: the probe is an ST-LINK/V2 (0483:3748), the one with the binary
// form; a 12-character serial is read as binary on any ST-LINK (as pyOCD does).
StlinkSerial stlink_serial_forms(const std::string& sysfs_serial, bool v2);

enum class SerialMatch {
  kNone,
  kExact,      // the bench gives the serial as the probe reports it
  kHex,        // the bench gives the hex form of a binary serial
  kHexCase,    // the hex form in lowercase: pyOCD matches it, OpenOCD does not
  kHexPrefix,  // sysfs shows only part of the serial; the bench's hex starts with it
};
SerialMatch match_probe_serial(const std::string& wanted, const UsbProbe& probe);

// The udev rule that lets a user open the USB device VID:PID ("0483:374b"),
// in the form of OpenOCD's contrib/60-openocd.rules.
std::string udev_rule(const std::string& vid_pid);

// Processes (other than this one) holding `device` open, seen through
// <proc_root>/PID/fd/* links; only processes this user may inspect.
struct PortHolder {
  int pid = 0;
  std::string command;  // /proc/PID/comm
};
std::vector<PortHolder> port_holders(const std::filesystem::path& device,
                                     const std::filesystem::path& proc_root);

// The bench's logic analyzer (analyzer.cpp): sigrok-cli's version, the
// driver among `sigrok-cli -L`, the device `--scan` finds for its driver and
// conn (with the roles' channels), and for fx2lafw its firmware files under
// <sys_root>/usr/share/sigrok-firmware (Debian: sigrok-firmware-fx2lafw).
void check_analyzer(std::vector<Finding>& f, ProcessRunner& processes, const matrix::Analyzer& a,
                    const std::filesystem::path& sys_root);
std::optional<std::string> sigrok_version(const std::string& output);
bool sigrok_lists_driver(const std::string& list_output, const std::string& driver);
std::vector<std::string> sigrok_scan_devices(const std::string& scan_output);

// The ST-LINK firmware version OpenOCD prints at init ("V2J37S7"), if any.
std::optional<std::string> stlink_firmware(const std::string& output);
// DBGMCU_IDCODE at `address` (the board's RB_BOARD_DBGMCU_BASE) from
// `openocd ... mdw` or `pyocd cmd -c read32` output; nullopt when the output
// has no such line.
std::optional<uint32_t> parse_idcode(const std::string& output, uint32_t address);
// "0x413 rev Z (0x1001)": DEV_ID = bits 11:0, REV_ID = bits 31:16 (RM0090).
std::string describe_idcode(uint32_t idcode);

}  // namespace rb::doctor
