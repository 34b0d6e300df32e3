#include "util/atomic_write.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rb_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  fs::path dir_;
};

TEST_F(AtomicWrite, WritesAndReplacesLeavingNoTemporaryFile) {
  const fs::path p = dir_ / "report.json";
  ASSERT_TRUE(rb::write_file_atomic(p, "first"));
  EXPECT_EQ(slurp(p), "first");
  ASSERT_TRUE(rb::write_file_atomic(p, std::string(100000, 'x')));
  EXPECT_EQ(slurp(p), std::string(100000, 'x'));
  ASSERT_TRUE(rb::write_file_atomic(p, ""));
  EXPECT_EQ(slurp(p), "");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicWrite, RespectsTheUmask) {
  const fs::path p = dir_ / "mode.txt";
  const mode_t old = ::umask(022);
  ASSERT_TRUE(rb::write_file_atomic(p, "x"));
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AtomicWrite, MissingDirectoryIsAnErrorNamingThePath) {
  const fs::path p = dir_ / "no" / "such" / "dir" / "out.json";
  auto s = rb::write_file_atomic(p, "data");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(p.string()), std::string::npos) << s.error().message;
  EXPECT_FALSE(fs::exists(p));
}

TEST_F(AtomicWrite, ADirectoryInTheWayKeepsItAndLeavesNoTemporary) {
  const fs::path p = dir_ / "taken";
  fs::create_directories(p / "child");
  auto s = rb::write_file_atomic(p, "data");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(fs::is_directory(p / "child"));
  EXPECT_EQ(entries(), 1u) << "temporary file left behind";
}

TEST_F(AtomicWrite, RelativePathWithoutDirectory) {
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  auto s = rb::write_file_atomic("plain.txt", "abc");
  fs::current_path(old);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(slurp(dir_ / "plain.txt"), "abc");
}

}  // namespace
