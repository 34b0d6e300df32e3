// The real posix_spawn runner.
#include "util/process.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

namespace rb {
namespace {

TEST(PosixRunner, ExitCodeOutputAndLog) {
  auto runner = make_posix_runner();
  auto log = std::filesystem::temp_directory_path() / ("rb-proc-" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(log);
  ProcessSpec s;
  s.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"};
  s.log = log;
  auto r = runner->run(s);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit status 3");
  EXPECT_EQ(r.output, "out\nerr\n");
  EXPECT_EQ(r.tail(1), "err");
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "out\nerr\n");
  std::filesystem::remove(log);
}

TEST(PosixRunner, MissingProgramIsNotStarted) {
  auto r = make_posix_runner()->run(ProcessSpec{{"rtosbench-no-such-tool"}, {}, {}, {}, {}});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.describe().find("could not start"), std::string::npos);
}

TEST(PosixRunner, TimeoutKillsTheWholeGroup) {
  ProcessSpec s;
  s.argv = {"sh", "-c", "sleep 30 & sleep 30"};
  s.timeout = std::chrono::milliseconds(200);
  auto t0 = std::chrono::steady_clock::now();
  auto r = make_posix_runner()->run(s);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.describe(), "timed out");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(PosixRunner, EnvironmentAndDirectory) {
  ProcessSpec s;
  s.argv = {"sh", "-c", "echo $RB_TEST_VAR; pwd"};
  s.env["RB_TEST_VAR"] = "hello";
  s.cwd = "/";
  auto r = make_posix_runner()->run(s);
  EXPECT_EQ(r.output, "hello\n/\n");
}

TEST(PosixRunner, BackgroundChildCanBeStopped) {
  ProcessSpec s;
  s.argv = {"sleep", "30"};
  auto child = make_posix_runner()->spawn(s);
  ASSERT_TRUE(child.ok());
  EXPECT_TRUE((*child)->running());
  EXPECT_FALSE((*child)->wait_for(std::chrono::milliseconds(50)));
  (*child)->stop(std::chrono::milliseconds(500));
  EXPECT_FALSE((*child)->running());
  EXPECT_EQ((*child)->result().signal, SIGTERM);
}

TEST(FindInPath, FindsExecutables) {
  EXPECT_FALSE(find_in_path("sh").empty());
  EXPECT_TRUE(find_in_path("rtosbench-no-such-tool").empty());
  EXPECT_EQ(find_in_path("/bin/sh"), std::filesystem::path("/bin/sh"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

TEST(PosixRunner, ToolThatClosesItsOutputStillTimesOut) {
  ProcessSpec s;
  s.argv = {"sh", "-c", "exec >/dev/null 2>&1; sleep 30"};
  s.timeout = std::chrono::milliseconds(300);
  auto t0 = std::chrono::steady_clock::now();
  auto r = make_posix_runner()->run(s);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(PosixRunner, InterruptKillsARunningTool) {
  ProcessSpec s;
  s.argv = {"sleep", "30"};
  std::thread t([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    request_interrupt();
  });
  auto r = make_posix_runner()->run(s);
  t.join();
  clear_interrupt();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.describe(), "interrupted");
}

}  // namespace
}  // namespace rb
