// doctor against a described machine: a fake /sys and /dev under a temporary
// root, and a scripted process runner for the tools.
#include "doctor/doctor.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "../util/fake_process_runner.h"
#include "matrix/load.h"

namespace rb::doctor {
namespace {

// A child process that holds `path` open until killed; its pid once the
// file is open, -1 when it could not be opened.
pid_t hold_open(const std::filesystem::path& path, int flags) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  pid_t child = ::fork();
  if (child == 0) {
    int fd = ::open(path.c_str(), flags);
    char c = fd >= 0 ? 'y' : 'n';
    if (::write(ready[1], &c, 1) != 1) ::_exit(2);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  const bool opened = ::read(ready[0], &c, 1) == 1 && c == 'y';
  ::close(ready[0]);
  if (opened) return child;
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return -1;
}

class Doctor : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("rb-doctor-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    auto usb = root_ / "sys" / "bus" / "usb" / "devices" / "1-1";
    std::filesystem::create_directories(usb);
    std::ofstream(usb / "idVendor") << "0483\n";
    std::ofstream(usb / "idProduct") << "374b\n";
    std::ofstream(usb / "serial") << "066AFF\n";
    std::ofstream(usb / "busnum") << "1\n";
    std::ofstream(usb / "devnum") << "5\n";
    std::filesystem::create_directories(root_ / "dev" / "bus" / "usb" / "001");
    std::ofstream(root_ / "dev" / "bus" / "usb" / "001" / "005") << "";
    ::chmod((root_ / "dev" / "bus" / "usb" / "001" / "005").c_str(), 0600);
    std::filesystem::create_directories(root_ / "dev" / "serial" / "by-id");
    // The board's port: a pty, as a USB CDC tty would be.
    pty_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    ASSERT_GE(pty_, 0);
    ASSERT_EQ(::grantpt(pty_), 0);
    ASSERT_EQ(::unlockpt(pty_), 0);
    std::filesystem::create_symlink(::ptsname(pty_),
                                    root_ / "dev" / "serial" / "by-id" / "usb-STM-if02");
    fake_.on("arm-none-eabi-gcc", "-dumpversion", 0, "12.2.1\n");
    fake_.on("arm-none-eabi-gcc", "--version", 0,
             "arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205\n");
    fake_.on("cmake", "", 0, "cmake version 3.25.1\n");
    fake_.on("ninja", "", 0, "1.11.1\n");
    fake_.on("git", "", 0, "git version 2.39.5\n");
    fake_.on("qemu-system-arm", "", 0, "QEMU emulator version 7.2.22\n");
    fake_.on("openocd", "", 0, "Open On-Chip Debugger 0.12.0\n");
  }
  void TearDown() override {
    if (pty_ >= 0) ::close(pty_);
    std::filesystem::remove_all(root_);
  }

  matrix::Bench bench(const std::string& serial, const std::string& port,
                      const std::string& flasher = "openocd") {
    auto b = matrix::parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: )" + flasher + R"(
    probe: {serial: ")" + serial + R"("}
    serial: {port: ")" + port + R"("}
)",
                                 "lab.yaml");
    EXPECT_TRUE(b.ok());
    return b.value;
  }
  const Finding* find(const std::vector<Finding>& f, const std::string& topic) {
    for (const auto& x : f) {
      if (x.topic == topic) return &x;
    }
    return nullptr;
  }
  std::filesystem::path root_;
  int pty_ = -1;
  testing::FakeProcessRunner fake_;
};

TEST_F(Doctor, AttachedProbeAndPortAreOk) {
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, fake_);
  ASSERT_NE(find(f, "probe of disco-1"), nullptr);
  EXPECT_EQ(find(f, "probe of disco-1")->level, Finding::Level::kOk);
  EXPECT_EQ(find(f, "serial of disco-1")->level, Finding::Level::kOk);
  EXPECT_EQ(find(f, "probe ST-LINK")->detail, "0483:374b serial 066AFF");
  EXPECT_EQ(find(f, "arm-none-eabi-gcc")->level, Finding::Level::kOk);
}

// Only a terminal is a serial port: a directory, a FIFO or a regular file
// where the bench names the port is an error that says what it is.
TEST_F(Doctor, OnlyATtyIsASerialPort) {
  auto byid = root_ / "dev" / "serial" / "by-id";
  std::filesystem::create_directories(byid / "a-directory");
  ASSERT_EQ(::mkfifo((byid / "a-fifo").c_str(), 0600), 0);
  std::ofstream(byid / "a-file") << "";
  for (const auto& [name, what] :
       {std::pair{"a-directory", "a directory"}, std::pair{"a-fifo", "a FIFO"},
        std::pair{"a-file", "a regular file"}}) {
    DoctorInputs in;
    in.sys_root = root_;
    in.bench = bench("066AFF", std::string("/dev/serial/by-id/") + name);
    auto f = run_doctor(in, fake_);
    const Finding* port = find(f, "serial of disco-1");
    ASSERT_NE(port, nullptr);
    EXPECT_EQ(port->level, Finding::Level::kError) << name;
    EXPECT_NE(port->detail.find(std::string("is ") + what + ", not a serial port"),
              std::string::npos)
        << port->detail;
  }
  // /dev/null is a character device, but not a terminal.
  DoctorInputs in;
  in.bench = bench("066AFF", "/dev/null");
  auto f = run_doctor(in, fake_);
  EXPECT_EQ(find(f, "serial of disco-1")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "serial of disco-1")->detail.find("not a terminal"), std::string::npos);
}

TEST_F(Doctor, MissingProbePortAndToolAreErrorsWithFixes) {
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("999999", "/dev/serial/by-id/usb-gone");
  auto f = run_doctor(in, fake_);
  EXPECT_TRUE(has_errors(f));
  EXPECT_EQ(find(f, "probe of disco-1")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "probe of disco-1")->fix.find("probe.serial"), std::string::npos);
  EXPECT_EQ(find(f, "serial of disco-1")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "serial of disco-1")->fix.find("by-id"), std::string::npos);
  std::string text = format_findings(f);
  EXPECT_NE(text.find("problem(s) must be fixed"), std::string::npos);
}

TEST_F(Doctor, GccPinMismatchIsAnError) {
  // A firmware tree with no port and no CMake project.
  std::filesystem::create_directories(root_ / "ports");
  auto m = matrix::parse_matrix(
      "matrix: m\ntoolchain: {arm-none-eabi-gcc: \"12.3.1\"}\n"
      "kernels: [{name: bare}]\nfirmware: " +
          root_.string() + "\n",
      "m.yaml");
  ASSERT_TRUE(m.ok());
  DoctorInputs in;
  in.sys_root = root_;
  in.matrix = m.value;
  auto f = run_doctor(in, fake_);
  ASSERT_NE(find(f, "arm-none-eabi-gcc"), nullptr);
  EXPECT_EQ(find(f, "arm-none-eabi-gcc")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "arm-none-eabi-gcc")->detail.find("pins 12.3.1"), std::string::npos);
  // No port for bare in this fake firmware tree: reported, not an error.
  EXPECT_EQ(find(f, "kernel bare")->level, Finding::Level::kInfo);
  EXPECT_EQ(find(f, "firmware")->level, Finding::Level::kError);
}

TEST_F(Doctor, UsbProbesAreRecognised) {
  auto probes = find_usb_probes(root_);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(probes[0].kind, "ST-LINK");
  EXPECT_TRUE(find_usb_probes(root_ / "nothing").empty());
}

// A finding computed in a child that has no special rights: as root, the
// child drops to nobody (65534); otherwise the caller made the node
// unreadable. Returns "level|fix" from the child.
std::string unprivileged(const std::function<std::string()>& check) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::getuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      ::_exit(3);
    }
    std::string out = check();
    ssize_t n = ::write(fds[1], out.data(), out.size());
    ::_exit(n == static_cast<ssize_t>(out.size()) ? 0 : 4);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return out;
}

// The ST-LINK/V2's 12 raw bytes as Linux's sysfs shows them: each byte one
// UTF-16 code unit, turned into UTF-8.
std::string sysfs_utf8(const std::vector<unsigned>& bytes) {
  std::string s;
  for (unsigned b : bytes) {
    if (b < 0x80) {
      s += static_cast<char>(b);
    } else {
      s += static_cast<char>(0xC0 | (b >> 6));
      s += static_cast<char>(0x80 | (b & 0x3F));
    }
  }
  return s;
}

TEST(StlinkSerial, RawAndHexForms) {
  // V2-1 / V3: 24 ASCII hex digits; the hex form is the same string.
  auto ascii = stlink_serial_forms("066DFF485550755187121832", false);
  EXPECT_FALSE(ascii.binary);
  EXPECT_EQ(ascii.hex, "066DFF485550755187121832");
  // V2 with the old firmware: OpenOCD's stlink_usb_get_alternate_serial
  // prints each byte "%02X"; pyOCD hexlify(...).upper() gives the same.
  auto raw = sysfs_utf8({0x48, 0x3F, 0x70, 0x06, 0x65, 0x78, 0x55, 0x55, 0x25, 0x20, 0x21, 0xFF});
  auto v2 = stlink_serial_forms(raw, true);
  EXPECT_TRUE(v2.binary);
  EXPECT_FALSE(v2.truncated);
  EXPECT_EQ(v2.hex, "483F700665785555252021FF");
  // A zero byte ends the kernel's conversion: only a prefix is known.
  auto cut = stlink_serial_forms(sysfs_utf8({0x18}), true);
  EXPECT_TRUE(cut.truncated);
  EXPECT_EQ(cut.hex, "18");
  // A short serial of a V2-1 is not read as binary.
  EXPECT_EQ(stlink_serial_forms("066AFF", false).hex, "");

  UsbProbe p{"ST-LINK", "0483:3748", raw, "1-1", 1, 5};
  EXPECT_EQ(match_probe_serial("483F700665785555252021FF", p), SerialMatch::kHex);
  EXPECT_EQ(match_probe_serial("483f700665785555252021ff", p), SerialMatch::kHexCase);
  EXPECT_EQ(match_probe_serial("483F700665785555252021FE", p), SerialMatch::kNone);
  EXPECT_EQ(match_probe_serial(raw, p), SerialMatch::kExact);
  UsbProbe short_one{"ST-LINK", "0483:3748", sysfs_utf8({0x18}), "1-1", 1, 5};
  EXPECT_EQ(match_probe_serial("180023000200003041315745", short_one), SerialMatch::kHexPrefix);
  EXPECT_EQ(match_probe_serial("190023000200003041315745", short_one), SerialMatch::kNone);
  UsbProbe v21{"ST-LINK", "0483:374b", "066DFF485550755187121832", "1-2", 1, 6};
  EXPECT_EQ(match_probe_serial("066DFF485550755187121832", v21), SerialMatch::kExact);
  EXPECT_EQ(match_probe_serial("066dff485550755187121832", v21), SerialMatch::kHexCase);
}

// The bench file may name a binary-serial ST-LINK/V2 by its hex form; a
// lowercase hex form is an error for OpenOCD, which compares exactly.
TEST_F(Doctor, StlinkV2IsMatchedByItsHexForm) {
  auto usb = root_ / "sys" / "bus" / "usb" / "devices" / "1-1";
  std::ofstream(usb / "idProduct") << "3748\n";
  std::ofstream(usb / "serial") << sysfs_utf8({0x48, 0x3F, 0x70, 0x06, 0x65, 0x78, 0x55, 0x55, 0x25,
                                               0x20, 0x21, 0x67})
                                << "\n";
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("483F70066578555525202167", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, fake_);
  EXPECT_EQ(find(f, "probe of disco-1")->level, Finding::Level::kOk)
      << find(f, "probe of disco-1")->detail;
  EXPECT_NE(find(f, "probe ST-LINK")->detail.find("hex form 483F70066578555525202167"),
            std::string::npos);
  in.bench = bench("483f70066578555525202167", "/dev/serial/by-id/usb-STM-if02");
  f = run_doctor(in, fake_);
  EXPECT_EQ(find(f, "probe of disco-1")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "probe of disco-1")->fix.find("\"483F70066578555525202167\""),
            std::string::npos);
  // A serial that is no form of it: the error shows the hex form to use.
  in.bench = bench("0669FF000000000000000000", "/dev/serial/by-id/usb-STM-if02");
  f = run_doctor(in, fake_);
  EXPECT_EQ(find(f, "probe of disco-1")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "probe of disco-1")->fix.find("probe.serial: \"483F70066578555525202167\""),
            std::string::npos);
}

TEST(OpenocdVersion, ParsedAndCheckedAgainst012) {
  auto v11 = parse_openocd_version("Open On-Chip Debugger 0.11.0\nLicensed under GNU GPL v2\n");
  ASSERT_TRUE(v11);
  EXPECT_EQ(v11->text, "0.11.0");
  EXPECT_FALSE(openocd_version_ok(*v11));
  auto v12 = parse_openocd_version("Open On-Chip Debugger 0.12.0\n");
  ASSERT_TRUE(v12);
  EXPECT_TRUE(openocd_version_ok(*v12));
  auto dev = parse_openocd_version(
      "Open On-Chip Debugger 0.12.0+dev-01312-g18281b0c4 (2023-09-04-22:32)\n");
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->text, "0.12.0");
  EXPECT_TRUE(openocd_version_ok(*parse_openocd_version("Open On-Chip Debugger 1.0.0")));
  EXPECT_FALSE(parse_openocd_version("xPack OpenOCD").has_value());
}

// The real `openocd --version` (a Debian package, scripts/setup-deps.sh)
// parses to a version this tool accepts.
TEST(OpenocdVersion, TheInstalledOpenocdParses) {
  if (find_in_path("openocd").empty()) GTEST_SKIP() << "openocd is not installed";
  auto runner = make_posix_runner();
  ProcessSpec spec;
  spec.argv = {"openocd", "--version"};
  spec.timeout = std::chrono::seconds(20);
  auto r = runner->run(spec);
  ASSERT_TRUE(r.ok()) << r.describe();
  auto v = parse_openocd_version(r.output);
  ASSERT_TRUE(v) << r.output;
  EXPECT_TRUE(openocd_version_ok(*v)) << v->text;
  // And doctor through the real runner says so.
  DoctorInputs in;
  auto f = run_doctor(in, *runner);
  bool seen = false;
  for (const auto& x : f) {
    if (x.topic == "openocd") {
      seen = true;
      EXPECT_EQ(x.level, Finding::Level::kOk) << x.detail;
      EXPECT_NE(x.detail.find(v->text), std::string::npos) << x.detail;
    }
  }
  EXPECT_TRUE(seen);
}

TEST_F(Doctor, OldOpenocdIsRefusedWhenTheBenchUsesIt) {
  testing::FakeProcessRunner old;
  old.rules = fake_.rules;
  old.rules.insert(old.rules.begin(), {"openocd", "--version", {}});
  old.rules.front().result.started = true;
  old.rules.front().result.exit_code = 0;
  old.rules.front().result.output = "Open On-Chip Debugger 0.11.0\n";
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, old);
  ASSERT_NE(find(f, "openocd"), nullptr);
  EXPECT_EQ(find(f, "openocd")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "openocd")->detail.find("0.11.0 is older than 0.12"), std::string::npos);
  auto s = check_flash_tools_for_run(*in.bench, old);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(s.error().message.find("openocd"), std::string::npos);
  EXPECT_TRUE(check_flash_tools_for_run(*in.bench, fake_).ok());
}

TEST_F(Doctor, MissingFlashToolsAreErrorsAndRunRefuses) {
  testing::FakeProcessRunner none;
  none.on_missing("openocd");
  none.on_missing("pyocd");
  none.rules.insert(none.rules.end(), fake_.rules.begin(), fake_.rules.end());
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, none);
  EXPECT_EQ(find(f, "openocd")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "openocd")->fix.find("Debian package openocd"), std::string::npos);
  EXPECT_EQ(find(f, "pyocd")->level, Finding::Level::kInfo);  // not used by this bench
  auto s = check_flash_tools_for_run(*in.bench, none);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("refusing to start: openocd"), std::string::npos);
  EXPECT_NE(s.error().message.find("fix: install OpenOCD 0.12"), std::string::npos);

  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02", "pyocd");
  f = run_doctor(in, none);
  EXPECT_EQ(find(f, "pyocd")->level, Finding::Level::kError);
  EXPECT_NE(find(f, "pyocd")->fix.find("pipx install pyocd"), std::string::npos);
  s = check_flash_tools_for_run(*in.bench, none);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("pipx install pyocd"), std::string::npos);
}

// pyOCD without the target's pack: `pyocd list --targets` does not list it.
TEST_F(Doctor, PyocdWithoutTheTargetPackIsAnError) {
  testing::FakeProcessRunner p;
  p.on("pyocd", "--version", 0, "0.36.0\n");
  p.on("pyocd", "list --targets -H -n stm32f407vgtx", 0, "");
  p.rules.insert(p.rules.end(), fake_.rules.begin(), fake_.rules.end());
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02", "pyocd");
  auto f = run_doctor(in, p);
  const Finding* t = find(f, "pyocd target stm32f407vgtx");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->level, Finding::Level::kError);
  EXPECT_EQ(t->fix, "pyocd pack install stm32f407vgtx");
  EXPECT_FALSE(check_flash_tools_for_run(*in.bench, p).ok());

  testing::FakeProcessRunner q;
  q.on("pyocd", "--version", 0, "0.36.0\n");
  q.on("pyocd", "list --targets", 0,
       "  stm32f407vgtx   STMicroelectronics   STM32F407VGTx   STM32F4 Series, STM32F407   pack\n");
  q.rules.insert(q.rules.end(), fake_.rules.begin(), fake_.rules.end());
  f = run_doctor(in, q);
  t = find(f, "pyocd target stm32f407vgtx");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->level, Finding::Level::kOk) << t->detail;
  EXPECT_NE(t->detail.find("source: pack"), std::string::npos);
  EXPECT_TRUE(check_flash_tools_for_run(*in.bench, q).ok());
}

// Another process holding the port open is named (pid and command).
TEST_F(Doctor, ABusyPortNamesItsHolder) {
  const std::string slave = ::ptsname(pty_);
  const pid_t child = hold_open(slave, O_RDWR | O_NOCTTY);
  ASSERT_GT(child, 0);
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, fake_);
  const Finding* port = find(f, "serial of disco-1");
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->level, Finding::Level::kError);
  EXPECT_NE(port->detail.find("held open by pid " + std::to_string(child)), std::string::npos)
      << port->detail;
  EXPECT_NE(port->fix.find("kill " + std::to_string(child)), std::string::npos);
  auto holders = port_holders(slave, "/proc");
  EXPECT_TRUE(holders.empty());  // the child is gone
  f = run_doctor(in, fake_);
  EXPECT_EQ(find(f, "serial of disco-1")->level, Finding::Level::kOk);
}

// A process holding the probe's USB node (an IDE's gdb server, a forgotten
// openocd) is named: the flasher could not claim the probe.
TEST_F(Doctor, ABusyProbeNamesItsHolder) {
  const auto node = root_ / "dev" / "bus" / "usb" / "001" / "005";
  const pid_t child = hold_open(node, O_RDWR);
  ASSERT_GT(child, 0);
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, fake_);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const Finding* usb = find(f, "USB access to the probe of disco-1");
  ASSERT_NE(usb, nullptr);
  EXPECT_EQ(usb->level, Finding::Level::kError);
  EXPECT_NE(usb->detail.find("held open by pid " + std::to_string(child)), std::string::npos)
      << usb->detail;
  EXPECT_NE(usb->fix.find("kill " + std::to_string(child)), std::string::npos);
  f = run_doctor(in, fake_);
  EXPECT_EQ(find(f, "USB access to the probe of disco-1")->level, Finding::Level::kOk);
}

// The power cycle's hub, as uhubctl lists it (this fake answers; the real
// uhubctl runs in run.e2e.doctor_configs): per-port switching and the port.
TEST_F(Doctor, ThePowerCycleHubMustSwitchTheNamedPort) {
  auto bin = root_ / "bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin / "uhubctl") << "#!/bin/sh\nexit 99\n";
  std::filesystem::permissions(bin / "uhubctl", std::filesystem::perms::owner_all);
  const std::string saved = std::getenv("PATH");
  setenv("PATH", (bin.string() + ":" + saved).c_str(), 1);
  auto b = matrix::parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: openocd
    probe: {serial: "066AFF"}
    serial: {port: "/dev/serial/by-id/usb-STM-if02"}
    reset: power-cycle
    power_cycle: uhubctl -l 1-1 -p 2 -a cycle -d 3
)",
                               "lab.yaml");
  ASSERT_TRUE(b.ok());
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = b.value;
  auto level_of = [&](const std::string& output, int rc) {
    testing::FakeProcessRunner hub;
    hub.on("uhubctl", "-l 1-1 -p 2", rc, output);
    hub.rules.insert(hub.rules.end(), fake_.rules.begin(), fake_.rules.end());
    auto f = run_doctor(in, hub);
    const Finding* p = find(f, "power cycle of disco-1");
    return p ? std::string(to_string(p->level)) + ": " + p->detail : std::string("none");
  };
  const std::string hub =
      "Current status for hub 1-1 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ";
  EXPECT_EQ(
      level_of(hub + "ppps]\n  Port 2: 0503 power highspeed enable connect\n", 0).substr(0, 3),
      "ok:");
  EXPECT_EQ(level_of(hub + "ganged]\n  Port 2: 0503 power\n", 0).substr(0, 6), "error:");
  std::string other = level_of(hub + "ppps]\n  Port 1: 0100 power\n", 0);
  EXPECT_NE(other.find("does not list hub 1-1 port 2"), std::string::npos) << other;
  std::string none = level_of("No compatible devices detected at location 1-1!\n", 1);
  EXPECT_NE(none.find("error: `uhubctl -l 1-1 -p 2` does not list hub 1-1 port 2"),
            std::string::npos)
      << none;
  setenv("PATH", saved.c_str(), 1);
}

TEST(StlinkFirmware, FromOpenocdsInitLine) {
  EXPECT_EQ(stlink_firmware("Info : STLINK V2J37S7 (API v2) VID:PID 0483:3748\n"), "V2J37S7");
  EXPECT_EQ(stlink_firmware("Info : STLINK V3J7M3B5S1 (API v3) VID:PID 0483:374F\n"), "V3J7M3B5S1");
  EXPECT_FALSE(stlink_firmware("Error: open failed\n").has_value());
}

TEST(UdevRule, HasTheFormOfOpenocdsRules) {
  EXPECT_EQ(udev_rule("0483:374b"),
            R"(SUBSYSTEM=="usb", ATTRS{idVendor}=="0483", ATTRS{idProduct}=="374b", )"
            R"(MODE="660", GROUP="plugdev", TAG+="uaccess")");
  // The line OpenOCD's package installs for the same probe.
  for (const char* f :
       {"/lib/udev/rules.d/60-openocd.rules", "/usr/lib/udev/rules.d/60-openocd.rules"}) {
    std::ifstream in(f);
    if (!in) continue;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string rule = udev_rule("0483:374b");
    EXPECT_NE(text.find(rule.substr(rule.find("ATTRS"))), std::string::npos) << f;
    return;
  }
}

// The probe's device node must be readable and writable by the user who
// runs openocd/pyocd; otherwise the fix is the udev rule.
TEST_F(Doctor, UsbPermissionOfTheProbe) {
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  auto f = run_doctor(in, fake_);
  const Finding* usb = find(f, "USB access to the probe of disco-1");
  ASSERT_NE(usb, nullptr);
  EXPECT_EQ(usb->level, Finding::Level::kOk) << usb->detail;
  EXPECT_NE(usb->detail.find("/dev/bus/usb/001/005"), std::string::npos);

  if (::getuid() != 0) ::chmod((root_ / "dev/bus/usb/001/005").c_str(), 0);
  auto out = unprivileged([&] {
    auto g = run_doctor(in, fake_);
    const Finding* u = find(g, "USB access to the probe of disco-1");
    return u ? std::string(to_string(u->level)) + "|" + u->fix : std::string("none");
  });
  EXPECT_EQ(out.substr(0, out.find('|')), "error") << out;
  EXPECT_NE(out.find(udev_rule("0483:374b")), std::string::npos) << out;
  EXPECT_NE(out.find("plugdev"), std::string::npos) << out;
}

// A Discovery whose port is the ST-LINK's VCP: by its by-id name, or by the
// tty's USB parent being an ST-LINK.
TEST_F(Doctor, DiscoveryOnTheStlinkVcpIsWarnedAboutTheWiring) {
  auto byid = root_ / "dev" / "serial" / "by-id";
  const std::string name = "usb-STMicroelectronics_STM32_STLink_066AFF-if02";
  std::filesystem::create_symlink(::ptsname(pty_), byid / name);
  DoctorInputs in;
  in.sys_root = root_;
  in.bench = bench("066AFF", "/dev/serial/by-id/" + name);
  auto f = run_doctor(in, fake_);
  const Finding* w = find(f, "wiring of disco-1");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->level, Finding::Level::kWarning);
  EXPECT_NE(w->detail.find("not wired to USART2 (PA2/PA3)"), std::string::npos);
  EXPECT_NE(w->fix.find("pin 12"), std::string::npos);
  EXPECT_NE(w->fix.find("pin 13"), std::string::npos);
  EXPECT_NE(format_findings(f).find("ready, with"), std::string::npos) << format_findings(f);

  // Another name, but the tty's USB parent is the ST-LINK.
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  EXPECT_EQ(find(run_doctor(in, fake_), "wiring of disco-1"), nullptr);
  auto tty = std::filesystem::path(::ptsname(pty_)).filename();
  auto iface = root_ / "sys" / "bus" / "usb" / "devices" / "1-1" / "1-1:1.2";
  std::filesystem::create_directories(iface);
  std::filesystem::create_directories(root_ / "sys" / "class" / "tty" / tty);
  std::filesystem::create_symlink(iface, root_ / "sys" / "class" / "tty" / tty / "device");
  EXPECT_NE(find(run_doctor(in, fake_), "wiring of disco-1"), nullptr);
}

TEST(Idcode, ParsedFromBothTools) {
  EXPECT_EQ(parse_idcode("Info : ...\n0xe0042000: 10016413 \n", 0xE0042000), 0x10016413u);
  EXPECT_EQ(parse_idcode("e0042000:  10076413    |.d..|\n", 0xE0042000), 0x10076413u);
  EXPECT_FALSE(parse_idcode("Error: open failed\n", 0xE0042000).has_value());
  // The board's address only: an STM32H5's DBGMCU is at 0x44024000.
  EXPECT_EQ(parse_idcode("0x44024000: 10016484 \n", 0x44024000), 0x10016484u);
  EXPECT_FALSE(parse_idcode("0xe0042000: 10016413 \n", 0x44024000).has_value());
  EXPECT_EQ(describe_idcode(0x10016413),
            "device 0x413 (STM32F405/407/415/417), revision Z (REV_ID 0x1001)");
  EXPECT_EQ(describe_idcode(0x20016413),
            "device 0x413 (STM32F405/407/415/417), revision 3 (REV_ID 0x2001)");
  EXPECT_EQ(describe_idcode(0x10006419), "device 0x419, revision (REV_ID 0x1000)");
}

// --probe: the IDCODE read through the board's flasher, the device checked.
TEST_F(Doctor, ProbeReadsTheIdcode) {
  DoctorInputs in;
  in.sys_root = root_;
  in.probe_targets = true;
  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02");
  testing::FakeProcessRunner ok;
  ok.on("openocd", "mdw 0xE0042000", 0,
        "Info : STLINK V2J37S7 (API v2) VID:PID 0483:3748\n0xe0042000: 10016413 \n");
  ok.rules.insert(ok.rules.end(), fake_.rules.begin(), fake_.rules.end());
  auto f = run_doctor(in, ok);
  const Finding* t = find(f, "target of disco-1");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->level, Finding::Level::kOk) << t->detail;
  EXPECT_NE(t->detail.find("revision Z"), std::string::npos);
  EXPECT_NE(t->detail.find("ST-LINK firmware V2J37S7"), std::string::npos) << t->detail;
  bool argv_seen = false;
  for (const auto& c : ok.calls) {
    if (c.size() > 1 && c[0] == "openocd" && c.back() == "shutdown") {
      argv_seen = true;
      EXPECT_EQ(c, (std::vector<std::string>{
                       "openocd", "-c", "gdb_port disabled", "-c", "tcl_port disabled", "-c",
                       "telnet_port disabled", "-f", "interface/stlink.cfg", "-c",
                       "adapter serial 066AFF", "-f", "target/stm32f4x.cfg", "-c", "init", "-c",
                       "mdw 0xE0042000", "-c", "shutdown"}));
    }
  }
  EXPECT_TRUE(argv_seen);

  testing::FakeProcessRunner other;
  other.on("openocd", "mdw", 0, "0xe0042000: 10006419 \n");
  other.rules.insert(other.rules.end(), fake_.rules.begin(), fake_.rules.end());
  const auto found_other = run_doctor(in, other);  // t points into it
  t = find(found_other, "target of disco-1");
  EXPECT_EQ(t->level, Finding::Level::kError);
  EXPECT_NE(t->detail.find("has device 0x413"), std::string::npos);

  testing::FakeProcessRunner dead;
  dead.on("openocd", "mdw", 1, "Error: init mode failed (unable to connect to the target)\n");
  dead.rules.insert(dead.rules.end(), fake_.rules.begin(), fake_.rules.end());
  const auto found_dead = run_doctor(in, dead);  // t points into it
  t = find(found_dead, "target of disco-1");
  EXPECT_EQ(t->level, Finding::Level::kError);
  EXPECT_NE(t->detail.find("unable to connect"), std::string::npos);

  in.bench = bench("066AFF", "/dev/serial/by-id/usb-STM-if02", "pyocd");
  testing::FakeProcessRunner py;
  py.on("pyocd", "--version", 0, "0.36.0\n");
  py.on("pyocd", "list", 0, "stm32f407vgtx STMicroelectronics STM32F407VGTx STM32F4 pack\n");
  py.on("pyocd", "read32 0xE0042000", 0, "e0042000:  10076413    |.d..|\n");
  py.rules.insert(py.rules.end(), fake_.rules.begin(), fake_.rules.end());
  const auto found_py = run_doctor(in, py);  // t points into it
  t = find(found_py, "target of disco-1");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->level, Finding::Level::kOk) << t->detail;
  EXPECT_NE(t->detail.find("revision 1"), std::string::npos);
}

// The bench's analyzer: sigrok-cli's version, its driver list, the device
// --scan finds (with the roles' channels) and fx2lafw's firmware files.
// sigrok-cli itself is asked through the scripted runner (the real one
// runs in tests/run/e2e/analyzer.sh); find_in_path needs it installed.
TEST(DoctorAnalyzer, ReportsVersionDriverDeviceAndFirmware) {
  if (find_in_path("sigrok-cli").empty()) GTEST_SKIP() << "sigrok-cli is not installed";
  const auto root =
      std::filesystem::temp_directory_path() / ("rb-doctor-analyzer-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "usr/share/sigrok-firmware");
  const std::string list =
      "Supported hardware drivers:\n  demo                 Demo driver and pattern generator\n"
      "  fx2lafw              fx2lafw (generic driver for FX2 based LAs)\n\nSupported input "
      "formats:\n  vcd                  Value Change Dump data\n";
  testing::FakeProcessRunner p;
  p.on("sigrok-cli", "--version", 0, "sigrok-cli 0.7.2\n\nLibraries and features:\n");
  p.on("sigrok-cli", "-L", 0, list);
  p.on("sigrok-cli", "-d fx2lafw:conn=1.5 --scan", 0, "");
  matrix::Analyzer a;
  a.driver = "fx2lafw";
  a.conn = "1.5";
  std::vector<Finding> f;
  check_analyzer(f, p, a, root);
  auto topic = [&](const std::string& t) -> const Finding* {
    for (const auto& x : f)
      if (x.topic == t) return &x;
    return nullptr;
  };
  ASSERT_NE(topic("sigrok-cli"), nullptr);
  EXPECT_EQ(topic("sigrok-cli")->detail, "version 0.7.2");
  const Finding* fw = topic("fx2lafw firmware");
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(fw->level, Finding::Level::kError);
  EXPECT_EQ(fw->fix, "apt-get install sigrok-firmware-fx2lafw");
  EXPECT_EQ(f.back().level, Finding::Level::kError);  // no device found
  EXPECT_NE(f.back().detail.find("finds no device"), std::string::npos) << f.back().detail;

  std::ofstream(root / "usr/share/sigrok-firmware/fx2lafw-saleae-logic.fw") << "fw";
  p.rules.insert(p.rules.begin(),
                 {"sigrok-cli", "-d fx2lafw:conn=1.5 --scan",
                  ProcessResult{true, 0, 0, false, false,
                                "The following devices were found:\nfx2lafw:conn=1.5 - Saleae "
                                "Logic with 8 channels: D0 D1 D2 D3 D4 D5 D6 D7\n",
                                ""}});
  f.clear();
  check_analyzer(f, p, a, root);
  EXPECT_EQ(topic("fx2lafw firmware")->level, Finding::Level::kOk);
  EXPECT_EQ(f.back().level, Finding::Level::kOk) << f.back().detail;
  EXPECT_NE(f.back().detail.find("MK=D0 EV=D1 TK=D2 at 24000000 Hz"), std::string::npos);
  EXPECT_FALSE(has_errors(f));

  a.tk = "D9";  // the device has no such channel
  f.clear();
  check_analyzer(f, p, a, root);
  EXPECT_NE(f.back().detail.find("no channel D9"), std::string::npos) << f.back().detail;

  a.driver = "nosuch";
  f.clear();
  check_analyzer(f, p, a, root);
  EXPECT_NE(f.back().detail.find("does not list the driver 'nosuch'"), std::string::npos);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace rb::doctor
