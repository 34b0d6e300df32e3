#include "run/doctor.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "build/toolchain.h"
#include "matrix/expand.h"
#include "probe/flasher.h"

namespace rb::run {

const char* to_string(Finding::Level l) {
  switch (l) {
    case Finding::Level::kOk:
      return "ok";
    case Finding::Level::kInfo:
      return "info";
    case Finding::Level::kWarning:
      return "warning";
    case Finding::Level::kError:
      return "error";
  }
  return "?";
}

namespace {

std::string read_first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

using L = Finding::Level;

void check_tool(std::vector<Finding>& f, ProcessRunner& processes, const std::string& tool,
                std::vector<std::string> version_args, const std::string& package, bool required,
                const std::string& why) {
  auto path = find_in_path(tool);
  if (path.empty()) {
    f.push_back(Finding{required ? L::kError : L::kInfo, tool,
                        "not found in PATH" + (why.empty() ? "" : " (" + why + ")"),
                        "install the Debian package " + package});
    return;
  }
  ProcessSpec spec;
  spec.argv = {tool};
  spec.argv.insert(spec.argv.end(), version_args.begin(), version_args.end());
  spec.timeout = std::chrono::seconds(20);
  auto r = processes.run(spec);
  f.push_back(
      Finding{L::kOk, tool, fmt::format("{} ({})", first_line(r.output), path.string()), ""});
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
    std::string kind;
    if (vid == "0483" && (pid == "3748" || pid == "374b" || pid == "374e" || pid == "374f" ||
                          pid == "3752" || pid == "3753" || pid == "3754")) {
      kind = "ST-LINK";
    } else if (vid == "0d28" && pid == "0204") {
      kind = "CMSIS-DAP";
    } else if (vid == "1366") {
      kind = "J-Link";
    } else {
      continue;
    }
    out.push_back(UsbProbe{kind, vid + ":" + pid, read_first_line(it->path() / "serial")});
  }
  return out;
}

namespace {

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

// Every flash tool: required when the bench uses it.
void check_flash_tools(std::vector<Finding>& f, ProcessRunner& processes,
                       const matrix::Bench* bench) {
  std::set<std::string> used;
  if (bench) {
    for (const auto& b : bench->boards) used.insert(b.flasher);
  }
  for (const auto& reg : probe::registered_flashers()) {
    auto flasher = reg.make(processes);
    auto t = flasher->check_tool();
    bool required = used.count(reg.name) > 0;
    const std::string& topic = reg.tool;
    if (t.present) {
      f.push_back(Finding{L::kOk, topic, fmt::format("{} ({})", t.version, t.path), ""});
    } else {
      std::string fix = t.problem.substr(
          t.problem.find("; ") == std::string::npos ? 0 : t.problem.find("; ") + 2);
      f.push_back(Finding{
          required ? L::kError : L::kInfo, topic,
          t.problem.substr(0, t.problem.find("; ")) + (required ? " (the bench uses it)" : ""),
          fix});
    }
  }
}

// The probe a board instance names, among those attached.
Finding probe_finding(const matrix::BoardInstance& b, const std::vector<UsbProbe>& probes,
                      const matrix::Bench& bench) {
  if (b.probe.serial.empty()) {
    return Finding{
        L::kWarning, "probe of " + b.id, "no probe.serial in the bench file",
        "name the probe by serial number so the right board is flashed when several are attached"};
  }
  bool seen = std::any_of(probes.begin(), probes.end(),
                          [&](const UsbProbe& p) { return p.serial == b.probe.serial; });
  if (seen) return Finding{L::kOk, "probe of " + b.id, "attached, serial " + b.probe.serial, ""};
  return Finding{L::kError, "probe of " + b.id,
                 fmt::format("no USB debug probe with serial {} is attached ({} probe(s) seen)",
                             b.probe.serial, probes.size()),
                 "plug the probe in, or correct probe.serial in " + bench.file.filename().string()};
}

// A board's serial port: it must be a terminal (a tty or a pty), readable
// and writable; a directory, FIFO, socket or regular file is not a port.
Finding serial_finding(const matrix::BoardInstance& b, const std::filesystem::path& sys_root) {
  const std::string topic = "serial of " + b.id;
  std::filesystem::path port = b.serial_port;
  if (!port.is_absolute()) {
    port = sys_root / port;
  } else if (sys_root != "/") {
    port = sys_root / port.relative_path();
  }
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
    return Finding{
        L::kError, topic, b.serial_port + ": no read/write permission",
        "add yourself to group dialout (sudo usermod -aG dialout $USER) and log in again"};
  }
  int fd = ::open(port.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  bool tty = fd >= 0 && ::isatty(fd) == 1;
  if (fd >= 0) ::close(fd);
  if (!tty) {
    return Finding{L::kError, topic,
                   b.serial_port + " is a character device but not a terminal (not a serial port)",
                   "correct serial.port to the board's tty (ls /dev/serial/by-id/)"};
  }
  return Finding{L::kOk, topic, b.serial_port, ""};
}

// Probes attached, and each board instance's probe, port and power cycle.
void check_bench_hardware(std::vector<Finding>& f, const matrix::Bench* bench,
                          const std::filesystem::path& sys_root) {
  auto probes = find_usb_probes(sys_root);
  for (const auto& p : probes) {
    f.push_back(
        Finding{L::kInfo, "probe " + p.kind, fmt::format("{} serial {}", p.vid_pid, p.serial), ""});
  }
  if (!bench) return;
  for (const auto& b : bench->boards) {
    if (b.emulated) continue;
    f.push_back(probe_finding(b, probes, *bench));
    f.push_back(serial_finding(b, sys_root));
    if (b.reset == matrix::ResetMethod::kPowerCycle) {
      std::string tool = b.power_cycle.substr(0, b.power_cycle.find(' '));
      if (find_in_path(tool).empty()) {
        f.push_back(
            Finding{L::kError, "power cycle of " + b.id, tool + " not found in PATH",
                    tool == "uhubctl" ? "install the Debian package uhubctl" : "install " + tool});
      } else {
        f.push_back(Finding{L::kOk, "power cycle of " + b.id, b.power_cycle, ""});
      }
    }
  }
  std::error_code ec;
  auto byid = sys_root / "dev" / "serial" / "by-id";
  for (auto it = std::filesystem::directory_iterator(byid, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    f.push_back(Finding{L::kInfo, "serial port",
                        "/dev/serial/by-id/" + it->path().filename().string(), ""});
  }
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
  std::set<std::string> seen;
  for (const auto& job : matrix::expand_jobs(m)) {
    if (!seen.insert(job.kernel.name).second) continue;
    std::string topic = "kernel " + job.kernel.name;
    if (!job.port_exists) {
      f.push_back(Finding{L::kInfo, topic, "PORT_MISSING: " + job.port_missing_reason, ""});
      continue;
    }
    if (!job.kernel.needs_source() && !ro.overrides.count(job.kernel.name)) {
      f.push_back(Finding{L::kOk, topic, "no kernel source needed", ""});
      continue;
    }
    auto r = resolver.resolve(job.kernel, {});
    if (!r.ok()) {
      f.push_back(
          Finding{L::kError, topic, r.error().message,
                  "the run reports SOURCE_MISSING for this kernel's jobs until this is fixed"});
    } else {
      f.push_back(
          Finding{L::kOk, topic,
                  fmt::format("{} at {} ({}, {})", job.kernel.version, r->main.commit.substr(0, 12),
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
  check_bench_hardware(f, bench, in.sys_root);
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
  out += errors ? fmt::format("{} problem(s) must be fixed before a run\n", errors) : "ready\n";
  return out;
}

}  // namespace rb::run
