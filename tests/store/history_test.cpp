#include "store/history.h"

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "../report/run_fixture.h"
#include "model/axes.h"
#include "postgres_server.h"
#include "store/history_backend.h"

namespace rb::store {
namespace {

// One history of each backend: the same tests run against an SQLite file
// and a PostgreSQL database (tests/store/postgres_server.h).
enum class Kind { kSqlite, kPostgres };

int64_t sqlite_count(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  int64_t n = -1;
  if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return n;
}

void sqlite_exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* msg = nullptr;
  int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &msg);
  std::string m = msg ? msg : "";
  sqlite3_free(msg);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << m;
}

#if RTOSBENCH_HAVE_PQXX
int64_t postgres_count(const std::string& url, const std::string& sql) {
  try {
    pqxx::connection c(url);
    pqxx::nontransaction t(c);
    auto r = t.exec(sql);
    if (r.empty() || r[0][0].is_null()) return -1;
    return static_cast<int64_t>(r[0][0].as<double>());
  } catch (const std::exception& e) {
    ADD_FAILURE() << sql << ": " << e.what();
    return -1;
  }
}

void postgres_exec(const std::string& url, const std::string& sql) {
  try {
    pqxx::connection c(url);
    pqxx::nontransaction(c).exec(sql);
  } catch (const std::exception& e) {
    FAIL() << sql << ": " << e.what();
  }
}
#endif

class HistoryBase : public ::testing::Test {
 protected:
  // Sets up the runs and a history of `kind`; false (and the test skipped
  // or failed, with the reason) when there is no PostgreSQL server.
  void SetUpHistory(Kind kind) {
    kind_ = kind;
    dir = testrun::temp_dir("history");
    run1 = testrun::write_run(
        dir, testrun::standard_run("20260101T000000Z-fixture", "2026-01-01T00:00:00Z"));
    run2 = testrun::write_run(
        dir, testrun::standard_run("20260102T000000Z-fixture", "2026-01-02T00:00:00Z", 12));
    if (kind == Kind::kSqlite) {
      db = (dir / "sub" / "history.sqlite").string();
      return;
    }
    auto& server = testpg::Server::get();
    if (!server.ok()) {
      if (server.skippable()) GTEST_SKIP() << server.reason();
      FAIL() << server.reason();
    }
#if RTOSBENCH_HAVE_PQXX
    db = server.fresh_database();
#endif
  }
  void TearDown() override {
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }

  // The first column of the first row of `sql` as an integer (-1: no row).
  int64_t count(const std::string& sql) {
#if RTOSBENCH_HAVE_PQXX
    if (kind_ == Kind::kPostgres) return postgres_count(db, sql);
#endif
    return sqlite_count(db, sql);
  }
  void exec(const std::string& sql) {
#if RTOSBENCH_HAVE_PQXX
    if (kind_ == Kind::kPostgres) return postgres_exec(db, sql);
#endif
    sqlite_exec(db, sql);
  }
  // The schema version as the backend keeps it.
  int64_t schema_version() {
    return count(kind_ == Kind::kSqlite ? "PRAGMA user_version"
                                        : "SELECT max(version) FROM schema_migrations");
  }
  // Whether the history holds no table at all (nothing was created).
  bool untouched() {
    if (kind_ == Kind::kSqlite) return !std::filesystem::exists(db);
    return count("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == 0;
  }

  Kind kind_ = Kind::kSqlite;
  std::filesystem::path dir, run1, run2;
  std::string db;
};

class HistoryDb : public HistoryBase, public ::testing::WithParamInterface<Kind> {
 protected:
  void SetUp() override { SetUpHistory(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Sqlite, HistoryDb, ::testing::Values(Kind::kSqlite),
                         [](const auto&) { return std::string("sqlite"); });
// Named Postgres: run in one process by the ctest `store.history_postgres`.
INSTANTIATE_TEST_SUITE_P(Postgres, HistoryDb, ::testing::Values(Kind::kPostgres),
                         [](const auto&) { return std::string("postgres"); });

TEST_P(HistoryDb, RecordsRunsJobsAndFiguresWithASchemaVersion) {
  auto r = record_run(db, run1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->run_id, "20260101T000000Z-fixture");
  EXPECT_EQ(r->jobs, 4u);
  EXPECT_EQ(r->outcome, RecordOutcome::kRecorded);
  EXPECT_GT(r->metrics, 100u);
  EXPECT_EQ(schema_version(), kHistorySchemaVersion);
  EXPECT_EQ(count("SELECT value FROM meta WHERE key = 'schema_version'"), kHistorySchemaVersion);
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 4);
  EXPECT_EQ(count("SELECT count(*) FROM series_metrics"), static_cast<int64_t>(r->metrics));
  EXPECT_EQ(count("SELECT flash_bytes FROM jobs WHERE job_id = 'freertos-O2-tick1000-fpu0'"),
            26136);
  EXPECT_EQ(count("SELECT count(*) FROM jobs WHERE status = 'BUILD_ERROR'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM series_metrics WHERE test = 'irq_latency' AND metric = "
                  "'median_ticks'"),
            6);
}

TEST_P(HistoryDb, ReimportIsIdempotent) {
  ASSERT_TRUE(record_run(db, run1).ok());
  ASSERT_TRUE(record_run(db, run2).ok());
  int64_t rows = count("SELECT count(*) FROM series_metrics");
  auto again = record_run(db, run1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, RecordOutcome::kUnchanged);
  EXPECT_EQ(count("SELECT count(*) FROM series_metrics"), rows);
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 8);
}

TEST_P(HistoryDb, TrendPerJobAndSeriesWithDelta) {
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

TEST_P(HistoryDb, TrendNamesPinnedConditionsThatChanged) {
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

TEST_P(HistoryDb, LoadsAreRecordedPerLoad) {
  auto spec = testrun::standard_run("20260103T000000Z-fixture", "2026-01-03T00:00:00Z");
  spec.jobs[0].loads = nlohmann::json::array({testrun::load_entry(1, {{"wake_latency", 40}}),
                                              testrun::load_entry(2, {{"wake_latency", 41}})});
  auto root = testrun::write_run(dir, spec);
  auto rec = record_run(db, root);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_EQ(count("SELECT count(*) FROM series_metrics WHERE load = 1"),
            count("SELECT count(*) FROM series_metrics WHERE load = 2"));
  EXPECT_GT(count("SELECT count(*) FROM series_metrics WHERE load = 1"), 10);
  EXPECT_EQ(count("SELECT value FROM series_metrics WHERE load = 2 AND metric = 'median_ticks'"),
            41);
}

// SQLite's own cases: a missing file, another program's file, a newer schema.
class HistorySqlite : public HistoryBase {
 protected:
  void SetUp() override { SetUpHistory(Kind::kSqlite); }
};

TEST_F(HistorySqlite, RefusesWhatIsNotItsDatabase) {
  auto missing = query_trend((dir / "none.sqlite").string(), TrendQuery{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("history import"), std::string::npos);
  EXPECT_EQ(missing.error().kind, ErrorKind::kCannotRead);
  EXPECT_FALSE(std::filesystem::exists(dir / "none.sqlite"));  // a query creates nothing

  sqlite_exec((dir / "other.sqlite").string(), "CREATE TABLE t(x)");
  auto other = record_run((dir / "other.sqlite").string(), run1);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("not an rtosbench history"), std::string::npos);

  ASSERT_TRUE(record_run(db, run1).ok());
  exec("PRAGMA user_version = 7");
  auto newer = record_run(db, run2);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("schema version 7, newer"), std::string::npos);

  auto not_run = record_run((dir / "x.sqlite").string(), dir);
  ASSERT_FALSE(not_run.ok());
  EXPECT_NE(not_run.error().message.find("not a run directory"), std::string::npos);
}

TEST_P(HistoryDb, FailedImportLeavesTheDatabaseUnchanged) {
  ASSERT_TRUE(record_run(db, run1).ok());
  int64_t rows = count("SELECT count(*) FROM series_metrics");
  std::ofstream(run2 / "jobs" / "bare-O2-tick1000-fpu0" / "result.json") << "{ not json";
  ASSERT_FALSE(record_run(db, run2).ok());
  EXPECT_EQ(count("SELECT count(*) FROM series_metrics"), rows);
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
}

// A run is recorded whole or not at all: every job listed has a valid result.
TEST_P(HistoryDb, RefusesPartialAndTamperedRuns) {
  auto spec = testrun::standard_run("20260104T000000Z-fixture", "2026-01-04T00:00:00Z");
  spec.pending = {"rtthread-O2-tick1000-fpu0"};
  auto partial = record_run(db, testrun::write_run(dir, spec));
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(partial.error().message.find("rtthread-O2-tick1000-fpu0 has no result (PENDING)"),
            std::string::npos)
      << partial.error().message;
  EXPECT_TRUE(untouched());  // checked before the database is touched

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
       "series[1].n: must be an integer in [0, -], got -5"},
      {"t-huge", [](nlohmann::json& j) { j["series"][1]["median_ticks"] = 1e30; },
       "series[1].median_ticks: must be an integer, got 1e+30"},
      {"t-order", [](nlohmann::json& j) { j["series"][1]["median_ticks"] = 1000000; },
       "median_ticks"},
      {"t-ns", [](nlohmann::json& j) { j["series"][1]["max_ns"] = 1; },
       "max_ns 1 is not max_ticks"},
      {"t-status", [](nlohmann::json& j) { j["status"] = "INVALID"; },
       "says INVALID, run.json says OK"},
      {"t-run", [](nlohmann::json& j) { j["run_id"] = "another"; }, "belongs to run another"},
      {"t-headline", [](nlohmann::json& j) { j["headline"][0]["median_ticks"] = 1; },
       "is not its series' median"},
      {"t-raw-hash",
       [](nlohmann::json& j) { j["attempts"][0]["capture"]["raw_sha256"] = std::string(64, '0'); },
       "not its raw_sha256"},
      {"t-raw-path",
       [](nlohmann::json& j) { j["attempts"][0]["capture"]["raw_file"] = "/dev/zero"; },
       "is an absolute path"},
  };
  for (const auto& c : cases) {
    auto r = tamper(c.id, c.f);
    ASSERT_FALSE(r.ok()) << c.id;
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput) << c.id;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.id << ": " << r.error().message;
    EXPECT_NE(r.error().message.find(job + "/result.json"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
}

// A different copy of a recorded run is refused unless asked; replaced, the
// old content is kept.
TEST_P(HistoryDb, ReplacesARecordedRunOnlyWhenAskedAndKeepsTheOld) {
  ASSERT_TRUE(record_run(db, run1).ok());
  auto median = [&] {
    return count(
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
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
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
TEST_F(HistorySqlite, ACorruptedDatabaseIsNamedAsSuch) {
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
  auto g = list_runs((dir / "garbage.sqlite").string());
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("is corrupted"), std::string::npos) << g.error().message;
}

// A version 1 database (no digests, no superseded_runs) is brought up to
// version 2 by the next import; its runs can be re-imported.
TEST_P(HistoryDb, UpgradesAVersionOneDatabase) {
  ASSERT_TRUE(record_run(db, run1).ok());
  if (GetParam() == Kind::kSqlite) {
    exec(
        "DROP TABLE superseded_runs; ALTER TABLE runs DROP COLUMN content_sha256;"
        " PRAGMA user_version = 1");
  } else {
    exec(
        "DROP TABLE superseded_runs; ALTER TABLE runs DROP COLUMN content_sha256;"
        " DELETE FROM schema_migrations WHERE version = 2");
  }
  ASSERT_EQ(schema_version(), 1);
  EXPECT_TRUE(query_trend(db, TrendQuery{}).ok());  // read as it is
  auto none = list_superseded(db);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
  auto again = record_run(db, run1);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->outcome, RecordOutcome::kReplaced);  // no digest to compare: kept and replaced
  EXPECT_EQ(schema_version(), 2);
  EXPECT_EQ(count("SELECT count(*) FROM superseded_runs"), 1);
  EXPECT_EQ(record_run(db, run1)->outcome, RecordOutcome::kUnchanged);
}

TEST(PinnedKeys, EveryPinnedAxisOfTheTableIsAPinnedCondition) {
  // Issue 27 found checks, ramfunc and tickless missing: the axis table
  // (model::axes()) drives the keys, so every pinned axis' CONFIG key is one.
  const auto& keys = pinned_condition_keys();
  auto has = [&](std::string_view k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  size_t pinned = 0;
  for (const auto& a : model::axes()) {
    EXPECT_EQ(has(a.config), a.pinned) << a.key;
    pinned += a.pinned;
  }
  EXPECT_GE(pinned, 6u);
  for (const char* k : {"opt", "tick", "fpu", "checks", "ramfunc", "tickless"})
    EXPECT_TRUE(has(k)) << k;
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());  // once each
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
  EXPECT_EQ(*default_history_location(), "/data/h.sqlite");
  setenv("RTOSBENCH_HISTORY", "postgresql://lab@db.example/history", 1);  // a URL too
  EXPECT_EQ(*default_history_location(), "postgresql://lab@db.example/history");
  unsetenv("RTOSBENCH_HISTORY");
  EXPECT_EQ(*default_history_location(), "/xdg/rtosbench/history.sqlite");
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(*default_history_location(), "/home/u/.local/share/rtosbench/history.sqlite");
  unsetenv("HOME");
  EXPECT_FALSE(default_history_location().ok());
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

// ---- where the history lives ---------------------------------------------------

TEST(HistoryBackend, ChosenByTheLocationsScheme) {
  auto name = [](const std::string& location) {
    auto b = history::backend_for(location);
    return b.ok() ? (*b)->name : "error: " + b.error().message;
  };
  EXPECT_EQ(name("history.sqlite"), "sqlite");
  EXPECT_EQ(name("/var/lib/rtosbench/history.sqlite"), "sqlite");
  EXPECT_EQ(name("runs/a:b.sqlite"), "sqlite");  // a colon in a path is no scheme
  EXPECT_EQ(name("sqlite:/srv/history.sqlite"), "sqlite");
  EXPECT_EQ(name("sqlite:///srv/history.sqlite"), "sqlite");
  EXPECT_EQ(name("postgresql://lab@db.example:5432/history"), "postgresql");
  EXPECT_EQ(name("postgres://lab@db.example/history"), "postgresql");
  EXPECT_EQ(name("postgresql:///history?host=/run/postgresql"), "postgresql");
  EXPECT_EQ(history::sqlite_file_of("sqlite:/srv/h.sqlite"), "/srv/h.sqlite");
  EXPECT_EQ(history::sqlite_file_of("sqlite:///srv/h.sqlite"), "/srv/h.sqlite");
  EXPECT_EQ(history::sqlite_file_of("sqlite:h.sqlite"), "h.sqlite");
  EXPECT_EQ(history::sqlite_file_of("/srv/h.sqlite"), "/srv/h.sqlite");

  auto unknown = history::backend_for("mysql://lab:hunter2@db.example/history");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kUsage);
  EXPECT_NE(unknown.error().message.find("no backend serves 'mysql://'"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("postgresql://"), std::string::npos);
  EXPECT_EQ(unknown.error().message.find("hunter2"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(history::backend_for("").ok());
  // One registration per backend, each prefix once.
  std::set<std::string> prefixes;
  for (const auto& b : history::registered_backends()) {
    EXPECT_NE(b.open, nullptr) << b.name;
    for (const auto& p : b.prefixes) EXPECT_TRUE(prefixes.insert(p).second) << p;
  }
}

TEST(HistoryBackend, PasswordsAreRedacted) {
  EXPECT_EQ(redact_history_location("postgresql://lab:s3cr%40t@db.example:5432/history"),
            "postgresql://lab:***@db.example:5432/history");
  EXPECT_EQ(redact_history_location("postgres://lab:pw@db/h?sslmode=require&password=other"),
            "postgres://lab:***@db/h?sslmode=require&password=***");
  EXPECT_EQ(redact_history_location("postgresql:///h?password=pw&host=/run/postgresql"),
            "postgresql:///h?password=***&host=/run/postgresql");
  EXPECT_EQ(redact_history_location("postgresql://lab@db.example/history"),
            "postgresql://lab@db.example/history");
  EXPECT_EQ(redact_history_location("postgresql://[::1]:5432/history"),
            "postgresql://[::1]:5432/history");
  EXPECT_EQ(redact_history_location("/srv/user:pw@x/history.sqlite"),
            "/srv/user:pw@x/history.sqlite");  // a path is shown as it is
}

TEST(HistoryBackend, AnUnreachableServerIsUnavailableAndItsPasswordUnsaid) {
  // Port 1 on the loopback: nothing listens there.
  auto r = list_runs("postgresql://lab:hunter2-secret@127.0.0.1:1/history?connect_timeout=5");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUnavailable);
  EXPECT_EQ(r.error().message.find("hunter2-secret"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("lab:***@127.0.0.1:1"), std::string::npos) << r.error().message;
}

// ---- PostgreSQL: migrations, several hosts at once, passwords ---------------------

class PostgresHistory : public HistoryBase {
 protected:
  void SetUp() override { SetUpHistory(Kind::kPostgres); }
};

TEST_F(PostgresHistory, MigrationsAreVersionedInTheirOwnTable) {
  ASSERT_TRUE(record_run(db, run1).ok());
  EXPECT_EQ(count("SELECT count(*) FROM schema_migrations"), kHistorySchemaVersion);
  EXPECT_EQ(count("SELECT max(version) FROM schema_migrations"), kHistorySchemaVersion);
  EXPECT_EQ(count("SELECT value::int FROM meta WHERE key = 'schema_version'"),
            kHistorySchemaVersion);
  EXPECT_EQ(count("SELECT count(*) FROM schema_migrations WHERE applied_at <> ''"),
            kHistorySchemaVersion);
  // Reals are doubles, not PostgreSQL's 4-byte REAL.
  EXPECT_EQ(count("SELECT count(*) FROM information_schema.columns WHERE table_name ="
                  " 'series_metrics' AND column_name = 'value' AND data_type = 'double precision'"),
            1);
}

TEST_F(PostgresHistory, RefusesWhatIsNotItsDatabase) {
  auto empty = query_trend(db, TrendQuery{});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().kind, ErrorKind::kCannotRead);
  EXPECT_NE(empty.error().message.find("history import"), std::string::npos)
      << empty.error().message;
  EXPECT_TRUE(untouched());  // a query creates nothing

  exec("CREATE TABLE t(x integer)");
  auto other = record_run(db, run1);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(other.error().message.find("not an rtosbench history"), std::string::npos)
      << other.error().message;
  auto other_read = list_runs(db);
  ASSERT_FALSE(other_read.ok());
  EXPECT_NE(other_read.error().message.find("not an rtosbench history"), std::string::npos);
  exec("DROP TABLE t");

  ASSERT_TRUE(record_run(db, run1).ok());
  exec("INSERT INTO schema_migrations VALUES (7, 'later', 'a later rtosbench')");
  auto newer = record_run(db, run2);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("schema version 7, newer"), std::string::npos)
      << newer.error().message;
  EXPECT_FALSE(list_runs(db).ok());

  auto missing = list_runs(db.substr(0, db.find('?')) + "_none" + db.substr(db.find('?')));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos)
      << missing.error().message;
}

// Hosts recording at once: a fresh database (each creates the schema or
// waits for the one that does) and runs of their own: every record lands.
TEST_F(PostgresHistory, ConcurrentRecordsOfDifferentRunsAllLand) {
  std::vector<std::filesystem::path> runs{run1, run2};
  for (int i = 3; i <= 6; ++i) {
    std::string day = fmt::format("2026010{}", i);
    runs.push_back(testrun::write_run(
        dir, testrun::standard_run(day + "T000000Z-fixture",
                                   "2026-01-0" + std::to_string(i) + "T00:00:00Z")));
  }
  std::vector<std::future<Result<RecordSummary>>> records;
  for (const auto& r : runs) {
    records.push_back(std::async(std::launch::async, [&, r] { return record_run(db, r); }));
  }
  for (auto& f : records) {
    auto r = f.get();
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->outcome, RecordOutcome::kRecorded);
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), static_cast<int64_t>(runs.size()));
  EXPECT_EQ(count("SELECT count(*) FROM schema_migrations"), kHistorySchemaVersion);
  auto listed = list_runs(db);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), runs.size());
}

// Records of the same run take turns: while one holds the run, another
// waits; then it finds the run recorded (unchanged, or refused when its
// content differs), never a duplicate-key error.
TEST_F(PostgresHistory, ConcurrentRecordsOfTheSameRunTakeTurns) {
  ASSERT_TRUE(record_run(db, run2).ok());  // the schema exists
#if RTOSBENCH_HAVE_PQXX
  pqxx::connection holder(db);
  pqxx::work hold(holder);
  hold.exec("SELECT pg_advisory_xact_lock(1920233332, hashtext('20260101T000000Z-fixture'))");
  auto waiting = std::async(std::launch::async, [&] { return record_run(db, run1); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(1500)), std::future_status::timeout)
      << "a record of a run another transaction holds did not wait";
  auto other_run = record_run(db, run2);  // another run: not held
  ASSERT_TRUE(other_run.ok()) << other_run.error().message;
  EXPECT_EQ(other_run->outcome, RecordOutcome::kUnchanged);
  hold.abort();
  auto first = waiting.get();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->outcome, RecordOutcome::kRecorded);
#endif

  // Now several at once, the same content and another.
  auto copy = dir / "copy" / run1.filename();
  std::filesystem::create_directories(copy.parent_path());
  std::filesystem::copy(run1, copy, std::filesystem::copy_options::recursive);
  {
    auto file = copy / "jobs" / "freertos-O2-tick1000-fpu0" / "result.json";
    auto j = read_json_file(file);
    ASSERT_TRUE(j.ok());
    (*j)["finished_at"] = "2026-01-01T00:59:59Z";
    std::ofstream(file) << j->dump(2);
  }
  exec("DELETE FROM runs");
  std::vector<std::future<Result<RecordSummary>>> records;
  for (int i = 0; i < 4; ++i) {
    records.push_back(std::async(std::launch::async, [&] { return record_run(db, run1); }));
  }
  records.push_back(std::async(std::launch::async, [&] { return record_run(db, copy); }));
  std::map<RecordOutcome, int> outcomes;
  for (auto& f : records) {
    auto r = f.get();
    ASSERT_TRUE(r.ok()) << r.error().message;
    ++outcomes[r->outcome];
  }
  EXPECT_EQ(outcomes[RecordOutcome::kRecorded], 1);
  EXPECT_EQ(outcomes[RecordOutcome::kReplaced], 0);
  // The copy came first (the others refused) or later (refused itself).
  EXPECT_TRUE(
      (outcomes[RecordOutcome::kUnchanged] == 3 && outcomes[RecordOutcome::kRefused] == 1) ||
      (outcomes[RecordOutcome::kUnchanged] == 0 && outcomes[RecordOutcome::kRefused] == 4))
      << outcomes[RecordOutcome::kUnchanged] << " unchanged, " << outcomes[RecordOutcome::kRefused]
      << " refused";
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 4);
}

// A URL's password reaches the server, and no message.
TEST_F(PostgresHistory, APasswordIsUsedAndNeverPrinted) {
  auto& server = testpg::Server::get();
  const std::string url = server.value("password_url"), password = server.value("password");
  auto r = record_run(url, run1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto runs = list_runs(url);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ(runs->size(), 1u);
  std::string wrong = url;
  wrong.replace(wrong.find(password), password.size(), password + "x");
  auto refused = list_runs(wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(refused.error().message.find("password authentication failed"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(refused.error().message.find(password), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("rtosbench_pw:***@"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace rb::store
