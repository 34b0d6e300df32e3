#include "run/run_directory.h"

#include <fmt/core.h>

#include <ctime>
#include <random>

#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/url.h"

namespace rb::run {

namespace {

Result<std::string> slurp(const std::filesystem::path& p) {
  auto text = read_whole_file(p);
  if (!text) return make_error(ErrorKind::kCannotRead, fmt::format("cannot read {}", p.string()));
  return *text;
}

// A run directory from elsewhere holds only its own folders and regular
// files: a symbolic link (run.lock to a file it would truncate, job.log to one
// it would append to, a folder to another place) or a FIFO or device would
// lead a resume's writes, or its reads, outside the run. Checked before the
// resume locks or writes anything; every file is also opened with O_NOFOLLOW.
Status check_own_files(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  auto refuse = [&](const fs::path& p, const std::string& what) -> Status {
    return make_error(ErrorKind::kBadInput,
                      fmt::format("run directory {}: {} {}; a run directory holds only its own "
                                  "folders and regular files, so it is not resumed",
                                  root.string(), p.lexically_relative(root).string(), what));
  };
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_symlink(st)) {
      std::error_code rec;
      const fs::path target = fs::read_symlink(it->path(), rec);
      return refuse(it->path(), fmt::format("is a symbolic link (to {})", target.string()));
    }
    if (!fs::is_directory(st) && !fs::is_regular_file(st))
      return refuse(it->path(), "is not a regular file or folder");
  }
  if (ec)
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("cannot read run directory {}: {}", root.string(), ec.message()));
  return {};
}

}  // namespace

Result<RunDirectory> RunDirectory::create(const std::filesystem::path& out,
                                          const std::string& matrix_name,
                                          const std::filesystem::path& matrix_file,
                                          const std::filesystem::path& bench_file) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) {
    // kCannotRead: exit 66, which docs/run.md documents for a run directory that cannot be made.
    return make_error(ErrorKind::kCannotRead, fmt::format("cannot create output directory {}: {}",
                                                          out.string(), ec.message()));
  }
  // The id keys the run in a history that several hosts may share
  // (PostgreSQL): two benches starting the same matrix in the same second
  // must not name their runs alike, so a random tag follows the time.
  std::random_device entropy;
  std::string id;
  std::filesystem::path root;
  do {
    if (ec) {
      return make_error(ErrorKind::kCannotRead, fmt::format("cannot create run directory {}: {}",
                                                            root.string(), ec.message()));
    }
    id = fmt::format("{}-{}-{:06x}", stamp, matrix_name, entropy() & 0xffffffu);
    root = out / id;
  } while (!std::filesystem::create_directory(root, ec));
  RunDirectory dir(std::filesystem::absolute(root), id);
  for (const auto& [src, dst] : {std::pair{matrix_file, dir.matrix_snapshot()},
                                 std::pair{bench_file, dir.bench_snapshot()}}) {
    auto text = slurp(src);
    if (!text.ok()) return text.error();
    // A bench's lava.url may carry a password: never kept in clear.
    if (auto s =
            write_file_atomic(dst, dst == dir.bench_snapshot() ? redact_urls_in(*text) : *text);
        !s.ok())
      return s.error();
  }
  std::filesystem::create_directories(root / "jobs", ec);
  if (ec)
    return make_error(ErrorKind::kStore,
                      fmt::format("cannot create {}: {}", (root / "jobs").string(), ec.message()));
  return dir;
}

Result<RunDirectory> RunDirectory::open(const std::filesystem::path& given) {
  // The run's real path: every write below stays inside it.
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::canonical(given, ec);
  if (ec) {
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("{} is not a run directory: {}", given.string(), ec.message()));
  }
  if (auto s = check_own_files(dir); !s.ok()) return s.error();
  auto text = slurp(dir / "run.json");
  if (!text.ok()) {
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("{} is not a run directory: no readable run.json", dir.string()));
  }
  try {
    nlohmann::json j = nlohmann::json::parse(*text);
    if (j.value("schema", "") != store::kRunSummarySchema) {
      return make_error(ErrorKind::kCannotRead,
                        fmt::format("{}/run.json is not an rtosbench run summary", dir.string()));
    }
    RunDirectory d(dir, j.at("run_id").get<std::string>());
    d.summary_ = std::move(j);
    return d;
  } catch (const std::exception& e) {
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("{}/run.json: {}", dir.string(), e.what()));
  }
}

int RunDirectory::next_attempt_in(const std::filesystem::path& dir) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("attempt-", 0) != 0) continue;
    try {
      n = std::max(n, std::stoi(name.substr(8)));
    } catch (const std::exception&) {
    }
  }
  return n + 1;
}

Result<FileLock> RunDirectory::lock() const {
  auto l = FileLock::acquire(root_ / "run.lock");
  if (!l.ok() && l.error().kind == ErrorKind::kUnavailable) {
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("run directory {} is in use: {} (another `rtosbench run` works in it)",
                    root_.string(), l.error().message));
  }
  return l;
}

std::set<std::string> RunDirectory::finished_jobs() const {
  std::set<std::string> done;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(root_ / "jobs", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    auto r = store::read_job_result(it->path() / "result.json");
    if (r.ok() && r->job_id == it->path().filename().string()) done.insert(r->job_id);
  }
  return done;
}

Result<std::string> RunDirectory::close_unclosed_session() {
  nlohmann::json j = summary();
  const std::string state = j.is_object() ? j.value("state", "") : "";
  if (state != "running" && state != "starting") return std::string();
  if (!j.contains("sessions") || !j["sessions"].is_array()) j["sessions"] = nlohmann::json::array();
  j["sessions"].push_back(
      nlohmann::json{{"state", "interrupted"},
                     {"exit_code", nullptr},
                     {"note", fmt::format("the session ended without closing run.json (state "
                                          "'{}'): killed, or the machine stopped",
                                          state)}});
  j["state"] = "interrupted";
  if (auto s = write_summary(j); !s.ok()) return s.error();
  return state;
}

nlohmann::json RunDirectory::summary() const {
  std::lock_guard lock(mu_);
  return summary_;
}

Status RunDirectory::write_summary(const nlohmann::json& summary) {
  std::lock_guard lock(mu_);
  // A moved-from directory has no root: never write run.json into the
  // working directory.
  if (root_.empty()) return make_error(ErrorKind::kInternal, "run directory has no path");
  summary_ = summary;
  return write_file_atomic(root_ / "run.json", store::dump_json(summary) + "\n");
}

}  // namespace rb::run
