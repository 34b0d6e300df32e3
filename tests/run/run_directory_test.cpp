#include "run/run_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>

namespace rb::run {
namespace {

class RunDir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("rb-rundir-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    std::ofstream(root_ / "m.yaml") << "matrix: m\n";
    std::ofstream(root_ / "b.yaml") << "bench: b\n";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(RunDir, CreateSnapshotsInputsAndNeverReusesADirectory) {
  auto a = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(b.ok());
  EXPECT_NE(a->root(), b->root());
  // Made in the same second, the two ids still differ: time, matrix, random tag.
  const std::regex id_form("[0-9]{8}T[0-9]{6}Z-m-[0-9a-f]{6}");
  EXPECT_TRUE(std::regex_match(a->id(), id_form)) << a->id();
  EXPECT_TRUE(std::regex_match(b->id(), id_form)) << b->id();
  EXPECT_NE(a->id(), b->id());
  EXPECT_EQ(a->root().filename().string(), a->id());
  std::ifstream in(a->matrix_snapshot());
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "matrix: m\n");
  EXPECT_TRUE(std::filesystem::exists(a->bench_snapshot()));
}

TEST_F(RunDir, AttemptsAreNumberedAfterThoseOnDisk) {
  auto d = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->next_attempt("j"), 1);
  std::filesystem::create_directories(d->attempt_dir("j", 1));
  std::filesystem::create_directories(d->attempt_dir("j", 3));
  EXPECT_EQ(d->next_attempt("j"), 4);
  EXPECT_EQ(d->next_build_attempt("j"), 1);
  // A repeated job numbers the attempts of each load in the load's directory.
  EXPECT_EQ(d->load_dir("j", 2), d->job_dir("j") / "load-2");
  EXPECT_EQ(RunDirectory::next_attempt_in(d->load_dir("j", 2)), 1);
  std::filesystem::create_directories(d->load_dir("j", 2) / "attempt-2");
  EXPECT_EQ(RunDirectory::next_attempt_in(d->load_dir("j", 2)), 3);
  EXPECT_EQ(d->next_attempt("j"), 4);
}

TEST_F(RunDir, FinishedMeansAReadableResultOfThatJob) {
  auto d = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(d.ok());
  store::JobResult r;
  r.run_id = d->id();
  r.job_id = "good";
  std::filesystem::create_directories(d->job_dir("good"));
  ASSERT_TRUE(store::write_job_result(d->result_file("good"), r).ok());
  std::filesystem::create_directories(d->job_dir("torn"));
  std::ofstream(d->result_file("torn")) << "{\"schema\":";
  std::filesystem::create_directories(d->job_dir("other"));
  ASSERT_TRUE(store::write_job_result(d->result_file("other"), r).ok());  // says it is "good"
  EXPECT_EQ(d->finished_jobs(), std::set<std::string>{"good"});
}

// A run directory from elsewhere (issue 35 item 6): a link anywhere in it,
// or a FIFO, is refused on open, before anything locks or writes there.
TEST_F(RunDir, OpenRefusesLinksAndSpecialFiles) {
  auto d = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->write_summary({{"schema", store::kRunSummarySchema}, {"run_id", d->id()}}).ok());
  ASSERT_TRUE(RunDirectory::open(d->root()).ok());
  std::ofstream(root_ / "victim") << "precious\n";
  std::filesystem::create_directories(d->job_dir("j"));
  std::filesystem::create_symlink(root_ / "victim", d->job_dir("j") / "job.log");
  auto linked = RunDirectory::open(d->root());
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(linked.error().message.find("jobs/j/job.log is a symbolic link"), std::string::npos)
      << linked.error().message;
  std::filesystem::remove(d->job_dir("j") / "job.log");
  ASSERT_EQ(::mkfifo((d->job_dir("j") / "job.log").c_str(), 0600), 0);
  auto fifo = RunDirectory::open(d->root());
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("is not a regular file or folder"), std::string::npos)
      << fifo.error().message;
  std::filesystem::remove(d->job_dir("j") / "job.log");
  // The run's own lock is never taken through a link either.
  std::filesystem::create_symlink(root_ / "victim", d->root() / "run.lock");
  EXPECT_FALSE(d->lock().ok());
  std::ifstream in(root_ / "victim");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "precious\n");
}

// A moved-from directory has no path: its summary is refused, not written
// to run.json in the working directory.
TEST_F(RunDir, AMovedFromDirectoryWritesNothing) {
  auto d = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(d.ok());
  RunDirectory taken(std::move(*d));
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(root_);
  auto s = d->write_summary(nlohmann::json::object());
  std::filesystem::current_path(cwd);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(std::filesystem::exists(root_ / "run.json"));
  EXPECT_TRUE(taken.write_summary(nlohmann::json::object()).ok());
  EXPECT_TRUE(std::filesystem::exists(taken.root() / "run.json"));
}

TEST_F(RunDir, OpenNeedsARunSummary) {
  auto bad = RunDirectory::open(root_);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not a run directory"), std::string::npos);
  auto d = RunDirectory::create(root_ / "runs", "m", root_ / "m.yaml", root_ / "b.yaml");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(
      d->write_summary(
           {{"schema", store::kRunSummarySchema}, {"run_id", d->id()}, {"state", "running"}})
          .ok());
  auto again = RunDirectory::open(d->root());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->id(), d->id());
  EXPECT_EQ(again->summary()["state"], "running");
}

}  // namespace
}  // namespace rb::run
