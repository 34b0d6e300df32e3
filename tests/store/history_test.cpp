#include "store/history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>
#include <functional>

#include "../report/run_fixture.h"

namespace rb::store {
namespace {

int64_t count(const std::filesystem::path& db, const char* sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql, -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  int64_t n = -1;
  if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return n;
}

class HistoryDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = testrun::temp_dir("history");
    db = dir / "sub" / "history.sqlite";
    run1 = testrun::write_run(
        dir, testrun::standard_run("20260101T000000Z-fixture", "2026-01-01T00:00:00Z"));
    run2 = testrun::write_run(
        dir, testrun::standard_run("20260102T000000Z-fixture", "2026-01-02T00:00:00Z", 12));
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::filesystem::path dir, db, run1, run2;
};

TEST_F(HistoryDb, RecordsRunsJobsAndFiguresWithASchemaVersion) {
  auto r = record_run(db, run1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->run_id, "20260101T000000Z-fixture");
  EXPECT_EQ(r->jobs, 4u);
  EXPECT_EQ(r->outcome, RecordOutcome::kRecorded);
  EXPECT_GT(r->metrics, 100u);
  EXPECT_EQ(count(db, "PRAGMA user_version"), kHistorySchemaVersion);
  EXPECT_EQ(count(db, "SELECT value FROM meta WHERE key = 'schema_version'"),
            kHistorySchemaVersion);
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(count(db, "SELECT count(*) FROM jobs"), 4);
  EXPECT_EQ(count(db, "SELECT count(*) FROM series_metrics"), static_cast<int64_t>(r->metrics));
  EXPECT_EQ(count(db, "SELECT flash_bytes FROM jobs WHERE job_id = 'freertos-O2-tick1000-fpu0'"),
            26136);
  EXPECT_EQ(count(db, "SELECT count(*) FROM jobs WHERE status = 'BUILD_ERROR'"), 1);
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM series_metrics WHERE test = 'irq_latency' AND metric = "
                  "'median_ticks'"),
            6);
}

TEST_F(HistoryDb, ReimportIsIdempotent) {
  ASSERT_TRUE(record_run(db, run1).ok());
  ASSERT_TRUE(record_run(db, run2).ok());
  int64_t rows = count(db, "SELECT count(*) FROM series_metrics");
  auto again = record_run(db, run1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, RecordOutcome::kUnchanged);
  EXPECT_EQ(count(db, "SELECT count(*) FROM series_metrics"), rows);
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(count(db, "SELECT count(*) FROM jobs"), 8);
}

TEST_F(HistoryDb, TrendPerJobAndSeriesWithDelta) {
  ASSERT_TRUE(record_run(db, run2).ok());  // import order does not matter: start time does
  ASSERT_TRUE(record_run(db, run1).ok());
  TrendQuery q;
  q.kernel = "freertos";
  q.test = "wake_latency";
  auto t = query_trend(db, q);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].run_id, "20260101T000000Z-fixture");
  EXPECT_EQ((*t)[1].run_id, "20260102T000000Z-fixture");
  EXPECT_EQ((*t)[0].metric, "median_ticks");
  EXPECT_EQ((*t)[0].unit, "instructions");
  EXPECT_FALSE((*t)[0].delta);
  ASSERT_TRUE((*t)[1].delta);
  EXPECT_DOUBLE_EQ(*(*t)[1].delta, (*t)[1].value - (*t)[0].value);
  EXPECT_GT(*(*t)[1].delta, 0);  // run 2's kernels are scaled up by 20 %
  ASSERT_TRUE((*t)[1].pct);

  q = TrendQuery{};
  q.test = "irq_latency";
  q.metric = "p99";
  auto irq = query_trend(db, q);
  ASSERT_TRUE(irq.ok());
  EXPECT_EQ(irq->size(), 12u);  // 3 jobs x 2 series x 2 runs
  for (const auto& p : *irq) {
    EXPECT_EQ(p.phase, "idle");
    EXPECT_EQ(p.metric, "p99_ticks");
  }
  q.metric = "median_ns";
  EXPECT_TRUE(query_trend(db, q).ok());
  q.metric = "p42";
  auto bad = query_trend(db, q);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("median_ticks"), std::string::npos);  // lists what there is
  auto runs = list_runs(db);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].jobs, 4u);
}

TEST_F(HistoryDb, TrendNamesPinnedConditionsThatChanged) {
  auto spec = testrun::standard_run("20260103T000000Z-fixture", "2026-01-03T00:00:00Z");
  spec.jobs[1].config["compiler"] = "13.2.1";
  spec.jobs[1].config["nonce"] = "feedf00d";  // not pinned
  auto run3 = testrun::write_run(dir, spec);
  for (const auto& r : {run1, run2, run3}) ASSERT_TRUE(record_run(db, r).ok());
  TrendQuery q;
  q.job = "freertos-O2-tick1000-fpu0";
  q.test = "wake_latency";
  auto t = query_trend(db, q);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 3u);
  EXPECT_TRUE((*t)[1].changed.empty());
  EXPECT_EQ((*t)[2].changed, std::vector<std::string>{"compiler"});
}

TEST_F(HistoryDb, LoadsAreRecordedPerLoad) {
  auto spec = testrun::standard_run("20260103T000000Z-fixture", "2026-01-03T00:00:00Z");
  spec.jobs[0].loads = nlohmann::json::array({testrun::load_entry(1, {{"wake_latency", 40}}),
                                              testrun::load_entry(2, {{"wake_latency", 41}})});
  auto root = testrun::write_run(dir, spec);
  auto rec = record_run(db, root);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_EQ(count(db, "SELECT count(*) FROM series_metrics WHERE load = 1"),
            count(db, "SELECT count(*) FROM series_metrics WHERE load = 2"));
  EXPECT_GT(count(db, "SELECT count(*) FROM series_metrics WHERE load = 1"), 10);
  EXPECT_EQ(
      count(db, "SELECT value FROM series_metrics WHERE load = 2 AND metric = 'median_ticks'"), 41);
}

TEST_F(HistoryDb, RefusesWhatIsNotItsDatabase) {
  auto missing = query_trend(dir / "none.sqlite", TrendQuery{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("history import"), std::string::npos);
  EXPECT_EQ(missing.error().kind, ErrorKind::kCannotRead);
  EXPECT_FALSE(std::filesystem::exists(dir / "none.sqlite"));  // a query creates nothing

  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "other.sqlite").string().c_str(), &h), SQLITE_OK);
  sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  auto other = record_run(dir / "other.sqlite", run1);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("not an rtosbench history"), std::string::npos);

  ASSERT_TRUE(record_run(db, run1).ok());
  ASSERT_EQ(sqlite3_open(db.string().c_str(), &h), SQLITE_OK);
  sqlite3_exec(h, "PRAGMA user_version = 7", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  auto newer = record_run(db, run2);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("schema version 7, newer"), std::string::npos);

  auto not_run = record_run(dir / "x.sqlite", dir);
  ASSERT_FALSE(not_run.ok());
  EXPECT_NE(not_run.error().message.find("not a run directory"), std::string::npos);
}

TEST_F(HistoryDb, FailedImportLeavesTheDatabaseUnchanged) {
  ASSERT_TRUE(record_run(db, run1).ok());
  int64_t rows = count(db, "SELECT count(*) FROM series_metrics");
  std::ofstream(run2 / "jobs" / "bare-O2-tick1000-fpu0" / "result.json") << "{ not json";
  ASSERT_FALSE(record_run(db, run2).ok());
  EXPECT_EQ(count(db, "SELECT count(*) FROM series_metrics"), rows);
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 1);
}

// A run is recorded whole or not at all: every job listed has a valid result.
TEST_F(HistoryDb, RefusesPartialAndTamperedRuns) {
  auto spec = testrun::standard_run("20260104T000000Z-fixture", "2026-01-04T00:00:00Z");
  spec.pending = {"rtthread-O2-tick1000-fpu0"};
  auto partial = record_run(db, testrun::write_run(dir, spec));
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(partial.error().message.find("rtthread-O2-tick1000-fpu0 has no result (PENDING)"),
            std::string::npos)
      << partial.error().message;
  EXPECT_FALSE(std::filesystem::exists(db));  // checked before the database is touched

  const std::string job = "freertos-O2-tick1000-fpu0";
  auto tamper = [&](const std::string& id, const std::function<void(nlohmann::json&)>& f) {
    auto root = testrun::write_run(dir, testrun::standard_run(id, "2026-01-05T00:00:00Z"));
    auto file = root / "jobs" / job / "result.json";
    auto j = read_json_file(file);
    EXPECT_TRUE(j.ok());
    f(*j);
    std::ofstream(file) << j->dump(2);
    return record_run(db, root);
  };
  auto missing = tamper("t-missing", [](nlohmann::json&) {});
  ASSERT_TRUE(missing.ok()) << missing.error().message;  // untouched: fine
  struct Case {
    const char* id;
    std::function<void(nlohmann::json&)> f;
    const char* message;
  };
  const Case cases[] = {
      {"t-negative", [](nlohmann::json& j) { j["series"][1]["n"] = -5; },
       "series[1].n: expected a non-negative integer"},
      {"t-huge", [](nlohmann::json& j) { j["series"][1]["median_ticks"] = 1e30; },
       "series[1].median_ticks: expected a non-negative integer"},
      {"t-order", [](nlohmann::json& j) { j["series"][1]["median_ticks"] = 1000000; },
       "median_ticks"},
      {"t-ns", [](nlohmann::json& j) { j["series"][1]["max_ns"] = 1; },
       "max_ns 1 is not max_ticks"},
      {"t-status", [](nlohmann::json& j) { j["status"] = "INVALID"; },
       "says INVALID, run.json says OK"},
      {"t-run", [](nlohmann::json& j) { j["run_id"] = "another"; }, "belongs to run another"},
      {"t-headline", [](nlohmann::json& j) { j["headline"][0]["median_ticks"] = 1; },
       "is not its series' median"},
  };
  for (const auto& c : cases) {
    auto r = tamper(c.id, c.f);
    ASSERT_FALSE(r.ok()) << c.id;
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput) << c.id;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.id << ": " << r.error().message;
    EXPECT_NE(r.error().message.find(job + "/result.json"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 1);
}

// A different copy of a recorded run is refused unless asked; replaced, the
// old content is kept.
TEST_F(HistoryDb, ReplacesARecordedRunOnlyWhenAskedAndKeepsTheOld) {
  ASSERT_TRUE(record_run(db, run1).ok());
  auto median = [&] {
    return count(db,
                 "SELECT value FROM series_metrics WHERE job_id = 'freertos-O2-tick1000-fpu0' AND "
                 "series = 'wake_latency' AND metric = 'median_ticks' AND load = 0");
  };
  int64_t before = median();
  // The same run id with other figures (a copy of run2's results).
  auto other = dir / "copy" / run1.filename();
  std::filesystem::create_directories(other.parent_path());
  std::filesystem::copy(run2, other, std::filesystem::copy_options::recursive);
  for (auto& f : std::filesystem::recursive_directory_iterator(other)) {
    if (f.path().extension() != ".json") continue;
    auto j = read_json_file(f.path());
    ASSERT_TRUE(j.ok());
    std::string text = j->dump(2);
    for (size_t p; (p = text.find("20260102T000000Z")) != std::string::npos;)
      text.replace(p, 16, "20260101T000000Z");
    std::ofstream(f.path()) << text;
  }
  auto refused = record_run(db, other);
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->outcome, RecordOutcome::kRefused);
  EXPECT_EQ(median(), before);
  auto none = list_superseded(db);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  RecordOptions replace;
  replace.replace = true;
  auto replaced = record_run(db, other, replace);
  ASSERT_TRUE(replaced.ok()) << replaced.error().message;
  EXPECT_EQ(replaced->outcome, RecordOutcome::kReplaced);
  EXPECT_NE(median(), before);
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 1);
  auto kept = list_superseded(db);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].run_id, "20260101T000000Z-fixture");
  auto content = nlohmann::json::parse((*kept)[0].content);
  EXPECT_EQ(content["jobs"].size(), 4u);
  bool found = false;
  for (const auto& m : content["metrics"]) {
    if (m[0] == "freertos-O2-tick1000-fpu0" && m[3] == "wake_latency" && m[4] == "median_ticks") {
      found = m[5].get<double>() == static_cast<double>(before);
    }
  }
  EXPECT_TRUE(found) << "the superseded content keeps the old median";
}

// A damaged file is named as corrupted, never read as an empty history.
TEST_F(HistoryDb, ACorruptedDatabaseIsNamedAsSuch) {
  ASSERT_TRUE(record_run(db, run1).ok());
  {
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    std::string ff(8192, '\xff');
    f.write(ff.data(), static_cast<std::streamsize>(ff.size()));
  }
  auto t = query_trend(db, TrendQuery{});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(t.error().message.find("is corrupted"), std::string::npos) << t.error().message;
  auto r = record_run(db, run2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is corrupted"), std::string::npos) << r.error().message;
  std::ofstream(dir / "garbage.sqlite") << std::string(4096, 'x');
  auto g = list_runs(dir / "garbage.sqlite");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("is corrupted"), std::string::npos) << g.error().message;
}

// A version 1 database (no digests, no superseded_runs) is brought up to
// version 2 by the next import; its runs can be re-imported.
TEST_F(HistoryDb, UpgradesAVersionOneDatabase) {
  ASSERT_TRUE(record_run(db, run1).ok());
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.string().c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "DROP TABLE superseded_runs; ALTER TABLE runs DROP COLUMN content_sha256;"
                         " PRAGMA user_version = 1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(h);
  sqlite3_close(h);
  EXPECT_TRUE(query_trend(db, TrendQuery{}).ok());  // read as it is
  auto again = record_run(db, run1);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->outcome, RecordOutcome::kReplaced);  // no digest to compare: kept and replaced
  EXPECT_EQ(count(db, "PRAGMA user_version"), 2);
  EXPECT_EQ(count(db, "SELECT count(*) FROM superseded_runs"), 1);
  EXPECT_EQ(record_run(db, run1)->outcome, RecordOutcome::kUnchanged);
}

TEST(HistoryPath, FollowsEnvironmentPrecedence) {
  auto keep = [](const char* k) {
    const char* v = std::getenv(k);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  auto h = keep("RTOSBENCH_HISTORY"), x = keep("XDG_DATA_HOME"), home = keep("HOME");
  setenv("RTOSBENCH_HISTORY", "/data/h.sqlite", 1);
  setenv("XDG_DATA_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_history_path()->string(), "/data/h.sqlite");
  unsetenv("RTOSBENCH_HISTORY");
  EXPECT_EQ(default_history_path()->string(), "/xdg/rtosbench/history.sqlite");
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(default_history_path()->string(), "/home/u/.local/share/rtosbench/history.sqlite");
  unsetenv("HOME");
  EXPECT_FALSE(default_history_path().ok());
  auto restore = [](const char* k, const std::optional<std::string>& v) {
    if (v)
      setenv(k, v->c_str(), 1);
    else
      unsetenv(k);
  };
  restore("RTOSBENCH_HISTORY", h);
  restore("XDG_DATA_HOME", x);
  restore("HOME", home);
}

}  // namespace
}  // namespace rb::store
