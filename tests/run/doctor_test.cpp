// doctor against a described machine: a fake /sys and /dev under a temporary
// root, and a scripted process runner for the tools.
#include "run/doctor.h"

#include "matrix/load.h"

#include "../util/fake_process_runner.h"

#include <gtest/gtest.h>

#include <fstream>

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
    std::ofstream(root_ / "dev" / "serial" / "by-id" / "usb-STM-if02") << "";
    fake_.on("arm-none-eabi-gcc", "-dumpversion", 0, "12.2.1\n");
    fake_.on("arm-none-eabi-gcc", "--version", 0, "arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205\n");
    fake_.on("cmake", "", 0, "cmake version 3.25.1\n");
    fake_.on("ninja", "", 0, "1.11.1\n");
    fake_.on("git", "", 0, "git version 2.39.5\n");
    fake_.on("qemu-system-arm", "", 0, "QEMU emulator version 7.2.22\n");
    fake_.on("openocd", "", 0, "Open On-Chip Debugger 0.12.0\n");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  matrix::Bench bench(const std::string& serial, const std::string& port) {
    auto b = matrix::parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: openocd
    probe: {serial: ")" + serial + R"("}
    serial: {port: ")" + port + R"("}
)", "lab.yaml");
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
  auto m = matrix::parse_matrix("matrix: m\nboard: qemu-netduinoplus2\ntoolchain: {arm-none-eabi-gcc: \"12.3.1\"}\n"
                                "kernels: [{name: bare}]\nfirmware: " + root_.string() + "\n", "m.yaml");
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
