#include "store/result.h"

#include <gtest/gtest.h>

#include <fstream>

#include "model/axes.h"
#include "util/yaml_doc.h"

namespace rb::store {
namespace {

JobResult sample() {
  JobResult r;
  r.run_id = "20260101T000000Z-qemu";
  r.job_id = "freertos-O2-tick1000-fpu0-r2";
  r.build_id = "freertos-O2-tick1000-fpu0";
  r.status = JobStatus::kInvalid;
  r.reason = "invalid: line 35: PHASE idle: irq=64 but task=61";
  r.job.kernel = "freertos";
  r.job.variant = {{"tick_hz", "1000"}, {"opt", "-O2 -g0"}};
  r.expect = {{"nonce", "7f3a9c21"}, {"tick", "1000"}};
  AttemptRecord a;
  a.number = 1;
  a.status = JobStatus::kTimeout;
  a.reason = "port silent for 30 s before END";
  a.board = "qemu-0";
  a.capture_stop = "inactivity_timeout";
  a.capture_bytes = 1234;
  r.attempts.push_back(a);
  a.number = 2;
  a.status = JobStatus::kInvalid;
  a.capture_stop = "end";
  a.target_run_seconds = 2.5;
  a.verify_outcome = "invalid";
  r.attempts.push_back(a);
  r.build_attempts.push_back(
      BuildAttemptRecord{1, true, "cache hit", 0.01, "builds/x/attempt-1/build.log"});
  r.conditions = {{"unit", "instructions"}};
  r.unit = "instructions";
  r.headline.push_back(Headline{"wake_latency", "", 321, 321, "instructions"});
  r.finished_at = "2026-01-01T00:00:05Z";
  return r;
}

TEST(JobResultJson, RoundTrips) {
  JobResult r = sample();
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["schema"], "rtosbench.job_result");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["status"], "INVALID");
  EXPECT_EQ(j["attempts"][0]["capture"]["stop"], "inactivity_timeout");
  auto back = job_result_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(*back), j);
}

TEST(JobResultJson, TheJobRecordsEveryAxisOfTheTable) {
  // JobSpec has no field per axis: `variant` holds each row of
  // model::axes() (checks, ramfunc and tickless included) and reads back.
  JobResult r = sample();
  r.job.variant = model::default_variant();
  r.job.variant["checks"] = "on";
  r.job.variant["ramfunc"] = "1";
  r.job.variant["tickless"] = "1";
  nlohmann::json j = to_json(r);
  for (const auto& a : model::axes())
    EXPECT_TRUE(j["job"]["variant"].contains(std::string(a.key))) << a.key;
  auto back = job_result_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->job.variant, r.job.variant);
  EXPECT_EQ(back->job.axis("checks"), "on");
  EXPECT_EQ(back->job.axis("ramfunc"), "1");
  EXPECT_EQ(back->job.axis("tickless"), "1");
}

TEST(JobResultJson, RepeatedJobsCarryTheirLoads) {
  JobResult r = sample();
  EXPECT_EQ(to_json(r).count("loads"), 0u);
  EXPECT_EQ(to_json(r)["attempts"][0].count("load"), 0u);
  r.attempts[1].load = 2;
  LoadRecord l1, l2;
  l1.load = 1;
  l2.load = 2;
  l2.status = JobStatus::kInvalid;
  r.loads = std::vector<LoadRecord>{l1, l2};
  r.spread = std::vector<SeriesSpread>{};
  r.reproducibility = Reproducibility{};
  r.reproducibility->verdict = "not_judged";
  auto back = job_result_from_json(to_json(r));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->attempts[1].load, 2);
  EXPECT_EQ(back->attempts[0].load, 0);
  ASSERT_TRUE(back->loads.has_value());
  EXPECT_EQ(nlohmann::json(*back->loads), nlohmann::json(*r.loads));
  EXPECT_EQ(back->loads->at(1).status, JobStatus::kInvalid);
  EXPECT_EQ(back->reproducibility->verdict, "not_judged");
  EXPECT_EQ(to_json(*back), to_json(r));
  EXPECT_EQ(status_from_string("NOT_REPRODUCIBLE"), JobStatus::kNotReproducible);
  EXPECT_FALSE(counts_as_success(JobStatus::kNotReproducible));
  EXPECT_FALSE(is_infrastructure_failure(JobStatus::kNotReproducible));
}

// A result written before the image and compiler hashes reads, and writes
// none of them back.
TEST(JobResultJson, HashesAbsentInOlderResultsStayAbsent) {
  JobResult r = sample();
  r.toolchain = Toolchain{"12.2", "banner", "3.25", "1.11"};
  r.build = BuildRecord{};
  nlohmann::json j = to_json(r);
  EXPECT_FALSE(j["toolchain"].contains("arm_none_eabi_gcc_sha256"));
  EXPECT_FALSE(j["build"].contains("bin_sha256"));
  auto back = job_result_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->build->bin_sha256.empty());
  EXPECT_TRUE(back->toolchain->arm_none_eabi_gcc_sha256.empty());
}

// Every field, in every written form, survives write, read, write: a field
// the reader skipped or read into the wrong member would differ.
TEST(JobResultJson, EveryFieldRoundTrips) {
  JobResult r = sample();
  r.job.tests = {"wake", "mutex"};
  KernelSource ks;
  ks.has_source = true;
  ks.main.name = "freertos";
  ks.main.dirty = true;
  ks.extras.push_back(ks.main);
  r.kernel_source = ks;
  r.toolchain = Toolchain{"12.2", "banner", "3.25", "1.11", "/usr/bin/gcc", "ab", "/cc1", "cd"};
  BuildRecord b;
  b.key = "k";
  b.bin_sha256 = "ef";
  b.defines = {{"RB_TICK_HZ", "1000"}};
  b.footprint = Sections{1, 2, 3, 4, 5};
  KernelFootprint kf;
  kf.delta = {3, 4};
  kf.bare_key = "bk";
  kf.bare_cached = false;
  b.footprint_kernel = kf;
  r.build = b;
  r.attempts[1].load = 1;
  r.attempts[1].verdicts.push_back(VerdictRecord{"balance", "invalid", 35, "irq=64"});
  SeriesRecord s;
  s.name = "wake_latency";
  s.n = 3;
  s.mean_ticks = 1.5;
  s.base_ticks = 40;
  s.median_minus_base_ticks = 60;
  r.series = {s, SeriesRecord{}};
  r.not_applicable.push_back(NotApplicable{"fpu", "no FPU"});
  r.verify.document = {{"series", {{{"phase", ""}, {"name", "wake_latency"}, {"test", "wake"}}}}};
  LoadRecord l;
  l.attempts = r.attempts;
  l.series = r.series;
  l.verify = r.verify;
  r.loads = std::vector<LoadRecord>{l};
  SeriesSpread sp;
  sp.name = "wake_latency";
  sp.statistics["n"].values = {1.0, std::nullopt};
  StatisticSpread& m = sp.statistics["median_ticks"];
  m.min = 1;
  m.max = 2;
  m.range = 1;
  m.allowed = 5;
  sp.statistics["max_ticks"] = m;
  sp.statistics["max_ticks"].allowed.reset();
  r.spread = std::vector<SeriesSpread>{sp, SeriesSpread{"", "gone", {}, {2}}};
  Reproducibility rep;
  rep.reproducible = false;
  rep.raw_captures_identical = false;
  BeyondTolerance bt;
  bt.min = 1;
  bt.max = 3;
  rep.beyond = {bt, BeyondTolerance{}, BeyondTolerance{}};
  rep.beyond[1].values = {2.0};
  rep.beyond[2].missing_in_loads = {1};
  rep.tolerance["median_ticks"] = SpreadTolerance{1, 2, false};
  rep.tolerance["jitter"] = SpreadTolerance{0, 0, true};
  r.reproducibility = rep;

  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["toolchain"]["arm_none_eabi_gcc_sha256"], "ab");
  EXPECT_EQ(j["toolchain"]["cc1_sha256"], "cd");
  EXPECT_EQ(j["build"]["bin_sha256"], "ef");
  EXPECT_FALSE(j["loads"][0].contains("verify"));
  EXPECT_EQ(j["spread"][0]["statistics"]["max_ticks"]["allowed"], "off");
  EXPECT_EQ(j["reproducibility"]["tolerance"]["statistics"]["jitter"], "off");
  EXPECT_TRUE(j["series"][1]["mean_ticks"].is_null());
  EXPECT_FALSE(j["series"][1].contains("median_minus_base_ticks"));
  auto back = job_result_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(*back), j);
  EXPECT_EQ(back->verify.test_of("", "wake_latency"), "wake");

  kf.error = "no bare port";
  nlohmann::json kj = kf;
  EXPECT_FALSE(kj.contains("delta"));
  auto kback = kernel_footprint_from_json(kj);
  ASSERT_TRUE(kback.ok()) << kback.error().message;
  EXPECT_EQ(nlohmann::json(*kback), kj);
  EXPECT_EQ(nlohmann::json(*attempt_from_json(j["attempts"][1])), j["attempts"][1]);

  RunSummary run;
  run.run_id = "r";
  run.finished_at = "f";
  run.matrix = RunInput{"m.yaml", "snap", "src", "sha"};
  run.options = {{"retries", 2}};
  run.jobs.push_back(RunJobEntry{"a", "freertos"});
  RunJobEntry done{"b", "zephyr", "OK", "", "jobs/b/result.json", 1};
  done.reproducible = std::optional<bool>();
  run.jobs.push_back(done);
  run.counts = {{"OK", 1}};
  run.sessions.push_back(RunSession{"f", "finished", 1.5, 0.5, 0});
  run.sessions.push_back(RunSession{"", "interrupted", 0, 0, 0, "killed"});
  run.exit_code = 0;
  nlohmann::json rj = run;
  EXPECT_FALSE(rj["jobs"][0].contains("reason"));
  EXPECT_TRUE(rj["jobs"][1]["reproducible"].is_null());
  auto rback = run_summary_from_json(rj);
  ASSERT_TRUE(rback.ok()) << rback.error().message;
  EXPECT_TRUE(rback->jobs[1].reproducible.has_value());
  EXPECT_FALSE(rj["sessions"][0].contains("note"));
  EXPECT_EQ(rback->sessions[1].note, "killed");
  EXPECT_EQ(nlohmann::json(*rback), rj);
}

// The board's lower bounds as verify held the capture against them: written
// when the board declares any, read back; a record without them (older
// results, the emulated board) still loads, with none.
TEST(JobResultJson, TheBoardsLowerBoundsAreRecorded) {
  JobResult r = sample();
  BoardRecord b;
  b.name = "stm32f407-disco";
  b.lower_bounds["irq_entry"] = LowerBoundRecord{12, "exception entry"};
  r.board = b;
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["board"]["lower_bounds"]["irq_entry"]["cycles"], 12);
  EXPECT_EQ(j["board"]["lower_bounds"]["irq_entry"]["why"], "exception entry");
  auto back = job_result_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->board.has_value());
  ASSERT_EQ(back->board->lower_bounds.size(), 1u);
  EXPECT_EQ(back->board->lower_bounds.at("irq_entry").cycles, 12u);
  EXPECT_EQ(nlohmann::json(*back), j);

  j["board"].erase("lower_bounds");  // a result written before the field
  auto old = job_result_from_json(j);
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_TRUE(old->board->lower_bounds.empty());
  EXPECT_FALSE(to_json(*old)["board"].contains("lower_bounds"));

  j["board"]["lower_bounds"] = {{"irq_entry", {{"why", "no cycles"}}}};
  auto bad = job_result_from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("board.lower_bounds.irq_entry: needs 'cycles'"),
            std::string::npos)
      << bad.error().message;
}

TEST(JobResultJson, TheKernelsUnequalWorkIsRecorded) {
  JobResult r = sample();
  r.job.unequal.push_back({"CPACR test on every switch", {"yield", "round_trip"}, "why"});
  r.job.unequal.push_back({"own flags", {"*"}, "Zephyr's"});
  SeriesRecord s;
  s.name = "heap_alloc_mixed";
  s.n = 40;
  s.calls = 45;
  s.refused = 2;
  r.series.push_back(s);
  nlohmann::json j = to_json(r);
  ASSERT_EQ(j["job"]["unequal"].size(), 2u);
  EXPECT_EQ(j["job"]["unequal"][0]["what"], "CPACR test on every switch");
  EXPECT_EQ(j["job"]["unequal"][0]["series"][1], "round_trip");
  EXPECT_EQ(j["series"][0]["calls"], 45);
  EXPECT_EQ(j["series"][0]["refused"], 2);
  auto back = job_result_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->job.unequal.size(), 2u);
  EXPECT_EQ(back->job.unequal[0].note, "why");
  EXPECT_TRUE(back->job.unequal[0].affects("yield"));
  EXPECT_FALSE(back->job.unequal[0].affects("heap_alloc"));
  EXPECT_TRUE(back->job.unequal[1].affects("heap_alloc"));
  EXPECT_EQ(back->series[0].calls, 45u);
  EXPECT_EQ(back->series[0].refused, 2u);
  EXPECT_EQ(to_json(*back), j);

  // A result written before the fields: nothing declared, no counts, and
  // none written back.
  j["job"].erase("unequal");
  j["series"][0].erase("calls");
  j["series"][0].erase("refused");
  auto old = job_result_from_json(j);
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_TRUE(old->job.unequal.empty());
  EXPECT_FALSE(old->series[0].calls.has_value());
  EXPECT_FALSE(to_json(*old)["job"].contains("unequal"));

  j["job"]["unequal"] = {{{"series", {"yield"}}}};  // no `what`
  auto bad = job_result_from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("job.unequal[0]: needs 'what'"), std::string::npos)
      << bad.error().message;
}

TEST(JobResultJson, RejectsWhatItCannotRead) {
  nlohmann::json j = to_json(sample());
  j["status"] = "GREAT";
  EXPECT_FALSE(job_result_from_json(j).ok());
  j = to_json(sample());
  j["schema_version"] = 99;
  auto r = job_result_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("newer"), std::string::npos);
  j = to_json(sample());
  j.erase("attempts");
  EXPECT_FALSE(job_result_from_json(j).ok());
}

// docs/schema/result.schema.json: what the writer writes conforms, every
// status is one it allows, and a document of the wrong shape does not.
TEST(ResultSchema, TheWrittenFormConformsAndABrokenOneDoesNot) {
  const nlohmann::json& s = schema("result");
  JobResult r = sample();
  r.loads = std::vector<LoadRecord>{LoadRecord{}};
  r.reproducibility = Reproducibility{};
  EXPECT_EQ(schema_violation(to_json(r), s), "");
  nlohmann::json statuses = s["definitions"]["status"]["enum"];
  for (int i = 0; i <= static_cast<int>(JobStatus::kStoreError); ++i) {
    EXPECT_NE(std::find(statuses.begin(), statuses.end(), to_string(static_cast<JobStatus>(i))),
              statuses.end())
        << i;
  }
  nlohmann::json j = to_json(r);
  j["attempts"][0]["capture"]["lines"] = -1;
  EXPECT_EQ(schema_violation(j, s),
            "attempts[0].capture.lines: must be an integer in [0, -], got -1");
  j = to_json(r);
  j.erase("run_id");
  EXPECT_EQ(schema_violation(j, s), "(document): needs 'run_id'");
  j = to_json(r);
  j["loads"][0]["status"] = "FINE";
  EXPECT_NE(schema_violation(j, s).find("loads[0].status: 'FINE' is not allowed"),
            std::string::npos)
      << schema_violation(j, s);
  j = to_json(r);
  j["schema"] = "rtosbench.run";
  EXPECT_NE(schema_violation(j, s), "");
  EXPECT_FALSE(job_result_from_json(j).ok());
}

// A number beyond int64_t is refused by its path, not wrapped negative into a
// signed member (valijson compares integers as int64_t, so the schema's
// maximum cannot catch it); 2^63 - 1 still reads.
TEST(ResultSchema, ANumberBeyondInt64IsRefusedByItsPath) {
  nlohmann::json j = to_json(sample());
  j["attempts"][0]["number"] = uint64_t{9223372036854775808u};
  auto r = job_result_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "attempts[0].number: 9223372036854775808 is out of range (at most "
            "9223372036854775807)");
  j["attempts"][0]["number"] = int64_t{9223372036854775807};
  EXPECT_TRUE(job_result_from_json(j).ok());
  j = to_json(sample());
  j["series"][0]["n"] = std::numeric_limits<uint64_t>::max();
  EXPECT_FALSE(job_result_from_json(j).ok());
}

// The files of a real emulated run (report.e2e.runs' run directories, named
// by RB_RESULT_RUNS as store.e2e.result_schema sets it) conform.
TEST(ResultSchema, TheFilesOfARealRunConform) {
  const char* dir = std::getenv("RB_RESULT_RUNS");
  if (!dir) GTEST_SKIP() << "RB_RESULT_RUNS not set (store.e2e.result_schema sets it)";
  size_t results = 0, runs = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    // hostile/ holds report.e2e.history_hostile's deliberately broken copies.
    if (e.path().string().find("/hostile/") != std::string::npos) continue;
    if (name != "result.json" && name != "run.json") continue;
    std::ifstream in(e.path());
    const nlohmann::json j = nlohmann::json::parse(in);
    if (name == "result.json") {
      ++results;
      EXPECT_EQ(schema_violation(j, schema("result")), "") << e.path();
      EXPECT_TRUE(read_job_result(e.path()).ok()) << e.path();
    } else {
      ++runs;
      EXPECT_TRUE(read_run_summary(e.path()).ok()) << e.path();
    }
  }
  EXPECT_GT(results, 0u);
  EXPECT_GT(runs, 0u);
}

TEST(JobResultFile, WriteThenRead) {
  auto p = std::filesystem::temp_directory_path() /
           ("rb-result-" + std::to_string(::getpid()) + ".json");
  ASSERT_TRUE(write_job_result(p, sample()).ok());
  auto r = read_job_result(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts.size(), 2u);
  std::ofstream(p) << "{ truncated";
  EXPECT_FALSE(read_job_result(p).ok());
  std::filesystem::remove(p);
  EXPECT_FALSE(read_job_result(p).ok());
}

TEST(SeriesJson, CarriesTicksAndNanoseconds) {
  verify::SeriesStats s;
  s.phase = "idle";
  s.name = "event_to_task";
  s.n = 4;
  s.hz = 168000000;
  s.min = 100;
  s.median = 168;
  s.max = 500;
  s.base_ticks = 20;
  nlohmann::json j = series_record(s);
  EXPECT_EQ(j["median_ticks"], 168u);
  EXPECT_EQ(j["median_ns"], 1000u);
  EXPECT_EQ(j["min_ns"], 595u);  // floor(100 * 1e9 / 168e6) = 595.2
  EXPECT_EQ(j["median_minus_base_ticks"], 148u);
}

// A malformed file is a kBadInput error naming the field by its path.
TEST(JobResultJson, NamesTheBadFieldByItsPath) {
  verify::SeriesStats st;
  st.name = "wake_latency";
  st.n = 4;
  st.hz = 1000;
  JobResult r = sample();
  r.series.push_back(series_record(st));
  nlohmann::json j = to_json(r);
  j["series"][0]["n"] = -5;
  auto bad = job_result_from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(bad.error().message.find("series[0].n: must be an integer in [0, -], got -5"),
            std::string::npos)
      << bad.error().message;
  j = to_json(r);
  j["series"][0]["median_ticks"] = 1e30;
  bad = job_result_from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("series[0].median_ticks"), std::string::npos)
      << bad.error().message;
  j = to_json(r);
  j["attempts"][1]["capture"]["bytes"] = "many";
  bad = job_result_from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("attempts[1].capture.bytes"), std::string::npos)
      << bad.error().message;
  j = to_json(r);
  j["job"] = "freertos";
  bad = job_result_from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("job: must be a mapping, got 'freertos'"), std::string::npos)
      << bad.error().message;
  // The file's name is part of the message.
  auto p =
      std::filesystem::temp_directory_path() / ("rb-bad-" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << to_json(r).dump().replace(to_json(r).dump().find("\"n\":4"), 5, "\"n\":-4");
  auto f = read_job_result(p);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(f.error().message.find(p.string() + ": series[0].n"), std::string::npos)
      << f.error().message;
  std::filesystem::remove(p);
  EXPECT_EQ(read_job_result(p).error().kind, ErrorKind::kCannotRead);
}

// Text the user wrote (a note, an opt) can hold any bytes: the writer
// replaces invalid UTF-8 instead of aborting.
TEST(JobResultJson, InvalidUtf8NeverAbortsTheWriter) {
  JobResult r = sample();
  r.job.kernel_note = std::string("caf\xe9 \xff\xfe");
  r.reason = std::string("bad \xc3");
  std::string text = dump_json(to_json(r));
  EXPECT_NE(text.find("caf\xef\xbf\xbd"), std::string::npos);  // U+FFFD
  auto p =
      std::filesystem::temp_directory_path() / ("rb-utf8-" + std::to_string(::getpid()) + ".json");
  ASSERT_TRUE(write_job_result(p, r).ok());
  auto back = read_job_result(p);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->job.kernel_note, "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
  std::filesystem::remove(p);
}

TEST(Headline, OneTableOfSeries) {
  const auto& h = headline_series();
  ASSERT_EQ(h.size(), 5u);
  EXPECT_STREQ(h[0].name, "wake_latency");
  EXPECT_EQ(h[3].column(), "event_to_task(idle)");
  EXPECT_STREQ(h[3].title, "IRQ to task (idle)");
}

TEST(Units, TicksToNsFloorsIn128Bits) {
  EXPECT_EQ(ticks_to_ns(466, 250000000), 1864u);
  EXPECT_EQ(ticks_to_ns(UINT64_MAX, 1000000000), UINT64_MAX);
  EXPECT_EQ(ticks_to_ns(5, 0), 0u);
}

TEST(Statuses, NamesRoundTripAndClassify) {
  for (auto s :
       {JobStatus::kOk, JobStatus::kInvalid, JobStatus::kUnverified, JobStatus::kProtocolError,
        JobStatus::kTimeout, JobStatus::kFlashError, JobStatus::kPortError, JobStatus::kBuildError,
        JobStatus::kSourceMissing, JobStatus::kPortMissing, JobStatus::kInterrupted,
        JobStatus::kAnalyzerMissing, JobStatus::kAnalyzerOverflow}) {
    EXPECT_EQ(status_from_string(to_string(s)), s);
  }
  // The second ruler missing is the bench's failure, not the measurement's.
  for (auto s : {JobStatus::kAnalyzerMissing, JobStatus::kAnalyzerOverflow}) {
    EXPECT_TRUE(is_infrastructure_failure(s));
    EXPECT_TRUE(is_analyzer_failure(s));
    EXPECT_FALSE(counts_as_success(s));
  }
  EXPECT_STREQ(to_string(JobStatus::kAnalyzerMissing), "ANALYZER_MISSING");
  EXPECT_FALSE(is_analyzer_failure(JobStatus::kPortError));
  EXPECT_TRUE(counts_as_success(JobStatus::kPortMissing));
  EXPECT_FALSE(counts_as_success(JobStatus::kUnverified));
  EXPECT_TRUE(is_infrastructure_failure(JobStatus::kSourceMissing));
  EXPECT_FALSE(is_infrastructure_failure(JobStatus::kTimeout));
}

}  // namespace
}  // namespace rb::store
