// `rtosbench doctor` on the bench's logic analyzer (its `analyzer:`,
// docs/lab.md "Wiring the analyzer"): sigrok-cli and its version, the
// driver among sigrok-cli -L, the device --scan finds for driver and conn,
// and an fx2lafw analyzer's firmware files.
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "doctor/doctor.h"

namespace rb::doctor {

namespace {
using L = Finding::Level;

ProcessResult run_sigrok(ProcessRunner& processes, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {"sigrok-cli"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(30);
  return processes.run(spec);
}
}  // namespace

std::optional<std::string> sigrok_version(const std::string& output) {
  static const std::regex kVersion(R"(sigrok-cli\s+([0-9][0-9A-Za-z.+~-]*))");
  std::smatch m;
  if (std::regex_search(output, m, kVersion)) return m[1].str();
  return std::nullopt;
}

bool sigrok_lists_driver(const std::string& list_output, const std::string& driver) {
  // `sigrok-cli -L`: "Supported hardware drivers:" then "  NAME  Description" lines.
  std::istringstream in(list_output);
  bool in_drivers = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Supported hardware drivers:", 0) == 0) {
      in_drivers = true;
      continue;
    }
    if (!in_drivers) continue;
    if (line.empty() || line[0] != ' ') break;  // the next section
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name == driver) return true;
  }
  return false;
}

std::vector<std::string> sigrok_scan_devices(const std::string& scan_output) {
  // `sigrok-cli -d DRIVER --scan`: "The following devices were found:" then
  // one "driver[:conn=...] - Description with N channels: D0 D1 ..." each.
  std::vector<std::string> out;
  std::istringstream in(scan_output);
  bool found = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("The following devices were found:", 0) == 0) {
      found = true;
      continue;
    }
    if (found && line.find(" - ") != std::string::npos) out.push_back(line);
  }
  return out;
}

void check_analyzer(std::vector<Finding>& f, ProcessRunner& processes, const matrix::Analyzer& a,
                    const std::filesystem::path& sys_root) {
  const std::string topic = "analyzer " + a.driver;
  if (find_in_path("sigrok-cli").empty()) {
    f.push_back({L::kError, "sigrok-cli", "not installed; the bench names an analyzer",
                 "apt-get install sigrok-cli"});
    return;
  }
  auto version = run_sigrok(processes, {"--version"});
  auto v = sigrok_version(version.output);
  f.push_back({v ? L::kOk : L::kWarning, "sigrok-cli",
               v ? "version " + *v : "cannot tell its version: " + version.tail(2), ""});
  auto list = run_sigrok(processes, {"-L"});
  if (!sigrok_lists_driver(list.output, a.driver)) {
    f.push_back({L::kError, topic,
                 fmt::format("sigrok-cli -L does not list the driver '{}'", a.driver),
                 "name a driver sigrok-cli -L lists (fx2lafw for a 24 MHz FX2 analyzer); "
                 "libsigrok4 from Debian has them all"});
    return;
  }
  f.push_back({L::kOk, topic, "sigrok-cli -L lists the driver", ""});
  if (a.driver == "fx2lafw") {
    const auto dir = sys_root / "usr" / "share" / "sigrok-firmware";
    std::vector<std::string> fw;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("fx2lafw-", 0) == 0 && e.path().extension() == ".fw") fw.push_back(n);
    }
    std::sort(fw.begin(), fw.end());
    if (fw.empty()) {
      f.push_back(
          {L::kError, "fx2lafw firmware",
           fmt::format("no fx2lafw-*.fw in {}: the analyzer cannot be loaded", dir.string()),
           "apt-get install sigrok-firmware-fx2lafw"});
    } else {
      f.push_back({L::kOk, "fx2lafw firmware",
                   fmt::format("{} file(s) in {} ({}{})", fw.size(), dir.string(), fw.front(),
                               fw.size() > 1 ? ", ..." : ""),
                   ""});
    }
  }
  std::string spec = a.driver;
  if (!a.conn.empty()) spec += ":conn=" + a.conn;
  auto scan = run_sigrok(processes, {"-d", spec, "--scan"});
  auto devices = sigrok_scan_devices(scan.output);
  if (devices.empty()) {
    f.push_back({L::kError, topic,
                 fmt::format("sigrok-cli -d {} --scan finds no device{}", spec,
                             scan.tail(2).empty() ? "" : ": " + scan.tail(2)),
                 a.driver == "fx2lafw"
                     ? "plug the analyzer in; check its USB access (the udev rules of "
                       "libsigrok4: 60-libsigrok.rules, group plugdev) and its conn"
                     : "plug the analyzer in and check analyzer.conn"});
    return;
  }
  const std::string& dev = devices.front();
  std::string missing;
  for (const auto& ch : {a.mk, a.ev, a.tk}) {
    const auto colon = dev.find(": ");
    std::istringstream names(colon == std::string::npos ? "" : dev.substr(colon + 2));
    bool has = false;
    for (std::string n; names >> n;) has = has || n == ch;
    if (!has) missing += (missing.empty() ? "" : ", ") + ch;
  }
  if (!missing.empty()) {
    f.push_back({L::kError, topic, fmt::format("found {}, which has no channel {}", dev, missing),
                 "name the device's channels in analyzer.channels (MK, EV, TK)"});
    return;
  }
  f.push_back(
      {L::kOk, topic,
       fmt::format("found {}; MK={} EV={} TK={} at {} Hz", dev, a.mk, a.ev, a.tk, a.samplerate),
       ""});
}

}  // namespace rb::doctor
