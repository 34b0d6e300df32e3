#include "matrix/load.h"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "matrix/expand.h"

namespace rb::matrix {
namespace {

const char* kMinimal = R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: bare
)";

bool has_error(const std::vector<Diagnostic>& errors, int line, int column,
               const std::string& text) {
  return std::any_of(errors.begin(), errors.end(), [&](const Diagnostic& d) {
    return d.line == line && d.column == column && d.message.find(text) != std::string::npos;
  });
}

TEST(MatrixLoad, MinimalMatrixTakesTheDefaults) {
  auto m = parse_matrix(kMinimal, "/x/m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors.front().format();
  EXPECT_EQ(m.value.name, "m");
  EXPECT_EQ(m.value.variants.at("opt"), std::vector<std::string>{"-O2 -g0"});
  EXPECT_EQ(m.value.variants.at("tick_hz"), std::vector<std::string>{"1000"});
  EXPECT_EQ(m.value.samples, 10000);
  EXPECT_EQ(m.value.repeats, 0);  // no `loads:`: the bench's default, set by for_boards
  ASSERT_EQ(m.value.kernels.size(), 1u);
  EXPECT_EQ(m.value.kernels[0].port, "bare");
  EXPECT_EQ(m.value.kernels[0].version, "n/a");
  EXPECT_FALSE(m.value.kernels[0].needs_source());
}

// diff and regress read `tolerances:` from the run's matrix snapshot, so the
// loader must let it through rather than call it a typo.
TEST(MatrixLoad, TolerancesKeyIsAccepted) {
  auto m = parse_matrix(
      std::string(kMinimal) + "tolerances:\n  default:\n    median: {abs: 2, pct: 2}\n",
      "/x/m.yaml");
  EXPECT_TRUE(m.ok()) << (m.errors.empty() ? "" : m.errors.front().format());
  auto typo = parse_matrix(std::string(kMinimal) + "tolerance:\n  default: {}\n", "/x/m.yaml");
  EXPECT_FALSE(typo.ok());
}

TEST(MatrixLoad, RelativePathsAreResolvedAgainstTheMatrixFile) {
  auto m = parse_matrix(std::string(kMinimal) + "bench: benches/b.yaml\nfirmware: ../fw\n",
                        "/a/configs/m.yaml");
  // Its firmware tree is read: /a/fw is none.
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.value.bench, std::filesystem::path("/a/configs/benches/b.yaml"));
  EXPECT_EQ(m.value.firmware, std::filesystem::path("/a/fw"));
  EXPECT_NE(m.errors.front().message.find("/a/fw is not a firmware tree"), std::string::npos)
      << m.errors.front().format();
  const auto fw = std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "firmware";
  auto ok = parse_matrix(std::string(kMinimal) + "firmware: " + fw.string() + "\n", "/a/m.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors.front().format();
  EXPECT_EQ(ok.value.firmware, fw);
}

TEST(MatrixLoad, KernelWithSourceAndOverrides) {
  auto m = parse_matrix(R"(matrix: m
board: stm32f407-disco
kernels:
  - name: ucos3
    version: "9.8"
    git: https://example.org/uC-OS3
    tag: v9.8.7
    note: statistics task off
    extra_sources:
      - name: uc_cpu
        git: https://example.org/uC-CPU
        tag: v1.2.3
    expect:
      tick: "100"
      kernel_commit: ~
variants:
  opt: ["-O2 -g0", "-Os -g0"]
  tick_hz: [1000, 100]
  fpu_context: [0, 1]
  checks: [on, off]
tests: [ruler, mutex]
repeats: 3
timeouts: {capture: 30.5}
retries: {capture: 2}
)",
                        "/m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors.front().format();
  const auto& k = m.value.kernels[0];
  EXPECT_TRUE(k.needs_source());
  EXPECT_EQ(k.tag, "v9.8.7");
  ASSERT_EQ(k.extra_sources.size(), 1u);
  EXPECT_EQ(k.extra_sources[0].name, "uc_cpu");
  EXPECT_EQ(k.expect.at("tick"), std::optional<std::string>("100"));
  EXPECT_FALSE(k.expect.at("kernel_commit").has_value());
  EXPECT_EQ(m.value.variants.at("opt").size(), 2u);
  EXPECT_EQ(m.value.variants.at("fpu_context"), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(m.value.variants.at("checks"), (std::vector<std::string>{"on", "off"}));
  EXPECT_EQ(m.value.tests, (std::vector<std::string>{"ruler", "mutex"}));
  EXPECT_DOUBLE_EQ(m.value.timeouts.capture_s, 30.5);
  EXPECT_EQ(m.value.retries.capture, 2);
}

TEST(MatrixLoad, EdgesToleranceKey) {
  auto none = parse_matrix("matrix: m\nkernels: all\n", "/m.yaml");
  ASSERT_TRUE(none.ok()) << none.errors.front().format();
  EXPECT_FALSE(none.value.edges.tolerance_ns);
  EXPECT_DOUBLE_EQ(none.value.edges.gpio_latency_ns, 50.0);
  auto m = parse_matrix(
      "matrix: m\nkernels: all\nedges: {tolerance_ns: 120, gpio_latency_ns: 30}\n", "/m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors.front().format();
  EXPECT_EQ(m.value.edges.tolerance_ns, std::optional<double>(120));
  EXPECT_DOUBLE_EQ(m.value.edges.gpio_latency_ns, 30.0);
  // The run's snapshot alone, without the firmware tree.
  auto e = parse_matrix_edges("matrix: m\nkernels: all\nedges: {tolerance_ns: 7}\n", "/m.yaml");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value.tolerance_ns, std::optional<double>(7));
  auto bad =
      parse_matrix("matrix: m\nkernels: all\nedges: {tolerance_ns: -1, slack: 2}\n", "/m.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_GE(bad.errors.size(), 2u);  // the negative tolerance and the unknown key
  EXPECT_TRUE(std::any_of(bad.errors.begin(), bad.errors.end(), [](const Diagnostic& d) {
    return d.line == 3 && d.message.find("unknown key 'slack'") != std::string::npos;
  })) << bad.errors.front().format();
}

TEST(MatrixLoad, EveryErrorIsReportedAtOnceWithItsPosition) {
  auto m = parse_matrix(R"(matrix: m
board: stm32f4
colour: blue
kernels:
  - name: a
  - name: a
variants:
  tick_hz: [1000, fast]
  fpu_context: 2
  checks: [off, true]
tests: [ruler, jitter]
)",
                        "m.yaml");
  ASSERT_FALSE(m.ok());
  // The boards of the firmware tree, whatever they are today.
  const std::string boards = fmt::format("{}", fmt::join(default_catalog().board_names(), ", "));
  EXPECT_TRUE(has_error(m.errors, 2, 8, "allowed: " + boards));
  EXPECT_TRUE(has_error(m.errors, 3, 1, "unknown key 'colour'"));
  EXPECT_TRUE(has_error(m.errors, 6, 5, "kernel 'a' is listed twice"));
  EXPECT_TRUE(has_error(m.errors, 8, 19, "'variants.tick_hz[1]': must be an integer, got 'fast'"));
  EXPECT_TRUE(has_error(m.errors, 9, 16, "allowed: 0, 1"));
  EXPECT_TRUE(
      has_error(m.errors, 10, 17, "'variants.checks[1]': true is not allowed (allowed: off, on)"));
  EXPECT_TRUE(has_error(m.errors, 11, 16, "unknown test 'jitter'"));
  EXPECT_EQ(m.errors.size(), 7u);
  // Sorted by position.
  EXPECT_TRUE(
      std::is_sorted(m.errors.begin(), m.errors.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; }));
  EXPECT_EQ(
      m.errors[0].format(),
      "m.yaml:2:8: error: 'stm32f4' is not a board of the firmware tree (allowed: " + boards + ")");
}

TEST(MatrixLoad, MissingRequiredKeysPointAtTheMapping) {
  auto m = parse_matrix("matrix: m\n", "m.yaml");
  ASSERT_FALSE(m.ok());
  // The board comes from the bench when the matrix names none.
  EXPECT_EQ(m.errors.size(), 1u);
  EXPECT_TRUE(has_error(m.errors, 1, 1, "needs 'kernels'"));
}

TEST(MatrixLoad, SyntaxErrorIsOneDiagnosticWithPosition) {
  auto m = parse_matrix("matrix: m\nkernels: [a, b\n", "m.yaml");
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_GT(m.errors[0].line, 0);
  EXPECT_NE(m.errors[0].message.find("YAML syntax"), std::string::npos);
}

TEST(MatrixLoad, UnreadableFileIsOneDiagnosticWithoutPosition) {
  auto m = load_matrix("/nonexistent/dir/m.yaml");
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_EQ(m.errors[0].line, 0);
  EXPECT_EQ(m.errors[0].format(),
            "/nonexistent/dir/m.yaml: error: cannot read the file (missing or not a regular file)");
}

TEST(BenchLoad, ProbeBoardAndDefaults) {
  auto b = parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: openocd
    probe: {serial: "066AFF"}
    serial: {port: /dev/serial/by-id/usb-STM-if02, baud: 921600}
    reset: power-cycle
    power_cycle: uhubctl -l 1-1 -p 2 -a cycle -d 3
    port_wait: 15
  - id: qemu-0
    board: qemu-netduinoplus2
    flasher: qemu
)",
                       "/lab.yaml");
  ASSERT_TRUE(b.ok()) << b.errors.front().format();
  ASSERT_EQ(b.value.boards.size(), 2u);
  const auto& d = b.value.boards[0];
  EXPECT_EQ(d.flasher, "openocd");
  EXPECT_FALSE(d.emulated);
  EXPECT_EQ(d.probe.target, "target/stm32f4x.cfg");
  EXPECT_EQ(d.probe.interface, "interface/stlink.cfg");
  EXPECT_EQ(d.baud, 921600u);
  EXPECT_EQ(d.reset, ResetMethod::kPowerCycle);
  EXPECT_DOUBLE_EQ(d.port_wait_s, 15);
  EXPECT_EQ(b.value.boards[1].flasher, "qemu");
  EXPECT_TRUE(b.value.boards[1].emulated);
  EXPECT_TRUE(b.value.boards[1].serial_port.empty());
}

TEST(BenchLoad, TheSerialRateIsTheFirmwaresUnlessGivenAndMustMatchIt) {
  auto ok = parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: openocd
    serial: {port: /dev/ttyUSB0}
)",
                        "/lab.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors.front().format();
  EXPECT_EQ(ok.value.boards[0].baud, 921600u);  // RB_BOARD_UART_BAUD of the board
  auto bad = parse_bench(R"(bench: lab
boards:
  - id: disco-1
    board: stm32f407-disco
    flasher: openocd
    serial: {port: /dev/ttyUSB0, baud: 115200}
)",
                         "/lab.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errors.front().format().find(
                "serial.baud 115200: the stm32f407-disco firmware's console runs at 921600"),
            std::string::npos)
      << bad.errors.front().format();
}

TEST(BenchLoad, ALavaServerAndItsBoards) {
  auto ok = parse_bench(R"(bench: farm
lava:
  url: https://lava.example.org
  token_env: RTOSBENCH_LAVA_TOKEN
  publish: {dir: img, url: "https://files.example.org/img/"}
  poll: 5
boards:
  - id: farm-disco
    board: stm32f407-disco
    flasher: openocd
    lava: {device_type: stm32f407-disco, tags: [rack1], jobs: 3}
  - id: farm-jlink
    board: stm32f407-disco
    flasher: pyocd
    lava: {device_type: disco-jlink, boot: jlink}
)",
                        "/lab/farm.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors.front().format();
  ASSERT_TRUE(ok.value.lava);
  EXPECT_EQ(ok.value.lava->url, "https://lava.example.org/");
  EXPECT_EQ(ok.value.lava->token_env, "RTOSBENCH_LAVA_TOKEN");
  EXPECT_EQ(ok.value.lava->publish_dir, "/lab/img");
  EXPECT_EQ(ok.value.lava->publish_url, "https://files.example.org/img");
  EXPECT_EQ(ok.value.lava->poll_s, 5);
  const auto& b = ok.value.boards;
  ASSERT_TRUE(b[0].lava);
  EXPECT_EQ(b[0].lava->device_type, "stm32f407-disco");
  EXPECT_EQ(b[0].lava->tags, std::vector<std::string>{"rack1"});
  EXPECT_EQ(b[0].lava->jobs, 3);
  EXPECT_EQ(b[0].lava->boot, "openocd");  // the flasher's
  EXPECT_EQ(b[1].lava->boot, "jlink");
  EXPECT_TRUE(b[0].serial_port.empty());  // the worker owns the console

  // The token itself, plain http to another host, or a LAVA board without a server.
  for (const char* text : {R"(bench: farm
lava: {url: "http://l/", token: abc, publish: {dir: /i, url: "file:///i"}}
boards: [{id: a, board: qemu-netduinoplus2, flasher: qemu}]
)",
                           R"(bench: farm
lava: {url: "http://l/", publish: {dir: /i, url: "file:///i"}}
boards: [{id: a, board: qemu-netduinoplus2, flasher: qemu}]
)",
                           R"(bench: farm
boards: [{id: a, board: qemu-netduinoplus2, flasher: qemu, lava: {device_type: qemu}}]
)"}) {
    EXPECT_FALSE(parse_bench(text, "/f.yaml").ok()) << text;
  }
}

// The bench's `analyzer:`: defaults for an fx2lafw at 24 MHz on D0..D2, and
// every value a bench file gives allow-listed (the hostile corpus refuses
// the rest through the real binary).
TEST(BenchLoad, AnAnalyzerSectionWithItsDefaults) {
  auto b = parse_bench(R"(bench: lab
analyzer:
  driver: fx2lafw
  conn: "1.5"
  channels: {MK: D3, EV: D4, TK: D5}
  trigger: MK=r
boards: [{id: a, board: qemu-netduinoplus2, flasher: qemu}]
)",
                       "/lab.yaml");
  ASSERT_TRUE(b.ok()) << b.errors.front().format();
  ASSERT_TRUE(b.value.analyzer);
  const auto& a = *b.value.analyzer;
  EXPECT_EQ(a.driver, "fx2lafw");
  EXPECT_EQ(a.conn, "1.5");
  EXPECT_EQ(a.mk + a.ev + a.tk, "D3D4D5");
  EXPECT_EQ(a.samplerate, 24000000u);
  EXPECT_EQ(a.trigger, "MK=r");
  auto none = parse_bench(
      "bench: lab\nboards: [{id: a, board: qemu-netduinoplus2, flasher: qemu}]\n", "/lab.yaml");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value.analyzer);
}

TEST(BenchLoad, AnalyzerValuesThatWouldBeOptionsAreRefusedWithTheirPlace) {
  for (const char* an : {"{driver: 'fx2lafw:conn=1.5'}", "{driver: demo, conn: '1.5:samplerate=1'}",
                         "{driver: demo, conn: '-h'}", "{driver: demo, channels: {MK: 'D0=EV,D1'}}",
                         "{driver: demo, trigger: 'MK=r;x'}", "{driver: demo, samplerate: 0}",
                         "{driver: demo, channels: {MK: D1, EV: D1}}", "{conn: '1.5'}",
                         "{driver: demo, script: x}"}) {
    auto b = parse_bench(std::string("bench: lab\nanalyzer: ") + an +
                             "\nboards: [{id: a, board: qemu-netduinoplus2, flasher: qemu}]\n",
                         "/lab.yaml");
    ASSERT_FALSE(b.ok()) << an;
    EXPECT_EQ(b.errors.front().line, 2) << an << ": " << b.errors.front().format();
  }
}

// A bench file is not trusted with the LAVA token: it cannot name a file to
// read it from, nor send it over plain http to another machine, nor put a
// password into the image URL every job definition shows.
TEST(BenchLoad, LavaTokenStaysWithTheUserAndOffPlainHttp) {
  auto bench = [](const std::string& lava) {
    return parse_bench("bench: farm\nlava: " + lava +
                           "\nboards: [{id: a, board: qemu-netduinoplus2, flasher: qemu, lava: "
                           "{device_type: qemu}}]\n",
                       "/lab/farm.yaml");
  };
  auto messages = [](const Loaded<Bench>& b) {
    std::string all;
    for (const auto& e : b.errors) all += e.format() + "\n";
    return all;
  };
  const std::string publish = "publish: {dir: /i, url: \"file:///i\"}";
  for (const char* url : {"https://lava.example.org/", "http://127.0.0.1:8000/",
                          "http://localhost/", "http://[::1]:8000/"}) {
    auto ok = bench(fmt::format("{{url: \"{}\", token_env: RTOSBENCH_LAVA_T, {}}}", url, publish));
    EXPECT_TRUE(ok.ok()) << url << ": " << messages(ok);
  }
  // No token_env: rtosbench's own token file.
  EXPECT_TRUE(bench("{url: \"https://lava.example.org/\", " + publish + "}").ok());

  auto http =
      bench("{url: \"http://lava.example.org/\", token_env: RTOSBENCH_LAVA_T, " + publish + "}");
  ASSERT_FALSE(http.ok());
  EXPECT_TRUE(has_error(http.errors, 2, 13, "plain http would send the token in clear"))
      << messages(http);
  for (const char* file : {"/etc/passwd", "/home/me/.config/rtosbench/lava-tokens"}) {
    auto named = bench(
        fmt::format("{{url: \"https://lava.example.org/\", token_file: {}, {}}}", file, publish));
    ASSERT_FALSE(named.ok()) << file;
    EXPECT_NE(messages(named).find("a bench file does not name the LAVA token's file"),
              std::string::npos)
        << messages(named);
  }
  auto pw = bench(
      "{url: \"https://lava.example.org/\", publish: {dir: /i, url: "
      "\"https://alice:SECRET@files.example.org/i\"}}");
  ASSERT_FALSE(pw.ok());
  EXPECT_NE(messages(pw).find("carries a password"), std::string::npos) << messages(pw);
  EXPECT_EQ(messages(pw).find("SECRET"), std::string::npos) << messages(pw);
}

// A bench document yaml-cpp reads as something else than a map of keys
// (a scalar, a list, or the fuzzer's find: a map whose first key is indented
// deeper than the rest, where root["boards"] is an invalid node) is refused.
TEST(MatrixLoad, MalformedBenchDocumentsAreRefusedNotThrownOn) {
  for (const char* text :
       {"just words", "- a\n- b\n", "42",
        "      target: t\n    serial:\n      port: /dev/x\nbench: b\nboards:\n  - id: a\n"}) {
    Loaded<Bench> b;
    ASSERT_NO_THROW(b = parse_bench(text, "/f.yaml")) << text;
    EXPECT_FALSE(b.ok()) << text;
  }
  // The fuzzer's input itself (fuzz_matrix_loader, its first byte dropped).
  auto file = std::filesystem::path(RTOSBENCH_TEST_DATA) / "matrix/fuzz-bench-invalid-node.yaml";
  Loaded<Bench> b;
  ASSERT_NO_THROW(b = load_bench(file));
  EXPECT_FALSE(b.ok());
}

TEST(MatrixLoad, ReproducibilityToleranceAndCommitPins) {
  auto m = parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: tencentos
    version: "2.5.2"
    git: https://example.org/TencentOS-tiny
    commit: ABCDEF0123456789ABCDEF0123456789ABCDEF01
    extra_sources:
      - name: helper
        git: https://example.org/helper
        commit: 0123456789abcdef0123456789abcdef01234567
repeats: 3
reproducibility:
  default: 1
  median: "0.5%"
  p99: {abs: 4, pct: 10}
  max: off
)",
                        "/m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors.front().format();
  const auto& k = m.value.kernels[0];
  EXPECT_EQ(k.commit, "abcdef0123456789abcdef0123456789abcdef01");  // lower-cased
  EXPECT_EQ(k.tag, "");                                             // optional with a commit
  EXPECT_EQ(k.extra_sources.at(0).commit, "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(m.value.repeats, 3);
  const auto& r = m.value.reproducibility;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r.at("default").pct, 1);
  EXPECT_EQ(r.at("median").pct, 0.5);
  EXPECT_EQ(r.at("p99").abs, 4);
  EXPECT_EQ(r.at("p99").pct, 10);
  EXPECT_TRUE(r.at("max").off);
  EXPECT_TRUE(
      parse_matrix("matrix: m\nboard: qemu-netduinoplus2\nkernels: [{name: bare}]\n", "/m.yaml")
          .value.reproducibility.empty());
}

// A git URL that git would take for an option is refused at load (and git
// gets `--` before every URL: tests/kernels/source_test.cpp).
TEST(MatrixLoad, GitUrlStartingWithADashIsRefused) {
  for (const char* url :
       {"--upload-pack=touch x", "-uhttps://example.org/a", "ssh://-oProxyCommand=x/a"}) {
    auto m = parse_matrix(fmt::format("matrix: m\nboard: qemu-netduinoplus2\nkernels:\n  - name: "
                                      "a\n    version: \"1\"\n    git: \"{}\"\n    tag: v1\n",
                                      url),
                          "m.yaml");
    EXPECT_FALSE(m.ok()) << url;
  }
}

TEST(MatrixLoad, CommitPinErrors) {
  auto m = parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: a
    version: "1"
    git: https://example.org/a
    commit: abcdef01
  - name: b
    commit: 0123456789abcdef0123456789abcdef01234567
  - name: c
    version: "1"
    git: https://example.org/c
)",
                        "m.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(
      has_error(m.errors, 7, 13, "'abcdef01' is not allowed: a full commit id (40 hex digits)"));
  EXPECT_TRUE(
      has_error(m.errors, 8, 5, "kernel 'b' has a tag or commit but neither 'git' nor 'source'"));
  EXPECT_TRUE(has_error(m.errors, 10, 5, "kernel 'c' needs 'tag' or 'commit'"));
  // The refused commit is taken out before the semantic checks, which then
  // do not say a second time that kernel a has no pin.
  EXPECT_FALSE(has_error(m.errors, 4, 5, "kernel 'a' needs 'tag' or 'commit'"));
  EXPECT_EQ(m.errors.size(), 3u);
}

TEST(MatrixLoad, SuppliedKernel) {
  auto ok = parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: px
    version: "4.0.0"
    supply: the PX source directory
)",
                         "m.yaml");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value.kernels.at(0).supply, "the PX source directory");
  EXPECT_TRUE(ok.value.kernels.at(0).needs_source());
  auto bad = parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: px
    git: https://example.org/px
    tag: v4
    version: "4"
    supply: the PX source directory
  - name: py
    supply: the PY source
)",
                          "m.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has_error(bad.errors, 4, 5, "has both 'git' and 'supply'"));
  EXPECT_TRUE(has_error(bad.errors, 9, 5, "kernel 'py' needs 'version'"));
  EXPECT_EQ(bad.errors.size(), 2u);
}

TEST(BenchLoad, QemuSerialTransport) {
  auto b = parse_bench(R"(bench: q
boards:
  - {id: a, board: qemu-netduinoplus2, flasher: qemu}
  - {id: b, board: qemu-netduinoplus2, flasher: qemu, qemu: {serial: pty}}
  - {id: c, board: qemu-netduinoplus2, flasher: qemu, qemu: {serial: tcp}}
)",
                       "q.yaml");
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_TRUE(has_error(b.errors, 5, 70, "(allowed: socket, pty)"));
  EXPECT_EQ(b.value.boards[0].qemu.serial, QemuSerial::kSocket);
  EXPECT_EQ(b.value.boards[1].qemu.serial, QemuSerial::kPty);
}

TEST(BenchLoad, ErrorsNameTheAllowedValues) {
  auto b = parse_bench(R"(bench: lab
boards:
  - id: x
    board: stm32f407-disco
    flasher: jlink
  - id: x
    board: stm32f407-disco
    flasher: pyocd
    reset: power-cycle
)",
                       "lab.yaml");
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(
      has_error(b.errors, 5, 14, "not flashed by 'jlink' (its board.cmake names: openocd, pyocd)"));
  EXPECT_TRUE(has_error(b.errors, 6, 9, "used twice"));
  EXPECT_TRUE(has_error(b.errors, 6, 5, "needs 'serial"));
  EXPECT_TRUE(has_error(b.errors, 6, 5, "needs 'power_cycle'"));
  EXPECT_EQ(b.errors.size(), 4u);
}

}  // namespace
}  // namespace rb::matrix

namespace rb::matrix {
namespace {

bool any_error(const std::vector<Diagnostic>& errors, int line, const std::string& text) {
  for (const auto& e : errors) {
    if (e.line == line && e.message.find(text) != std::string::npos) return true;
  }
  return false;
}

// issue 13: every string that reaches a tool or a path is allow-listed.
TEST(MatrixLoad, HostileStringsAreRefusedWithTheirPlace) {
  auto m = parse_matrix(
      "matrix: m\nboard: qemu-netduinoplus2\n"
      "kernels:\n"
      "  - name: k\n"
      "    git: --upload-pack=touch x\n"
      "    tag: ../../x\n"
      "    version: \"1;id\"\n"
      "variants:\n"
      "  opt: [\"-O/../../x\", \"-O2 -fplugin=evil.so\", \"-O2 -Wl,--wrap=main\", \"-O2 "
      "-specs=/x\"]\n"
      "  tick_hz: [1000, 1000]\n"
      "  fpu_context: [0, 0]\n"
      "  checks: [on, on]\n"
      "tests: [ruler, ruler]\n",
      "m.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(any_error(m.errors, 5, "'kernels[0].git': '--upload-pack=touch x' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 6, "'kernels[0].tag': '../../x' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 7, "'kernels[0].version': '1;id' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 9, "'-O/../../x' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 9, "'-O2 -fplugin=evil.so' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 9, "'-O2 -Wl,--wrap=main' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 9, "'-O2 -specs=/x' is not allowed"));
  EXPECT_TRUE(any_error(m.errors, 10, "'variants.tick_hz': a value is given twice"));
  EXPECT_TRUE(any_error(m.errors, 11, "'variants.fpu_context': a value is given twice"));
  EXPECT_TRUE(any_error(m.errors, 12, "'variants.checks': a value is given twice"));
  EXPECT_TRUE(any_error(m.errors, 13, "'tests': a value is given twice"));
  EXPECT_EQ(m.errors[0].format().rfind("m.yaml:5:10: error: ", 0), 0u) << m.errors[0].format();
}

TEST(MatrixLoad, DuplicateKeysAreErrors) {
  auto m = parse_matrix(
      "matrix: m\nboard: qemu-netduinoplus2\nkernels: [{name: bare, name: x}]\nmatrix: n\n",
      "m.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(any_error(m.errors, 3, "key 'name' is given twice (first at line 3)"));
  EXPECT_TRUE(any_error(m.errors, 4, "key 'matrix' is given twice (first at line 1)"));
}

TEST(MatrixLoad, TextMustBeUtf8WithoutControlCharacters) {
  auto m = parse_matrix(
      "matrix: m\nboard: qemu-netduinoplus2\nkernels:\n  - name: bare\n    note: \"a\xff\xfe\"\n"
      "  - name: k2\n    note: \"\\e[31mred\"\n",
      "m.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(any_error(m.errors, 5, "'kernels[0].note' is not valid UTF-8"));
  EXPECT_TRUE(any_error(m.errors, 7, "holds a control character (\\x1b)"));
  // What a diagnostic prints of the file is printable UTF-8.
  auto b = parse_matrix("matrix: \"\xff\\e\"\n", "m\x1b.yaml");
  ASSERT_FALSE(b.ok());
  for (const auto& e : b.errors)
    EXPECT_EQ(e.format().find('\x1b'), std::string::npos) << e.format();
}

TEST(MatrixLoad, HugeAndDeepDocumentsAreRefused) {
  std::string deep = "matrix: m\nx: ";
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  auto d = parse_matrix(deep + "\n", "m.yaml");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.errors[0].message.find("nests deeper than"), std::string::npos)
      << d.errors[0].format();
  auto h = parse_matrix("matrix: m\nnote: \"" + std::string(2 << 20, 'a') + "\"\n", "m.yaml");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.errors[0].message.find("larger than"), std::string::npos);
  // Aliases multiply: 10 levels of 10 uses each is 10^10 nodes.
  std::string laughs = "matrix: m\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    laughs += fmt::format("a{0}: &a{0} [", i);
    for (int k = 0; k < 10; ++k) laughs += fmt::format("{}*a{}", k ? ", " : "", i - 1);
    laughs += "]\n";
  }
  auto l = parse_matrix(laughs, "m.yaml");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.errors[0].message.find("more than"), std::string::npos) << l.errors[0].format();
}

// A power-cycle command with no shell syntax still starts a program: only
// power-switch tools, or those the user lists in RTOSBENCH_POWER_TOOLS.
TEST(BenchLoad, PowerCycleStartsOnlyAKnownOrUserListedProgram) {
  const std::string text = R"(bench: lab
boards:
  - id: a
    board: stm32f407-disco
    flasher: openocd
    serial: {port: /dev/ttyACM0}
    reset: power-cycle
    power_cycle: rm -rf /home
)";
  ::unsetenv("RTOSBENCH_POWER_TOOLS");
  auto refused = parse_bench(text, "lab.yaml");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(any_error(refused.errors, 8, "'rm' is not a power-switch tool"));
  ::setenv("RTOSBENCH_POWER_TOOLS", "/opt/lab/cycle.sh:rm", 1);
  auto listed = parse_bench(text, "lab.yaml");
  ::unsetenv("RTOSBENCH_POWER_TOOLS");
  EXPECT_TRUE(listed.ok());
  auto known = parse_bench(
      text.substr(0, text.find("power_cycle:")) + "power_cycle: uhubctl -l 1-1 -p 2 -a cycle\n",
      "lab.yaml");
  EXPECT_TRUE(known.ok()) << (known.errors.empty() ? "" : known.errors[0].format());
}

// QEMU opens a word that follows no option as a disk image (issue 35 item
// 9): each option of extra_args takes exactly its value, and -global may not
// set a property that names a file.
TEST(BenchLoad, QemuExtraArgsNameNoFile) {
  auto bench = [](const std::string& args) {
    return parse_bench(
        "bench: lab\nboards:\n  - id: q\n    board: qemu-netduinoplus2\n"
        "    flasher: qemu\n    qemu: {extra_args: " +
            args + "}\n",
        "lab.yaml");
  };
  EXPECT_TRUE(bench(R"(["-icount", "shift=0", "-no-reboot", "-d", "guest_errors"])").ok());
  auto bare = bench(R"(["disk.img"])");
  ASSERT_FALSE(bare.ok());
  EXPECT_TRUE(any_error(bare.errors, 6, "'disk.img' follows no option that takes a value"));
  auto after = bench(R"(["-no-reboot", "evil.img"])");
  ASSERT_FALSE(after.ok());
  EXPECT_TRUE(any_error(after.errors, 6, "'evil.img' follows no option"));
  auto two = bench(R"(["-m", "64M", "extra.img"])");
  ASSERT_FALSE(two.ok());
  EXPECT_TRUE(any_error(two.errors, 6, "'extra.img' follows no option"));
  auto missing = bench(R"(["-cpu"])");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(any_error(missing.errors, 6, "'-cpu' needs its value"));
  auto global = bench(R"(["-global", "loader.file=evil.bin"])");
  ASSERT_FALSE(global.ok());
  EXPECT_TRUE(any_error(global.errors, 6, "sets a property that names a file"));
  EXPECT_TRUE(bench(R"(["-global", "armv7m_nvic.num-prio-bits=4"])").ok());
}

TEST(BenchLoad, HostileStringsAreRefusedWithTheirPlace) {
  auto b = parse_bench(R"(bench: lab
boards:
  - id: a
    board: stm32f407-disco
    flasher: openocd
    probe:
      serial: 'x; exec touch FILE'
      interface: ../../tmp/evil.cfg
      target: /etc/evil.cfg
    serial: {port: /dev/../tmp/x}
    reset: power-cycle
    power_cycle: "uhubctl -a cycle; rm -rf ~"
  - id: b
    board: qemu-netduinoplus2
    flasher: qemu
    qemu: {machine: "-x", extra_args: ["-chardev", "file,path=/tmp/x"]}
  - id: ../c
    board: stm32f407-disco
    flasher: pyocd
    probe: {serial: "-h", pack: "-x.pack"}
    serial: {port: dev/ttyACM0}
)",
                       "lab.yaml");
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(any_error(b.errors, 7, "probe.serial': 'x; exec touch FILE' is not allowed"));
  EXPECT_TRUE(any_error(b.errors, 8, "probe.interface"));
  EXPECT_TRUE(any_error(b.errors, 9, "probe.target"));
  EXPECT_TRUE(any_error(b.errors, 10, "serial.port may not hold '..'"));
  EXPECT_TRUE(any_error(b.errors, 12, "power_cycle"));
  EXPECT_TRUE(any_error(b.errors, 16, "qemu.machine': '-x'"));
  EXPECT_TRUE(any_error(b.errors, 16, "extra_args[0]': '-chardev'"));
  EXPECT_TRUE(any_error(b.errors, 16, "extra_args[1]': 'file,path=/tmp/x'"));
  EXPECT_TRUE(any_error(b.errors, 17, "id': '../c'"));
  EXPECT_TRUE(any_error(b.errors, 20, "probe.serial': '-h'"));
  EXPECT_TRUE(any_error(b.errors, 20, "probe.pack': '-x.pack'"));
  EXPECT_TRUE(any_error(b.errors, 21, "serial.port': 'dev/ttyACM0'"));
}

TEST(MatrixLoad, JobIdsAreFileNamesFromAllowListedParts) {
  auto m = parse_matrix(
      "matrix: m\nboard: qemu-netduinoplus2\nkernels: [{name: bare}]\n"
      "variants: {opt: [\"-O2 -g0\", \"-Os -DX=1 -fno-inline -mtune=cortex-m4\"], tick_hz: [100, "
      "1000]}\n",
      "m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors[0].format();
  for (const auto& j : expand_jobs(m.value)) {
    EXPECT_EQ(
        j.id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"),
        std::string::npos)
        << j.id;
  }
}

}  // namespace
}  // namespace rb::matrix

namespace rb::matrix {
namespace {

// std::regex recurses per character: a long value must be refused before any
// regular expression sees it (a 900 kB git URL crashed the loader).
TEST(MatrixLoad, LongValuesAreRefusedBeforeAnyRegex) {
  const std::string big(400000, 'a');
  auto m = parse_matrix("matrix: m\nboard: qemu-netduinoplus2\nkernels:\n  - name: " + big +
                            "\n    version: \"1\"\n    tag: v1\n    git: https://" + big + "\n",
                        "m.yaml");
  ASSERT_FALSE(m.ok());
  bool long_git = false;
  for (const auto& e : m.errors) {
    EXPECT_LT(e.message.size(), 400u) << "a diagnostic quotes at most 80 bytes of a value";
    long_git = long_git || e.message.find("longer than 4096 bytes") != std::string::npos;
  }
  EXPECT_TRUE(long_git);
}

TEST(MatrixLoad, SweepsReplaceTheVariantsWhenSelected) {
  auto m =
      parse_matrix(std::string(kMinimal) + R"(variants: {opt: ["-O2 -g0"], tick_hz: [1000, 100]}
stack_margin_words: 32
sweeps:
  s5:
    note: seed 000
    variants: {opt: ["-O0", "-Os"], ramfunc: [0, 1]}
    samples: 500
    exclude: ["bare-*-ram"]
  quiet:
    variants: {tickless: [0, 1]}
    exclude: ["bare-*-tickless"]
)",
                   "/x/m.yaml");
  ASSERT_TRUE(m.ok()) << m.errors.front().format();
  EXPECT_EQ(m.value.stack_margin_words, 32);
  ASSERT_EQ(m.value.sweeps.size(), 2u);
  EXPECT_EQ(m.value.sweeps.at("quiet").variants.at("tickless"),
            (std::vector<std::string>{"0", "1"}));
  // The matrix's default where the sweep names no value.
  EXPECT_EQ(m.value.sweeps.at("s5").variants.at("tickless"), (std::vector<std::string>{"0"}));
  const Sweep& s = m.value.sweeps.at("s5");
  EXPECT_EQ(s.variants.at("opt"), (std::vector<std::string>{"-O0", "-Os"}));
  // The matrix's, untouched by the sweep.
  EXPECT_EQ(s.variants.at("tick_hz"), (std::vector<std::string>{"1000", "100"}));
  EXPECT_EQ(s.variants.at("ramfunc"), (std::vector<std::string>{"0", "1"}));
  // Not selected: the matrix's own variants.
  EXPECT_EQ(expand_jobs(m.value).size(), 2u);
  Matrix sel = m.value;
  ASSERT_TRUE(select_sweep(sel, "s5").ok());
  EXPECT_EQ(sel.samples, 500);
  EXPECT_EQ(sel.sweep, "s5");
  std::vector<std::string> ids;
  for (const auto& j : expand_jobs(sel)) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"bare-O0-tick1000-fpu0", "bare-O0-tick100-fpu0",
                                           "bare-Os-tick1000-fpu0", "bare-Os-tick100-fpu0"}));
  Matrix bad = m.value;
  auto unknown = select_sweep(bad, "s6");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kUsage);
  EXPECT_NE(unknown.error().message.find("it has: quiet, s5"), std::string::npos);
  Matrix quiet = m.value;
  ASSERT_TRUE(select_sweep(quiet, "quiet").ok());
  ids.clear();
  for (const auto& j : expand_jobs(quiet)) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"bare-O2-tick1000-fpu0", "bare-O2-tick100-fpu0"}));
}

TEST(MatrixLoad, SweepAndRamfuncErrorsHaveTheirPosition) {
  auto m = parse_matrix(std::string(kMinimal) + R"(variants: {ramfunc: [2]}
sweeps:
  "bad name!": {}
  ok:
    variant: {}
  tl:
    variants: {tickless: [0, yes]}
)",
                        "m.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(has_error(m.errors, 5, 22, "allowed: 0, 1")) << m.errors.front().format();
  EXPECT_TRUE(has_error(m.errors, 7, 3, "'sweeps': unknown key 'bad name!'"));
  EXPECT_TRUE(has_error(m.errors, 9, 5, "unknown key 'variant'"));
  EXPECT_TRUE(has_error(m.errors, 11, 30, "'yes' is not allowed (allowed: 0, 1)"));
  EXPECT_EQ(m.errors.size(), 4u);
}

TEST(MatrixLoad, EdgesTakesOffAndOn) {
  auto ok = parse_matrix(std::string(kMinimal) + "variants: {edges: [off, on]}\n", "m.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors.front().format();
  auto bad = parse_matrix(std::string(kMinimal) + "variants: {edges: [off, 1]}\n", "m.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(
      has_error(bad.errors, 5, 25, "'variants.edges[1]': 1 is not allowed (allowed: off, on)"))
      << bad.errors.front().format();
}

}  // namespace
}  // namespace rb::matrix
