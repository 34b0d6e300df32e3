#pragma once
// `rtosbench doctor`: is this machine ready to run a matrix on a bench?
// Every finding says what was found and, when something is wrong, how to
// fix it. The outside world (processes, /sys, /dev) is injected so tests can
// describe machines that are not this one.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernels/source.h"
#include "matrix/model.h"
#include "util/process.h"

namespace rb::run {

struct Finding {
  enum class Level { kOk, kInfo, kWarning, kError };
  Level level = Level::kOk;
  std::string topic;   // "arm-none-eabi-gcc", "serial disco-1", "kernel freertos", ...
  std::string detail;  // what was found
  std::string fix;     // how to fix it (empty when nothing to fix)
};

const char* to_string(Finding::Level l);

struct DoctorInputs {
  std::optional<matrix::Matrix> matrix;
  std::optional<matrix::Bench> bench;
  kernels::ResolveOptions kernel_options;
  std::filesystem::path sys_root = "/";  // where sys/bus/usb/devices and dev/serial/by-id are read
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
  std::string serial;
};
std::vector<UsbProbe> find_usb_probes(const std::filesystem::path& sys_root);

}  // namespace rb::run
