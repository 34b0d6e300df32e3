// The LAVA client's pure parts: the job definition, the log's serial lines,
// what a finished job means, the token. The REST client itself runs against
// a real server in tests/run/e2e/lava.sh.
#include "lava/lava.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

namespace rb::lava {
namespace {

matrix::BoardInstance qemu_board() {
  matrix::BoardInstance b;
  b.id = "farm-qemu";
  b.board = "qemu-netduinoplus2";
  b.flasher = "qemu";
  b.qemu.extra_args = {"-d", "guest_errors"};
  b.lava = matrix::LavaBoard{"qemu", {"fast"}, "qemu", 2, "high"};
  return b;
}

TEST(JobDefinition, QemuDeploysTheImageAnswersTheBannerAndMonitorsBeginToEnd) {
  JobRequest r;
  r.name = "rtosbench bare on farm-qemu";
  r.image_url = "file:///srv/img/abc.elf";
  r.nonce = "5eed0003";
  r.board = qemu_board();
  r.deploy_s = 60;
  r.capture_s = 300;
  YAML::Node y = YAML::Load(job_definition(r));
  EXPECT_EQ(y["device_type"].as<std::string>(), "qemu");
  EXPECT_EQ(y["priority"].as<std::string>(), "high");
  EXPECT_EQ(y["tags"][0].as<std::string>(), "fast");
  EXPECT_EQ(y["context"]["machine"].as<std::string>(), "netduinoplus2");
  EXPECT_EQ(y["context"]["cpu"].as<std::string>(), "cortex-m4");
  // LAVA's qemu template passes -cpu for arch arm: the board's own core.
  r.board.qemu.machine = "netduino2";
  r.board.qemu.cpu = "cortex-m3";
  EXPECT_EQ(YAML::Load(job_definition(r))["context"]["cpu"].as<std::string>(), "cortex-m3");
  auto extra = y["context"]["extra_options"];
  ASSERT_EQ(extra.size(), 4u);
  EXPECT_EQ(extra[0].as<std::string>(), "-icount");
  EXPECT_EQ(extra[1].as<std::string>(), "shift=0,align=off,sleep=off");
  EXPECT_EQ(extra[3].as<std::string>(), "guest_errors");
  EXPECT_EQ(y["timeouts"]["connection"]["seconds"].as<int>(), 300);
  auto actions = y["actions"];
  ASSERT_EQ(actions.size(), 4u);
  auto img = actions[0]["deploy"]["images"]["firmware"];
  EXPECT_EQ(img["url"].as<std::string>(), "file:///srv/img/abc.elf");
  EXPECT_EQ(img["image_arg"].as<std::string>(), "-kernel {firmware}");
  EXPECT_EQ(actions[1]["boot"]["method"].as<std::string>(), "qemu");
  auto script = actions[2]["test"]["interactive"][0]["script"];
  EXPECT_TRUE(script[0]["command"].IsNull());
  EXPECT_EQ(script[1]["command"].as<std::string>(), "START 5eed0003");
  auto mon = actions[3]["test"]["monitors"][0];
  EXPECT_EQ(mon["start"].as<std::string>(), "BEGIN,RTOS_BENCH_V");
  EXPECT_EQ(mon["end"].as<std::string>(), "END,RTOS_BENCH_V");
  EXPECT_EQ(actions[3]["test"]["timeout"]["seconds"].as<int>(), 300);
}

TEST(JobDefinition, HardwareDeploysABinaryAndBootsByItsMethod) {
  JobRequest r;
  r.image_url = "https://files/x.elf";
  r.nonce = "1";
  r.board = qemu_board();
  r.board.flasher = "openocd";
  r.board.lava->boot = "openocd";
  YAML::Node y = YAML::Load(job_definition(r));
  EXPECT_FALSE(y["context"].IsDefined());
  EXPECT_EQ(y["actions"][0]["deploy"]["images"]["binary"]["url"].as<std::string>(),
            "https://files/x.elf");
  EXPECT_EQ(y["actions"][1]["boot"]["method"].as<std::string>(), "openocd");
}

const char* kLog = R"(- {"dt": "2026-12-01T22:45:04.2", "lvl": "info", "msg": "start: 1 deploy"}
- {"dt": "2026-12-01T22:45:04.368111", "lvl": "target", "msg": "qemu-system-arm: warning: hub 0 with no nics"}
- {"dt": "2026-12-01T22:45:04.371979", "lvl": "target", "msg": "rtosbench-fw: nonce=1 waiting for START"}
- {"dt": "2026-12-01T22:45:04.376429", "lvl": "input", "msg": "START 1\n"}
- {"dt": "2026-12-01T22:45:05.000000", "lvl": "target", "msg": "BEGIN,RTOS_BENCH_V2|1|abc\r"}
- {"dt": "2026-12-01T22:45:06.500000", "lvl": "feedback", "msg": "END,RTOS_BENCH_V2,tests_run=9|2|def", "ns": "common"}
- {"dt": "2026-12-01T22:45:07.000000", "lvl": "target", "msg": "poweroff"}
- {"dt": "2026-12-01T22:45:08.000000", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}
)";

TEST(ParseLog, SerialLinesInOrderUpToEnd) {
  auto p = parse_log(kLog);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->serial.size(), 4u);
  EXPECT_EQ(p->serial[1], "rtosbench-fw: nonce=1 waiting for START");
  EXPECT_EQ(p->serial[2], "BEGIN,RTOS_BENCH_V2|1|abc");
  EXPECT_EQ(p->serial[3], "END,RTOS_BENCH_V2,tests_run=9|2|def");
  EXPECT_TRUE(p->begin_seen);
  EXPECT_TRUE(p->end_seen);
  EXPECT_NEAR(p->seconds_to_end, 2.131889, 1e-6);
  EXPECT_EQ(raw_capture(*p).substr(raw_capture(*p).size() - 36),
            "END,RTOS_BENCH_V2,tests_run=9|2|def\n");
  EXPECT_EQ(p->failed_action, 0);
}

TEST(ParseLog, NotAListIsAnError) {
  EXPECT_FALSE(parse_log("a: b\n").ok());
  EXPECT_FALSE(parse_log("- [unclosed\n").ok());
}

ParsedLog failed(const std::string& type, int action, const std::string& c = "x") {
  ParsedLog l;
  l.error_type = type;
  l.error_msg = "the message";
  l.failed_action = action;
  l.failed_case = c;
  return l;
}

TEST(Classify, LavaOutcomesMapOntoStatuses) {
  JobState s{7, "Finished", "Incomplete", "qemu01", "the comment"};
  auto c = classify(s, failed("LAVATimeout", 4, "lava-test-monitor"));
  EXPECT_EQ(c.outcome, Outcome::kTimeout);
  EXPECT_NE(c.reason.find("LAVA job 7"), std::string::npos);
  EXPECT_NE(c.reason.find("the comment"), std::string::npos);
  EXPECT_EQ(classify(s, failed("Job", 1, "validate")).outcome, Outcome::kFlashError);
  EXPECT_EQ(classify(s, failed("Infrastructure", 2)).outcome, Outcome::kFlashError);
  EXPECT_EQ(classify(s, failed("Infrastructure", 4)).outcome, Outcome::kPortError);
  s.failure_comment = "lava-test-monitor timed out after 2 seconds";  // error type Test
  EXPECT_EQ(classify(s, failed("Test", 4, "lava-test-monitor")).outcome, Outcome::kTimeout);
  s.failure_comment = "the comment";
  EXPECT_EQ(classify(s, failed("Bug", 0)).outcome, Outcome::kPortError);
  s.failure_comment.clear();
  EXPECT_NE(classify(s, failed("Bug", 0)).reason.find("the message"), std::string::npos);
  ParsedLog ended;
  ended.end_seen = true;
  EXPECT_EQ(classify(s, ended).outcome, Outcome::kCaptured);
  s.health = "Complete";
  EXPECT_EQ(classify(s, ParsedLog{}).outcome, Outcome::kTimeout);
  s.health = "Canceled";
  EXPECT_EQ(classify(s, ended).outcome, Outcome::kPortError);
}

// The token is bound to its host: a bench file that points lava.url
// elsewhere gets nothing, whichever variable it names.
TEST(Token, FromAnRtosbenchVariableAndOnlyForItsHost) {
  matrix::LavaServer s;
  s.url = "https://lava.example.org/";
  s.token_env = "RTOSBENCH_LAVA_TEST_TOKEN_XYZ";
  ::unsetenv("RTOSBENCH_LAVA_TEST_TOKEN_XYZ");
  auto t = read_token(s);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("RTOSBENCH_LAVA_TEST_TOKEN_XYZ"), std::string::npos);
  ::setenv("RTOSBENCH_LAVA_TEST_TOKEN_XYZ", "other.example.org:8443 nope\nlava.example.org sekrit",
           1);
  EXPECT_EQ(read_token(s).value(), "sekrit");
  s.url = "https://other.example.org:8443/";
  EXPECT_EQ(read_token(s).value(), "nope");
  for (const char* elsewhere : {"https://evil.example.net/", "https://lava.example.org.evil.net/",
                                "https://lava.example.org:444/"}) {
    s.url = elsewhere;
    auto e = read_token(s);
    ASSERT_FALSE(e.ok()) << elsewhere;
    EXPECT_EQ(e.error().message.find("sekrit"), std::string::npos) << e.error().message;
    EXPECT_NE(e.error().message.find("no LAVA token for"), std::string::npos) << e.error().message;
  }
  // A token without its host is sent nowhere (and not repeated).
  s.url = "https://lava.example.org/";
  ::setenv("RTOSBENCH_LAVA_TEST_TOKEN_XYZ", "sekrit", 1);
  auto bare = read_token(s);
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message.find("sekrit"), std::string::npos) << bare.error().message;
  EXPECT_NE(bare.error().message.find("`lava.example.org TOKEN`"), std::string::npos)
      << bare.error().message;
  ::unsetenv("RTOSBENCH_LAVA_TEST_TOKEN_XYZ");
  // Another variable than rtosbench's own is never read.
  ::setenv("RB_NOT_OURS_XYZ", "lava.example.org sekrit", 1);
  s.token_env = "RB_NOT_OURS_XYZ";
  EXPECT_FALSE(read_token(s).ok());
  ::unsetenv("RB_NOT_OURS_XYZ");
}

TEST(Token, FromRtosbenchsOwnFileNeverABenchsChoice) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rb-lava-token-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "rtosbench");
  ::unsetenv("RTOSBENCH_LAVA_TOKEN_FILE");
  ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  std::ofstream(dir / "rtosbench" / "lava-tokens")
      << "# rtosbench's LAVA tokens\n127.0.0.1:8000 filetoken\n";
  matrix::LavaServer s;
  s.url = "http://127.0.0.1:8000/";
  EXPECT_EQ(read_token(s).value(), "filetoken");
  s.url = "https://lava.example.org/";
  EXPECT_FALSE(read_token(s).ok());
  ::setenv("RTOSBENCH_LAVA_TOKEN_FILE", (dir / "other").c_str(), 1);
  std::ofstream(dir / "other") << "lava.example.org othertoken\n";
  EXPECT_EQ(read_token(s).value(), "othertoken");
  std::filesystem::remove(dir / "other");
  auto gone = read_token(s);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().kind, ErrorKind::kCannotRead);
  ::unsetenv("RTOSBENCH_LAVA_TOKEN_FILE");
  ::unsetenv("XDG_CONFIG_HOME");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::lava
