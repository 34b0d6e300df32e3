#include "run/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "../util/fake_process_runner.h"
#include "matrix/load.h"

namespace rb::run {
namespace {

using store::JobStatus;

store::JobResult result(const std::string& id, JobStatus s, std::string reason = "") {
  store::JobResult r;
  r.job_id = id;
  r.status = s;
  r.reason = std::move(reason);
  return r;
}

TEST(ExitCodes, DistinctPerKindOfFailure) {
  EXPECT_EQ(
      exit_code_for({result("a", JobStatus::kOk), result("b", JobStatus::kPortMissing)}, 2, false),
      0);
  EXPECT_EQ(
      exit_code_for({result("a", JobStatus::kOk), result("b", JobStatus::kInvalid)}, 2, false), 1);
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kTimeout), result("b", JobStatus::kFlashError)},
                          2, false),
            2);
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kOk)}, 2, false), 2);  // a job never ran
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kOk)}, 2, true), 130);
  // A result the run did not keep outranks everything, an interruption too.
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kStoreError), result("b", JobStatus::kInvalid)},
                          2, false),
            74);
  EXPECT_EQ(exit_code_for({result("a", JobStatus::kStoreError)}, 2, true), 74);
}

TEST(JobExpect, JobFactsOverrideTheMatrixAndKernelOverridesBoth) {
  auto m = matrix::parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: bare
    expect: {tick: "0", kernel_commit: ~}
expect: {counter: tim2, tick: "5"}
samples: 500
)",
                                "m.yaml");
  ASSERT_TRUE(m.ok());
  matrix::Job j;
  j.kernel = m.value.kernels[0];
  j.board = "qemu-netduinoplus2";
  j.variant = model::default_variant();
  j.samples = 500;
  j.warmup = 1000;
  auto pins = job_expect(m.value, j, "7f3a9c21", "n/a");
  EXPECT_EQ(pins.at("counter"), "tim2");
  EXPECT_EQ(pins.at("nonce"), "7f3a9c21");
  EXPECT_EQ(pins.at("port"), "bare");
  EXPECT_EQ(pins.at("opt"), "-O2 -g0");
  EXPECT_EQ(pins.at("samples"), "500");
  EXPECT_EQ(pins.at("tick"), "0");             // the kernel's own override
  EXPECT_EQ(pins.count("kernel_commit"), 0u);  // removed by the kernel
}

TEST(JobExpect, ChecksComesFromTheVariantAndPartialHoldsForOffJobsOnly) {
  auto m = matrix::parse_matrix(R"(matrix: m
board: qemu-netduinoplus2
kernels:
  - name: freertos
  - name: tencentos
    expect: {checks: partial}
expect: {lookup: clz}
)",
                                "m.yaml");
  ASSERT_TRUE(m.ok());
  auto pin = [&](size_t k, const std::string& checks) {
    matrix::Job j;
    j.kernel = m.value.kernels[k];
    j.variant = model::default_variant();
    j.variant["checks"] = checks;
    return job_expect(m.value, j, "7f3a9c21", "n/a");
  };
  EXPECT_EQ(pin(0, "off").at("checks"), "off");
  EXPECT_EQ(pin(0, "on").at("checks"), "on");
  EXPECT_EQ(pin(0, "on").at("lookup"), "clz");
  EXPECT_EQ(pin(1, "off").at("checks"), "partial");  // what its off build really is
  EXPECT_EQ(pin(1, "on").at("checks"), "on");        // its on build has every check
}

// The closing table shows what the report's headline shows and ranks: the
// median net of its ruler baseline, a raw one marked `*`, and says so.
TEST(ClosingTable, HeadlineNumbersOnlyForOkJobsWithUnits) {
  auto ok = result("bare-O2-tick1000-fpu0", JobStatus::kOk);
  ok.unit = "instructions";
  ok.headline = {store::Headline{"wake_latency", "", 82, 82, "instructions"},
                 store::Headline{"event_to_task", "idle", 157, 157, "instructions"}};
  store::SeriesRecord wake, event;
  wake.name = "wake_latency";
  wake.median_ticks = 82;
  wake.base_ticks = 13;
  wake.median_minus_base_ticks = 69;
  event.phase = "idle";
  event.name = "event_to_task";
  event.median_ticks = 157;
  ok.series = {wake, event};
  auto bad =
      result("zephyr-O2-tick1000-fpu0", JobStatus::kPortMissing, "no firmware port 'zephyr' yet");
  bad.headline = ok.headline;  // never shown for a job that is not OK
  std::string t = format_table({ok, bad});
  std::vector<std::string> lines;
  for (size_t p = 0, nl; (nl = t.find('\n', p)) != std::string::npos; p = nl + 1)
    lines.push_back(t.substr(p, nl - p));
  ASSERT_EQ(lines.size(), 4u) << t;
  EXPECT_EQ(lines[0].rfind("job ", 0), 0u);
  EXPECT_NE(lines[0].find("event_to_task(idle)"), std::string::npos);
  // Columns line up: every row starts its status where the header does.
  EXPECT_EQ(lines[1].find("OK"), lines[0].find("status"));
  EXPECT_EQ(lines[2].find("PORT_MISSING"), lines[0].find("status"));
  EXPECT_NE(lines[1].find(" 69 "), std::string::npos) << t;  // 82 - 13: net, not raw
  EXPECT_EQ(lines[1].find("82"), std::string::npos) << t;
  EXPECT_NE(lines[1].find(" 157* "), std::string::npos) << t;  // no baseline: raw, marked
  EXPECT_EQ(lines[2].find("69"), std::string::npos);
  EXPECT_NE(lines[2].find("no firmware port 'zephyr' yet"), std::string::npos);
  EXPECT_EQ(lines[3],
            "net medians in instructions (QEMU -icount: instruction counts, not core cycles): "
            "the median minus its ruler baseline, as the report's headline shows and "
            "ranks them; *: no ruler baseline, the raw median");
  // A result without its series (older records): the raw median, marked.
  ok.series.clear();
  t = format_table({ok});
  EXPECT_NE(t.find(" 82* "), std::string::npos) << t;
}

// ---- The Runner with fakes: every status transition, retries, loads, resume.

// What the fakes do, call by call, and what they saw.
struct Script {
  std::deque<bool> flash_ok;                 // program()/reload(): success? (default: yes)
  std::deque<serial::StopReason> capture;    // each capture's stop (default: kEnd)
  std::deque<ErrorKind> capture_open_error;  // an error opening the capture (kInternal: none)
  std::deque<verify::Outcome> verdict;       // each verify's outcome (default: valid)
  std::deque<bool> build_ok;                 // each build: success? (default: yes)
  std::deque<bool> release_ok;               // each release of the target (default: yes)
  std::function<void()> on_capture;          // called inside each capture
  int programs = 0, reloads = 0, captures = 0, verifies = 0, builds = 0;
  std::vector<std::string> built_ports;  // each build's port, in order
};

template <typename T>
T next(std::deque<T>& q, T fallback) {
  if (q.empty()) return fallback;
  T v = q.front();
  q.pop_front();
  return v;
}

class FakeSession final : public probe::TargetSession {
 public:
  explicit FakeSession(Script& s) : s_(s) {}
  std::filesystem::path serial_port() const override { return "fake-port"; }
  Status release() override {
    if (!next(s_.release_ok, true))
      return make_error(ErrorKind::kUnavailable, "fake reset did not take");
    return {};
  }
  std::vector<std::string> commands() const override { return {"fake release"}; }

 private:
  Script& s_;
};

class FakeFlasher final : public probe::Flasher {
 public:
  explicit FakeFlasher(Script& s) : s_(s) {}
  const char* name() const override { return "fake"; }
  Result<std::unique_ptr<probe::TargetSession>> program(const probe::FlashContext& ctx) override {
    ++s_.programs;
    return session(ctx);
  }
  Result<std::unique_ptr<probe::TargetSession>> reload(const probe::FlashContext& ctx) override {
    ++s_.reloads;
    return session(ctx);
  }
  probe::ToolCheck check_tool() override { return {true, "fake", "1", ""}; }

 private:
  Result<std::unique_ptr<probe::TargetSession>> session(const probe::FlashContext& ctx) {
    if (!std::filesystem::exists(ctx.elf))
      return make_error(ErrorKind::kInternal, "no image at " + ctx.elf.string());
    if (!next(s_.flash_ok, true))
      return make_error(ErrorKind::kUnavailable, "fake probe did not answer");
    return std::unique_ptr<probe::TargetSession>(std::make_unique<FakeSession>(s_));
  }
  Script& s_;
};

class FakeCapture final : public serial::Capture {
 public:
  FakeCapture(Script& s, std::filesystem::path raw) : s_(s), raw_(std::move(raw)) {}
  serial::CaptureResult run(const serial::CaptureOptions&) override {
    ++s_.captures;
    std::ofstream(raw_) << "BEGIN\nEND\n";
    if (s_.on_capture) s_.on_capture();
    serial::CaptureResult r;
    r.reason = next(s_.capture, serial::StopReason::kEnd);
    r.message = std::string("fake ") + serial::to_string(r.reason);
    r.bytes = 10;
    r.lines = 2;
    return r;
  }

 private:
  Script& s_;
  std::filesystem::path raw_;
};

class FakeBuilder final : public build::FirmwareBuilder {
 public:
  FakeBuilder(Script& s, std::filesystem::path cache) : s_(s), cache_(std::move(cache)) {}
  Result<build::BuildOutput> build(const build::BuildRequest& req) override {
    ++s_.builds;
    s_.built_ports.push_back(req.job.kernel.port);
    if (!next(s_.build_ok, true)) return make_error(ErrorKind::kInternal, "fake compiler error");
    build::BuildOutput o;
    o.defines["RB_PORT"] = req.job.kernel.port;
    o.key = std::string(64, 'a');
    o.nonce = "aaaaaaaa";
    o.dir = cache_ / req.job.build_id;
    std::filesystem::create_directories(o.dir);
    o.elf = o.dir / "rtosbench-fw.elf";
    o.map = o.dir / "rtosbench-fw.map";
    o.bin = o.dir / "rtosbench-fw.bin";
    o.size_json = o.dir / "size.json";
    for (const auto& f : {o.elf, o.map, o.bin, o.size_json}) std::ofstream(f) << "x";
    std::filesystem::create_directories(req.log.parent_path());
    std::ofstream(req.log) << "fake build\n";
    return o;
  }

 private:
  Script& s_;
  std::filesystem::path cache_;
};

// A LAVA server, scripted: every job it is given goes through `states`
// (default: Finished/Complete at once) and has `log` as its log.
struct FakeLavaServer {
  std::deque<lava::JobState> states;
  std::string log;
  int64_t next_id = 100;
  int submits = 0;
  std::vector<int64_t> cancelled, polled;
  std::string last_definition;
  int running_polls = 0;  // with `states` empty: polls a job stays Running before it finishes
  std::map<int64_t, int> polls;
  int in_flight = 0, max_in_flight = 0;
  std::mutex mu;  // the lanes of a LAVA entry call from several threads
};

class FakeLava final : public lava::Api {
 public:
  explicit FakeLava(FakeLavaServer& s) : s_(s) {}
  Result<int64_t> submit(const std::string& definition) override {
    std::lock_guard lock(s_.mu);
    ++s_.submits;
    s_.max_in_flight = std::max(s_.max_in_flight, ++s_.in_flight);
    s_.last_definition = definition;
    return ++s_.next_id;
  }
  Result<lava::JobState> state(int64_t id) override {
    std::lock_guard lock(s_.mu);
    s_.polled.push_back(id);
    lava::JobState st{id, "Finished", "Complete", "qemu01", ""};
    if (!s_.states.empty()) {
      st = s_.states.front();
      st.id = id;
      s_.states.pop_front();
    } else if (s_.polls[id]++ < s_.running_polls) {
      st.state = "Running";
      st.health = "Unknown";
    }
    if (st.finished()) --s_.in_flight;
    return st;
  }
  Result<std::string> log(int64_t) override { return s_.log; }
  Status cancel(int64_t id) override {
    std::lock_guard lock(s_.mu);
    s_.cancelled.push_back(id);
    return {};
  }
  std::string job_url(int64_t id) const override {
    return "http://lava/scheduler/job/" + std::to_string(id);
  }

 private:
  FakeLavaServer& s_;
};

const char* kLavaLog =
    "- {dt: '2026-12-01T22:45:04.371979', lvl: target, msg: 'rtosbench-fw: waiting for START'}\n"
    "- {dt: '2026-12-01T22:45:05.0', lvl: target, msg: 'BEGIN,RTOS_BENCH_V2'}\n"
    "- {dt: '2026-12-01T22:45:06.0', lvl: feedback, msg: 'END,RTOS_BENCH_V2'}\n";

class RunnerFakes : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_interrupt();
    root_ = std::filesystem::temp_directory_path() / ("rb-runner-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "fw" / "ports" / "bare");
    std::filesystem::create_directories(root_ / "fw" / "cmake");
    std::ofstream(root_ / "fw" / "ports" / "bare" / "port.cmake") << "";
    std::ofstream(root_ / "fw" / "ports" / "bare" / "kernel.yaml") << "reference: true\n";
    // The host facts of the board (the test firmware's copy).
    std::filesystem::copy(std::filesystem::path(RTOSBENCH_TEST_DATA) / "run" / "testfw" / "boards",
                          root_ / "fw" / "boards", std::filesystem::copy_options::recursive);
    std::ofstream(root_ / "bench.yaml")
        << "bench: b\nboards:\n  - id: q0\n    board: qemu-netduinoplus2\n    flasher: qemu\n";
  }
  void TearDown() override {
    clear_interrupt();
    std::filesystem::remove_all(root_);
  }

  // A matrix of one bare job (`extra` adds keys such as retries or repeats,
  // `more_kernels` entries to the kernel list, `first` names the first).
  void matrix(const std::string& extra = "", const std::string& more_kernels = "",
              const std::string& first = "bare") {
    std::ofstream(root_ / "m.yaml")
        << "matrix: m\nboard: qemu-netduinoplus2\nfirmware: fw\nkernels:\n  - name: " << first
        << "\n"
        << more_kernels << "samples: 10\nwarmup: 1\n"
        << extra;
    auto lm = matrix::load_matrix(root_ / "m.yaml");
    ASSERT_TRUE(lm.ok()) << (lm.errors.empty() ? "" : lm.errors[0].format());
    auto lb = matrix::load_bench(root_ / "bench.yaml");
    ASSERT_TRUE(lb.ok());
    cfg_.matrix = lm.value;
    cfg_.bench = lb.value;
    cfg_.build_cache = root_ / "cache";
    auto d = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "bench.yaml");
    ASSERT_TRUE(d.ok()) << d.error().message;
    dir_.emplace(std::move(*d));
    ASSERT_TRUE(dir_->write_summary(nlohmann::json{{"schema", store::kRunSummarySchema},
                                                   {"schema_version", store::kSchemaVersion},
                                                   {"run_id", dir_->id()},
                                                   {"state", "starting"}})
                    .ok());
  }

  RunnerParts parts() {
    RunnerParts p;
    p.flasher = [this](const matrix::BoardInstance&) { return std::make_unique<FakeFlasher>(s_); };
    p.capture = [this](
                    probe::TargetSession&, const matrix::BoardInstance&,
                    const std::filesystem::path& raw) -> Result<std::unique_ptr<serial::Capture>> {
      ErrorKind k = next(s_.capture_open_error, ErrorKind::kInternal);
      if (k != ErrorKind::kInternal) return make_error(k, "fake capture cannot open");
      return std::unique_ptr<serial::Capture>(std::make_unique<FakeCapture>(s_, raw));
    };
    p.verify = [this](const std::filesystem::path&,
                      const verify::Options&) -> Result<verify::Report> {
      ++s_.verifies;
      verify::Report r;
      r.outcome = next(s_.verdict, verify::Outcome::kValid);
      return r;
    };
    p.builder =
        [this](const std::filesystem::path& cache) -> std::unique_ptr<build::FirmwareBuilder> {
      return std::make_unique<FakeBuilder>(s_, cache);
    };
    p.lava = [this](const matrix::LavaServer&) -> Result<std::unique_ptr<lava::Api>> {
      return std::unique_ptr<lava::Api>(std::make_unique<FakeLava>(lava_));
    };
    return p;
  }

  // The bench: one LAVA entry, `jobs` in flight.
  void lava_bench(int jobs = 1) {
    std::ofstream(root_ / "bench.yaml")
        << "bench: farm\nlava:\n  url: https://lava.invalid/\n  token_env: "
           "RTOSBENCH_LAVA_NO_SUCH_TOKEN\n"
        << "  publish: {dir: " << (root_ / "img").string() << ", url: file://"
        << (root_ / "img").string() << "}\n  poll: 0.1\n"
        << "boards:\n  - id: farm\n    board: qemu-netduinoplus2\n    flasher: qemu\n"
        << "    lava: {device_type: qemu, jobs: " << jobs << "}\n";
    lava_.log = kLavaLog;
  }

  RunOutcome run() {
    Progress progress(
        clock_, false, [](std::string_view) {}, 1, 0);
    Runner runner(processes_, progress, clock_, parts());
    return runner.run(cfg_, *dir_);
  }

  std::string attempts(const RunOutcome& out) {
    std::string s;
    for (const auto& a : out.results.at(0).attempts) {
      s += (s.empty() ? "" : " ") + (a.load ? std::to_string(a.load) + ":" : "") +
           store::to_string(a.status);
    }
    return s;
  }

  nlohmann::json json_of(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
  }

  const std::string job_ = "bare-O2-tick1000-fpu0";
  std::filesystem::path root_;
  Script s_;
  FakeLavaServer lava_;
  RunConfig cfg_;
  std::optional<RunDirectory> dir_;
  testing::FakeProcessRunner processes_;
  SteadyClock clock_;
};

TEST_F(RunnerFakes, OneCleanAttemptIsOk) {
  matrix();
  auto out = run();
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(out.results[0].job_id, job_);
  EXPECT_EQ(out.results[0].status, JobStatus::kOk);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(attempts(out), "OK");
  EXPECT_EQ(s_.builds, 1);
  EXPECT_EQ(s_.programs, 1);
  EXPECT_EQ(json_of(dir_->result_file(job_))["status"], "OK");
  EXPECT_EQ(json_of(dir_->attempt_dir(job_, 1) / "attempt.json")["status"], "OK");
  EXPECT_EQ(json_of(dir_->root() / "run.json")["state"], "complete");
}

TEST_F(RunnerFakes, FlashErrorsAreRetriedUpToTheLimit) {
  matrix("retries: {flash: 2, capture: 0}\n");
  s_.flash_ok = {false, false};
  auto out = run();
  EXPECT_EQ(out.results.at(0).status, JobStatus::kOk);
  EXPECT_EQ(attempts(out), "FLASH_ERROR FLASH_ERROR OK");
  EXPECT_EQ(s_.programs, 3);  // never programmed: each retry programs again
  EXPECT_EQ(s_.reloads, 0);
}

TEST_F(RunnerFakes, FlashErrorBeyondTheRetriesIsTheJobsStatus) {
  matrix("retries: {flash: 1, capture: 0}\n");
  s_.flash_ok = {false, false, true};
  auto out = run();
  EXPECT_EQ(out.results.at(0).status, JobStatus::kFlashError);
  EXPECT_EQ(attempts(out), "FLASH_ERROR FLASH_ERROR");
  EXPECT_EQ(out.exit_code, kExitInfrastructureFailed);
  EXPECT_EQ(s_.captures, 0);
}

TEST_F(RunnerFakes, CaptureFailuresAreRetriedAndTheBoardOnlyReloaded) {
  matrix("retries: {flash: 0, capture: 3}\n");
  s_.capture = {serial::StopReason::kInactivityTimeout, serial::StopReason::kPortError};
  s_.verdict = {verify::Outcome::kProtocolError};
  auto out = run();
  EXPECT_EQ(attempts(out), "TIMEOUT PORT_ERROR PROTOCOL_ERROR OK");
  EXPECT_EQ(out.results.at(0).status, JobStatus::kOk);
  EXPECT_EQ(s_.programs, 1);
  EXPECT_EQ(s_.reloads, 3);
}

TEST_F(RunnerFakes, AnInvalidMeasurementIsNotRetried) {
  matrix("retries: {flash: 0, capture: 3}\n");
  s_.verdict = {verify::Outcome::kInvalid};
  auto out = run();
  EXPECT_EQ(attempts(out), "INVALID");
  EXPECT_EQ(out.exit_code, kExitMeasurementFailed);
}

TEST_F(RunnerFakes, TimeoutBeyondTheRetriesIsTheJobsStatus) {
  matrix("retries: {flash: 0, capture: 1}\n");
  s_.capture = {serial::StopReason::kOverallTimeout, serial::StopReason::kOverallTimeout};
  auto out = run();
  EXPECT_EQ(attempts(out), "TIMEOUT TIMEOUT");
  EXPECT_EQ(out.results.at(0).status, JobStatus::kTimeout);
  EXPECT_EQ(out.exit_code, kExitMeasurementFailed);
}

TEST_F(RunnerFakes, UnverifiedIsNotRetried) {
  matrix("retries: {flash: 0, capture: 3}\n");
  s_.verdict = {verify::Outcome::kUnverified};
  auto out = run();
  EXPECT_EQ(attempts(out), "UNVERIFIED");
  EXPECT_EQ(out.exit_code, kExitMeasurementFailed);
}

TEST_F(RunnerFakes, AReleaseThatFailsIsAFlashError) {
  matrix("retries: {flash: 1, capture: 0}\n");
  s_.release_ok = {false};
  auto out = run();
  EXPECT_EQ(attempts(out), "FLASH_ERROR OK");
  EXPECT_EQ(s_.captures, 1);  // the failed release captured nothing
}

TEST_F(RunnerFakes, BuildErrorsAreRetriedThenTheJobsStatus) {
  matrix("retries: {build: 1, flash: 0, capture: 0}\n");
  s_.build_ok = {false, false};
  auto out = run();
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(out.results[0].status, JobStatus::kBuildError);
  EXPECT_EQ(out.results[0].build_attempts.size(), 2u);
  EXPECT_EQ(s_.programs, 0);
  EXPECT_EQ(out.exit_code, kExitInfrastructureFailed);
}

TEST_F(RunnerFakes, AKernelWithoutAPortIsPortMissingAndNotBuilt) {
  matrix("", "  - name: notyet\n    port: notyet\n");
  auto out = run();
  ASSERT_EQ(out.results.size(), 2u);
  for (const auto& r : out.results) {
    if (r.job_id.rfind("notyet", 0) == 0) {
      EXPECT_EQ(r.status, JobStatus::kPortMissing);
    } else {
      EXPECT_EQ(r.status, JobStatus::kOk);
    }
  }
  EXPECT_EQ(s_.builds, 1);
  EXPECT_EQ(out.exit_code, 0);
}

TEST_F(RunnerFakes, AFullDiskDuringCaptureIsAStoreErrorAndNotRetried) {
  matrix("retries: {flash: 0, capture: 3}\n");
  s_.capture = {serial::StopReason::kWriteError};
  auto out = run();
  EXPECT_EQ(attempts(out), "STORE_ERROR");
  EXPECT_EQ(out.results.at(0).status, JobStatus::kStoreError);
  EXPECT_EQ(out.exit_code, kExitStoreFailed);
  EXPECT_EQ(s_.captures, 1);
}

TEST_F(RunnerFakes, ACaptureThatCannotCreateItsFileIsAStoreErrorOtherwiseAPortError) {
  matrix("retries: {flash: 0, capture: 1}\n");
  s_.capture_open_error = {ErrorKind::kUnavailable, ErrorKind::kStore};
  auto out = run();
  EXPECT_EQ(attempts(out), "PORT_ERROR STORE_ERROR");
  EXPECT_EQ(out.exit_code, kExitStoreFailed);
}

TEST_F(RunnerFakes, AResultThatCannotBeWrittenIsAStoreErrorAndNotKept) {
  matrix();
  // A directory where result.json goes: the atomic rename over it fails.
  std::filesystem::create_directories(dir_->result_file(job_) / "in-the-way");
  auto out = run();
  EXPECT_EQ(out.results.at(0).status, JobStatus::kStoreError);
  EXPECT_NE(out.results.at(0).reason.find("result.json not written"), std::string::npos);
  EXPECT_EQ(out.exit_code, kExitStoreFailed);
  auto summary = json_of(dir_->root() / "run.json");
  EXPECT_EQ(summary["jobs"][0]["status"], "STORE_ERROR");
  EXPECT_EQ(summary["exit_code"], kExitStoreFailed);
  // A resume does the job again.
  std::filesystem::remove_all(dir_->result_file(job_));
  auto again = run();
  EXPECT_EQ(again.results.at(0).status, JobStatus::kOk);
  EXPECT_EQ(again.exit_code, 0);
}

TEST_F(RunnerFakes, ARunJsonThatCannotBeWrittenFailsTheRun) {
  matrix();
  s_.on_capture = [this] {
    // From now on run.json cannot be replaced.
    std::filesystem::remove(dir_->root() / "run.json");
    std::filesystem::create_directories(dir_->root() / "run.json" / "in-the-way");
  };
  auto out = run();
  EXPECT_EQ(out.results.at(0).status, JobStatus::kOk);  // result.json was kept
  EXPECT_EQ(out.exit_code, kExitStoreFailed);
  EXPECT_NE(out.store_error.find("run.json"), std::string::npos);
}

TEST_F(RunnerFakes, RepeatedLoadsProgramOnceAndKeepEveryLoad) {
  matrix("repeats: 3\n");
  auto out = run();
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(out.results[0].status, JobStatus::kOk);
  EXPECT_EQ(attempts(out), "1:OK 2:OK 3:OK");
  EXPECT_EQ(s_.programs, 1);
  EXPECT_EQ(s_.reloads, 2);
  for (int k = 1; k <= 3; ++k)
    EXPECT_EQ(json_of(dir_->load_dir(job_, k) / "load.json")["status"], "OK");
}

TEST_F(RunnerFakes, AFailedLoadEndsTheJob) {
  matrix("repeats: 3\n");
  s_.verdict = {verify::Outcome::kValid, verify::Outcome::kInvalid};
  auto out = run();
  EXPECT_EQ(out.results.at(0).status, JobStatus::kInvalid);
  EXPECT_EQ(attempts(out), "1:OK 2:INVALID");
  EXPECT_FALSE(std::filesystem::exists(dir_->load_dir(job_, 3)));
}

TEST_F(RunnerFakes, InterruptedLoadIsRedoneOnResumeAndFinishedLoadsKept) {
  matrix("repeats: 2\n");
  // Ctrl-C during the second load's capture.
  s_.on_capture = [this] {
    if (s_.captures == 2) request_interrupt();
  };
  s_.capture = {serial::StopReason::kEnd, serial::StopReason::kInterrupted};
  auto first = run();
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.exit_code, 130);
  EXPECT_TRUE(first.results.empty());
  EXPECT_FALSE(std::filesystem::exists(dir_->result_file(job_)));
  EXPECT_TRUE(std::filesystem::exists(dir_->load_dir(job_, 1) / "load.json"));
  EXPECT_EQ(json_of(dir_->load_dir(job_, 2) / "attempt-1" / "attempt.json")["status"],
            "INTERRUPTED");
  EXPECT_EQ(json_of(dir_->root() / "run.json")["state"], "interrupted");

  clear_interrupt();
  s_.on_capture = nullptr;
  auto second = run();
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.exit_code, 0);
  EXPECT_EQ(attempts(second), "1:OK 2:INTERRUPTED 2:OK");
  EXPECT_EQ(s_.captures, 3);  // load 1 was not captured again
  EXPECT_EQ(json_of(dir_->root() / "run.json")["sessions"].size(), 2u);
}

TEST_F(RunnerFakes, AFinishedJobIsNotRunAgain) {
  matrix();
  ASSERT_EQ(run().exit_code, 0);
  auto again = run();
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(s_.builds, 1);
  EXPECT_EQ(s_.captures, 1);
}

TEST_F(RunnerFakes, ASessionThatWasKilledIsRecordedAsInterrupted) {
  matrix();
  auto j = dir_->summary();
  j["state"] = "running";  // what a kill -9 leaves
  ASSERT_TRUE(dir_->write_summary(j).ok());
  auto closed = dir_->close_unclosed_session();
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(*closed, "running");
  EXPECT_EQ(*dir_->close_unclosed_session(), "");  // once only
  auto out = run();
  EXPECT_EQ(out.exit_code, 0);
  auto sessions = json_of(dir_->root() / "run.json")["sessions"];
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0]["state"], "interrupted");
  EXPECT_NE(sessions[0]["note"].get<std::string>().find("without closing run.json"),
            std::string::npos);
  EXPECT_EQ(sessions[1]["state"], "complete");
}

TEST_F(RunnerFakes, ARunDirectoryIsLockedByOneProcessAtATime) {
  matrix();
  auto first = dir_->lock();
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = dir_->lock();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(second.error().message.find("locked by process " + std::to_string(::getpid())),
            std::string::npos)
      << second.error().message;
  { auto released = std::move(*first); }
  EXPECT_TRUE(dir_->lock().ok());
}

// ---- A LAVA bench, its server faked (the real one: tests/run/e2e/lava.sh).

TEST_F(RunnerFakes, ALavaJobThatReachedEndIsVerifiedAndRecorded) {
  lava_bench();
  matrix();
  lava_.states = {{0, "Submitted", "Unknown", "", ""}, {0, "Running", "Unknown", "qemu01", ""}};
  auto out = run();
  ASSERT_EQ(out.exit_code, 0) << out.results.at(0).reason;
  EXPECT_EQ(lava_.submits, 1);
  EXPECT_EQ(s_.programs, 0);  // no local flasher
  EXPECT_EQ(s_.verifies, 1);
  const auto& a = out.results.at(0).attempts.at(0);
  EXPECT_EQ(a.lava_job_id, 101);
  EXPECT_EQ(a.lava_url, "http://lava/scheduler/job/101");
  EXPECT_EQ(a.lava_device, "qemu01");
  EXPECT_EQ(a.lava_health, "Complete");
  EXPECT_EQ(a.capture_stop, "end");
  auto att = dir_->job_dir(job_) / "attempt-1";
  EXPECT_EQ(json_of(att / "lava.json")["job_id"], 101);
  auto r = json_of(dir_->result_file(job_));
  EXPECT_EQ(r["attempts"][0]["lava"]["job_id"], 101);
  std::ifstream raw(att / "capture.raw");
  std::string text((std::istreambuf_iterator<char>(raw)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "rtosbench-fw: waiting for START\nBEGIN,RTOS_BENCH_V2\nEND,RTOS_BENCH_V2\n");
  EXPECT_NE(lava_.last_definition.find("START aaaaaaaa"), std::string::npos);  // the nonce
}

TEST_F(RunnerFakes, LavaFailuresMapOntoStatusesWithLavasComment) {
  lava_bench();
  matrix("retries: {flash: 0, capture: 1}\n");
  lava_.log =
      "- {dt: '2026-12-01T22:45:04.0', lvl: results, msg: {definition: lava, case: "
      "lava-test-monitor, level: '4.1', result: fail}}\n"
      "- {dt: '2026-12-01T22:45:05.0', lvl: results, msg: {definition: lava, case: job, "
      "result: fail, error_type: LAVATimeout, error_msg: 'monitor timed out'}}\n";
  lava_.states = {{0, "Finished", "Incomplete", "qemu01", "lava-test-monitor timed out"},
                  {0, "Finished", "Incomplete", "qemu01", "lava-test-monitor timed out"}};
  auto out = run();
  EXPECT_EQ(attempts(out), "TIMEOUT TIMEOUT");  // retried as a capture failure
  EXPECT_EQ(lava_.submits, 2);
  EXPECT_NE(out.results.at(0).reason.find("lava-test-monitor timed out"), std::string::npos)
      << out.results.at(0).reason;
}

TEST_F(RunnerFakes, ALavaJobThatCouldNotDeployIsAFlashError) {
  lava_bench();
  matrix("retries: {flash: 0, capture: 0}\n");
  lava_.log =
      "- {dt: '2026-12-01T22:45:04.0', lvl: results, msg: {definition: lava, case: validate, "
      "result: fail}}\n"
      "- {dt: '2026-12-01T22:45:05.0', lvl: results, msg: {definition: lava, case: job, "
      "result: fail, error_type: Job, error_msg: 'Image file does not exist'}}\n";
  lava_.states = {{0, "Finished", "Incomplete", "", ""}};
  auto out = run();
  EXPECT_EQ(attempts(out), "FLASH_ERROR");
  EXPECT_NE(out.results.at(0).reason.find("Image file does not exist"), std::string::npos);
  EXPECT_EQ(out.exit_code, kExitInfrastructureFailed);
}

TEST_F(RunnerFakes, AnInterruptCancelsTheLavaJob) {
  lava_bench();
  matrix();
  for (int i = 0; i < 50; ++i) lava_.states.push_back({0, "Running", "Unknown", "q", ""});
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    request_interrupt();
  });
  auto out = run();
  stopper.join();
  EXPECT_TRUE(out.interrupted);
  ASSERT_EQ(lava_.cancelled.size(), 1u);
  EXPECT_EQ(lava_.cancelled[0], 101);
  EXPECT_EQ(json_of(dir_->job_dir(job_) / "attempt-1" / "attempt.json")["status"], "INTERRUPTED");
}

TEST_F(RunnerFakes, AResumeFollowsTheLavaJobAKilledSessionLeft) {
  lava_bench();
  matrix();
  auto att = dir_->job_dir(job_) / "attempt-1";
  std::filesystem::create_directories(att);
  std::ofstream(att / "lava.json") << R"({"job_id": 77, "url": "x"})";
  auto out = run();
  ASSERT_EQ(out.exit_code, 0) << out.results.at(0).reason;
  EXPECT_EQ(lava_.submits, 0);
  EXPECT_EQ(lava_.polled.at(0), 77);
  EXPECT_EQ(attempts(out), "OK");
  EXPECT_EQ(out.results.at(0).attempts.at(0).lava_job_id, 77);
  EXPECT_EQ(out.results.at(0).attempts.at(0).number, 1);
}

// A kernel job's footprint is counted against the port kernel.yaml marks
// `reference: true`, whatever its directory is named, and the reference
// port's own job gets none.
TEST_F(RunnerFakes, TheKernelAloneReferenceIsTheCatalogsReferencePort) {
  std::filesystem::rename(root_ / "fw" / "ports" / "bare", root_ / "fw" / "ports" / "refsched");
  std::filesystem::create_directories(root_ / "fw" / "ports" / "mykernel");
  std::ofstream(root_ / "fw" / "ports" / "mykernel" / "port.cmake") << "";
  matrix("", "  - name: mykernel\n", "refsched");
  auto out = run();
  ASSERT_EQ(out.results.size(), 2u);
  // refsched's job, mykernel's job, then mykernel's reference image: refsched.
  EXPECT_EQ(s_.built_ports, (std::vector<std::string>{"refsched", "mykernel", "refsched"}));
  auto refsched = json_of(dir_->result_file("refsched-O2-tick1000-fpu0"));
  EXPECT_FALSE(refsched["build"].contains("footprint_kernel")) << refsched["build"].dump();
  auto mine = json_of(dir_->result_file("mykernel-O2-tick1000-fpu0"));
  const auto& fk = mine["build"]["footprint_kernel"];
  // The like-for-like check took refsched as the reference; the fake map is no map.
  ASSERT_TRUE(fk.contains("error")) << fk.dump();
  EXPECT_NE(fk["error"].get<std::string>().find("Linker script and memory map"), std::string::npos)
      << fk.dump();
  EXPECT_EQ(fk["bare_log"], "builds/mykernel-O2-tick1000-fpu0/bare-reference/build.log");
}

TEST_F(RunnerFakes, ALavaEntryRunsAsManyJobsAtOnceAsItAllows) {
  lava_bench(3);
  matrix("", "  - name: bare2\n    port: bare\n  - name: bare3\n    port: bare\n");
  lava_.running_polls = 5;
  auto out = run();
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.results.size(), 3u);
  EXPECT_EQ(lava_.submits, 3);
  EXPECT_EQ(lava_.max_in_flight, 3);
}

}  // namespace
}  // namespace rb::run
