#include "util/process.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/join.hpp>
#include <boost/algorithm/string/split.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

extern char** environ;

namespace rb {

namespace {

std::atomic<bool> g_interrupt{false};

constexpr size_t kMaxOutput = 1 << 20;

void keep_tail(std::string& s) {
  if (s.size() > kMaxOutput) s.erase(0, s.size() - kMaxOutput);
}

std::vector<std::string> make_env(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos && extra.count(kv.substr(0, eq))) continue;
    env.push_back(std::move(kv));
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

void fill_exit(ProcessResult& r, int status) {
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
}

// Process groups of the children alive now, for kill_all_children() (a
// signal handler): plain atomics, no allocation.
constexpr size_t kMaxGroups = 256;
std::atomic<pid_t> g_groups[kMaxGroups];

void track_group(pid_t pgid) {
  for (auto& g : g_groups) {
    pid_t expected = 0;
    if (g.compare_exchange_strong(expected, pgid)) return;
  }
}

void untrack_group(pid_t pgid) {
  for (auto& g : g_groups) {
    pid_t expected = pgid;
    if (g.compare_exchange_strong(expected, 0)) return;
  }
}

// Spawns with stdout+stderr on `out_fd`. Returns the pid or an error text.
// fork + exec rather than posix_spawn: the child asks for SIGKILL when its
// parent dies (PR_SET_PDEATHSIG), so no tool outlives a killed rtosbench,
// and leads its own process group, so a timeout or Ctrl-C kills its tree.
Result<pid_t> spawn_with_fd(const ProcessSpec& spec, int out_fd) {
  if (spec.argv.empty()) return make_error(ErrorKind::kInternal, "empty command line");
  // Everything the child needs is made before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> env = make_env(spec.env);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string cwd = spec.cwd.string();
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    return make_error(ErrorKind::kInternal, fmt::format("cannot start '{}': pipe: {}", spec.argv[0],
                                                        std::strerror(errno)));
  }
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    return make_error(ErrorKind::kInternal,
                      fmt::format("cannot start '{}': fork: {}", spec.argv[0], std::strerror(e)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, spec.parent_death_signal);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0 && devnull != 0) {
      ::dup2(devnull, 0);
      ::close(devnull);
    }
    ::dup2(out_fd, 1);
    ::dup2(out_fd, 2);
    int e = 0;
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      e = errno;
    } else {
      ::execvpe(argv[0], argv.data(), envp.data());
      e = errno;
    }
    ssize_t ignored = ::write(err_pipe[1], &e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: the parent may signal the group before the child ran
  ::close(err_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(err_pipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return make_error(ErrorKind::kUnavailable, fmt::format("cannot start '{}': {}", spec.argv[0],
                                                           std::strerror(child_errno)));
  }
  track_group(pid);
  return pid;
}

void kill_group(pid_t pid, int sig) {
  if (::kill(-pid, sig) != 0) ::kill(pid, sig);
}

// Kills the group, waits for the leader; returns its wait status.
int terminate_and_reap(pid_t pid, std::chrono::milliseconds grace) {
  kill_group(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return 0;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill_group(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill_group(pid, SIGKILL);  // stragglers of the group (a compiler under ninja)
  untrack_group(pid);
  return status;
}

int open_log(const std::filesystem::path& log) {
  if (log.empty()) return -1;
  std::error_code ec;
  std::filesystem::create_directories(log.parent_path(), ec);
  return ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
}

std::string read_tail(const std::filesystem::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  off_t size = lseek(fd, 0, SEEK_END);
  off_t from = size > static_cast<off_t>(kMaxOutput) ? size - static_cast<off_t>(kMaxOutput) : 0;
  std::string out(static_cast<size_t>(size - from), '\0');
  ssize_t n = pread(fd, out.data(), out.size(), from);
  ::close(fd);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

class PosixChild final : public ChildProcess {
 public:
  PosixChild(pid_t pid, std::filesystem::path log) : pid_(pid), log_(std::move(log)) {
    result_.started = true;
  }
  ~PosixChild() override {
    if (!reaped_) stop(std::chrono::milliseconds(500));
  }
  int pid() const override { return pid_; }
  bool running() override {
    if (reaped_) return false;
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reap(status);
      return false;
    }
    return true;
  }
  bool wait_for(std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (running()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }
  void stop(std::chrono::milliseconds grace) override {
    if (!running()) return;
    reap(terminate_and_reap(pid_, grace));
  }
  ProcessResult result() const override {
    ProcessResult r = result_;
    if (!log_.empty()) r.output = read_tail(log_);
    return r;
  }

 private:
  void reap(int status) {
    reaped_ = true;
    untrack_group(pid_);
    fill_exit(result_, status);
  }
  pid_t pid_;
  std::filesystem::path log_;
  bool reaped_ = false;
  ProcessResult result_;
};

class PosixRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    ProcessResult r;
    int log_fd = open_log(spec.log);
    if (!spec.log.empty() && log_fd < 0) {
      r.error = fmt::format("cannot open log {}: {}", spec.log.string(), std::strerror(errno));
      return r;
    }
    int fds[2] = {-1, -1};
    auto pid = pipe2(fds, O_CLOEXEC) != 0
                   ? Result<pid_t>(make_error(ErrorKind::kInternal,
                                              fmt::format("pipe: {}", std::strerror(errno))))
                   : spawn_with_fd(spec, fds[1]);
    if (fds[1] >= 0) ::close(fds[1]);
    if (!pid.ok()) {
      r.error = pid.error().message;
      for (int fd : {fds[0], log_fd})
        if (fd >= 0) ::close(fd);
      return r;
    }
    r.started = true;
    const auto start = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> killed_at;
    bool hard_killed = false;
    int status = 0;
    char buf[8192];
    // Output first; once it is closed the process may still run (a tool
    // that closed its stdout): the timeout and interruption still apply.
    for (int out = fds[0];;) {
      if (out >= 0) {
        pollfd p{out, POLLIN, 0};
        if (poll(&p, 1, 50) > 0) {
          ssize_t n = ::read(out, buf, sizeof buf);
          if (n > 0) {
            r.output.append(buf, static_cast<size_t>(n));
            keep_tail(r.output);
            if (log_fd >= 0 && ::write(log_fd, buf, static_cast<size_t>(n)) < 0) {
            }
            continue;
          }
          if (n == 0 || (errno != EINTR && errno != EAGAIN)) {  // EOF
            ::close(out);
            out = -1;
          }
        }
      } else {
        pid_t w = waitpid(*pid, &status, WNOHANG);
        if (w == *pid || (w < 0 && errno != EINTR)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      const auto now = std::chrono::steady_clock::now();
      const bool overdue = spec.timeout.count() > 0 && now - start >= spec.timeout;
      if (killed_at) {
        // A grandchild may ignore SIGTERM and hold the pipe open.
        if (!hard_killed && now - *killed_at > std::chrono::seconds(2)) {
          kill_group(*pid, SIGKILL);
          hard_killed = true;
        }
      } else if (overdue || interrupt_requested()) {
        r.timed_out = overdue;
        r.interrupted = !overdue;
        kill_group(*pid, SIGTERM);
        killed_at = now;
      }
    }
    if (log_fd >= 0) ::close(log_fd);
    if (killed_at) kill_group(*pid, SIGKILL);  // stragglers of the group (a compiler under ninja)
    untrack_group(*pid);
    fill_exit(r, status);
    return r;
  }

  Result<std::unique_ptr<ChildProcess>> spawn(const ProcessSpec& spec) override {
    int log_fd = open_log(spec.log);
    if (log_fd < 0) log_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    auto pid = spawn_with_fd(spec, log_fd);
    ::close(log_fd);
    if (!pid.ok()) return pid.error();
    return std::unique_ptr<ChildProcess>(std::make_unique<PosixChild>(*pid, spec.log));
  }
};

}  // namespace

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + error;
  if (interrupted) return "interrupted";
  if (timed_out) return "timed out";
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

std::string ProcessResult::tail(size_t max_lines) const {
  std::vector<std::string> all, lines;
  boost::split(all, output, boost::is_any_of("\n"));
  for (auto it = all.rbegin(); it != all.rend() && lines.size() < max_lines; ++it) {
    std::string l = boost::trim_right_copy_if(*it, boost::is_any_of("\r "));
    if (!l.empty()) lines.insert(lines.begin(), std::move(l));
  }
  return boost::join(lines, "\n");
}

std::unique_ptr<ProcessRunner> make_posix_runner() {
  return std::make_unique<PosixRunner>();
}

std::filesystem::path find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? std::filesystem::path(name) : std::filesystem::path();
  const char* path = std::getenv("PATH");
  std::vector<std::string> dirs;
  boost::split(dirs, std::string(path ? path : "/usr/bin:/bin"), boost::is_any_of(":"));
  for (const auto& dir : dirs) {
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate))
      return candidate;
  }
  return {};
}

void kill_all_children() {
  for (auto& g : g_groups) {
    pid_t pgid = g.load();
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
}

void request_interrupt() {
  g_interrupt.store(true);
}
bool interrupt_requested() {
  return g_interrupt.load();
}
void clear_interrupt() {
  g_interrupt.store(false);
}

}  // namespace rb
