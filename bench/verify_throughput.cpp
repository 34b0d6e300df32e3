// The figures of `rtosbench verify` in one run (not a test: it prints
// figures and fails only when verify and the Python re-deriver disagree or a
// child fails).
//
//   verify_throughput [--rtosbench PATH] [--python PATH] [--rederive PATH]
//                     [--dir DIR] [--gib X] [--runs N] [--capture-runs M]
//
// 1. A realistic capture in the protocol's real format (V2, valid CRCs):
//    15 series of 10 000 samples (the ruler and seven tests of an
//    irq_entry / event_to_task pair). The real binary verifies it M times
//    (default 30), start-up included; `rtosbench --version` shows what the
//    start-up alone costs.
// 2. A log of X/8 GiB and one of X GiB (default 1) of series of 500 000
//    samples: verify's peak RSS on both (bounded memory: the same on both).
// 3. On the X GiB log, N runs (default 3) each of `wc -l` and of verify,
//    interleaved, best kept, and one run of bench/rederive.py under
//    /usr/bin/python3 (a plain re-deriver of n/min/median/p99/max); MB/s
//    and the ratios. verify --json and the re-deriver must give the same
//    figures for every series.
// Logs are written in a child process (a spawned child's ru_maxrss starts
// from its parent's peak, so this program stays small) into a temporary
// directory, deleted afterwards unless RB_KEEP_LOGS=1.
#include <fcntl.h>
#include <fmt/core.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "protocol/line.h"
#include "stats/summary.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct LogInfo {
  uint64_t bytes = 0, samples = 0, lines = 0, tests = 0, series = 0;
};

// Appends decimal `v` to `out` (the generator must be fast too).
void put_u64(std::string& out, uint64_t v) {
  char buf[24];
  int i = 24;
  do {
    buf[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out.append(buf + i, buf + 24);
}

class Writer {
 public:
  explicit Writer(const fs::path& p) : f_(std::fopen(p.c_str(), "wb")) {
    if (f_ == nullptr) {
      fmt::print(stderr, "cannot create {}: {}\n", p.string(), std::strerror(errno));
      std::exit(1);
    }
  }
  ~Writer() {
    flush();
    std::fclose(f_);
  }
  // One protocol line: record + |seq|crc + CRLF.
  void line(const std::string& record) {
    rb::protocol::append_v2_line(buf_, record, seq_++);
    buf_ += "\r\n";
    ++info.lines;
    if (buf_.size() > (4u << 20)) flush();
  }
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      fmt::print(stderr, "write failed: {}\n", std::strerror(errno));
      std::exit(1);
    }
    info.bytes += buf_.size();
    buf_.clear();
  }
  uint64_t bytes_so_far() const { return info.bytes + buf_.size(); }
  LogInfo info;

 private:
  std::FILE* f_;
  std::string buf_;
  uint64_t seq_ = 0;
};

std::string result_record(const std::string& name, std::vector<uint64_t> v, uint64_t hz,
                          uint64_t base) {
  const rb::stats::Summary s = rb::stats::summarize(v);
  auto ns = [&](uint64_t t) { return rb::stats::ticks_to_ns(t, hz); };
  return fmt::format(
      "RESULT,{},n={},hz={},min_ticks={},median_ticks={},avg_ticks={},p90_ticks={},p99_ticks={},"
      "p999_ticks={},"
      "max_ticks={},min_ns={},median_ns={},avg_ns={},p90_ns={},p99_ns={},p999_ns={},max_ns={},base_"
      "ticks={}",
      name, s.n, hz, s.min, s.median, s.avg_ticks, s.p90, s.p99, s.p999, s.max, ns(s.min),
      ns(s.median), rb::stats::mean_ns(s.sum, s.n, hz), ns(s.p90), ns(s.p99), ns(s.p999), ns(s.max),
      base);
}

// A valid V2 log as the harness writes it: BEGIN, CONFIG, a ruler test
// (ruler_loop, whose median every RESULT's base_ticks must equal), then
// tests of one phase each with an irq_entry / event_to_task pair of
// `per_series` samples, their RAW lines (16 values each) interleaved, until
// `max_tests` tests or `target` bytes, whichever comes first; then END.
LogInfo generate(const fs::path& path, uint64_t target, uint64_t max_tests, size_t per_series,
                 size_t ruler_samples) {
  constexpr uint64_t kHz = 168000000;
  constexpr uint64_t kBase = 13;
  Writer w(path);
  w.line("BEGIN,RTOS_BENCH_V2");
  w.line(
      "CONFIG,core=168000000,tick=1000,preempt=1,slicing=1,fpu=0,compiler=12.2.1 20221205,opt=-O2 "
      "-g0,kernel=freertos,kernel_version=10.5.1,board=stm32f407-disco,counter=dwt,unit=cycles,"
      "debugger=0,dhcsr=0x03000000,samples=" +
      std::to_string(per_series));
  w.line("TEST,ruler");
  std::string rec;
  std::vector<uint64_t> loop(ruler_samples, kBase);
  for (size_t i = 0; i < loop.size(); i += 16) {
    rec = "RAW,ruler_loop," + std::to_string(i);
    for (size_t k = i; k < std::min(loop.size(), i + 16); ++k) rec += "," + std::to_string(loop[k]);
    w.line(rec);
  }
  w.info.samples += loop.size();
  ++w.info.series;
  std::vector<uint64_t> copy = loop;
  const auto s = rb::stats::summarize(copy);
  auto ns = [&](uint64_t x) { return rb::stats::ticks_to_ns(x, kHz); };
  w.line(fmt::format(
      "RESULT,ruler_loop,n={},hz={},min_ticks={},median_ticks={},avg_ticks={},max_ticks={},"
      "min_ns={},avg_ns={},max_ns={}",
      s.n, kHz, s.min, s.median, s.avg_ticks, s.max, ns(s.min), rb::stats::mean_ns(s.sum, s.n, kHz),
      ns(s.max)));
  std::vector<uint64_t> irq(per_series), task(per_series);
  std::mt19937_64 rng(2024);
  for (uint64_t t = 0; t < max_tests && w.bytes_so_far() < target; ++t) {
    w.line("TEST,irq_latency_" + std::to_string(t));
    w.line("PHASE,busy,irq=" + std::to_string(per_series) + ",task=" + std::to_string(per_series) +
           ",bad=0,status=OK");
    // Values of one width per series, with rare outliers (a cache miss).
    for (size_t i = 0; i < per_series; ++i) {
      const uint64_t r = rng();
      irq[i] = 26 + (r & 7) + ((r >> 8) % 64 == 0 ? 19 : 0);
      task[i] = 466 + ((r >> 16) % 9) + ((r >> 32) % 100 == 0 ? 166 : 0);
    }
    for (size_t i = 0; i < per_series; i += 16) {
      for (int which = 0; which < 2; ++which) {
        const std::vector<uint64_t>& v = which == 0 ? irq : task;
        rec.assign(which == 0 ? "RAW,irq_entry," : "RAW,event_to_task,");
        put_u64(rec, i);
        for (size_t k = i; k < std::min(per_series, i + 16); ++k) {
          rec.push_back(',');
          put_u64(rec, v[k]);
        }
        w.line(rec);
      }
    }
    w.info.samples += 2 * per_series;
    w.info.series += 2;
    w.line(result_record("irq_entry", irq, kHz, kBase));
    w.line(result_record("event_to_task", task, kHz, kBase));
    ++w.info.tests;
  }
  w.line("END,RTOS_BENCH_V2");
  w.flush();
  return w.info;
}

// Generates in a child process: a spawned child's ru_maxrss starts from its
// parent's peak (Linux carries the old address space's high-water mark
// across exec), so this program must stay small itself.
template <class F>
LogInfo generate_in_child(const fs::path& path, F generate_log) {
  int fds[2];
  if (pipe(fds) != 0) {
    fmt::print(stderr, "pipe: {}\n", std::strerror(errno));
    std::exit(1);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const LogInfo info = generate_log();
    const bool ok = write(fds[1], &info, sizeof info) == static_cast<ssize_t>(sizeof info);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  LogInfo info;
  const bool ok = read(fds[0], &info, sizeof info) == static_cast<ssize_t>(sizeof info);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "generating {} failed\n", path.string());
    std::exit(1);
  }
  return info;
}

struct RunResult {
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // user + system of the child
  long maxrss_kib = 0;
  int exit_code = -1;
};

// Runs argv as a child with its stdout to `out` (a file; /dev/null by
// default): wall time from spawn to exit, and its rusage.
RunResult run(const std::vector<std::string>& args, const std::string& out = "/dev/null") {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
    fmt::print(stderr, "cannot run {}\n", args[0]);
    std::exit(1);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  const auto t1 = std::chrono::steady_clock::now();
  posix_spawn_file_actions_destroy(&fa);
  RunResult r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.maxrss_kib = ru.ru_maxrss;
  auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  r.cpu_seconds = secs(ru.ru_utime) + secs(ru.ru_stime);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `runs` runs of each command in turn (so each sees the same load on a
// shared machine); the best run of each.
std::vector<RunResult> interleaved(const std::vector<std::vector<std::string>>& commands,
                                   int runs) {
  std::vector<RunResult> best(commands.size());
  for (int i = 0; i < runs; ++i) {
    for (size_t c = 0; c < commands.size(); ++c) {
      const RunResult r = run(commands[c]);
      if (i == 0 || r.seconds < best[c].seconds) best[c] = r;
    }
  }
  return best;
}

void print_row(const char* label, double mb, const RunResult& r) {
  fmt::print("  {:<22} wall {:8.3f} s {:7.0f} MB/s  cpu {:8.3f} s  peak RSS {:6.1f} MiB  exit {}\n",
             label, r.seconds, mb / r.seconds, r.cpu_seconds, r.maxrss_kib / 1024.0, r.exit_code);
}

void print_log(const char* label, const fs::path& log, const LogInfo& info, double seconds) {
  fmt::print("\n{}: {} ({:.1f} MiB, {} lines, {} series, {} RAW samples; written in {:.1f} s)\n",
             label, log.filename().string(), static_cast<double>(info.bytes) / (1 << 20),
             info.lines, info.series, info.samples, seconds);
}

template <class F>
LogInfo make_log(const char* label, const fs::path& log, F generate_log) {
  const auto t0 = std::chrono::steady_clock::now();
  const LogInfo info = generate_in_child(log, generate_log);
  print_log(label, log, info,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return info;
}

// The series figures of verify's JSON report and of the Python re-deriver's
// output, as "<test>/<phase>/<name> n min median p99 max" lines: the same
// set when both derived the same statistics from the same samples.
std::vector<std::string> verify_figures(const fs::path& json_path) {
  std::ifstream in(json_path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::vector<std::string> out;
  if (j.is_discarded() || !j.contains("series")) return out;
  for (const auto& s : j["series"]) {
    if (!s.contains("ticks") || !s["ticks"].is_object()) continue;
    const auto& t = s["ticks"];
    out.push_back(fmt::format(
        "{}/{}/{} {} {} {} {} {}", s["test"].get<std::string>(), s["phase"].get<std::string>(),
        s["name"].get<std::string>(), s["n"].get<uint64_t>(), t["min"].get<uint64_t>(),
        t["median"].get<uint64_t>(), t["p99"].get<uint64_t>(), t["max"].get<uint64_t>()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> file_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  std::sort(out.begin(), out.end());
  return out;
}

[[noreturn]] void usage() {
  fmt::print(stderr,
             "usage: verify_throughput [--rtosbench PATH] [--python PATH] [--rederive PATH] "
             "[--dir DIR] [--gib X] [--runs N] [--capture-runs M]\n");
  std::exit(64);
}

}  // namespace

int main(int argc, char** argv) {
  std::string rtosbench, python = "/usr/bin/python3";
  std::string rederive = std::string(RTOSBENCH_SOURCE_DIR) + "/bench/rederive.py";
  fs::path dir = fs::temp_directory_path();
  double gib = 1.0;
  int runs = 3, capture_runs = 30;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage();
    const std::string v = argv[++i];
    if (a == "--rtosbench") {
      rtosbench = v;
    } else if (a == "--python") {
      python = v;
    } else if (a == "--rederive") {
      rederive = v;
    } else if (a == "--dir") {
      dir = v;
    } else if (a == "--gib") {
      gib = std::stod(v);
    } else if (a == "--runs") {
      runs = std::max(1, std::stoi(v));
    } else if (a == "--capture-runs") {
      capture_runs = std::max(1, std::stoi(v));
    } else {
      usage();
    }
  }
  if (!(gib > 0)) usage();
  if (rtosbench.empty()) {
    // The build tree layout: build/bench/verify_throughput and build/src/rtosbench.
    rtosbench =
        (fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "src" / "rtosbench")
            .string();
  }
  for (const std::string& f : {rtosbench, python, rederive}) {
    if (!fs::exists(f)) {
      fmt::print(stderr, "{} not found (see --rtosbench, --python, --rederive)\n", f);
      return 66;
    }
  }
  const fs::path work = dir / ("rtosbench-verify-throughput-" + std::to_string(::getpid()));
  fs::create_directories(work);
  fmt::print("verify_throughput: {}\nlogs in {} (removed at the end unless RB_KEEP_LOGS=1)\n",
             rtosbench, work.string());

  // 1. A realistic capture: 15 series of 10 000 samples (the ruler and seven
  // tests of two series), verified by the real binary, start-up included.
  const fs::path capture = work / "capture.log";
  const LogInfo cinfo = make_log("realistic capture", capture,
                                 [&] { return generate(capture, UINT64_MAX, 7, 10000, 10000); });
  std::vector<double> verify_ms, startup_ms;
  RunResult first;
  for (int i = 0; i < capture_runs; ++i) {
    const RunResult v = run({rtosbench, "verify", capture.string()});
    if (i == 0) first = v;
    verify_ms.push_back(1e3 * v.seconds);
    startup_ms.push_back(1e3 * run({rtosbench, "--version"}).seconds);
  }
  std::sort(verify_ms.begin(), verify_ms.end());
  fmt::print(
      "  rtosbench verify       {} runs: best {:.1f} ms, median {:.1f} ms, worst {:.1f} ms "
      "(target: <= 20 ms), exit {}{}, peak RSS {:.1f} MiB\n",
      capture_runs, verify_ms.front(), median(verify_ms), verify_ms.back(), first.exit_code,
      first.exit_code == 0 ? " (valid)" : " (NOT VALID: the figures mean nothing)",
      first.maxrss_kib / 1024.0);
  fmt::print("  of which start-up      rtosbench --version: median {:.1f} ms\n",
             median(startup_ms));

  // 2. Peak memory does not grow with the file: a log of 1/8 of the size
  // with the same series (500 000 samples each) against the large one.
  const uint64_t large = static_cast<uint64_t>(gib * (1ull << 30));
  const fs::path small_log = work / "small.log";
  const LogInfo sinfo = make_log("small log (1/8 of the large one)", small_log, [&] {
    return generate(small_log, large / 8, UINT64_MAX, 500000, 10000);
  });
  const RunResult small_run = interleaved({{rtosbench, "verify", small_log.string()}}, runs)[0];
  print_row("rtosbench verify", static_cast<double>(sinfo.bytes) / 1e6, small_run);
  if (std::getenv("RB_KEEP_LOGS") == nullptr) fs::remove(small_log);

  // 3. The large log: verify against wc -l and the Python re-deriver.
  const fs::path log = work / "large.log";
  const LogInfo info =
      make_log("large log", log, [&] { return generate(log, large, UINT64_MAX, 500000, 10000); });
  const double mb = static_cast<double>(info.bytes) / 1e6;
  (void)run({"wc", "-l", log.string()});  // the file in the page cache for everyone
  const std::vector<RunResult> best =
      interleaved({{"wc", "-l", log.string()}, {rtosbench, "verify", log.string()}}, runs);
  const RunResult& wc = best[0];
  const RunResult& verify = best[1];
  const fs::path py_out = work / "rederive.txt", json = work / "verify.json";
  const RunResult py = run({python, rederive, log.string()}, py_out.string());
  const RunResult check = run({rtosbench, "verify", log.string(), "--json", json.string()});
  fmt::print("  best of {} runs each (the Python re-deriver: one run)\n", runs);
  print_row("wc -l", mb, wc);
  print_row("rtosbench verify", mb, verify);
  print_row("python3 rederive.py", mb, py);
  fmt::print(
      "  verify: {:.0f} MB/s (target: >= 400 MB/s); {:.2f}x the time of wc -l; {:.1f}x as fast "
      "as the Python re-deriver\n",
      mb / verify.seconds, verify.seconds / wc.seconds, py.seconds / verify.seconds);
  fmt::print("  peak RSS of verify: {:.1f} MiB on {:.0f} MiB, {:.1f} MiB on {:.0f} MiB\n",
             small_run.maxrss_kib / 1024.0, static_cast<double>(sinfo.bytes) / (1 << 20),
             verify.maxrss_kib / 1024.0, static_cast<double>(info.bytes) / (1 << 20));
  const std::vector<std::string> a = verify_figures(json), b = file_lines(py_out);
  if (verify.exit_code != 0 || check.exit_code != 0 || py.exit_code != 0) {
    fmt::print("  NOTE: a run failed (exit codes above): the figures mean nothing\n");
  } else if (a.empty() || a != b) {
    fmt::print("  NOTE: verify and the Python re-deriver disagree ({} and {} series): see {}\n",
               a.size(), b.size(), work.string());
    return 1;
  } else {
    fmt::print(
        "  verify and the Python re-deriver give the same n/min/median/p99/max for all {} "
        "series\n",
        a.size());
  }
  if (std::getenv("RB_KEEP_LOGS") == nullptr) fs::remove_all(work);
  struct rusage self {};
  getrusage(RUSAGE_SELF, &self);
  fmt::print(
      "\n(peak RSS figures are each child's ru_maxrss from wait4; they include at most {:.1f} MiB "
      "inherited from this program, whose own peak that is)\n",
      self.ru_maxrss / 1024.0);
  return 0;
}
