#include "store/history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>

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
  spec.jobs[0].loads = nlohmann::json::array(
      {testrun::load_entry(1, {{"wake_latency", 40}}), testrun::load_entry(2, {{"wake_latency", 41}})});
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
