// The real fork/exec runner.
#include "util/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "util/file_lock.h"
#include "util/temp_dir.h"

namespace rb {
namespace {

TEST(PosixRunner, ExitCodeOutputAndLog) {
  auto runner = make_posix_runner();
  auto log =
      std::filesystem::temp_directory_path() / ("rb-proc-" + std::to_string(::getpid()) + ".log");
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

// A child dies with the thread that started it (PR_SET_PDEATHSIG): here the
// thread ends without stopping it, as a killed rtosbench would.
TEST(PosixRunner, ChildDiesWithItsParent) {
  std::unique_ptr<ChildProcess> child;
  std::thread starter([&] {
    auto c = make_posix_runner()->spawn(ProcessSpec{{"sleep", "30"}, {}, {}, {}, {}});
    ASSERT_TRUE(c.ok()) << c.error().message;
    child = std::move(*c);  // not stopped: nothing ends it but its parent's death
  });
  starter.join();
  ASSERT_TRUE(child);
  ASSERT_TRUE(child->wait_for(std::chrono::seconds(5)));
  EXPECT_EQ(child->result().signal, SIGKILL);
}

// What a second Ctrl-C does before leaving: SIGKILL to every child's group,
// grandchildren included.
TEST(PosixRunner, KillAllChildrenKillsEveryGroup) {
  auto runner = make_posix_runner();
  auto c = runner->spawn(ProcessSpec{{"sh", "-c", "sleep 30 & wait"}, {}, {}, {}, {}});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE((*c)->wait_for(std::chrono::milliseconds(100)));
  kill_all_children();
  ASSERT_TRUE((*c)->wait_for(std::chrono::seconds(5)));
  EXPECT_EQ((*c)->result().signal, SIGKILL);
}

TEST(OwnedTempDir, OrphansAreRemovedAndLiveOwnersKept) {
  auto parent = std::filesystem::temp_directory_path() / ("rb-owned-" + std::to_string(::getpid()));
  std::filesystem::remove_all(parent);
  std::filesystem::create_directories(parent);
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  std::filesystem::create_directories(parent / ("rb-x-" + std::to_string(dead) + "-abc") / "sub");
  std::filesystem::create_directories(parent / ("rb-x-" + std::to_string(::getppid()) + "-def"));
  std::filesystem::create_directories(parent / "rb-x-notapid");
  EXPECT_EQ(remove_orphaned_temp_dirs("rb-x", parent), 1);
  EXPECT_FALSE(std::filesystem::exists(parent / ("rb-x-" + std::to_string(dead) + "-abc")));
  EXPECT_TRUE(std::filesystem::exists(parent / ("rb-x-" + std::to_string(::getppid()) + "-def")));
  EXPECT_TRUE(std::filesystem::exists(parent / "rb-x-notapid"));
  std::filesystem::remove_all(parent);

  auto mine = make_owned_temp_dir("rb-owned-test");
  ASSERT_TRUE(mine.ok());
  EXPECT_NE(mine->filename().string().find("rb-owned-test-" + std::to_string(::getpid()) + "-"),
            std::string::npos);
  EXPECT_EQ(remove_orphaned_temp_dirs("rb-owned-test"), 0);  // its owner (this test) is alive
  std::filesystem::remove_all(*mine);
}

TEST(FileLock, ASecondHolderIsRefusedWithThePid) {
  auto file = std::filesystem::temp_directory_path() / ("rb-lock-" + std::to_string(::getpid()));
  {
    auto a = FileLock::acquire(file);
    ASSERT_TRUE(a.ok()) << a.error().message;
    // Another process: flock is per open file, so a child that opens the
    // file again is refused while this one holds it.
    pid_t child = ::fork();
    if (child == 0) {
      auto b = FileLock::acquire(file);
      bool named =
          !b.ok() && b.error().message.find("locked by process " + std::to_string(::getppid())) !=
                         std::string::npos;
      ::_exit(named ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_TRUE(FileLock::acquire(file).ok());  // released with its holder
  std::filesystem::remove(file);
}

TEST(FileLock, TheRefusalNamesTheLiveHolderNotAFormerOne) {
  // Just after a new holder takes the lock, the file may still name the
  // former holder, now dead, until the new one writes its own pid.
  auto file =
      std::filesystem::temp_directory_path() / ("rb-lock-stale-" + std::to_string(::getpid()));
  auto write_pid = [&](pid_t pid) { std::ofstream(file, std::ios::trunc) << pid << "\n"; };
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  {
    auto a = FileLock::acquire(file);
    ASSERT_TRUE(a.ok()) << a.error().message;
    write_pid(dead);
    pid_t holder = ::getpid();
    pid_t late_writer = ::fork();
    if (late_writer == 0) {
      ::usleep(200 * 1000);
      write_pid(holder);
      ::_exit(0);
    }
    pid_t child = ::fork();
    if (child == 0) {
      auto b = FileLock::acquire(file);
      bool named = !b.ok() && b.error().message.find("locked by process " +
                                                     std::to_string(holder)) != std::string::npos;
      ::_exit(named ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ::waitpid(late_writer, nullptr, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::ifstream in(file);
  std::string left;
  std::getline(in, left);
  EXPECT_EQ(left, "");  // released: the file no longer names a holder
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace rb
