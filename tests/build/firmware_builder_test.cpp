#include "build/firmware_builder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../util/fake_process_runner.h"
#include "util/sha256.h"

namespace rb::build {
namespace {

// Counts the processes the real runner starts.
class CountingRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    ++runs;
    return real->run(spec);
  }
  Result<std::unique_ptr<ChildProcess>> spawn(const ProcessSpec& spec) override {
    return real->spawn(spec);
  }
  std::unique_ptr<ProcessRunner> real = make_posix_runner();
  int runs = 0;
};

class FirmwareBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("rb-build-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    fw_ = root_ / "fw";
    std::filesystem::copy(std::filesystem::path(RTOSBENCH_TEST_DATA) / "run" / "testfw", fw_,
                          std::filesystem::copy_options::recursive);
    req_.job.id = req_.job.build_id = "bare-O2-tick1000-fpu0";
    req_.job.kernel.name = req_.job.kernel.port = "bare";
    req_.job.board = "qemu-netduinoplus2";
    req_.job.variant = model::default_variant();
    req_.job.tests = {"all"};
    req_.job.samples = 32;
    req_.firmware_dir = fw_;
    req_.toolchain = Toolchain{"12.2.1", "arm-none-eabi-gcc 12.2.1", "3.25.1", "1.11.1"};
    req_.log = root_ / "build.log";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_, fw_;
  BuildRequest req_;
};

TEST_F(FirmwareBuild, ManifestChangesWithEveryInputButNotWithTheSourcePath) {
  auto base = input_manifest(req_);
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_EQ(*input_manifest(req_), *base);  // stable

  auto other = req_;
  other.job.variant["opt"] = "-Os -g0";
  EXPECT_NE(*input_manifest(other), *base);
  other = req_;
  other.toolchain.gcc_banner = "arm-none-eabi-gcc 13.2.1";
  EXPECT_NE(*input_manifest(other), *base);
  other = req_;  // the same version, another compiler binary
  other.toolchain.gcc_sha256 = std::string(64, 'a');
  EXPECT_NE(*input_manifest(other), *base);
  other.toolchain.cc1_sha256 = std::string(64, 'b');
  EXPECT_NE(*input_manifest(other), *input_manifest(req_));
  auto with_gcc = req_;
  with_gcc.toolchain.gcc_sha256 = std::string(64, 'a');
  EXPECT_NE(*input_manifest(other), *input_manifest(with_gcc));
  other = req_;
  other.kernel.has_source = true;
  other.kernel.main.name = "bare";
  other.kernel.main.commit = "abc";
  other.kernel.main.path = "/one/place";
  auto with_kernel = *input_manifest(other);
  EXPECT_NE(with_kernel, *base);
  other.kernel.main.path = "/another/place";
  EXPECT_EQ(*input_manifest(other), with_kernel);

  std::ofstream(fw_ / "main.c", std::ios::app) << "/* changed */\n";
  EXPECT_NE(*input_manifest(req_), *base);
}

TEST_F(FirmwareBuild, DefinesCarryTheJob) {
  req_.job.tests = {"ruler", "mutex"};
  auto d = job_defines(req_);
  EXPECT_EQ(d.at("RB_PORT"), "bare");
  EXPECT_EQ(d.at("RB_TESTS"), "ruler,mutex");
  EXPECT_EQ(d.at("RB_KERNEL_COMMIT"), "n/a");
  // The fixed build date is the firmware tree's own (firmware/CMakeLists.txt,
  // hashed into the build key with the rest of the tree), not passed.
  EXPECT_EQ(d.count("RB_SOURCE_DATE_EPOCH"), 0u);
  EXPECT_EQ(d.count("RB_KERNEL_SOURCE"), 0u);
  EXPECT_EQ(d.count("RB_NONCE"), 0u);
}

TEST_F(FirmwareBuild, RealBuildThenCacheHitThenRebuildOnChange) {
  CountingRunner runner;
  CmakeBuilder builder(runner, root_ / "cache");
  auto first = builder.build(req_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_FALSE(first->cached);
  EXPECT_EQ(first->nonce, first->key.substr(0, 8));
  EXPECT_EQ(first->defines.at("RB_NONCE"), first->nonce);
  EXPECT_EQ(first->elf_sha256.size(), 64u);
  EXPECT_EQ(first->bin_sha256, *sha256_file(first->bin));
  EXPECT_GT(first->footprint.text, 0u);
  EXPECT_EQ(first->footprint.flash, first->footprint.text + first->footprint.data);
  int after_first = runner.runs;
  EXPECT_EQ(after_first, 2);  // configure + build

  auto second = builder.build(req_);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->key, first->key);
  EXPECT_EQ(second->elf_sha256, first->elf_sha256);
  EXPECT_EQ(second->bin_sha256, first->bin_sha256);
  EXPECT_EQ(runner.runs, after_first);  // nothing ran

  std::ofstream(fw_ / "main.c", std::ios::app) << "/* changed */\n";
  auto third = builder.build(req_);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->cached);
  EXPECT_NE(third->key, first->key);
}

TEST_F(FirmwareBuild, CompilerErrorIsTheReason) {
  req_.job.kernel.port = "broken";
  auto runner = make_posix_runner();
  CmakeBuilder builder(*runner, root_ / "cache");
  auto out = builder.build(req_);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("firmware build failed"), std::string::npos);
  EXPECT_NE(out.error().message.find("broken on purpose"), std::string::npos)
      << out.error().message;
  std::ifstream log(req_.log);
  std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("$ cmake -S"), std::string::npos);
}

TEST_F(FirmwareBuild, ConfigureFailureFromAFakeRunner) {
  testing::FakeProcessRunner fake;
  fake.on("cmake", "-S", 1, "CMake Error at CMakeLists.txt:3 (message):\n  no port 'x'\n");
  CmakeBuilder builder(fake, root_ / "cache");
  auto out = builder.build(req_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message,
            "cmake configure failed (exit status 1): CMake Error at CMakeLists.txt:3: no port 'x'");
}

TEST(ErrorExcerpt, PrefersErrorLines) {
  EXPECT_EQ(
      error_excerpt(
          "a\nb\nmain.c:9:2: error: boom\nFAILED: x\nninja: build stopped: subcommand failed.\n"),
      "main.c:9:2: error: boom");
  EXPECT_EQ(error_excerpt("one\ntwo\nthree\nfour\n"), "two | three | four");
  EXPECT_EQ(error_excerpt(""), "(no output)");
}

TEST(ErrorExcerpt, ACMakeErrorCarriesItsMessage) {
  // As cmake prints a FATAL_ERROR: the text on indented lines under the
  // location, then a blank line, then cmake's own closing lines.
  const std::string out =
      "-- Detecting C compile features - done\n"
      "CMake Error at CMakeLists.txt:159 (message):\n"
      "  RB_TICKLESS=1: the bare port has no tickless idle: ports/bare/port.cmake\n"
      "  names no RB_PORT_TICKLESS (docs/kernels.md)\n"
      "\n"
      "\n"
      "-- Configuring incomplete, errors occurred!\n"
      "See also \"/tmp/b/CMakeFiles/CMakeError.log\".\n";
  EXPECT_EQ(error_excerpt(out),
            "CMake Error at CMakeLists.txt:159: RB_TICKLESS=1: the bare port has no tickless "
            "idle: ports/bare/port.cmake names no RB_PORT_TICKLESS (docs/kernels.md) | -- "
            "Configuring incomplete, errors occurred! | See also "
            "\"/tmp/b/CMakeFiles/CMakeError.log\".");
  // A message cut off by the end of the output still counts.
  EXPECT_EQ(error_excerpt("CMake Error at a.cmake:3 (message):\n  no way"),
            "CMake Error at a.cmake:3: no way");
}

TEST(Toolchain, PinMismatchIsRefused) {
  Toolchain tc{"12.2.1", "arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205", "3.25.1", "1.11.1"};
  EXPECT_TRUE(check_gcc_pin(tc, "").ok());
  EXPECT_TRUE(check_gcc_pin(tc, "12.2.1").ok());
  auto s = check_gcc_pin(tc, "12.3.1");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("is 12.2.1 but the matrix pins 12.3.1"), std::string::npos);
}

TEST(Toolchain, MissingCompilerSaysWhichPackage) {
  testing::FakeProcessRunner fake;
  fake.on_missing("arm-none-eabi-gcc");
  auto tc = probe_toolchain(fake);
  ASSERT_FALSE(tc.ok());
  EXPECT_NE(tc.error().message.find("gcc-arm-none-eabi"), std::string::npos);
}

}  // namespace
}  // namespace rb::build
