// SerialCapture on a real pty (the same code path as QEMU's pty and a
// /dev/ttyACM device): the test writes on the master side.
#include "serial/capture.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "util/process.h"

namespace rb::serial {
namespace {

class PtyCapture : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[256];
    ASSERT_EQ(openpty(&master_, &slave_, name, nullptr, nullptr), 0);
    slave_path_ = name;
    raw_ = std::filesystem::temp_directory_path() /
           ("rb-capture-" + std::to_string(::getpid()) + ".raw");
  }
  void TearDown() override {
    if (master_ >= 0) ::close(master_);
    if (slave_ >= 0) ::close(slave_);
    std::filesystem::remove(raw_);
    clear_interrupt();
  }
  void write_master(const std::string& s) {
    ASSERT_EQ(::write(master_, s.data(), s.size()), static_cast<ssize_t>(s.size()));
  }
  std::string raw_text() {
    std::ifstream in(raw_, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  CaptureOptions quick() {
    CaptureOptions o;
    o.overall = std::chrono::seconds(5);
    o.inactivity = std::chrono::milliseconds(500);
    return o;
  }
  int master_ = -1, slave_ = -1;
  std::filesystem::path slave_path_, raw_;
};

TEST_F(PtyCapture, StopsAtEndAndKeepsEveryByte) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok()) << cap.error().message;
  std::string log =
      "boot "
      "banner\r\nBEGIN,RTOS_BENCH_V2|0|00000000\r\nRAW,x,0,1|1|00000000\r\nEND,RTOS_BENCH_V2|2|"
      "00000000\r\n";
  std::thread writer([&] {
    for (char c : log) {
      write_master(std::string(1, c));
    }
  });
  auto r = (*cap)->run(quick());
  writer.join();
  EXPECT_EQ(r.reason, StopReason::kEnd) << r.message;
  EXPECT_EQ(r.lines, 4u);
  EXPECT_EQ(r.protocol_lines_seen, 3u);
  EXPECT_EQ(raw_text().substr(0, log.size() - 2), log.substr(0, log.size() - 2));
}

TEST_F(PtyCapture, SilenceIsAnInactivityTimeout) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  write_master("BEGIN,RTOS_BENCH_V2|0|00000000\n");
  auto r = (*cap)->run(quick());
  EXPECT_EQ(r.reason, StopReason::kInactivityTimeout);
  EXPECT_NE(r.message.find("silent"), std::string::npos);
  EXPECT_EQ(r.bytes, 31u);
  EXPECT_EQ(raw_text(), "BEGIN,RTOS_BENCH_V2|0|00000000\n");
}

TEST_F(PtyCapture, AnAnnouncedQuietWindowRaisesTheInactivityTimeoutForThatTestOnly) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  std::thread writer([&] {
    write_master("BEGIN,RTOS_BENCH_V2|0|00000000\nTEST,time_slice,quiet_ms=1000|1|00000000\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // > 500 ms, < 1.25 s + 5 s
    write_master("RESULT,time_slice|2|00000000\nTEST,queue|3|00000000\n");
  });
  auto o = quick();
  o.overall = std::chrono::seconds(20);
  auto r = (*cap)->run(o);  // silent again after TEST,queue: the 500 ms hold again
  writer.join();
  EXPECT_EQ(r.reason, StopReason::kInactivityTimeout) << r.message;
  EXPECT_EQ(r.lines, 4u) << r.message;  // the quiet window itself did not stop it
  EXPECT_NE(r.message.find("silent for 0 s"), std::string::npos) << r.message;
  EXPECT_EQ(r.longest_quiet_ms, 1000);
}

TEST_F(PtyCapture, TheStartLineAnswersTheBannerUntilARecordArrives) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  std::string got;
  std::thread target([&] {
    write_master("rtosbench-fw: board=b port=p harness=h nonce=abc waiting for START\n");
    char buf[256];
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1300);
    while (std::chrono::steady_clock::now() < until) {  // no answer yet: the host repeats
      pollfd p{master_, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        ssize_t n = ::read(master_, buf, sizeof buf);
        if (n > 0) got.append(buf, static_cast<size_t>(n));
      }
    }
    write_master("BEGIN,RTOS_BENCH_V2|0|00000000\nEND,RTOS_BENCH_V2|1|00000000\n");
  });
  auto o = quick();
  o.inactivity = std::chrono::seconds(3);
  o.start_line = "START abc\n";
  auto r = (*cap)->run(o);
  target.join();
  EXPECT_EQ(r.reason, StopReason::kEnd) << r.message;
  EXPECT_GE(r.starts_sent, 3);
  EXPECT_EQ(got.substr(0, 20), "START abc\nSTART abc\n");
  EXPECT_GT(r.seconds_to_begin, 1.0);
  EXPECT_EQ(r.bytes_after_begin, 60u);  // the BEGIN and END lines
}

TEST_F(PtyCapture, NoBannerNoStartLine) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  write_master("garbage at the wrong baud\n");
  auto o = quick();
  o.start_line = "START abc\n";
  auto r = (*cap)->run(o);
  EXPECT_EQ(r.reason, StopReason::kInactivityTimeout);
  EXPECT_EQ(r.starts_sent, 0);
  EXPECT_NE(r.message.find("no firmware banner seen"), std::string::npos) << r.message;
}

TEST_F(PtyCapture, WhatThePortHeldBeforeIsDrainedNotCaptured) {
  write_master("RAW,old,0,1|5|00000000\n");  // an earlier image's bytes, still queued
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  write_master("BEGIN,RTOS_BENCH_V2|0|00000000\nEND,RTOS_BENCH_V2|1|00000000\n");
  auto r = (*cap)->run(quick());
  EXPECT_EQ(r.reason, StopReason::kEnd) << r.message;
  EXPECT_EQ(raw_text().find("RAW,old"), std::string::npos);
  std::filesystem::remove(raw_.string() + ".drained");
}

TEST_F(PtyCapture, AnotherProcessHoldingThePortIsNamed) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    int fd = ::open(slave_path_.c_str(), O_RDWR | O_NOCTTY);
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(fd >= 0 ? 0 : 1);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_FALSE(cap.ok());
  EXPECT_NE(cap.error().message.find("is in use by process " + std::to_string(child)),
            std::string::npos)
      << cap.error().message;
}

TEST_F(PtyCapture, ChatterWithoutEndIsAnOverallTimeout) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop) {
      write_master("noise\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  auto o = quick();
  o.overall = std::chrono::milliseconds(600);
  auto r = (*cap)->run(o);
  stop = true;
  writer.join();
  EXPECT_EQ(r.reason, StopReason::kOverallTimeout);
}

TEST_F(PtyCapture, MasterClosingMidStreamIsAPortError) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  write_master("BEGIN,RTOS_BENCH_V2|0|00000000\nRAW,x,0,1");
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::close(master_);
    master_ = -1;
  });
  auto r = (*cap)->run(quick());
  closer.join();
  EXPECT_EQ(r.reason, StopReason::kPortError) << r.message;
  EXPECT_NE(r.message.find(slave_path_.string()), std::string::npos);
}

TEST_F(PtyCapture, LivenessFailureStopsAsPortError) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  auto o = quick();
  o.liveness = [] { return std::string("QEMU exited (exit status 1)"); };
  auto r = (*cap)->run(o);
  EXPECT_EQ(r.reason, StopReason::kPortError);
  EXPECT_NE(r.message.find("QEMU exited"), std::string::npos);
}

TEST_F(PtyCapture, InterruptStopsTheCapture) {
  auto cap = SerialCapture::open(slave_path_, 115200, raw_);
  ASSERT_TRUE(cap.ok());
  request_interrupt();
  auto r = (*cap)->run(quick());
  EXPECT_EQ(r.reason, StopReason::kInterrupted);
}

// QEMU's socket chardev: a connected stream handed over by the flasher.
TEST(StreamCapture, AdoptedSocketKeepsEveryByteAndStopsAtEnd) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  auto raw =
      std::filesystem::temp_directory_path() / ("rb-stream-" + std::to_string(::getpid()) + ".raw");
  auto cap = SerialCapture::adopt_stream(sv[0], "/tmp/q/serial.sock", raw);
  ASSERT_TRUE(cap.ok()) << cap.error().message;
  // More than a socket buffer, written before the reader starts: the writer
  // blocks instead of losing anything.
  std::string log = "BEGIN,RTOS_BENCH_V2|0|00000000\n";
  for (int i = 0; i < 20000; ++i)
    log += "RAW,x," + std::to_string(i) + ",1,2,3,4,5,6,7,8|1|00000000\n";
  log += "END,RTOS_BENCH_V2|2|00000000\n";
  std::thread writer([&] {
    size_t off = 0;
    while (off < log.size()) {
      ssize_t n = ::write(sv[1], log.data() + off, log.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  });
  CaptureOptions o;
  o.overall = std::chrono::seconds(20);
  o.inactivity = std::chrono::seconds(5);
  auto r = (*cap)->run(o);
  writer.join();
  ::close(sv[1]);
  EXPECT_EQ(r.reason, StopReason::kEnd) << r.message;
  EXPECT_EQ(r.bytes, log.size());
  std::ifstream in(raw, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}), log);
  std::filesystem::remove(raw);
}

TEST(StreamCapture, PeerClosingIsAPortErrorNamingTheStream) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  auto raw =
      std::filesystem::temp_directory_path() / ("rb-stream-" + std::to_string(::getpid()) + ".raw");
  auto cap = SerialCapture::adopt_stream(sv[0], "/tmp/q/serial.sock", raw);
  ASSERT_TRUE(cap.ok());
  ASSERT_EQ(::write(sv[1], "BEGIN,RTOS_BENCH_V2|0|00000000\nRAW,x", 36), 36);
  ::close(sv[1]);
  CaptureOptions o;
  o.overall = std::chrono::seconds(5);
  o.inactivity = std::chrono::seconds(2);
  auto r = (*cap)->run(o);
  EXPECT_EQ(r.reason, StopReason::kPortError) << r.message;
  EXPECT_NE(r.message.find("serial stream /tmp/q/serial.sock failed after 36 bytes"),
            std::string::npos)
      << r.message;
  std::filesystem::remove(raw);
}

TEST(SerialOpen, MissingPortSaysSo) {
  auto cap = SerialCapture::open("/dev/serial/by-id/usb-nothing-here", 115200, "/tmp/unused.raw");
  ASSERT_FALSE(cap.ok());
  EXPECT_NE(cap.error().message.find("cannot open serial port /dev/serial/by-id/usb-nothing-here"),
            std::string::npos);
  EXPECT_NE(cap.error().message.find("unplugged or wrong port"), std::string::npos);
}

TEST(SerialOpen, WaitForPortTimesOut) {
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(wait_for_port("/dev/does-not-exist", std::chrono::milliseconds(200)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
  EXPECT_TRUE(wait_for_port("/dev/null", std::chrono::milliseconds(10)));
}

}  // namespace
}  // namespace rb::serial
