// doctor against a described machine: a fake /sys and /dev under a temporary
// root, and a scripted process runner for the tools.
#include "run/doctor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "../util/fake_process_runner.h"
#include "matrix/load.h"

namespace rb::run {
namespace {

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

  matrix::Bench bench(const std::string& serial, const std::string& port) {
    auto b = matrix::parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: openocd
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
  auto m = matrix::parse_matrix(
      "matrix: m\nboard: qemu-netduinoplus2\ntoolchain: {arm-none-eabi-gcc: \"12.3.1\"}\n"
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

}  // namespace
}  // namespace rb::run
