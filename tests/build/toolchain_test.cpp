#include "build/toolchain.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "../util/fake_process_runner.h"
#include "util/sha256.h"

namespace rb::build {
namespace {

class ToolchainProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("rb-toolchain-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "bin");
    std::filesystem::create_directories(root_ / "real");
    std::filesystem::create_directories(root_ / "empty");
    write_exe(root_ / "real" / "gcc-12", "the compiler driver\n");
    write_exe(root_ / "real" / "cc1", "the compiler proper\n");
    // Debian's layout: bin/arm-none-eabi-gcc is a link to the versioned driver.
    std::filesystem::create_symlink(root_ / "real" / "gcc-12", root_ / "bin" / "arm-none-eabi-gcc");
    runner_.on("arm-none-eabi-gcc", "-dumpversion", 0, "12.2.1\n");
    runner_.on("arm-none-eabi-gcc", "--version", 0, "arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1\n");
    runner_.on("cmake", "--version", 0, "cmake version 3.25.1\n");
    runner_.on("ninja", "--version", 0, "1.11.1\n");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  static void write_exe(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p) << text;
    ::chmod(p.c_str(), 0755);
  }
  std::filesystem::path root_;
  rb::testing::FakeProcessRunner runner_;
};

TEST_F(ToolchainProbe, HashesTheFileTheCompilerResolvesToAndItsCc1) {
  runner_.on("arm-none-eabi-gcc", "-print-prog-name=cc1", 0, (root_ / "real" / "cc1").string());
  auto tc = probe_toolchain(runner_, (root_ / "empty").string() + ":" + (root_ / "bin").string());
  ASSERT_TRUE(tc.ok()) << tc.error().message;
  EXPECT_EQ(tc->gcc_version, "12.2.1");
  EXPECT_EQ(tc->gcc_path, std::filesystem::canonical(root_ / "real" / "gcc-12").string());
  EXPECT_EQ(tc->gcc_sha256, sha256_hex("the compiler driver\n"));
  EXPECT_EQ(tc->cc1_path, std::filesystem::canonical(root_ / "real" / "cc1").string());
  EXPECT_EQ(tc->cc1_sha256, sha256_hex("the compiler proper\n"));
}

TEST_F(ToolchainProbe, NoHashWhenTheFilesCannotBeFound) {
  // gcc prints the bare name when it has no cc1; PATH without the compiler.
  runner_.on("arm-none-eabi-gcc", "-print-prog-name=cc1", 0, "cc1\n");
  auto tc = probe_toolchain(runner_, (root_ / "empty").string());
  ASSERT_TRUE(tc.ok()) << tc.error().message;
  EXPECT_EQ(tc->gcc_sha256, "");
  EXPECT_EQ(tc->gcc_path, "");
  EXPECT_EQ(tc->cc1_sha256, "");
}

TEST_F(ToolchainProbe, ResolveOnPathSkipsWhatIsNotAnExecutableFile) {
  std::filesystem::create_directories(root_ / "dir" / "arm-none-eabi-gcc");  // a directory
  std::ofstream(root_ / "empty" / "arm-none-eabi-gcc") << "not executable\n";
  const std::string path =
      (root_ / "dir").string() + ":" + (root_ / "empty").string() + ":" + (root_ / "bin").string();
  EXPECT_EQ(resolve_on_path("arm-none-eabi-gcc", path),
            std::filesystem::canonical(root_ / "real" / "gcc-12"));
  EXPECT_TRUE(resolve_on_path("arm-none-eabi-gcc", (root_ / "dir").string()).empty());
}

}  // namespace
}  // namespace rb::build
