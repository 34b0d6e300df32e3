// Throughput and memory of `rtosbench verify` on big logs (not a test: it
// prints figures and never fails on a number).
//
//   verify_throughput [--rtosbench PATH] [--dir DIR] [--gib X] [--small-mib Y] [--runs N]
//
// Writes a valid RTOS_BENCH_V2 log of about X GiB (default 1, at least 50
// million RAW samples), another of values of mixed widths (95-104 and
// 995-1004: most lines hold two widths), and one of about Y MiB (default
// 100) into a temporary directory (deleted afterwards), then runs the real
// binary `rtosbench verify` on each as a child process, and `wc -l` on the same
// file, N times each (default 3) in back-to-back pairs, files already in the
// page cache. Prints the best wall time of each, MB/s, the ratio to `wc -l`
// (of the best times, and the median of the pairs' ratios, which a shared
// machine's changing load disturbs less), and each child's peak
// resident memory (ru_maxrss from wait4, i.e. that child's RUSAGE_CHILDREN).
// All logs have the same series sizes (1 million samples per test), so a
// bounded-memory verifier shows the same peak on all. Where the CPU has
// AVX-512 or AVX2 (which verify's RAW line parser then uses), the large
// logs are also verified with RTOSBENCH_SIMD=avx2 and =sse: the figures for
// CPUs without them.
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
#include <random>
#include <string>
#include <vector>

#include "protocol/line.h"
#include "stats/summary.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct LogInfo {
  uint64_t bytes = 0, samples = 0, lines = 0, tests = 0;
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
  std::vector<uint64_t> scratch;
  const rb::stats::Summary s = rb::stats::summarize(v, scratch);
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

// A valid V2 log of at least `target` bytes: tests of one phase each with an
// irq_entry / event_to_task pair of `per_series` samples, RAW lines
// interleaved as the harness may write them. Values of one width per series
// (26-33 and 466-474, with rare outliers of the same width), or with
// `mixed`, around a power of ten (95-104 and 995-1004), so that most lines
// hold values of two widths.
LogInfo generate(const fs::path& path, uint64_t target, size_t per_series, bool mixed) {
  constexpr uint64_t kHz = 168000000;
  constexpr uint64_t kBase = 13;
  Writer w(path);
  w.line("BEGIN,RTOS_BENCH_V2");
  w.line(
      "CONFIG,core=168000000,tick=1000,preempt=1,slicing=1,fpu=0,compiler=12.2.1 20221205,opt=-O2 "
      "-g0,"
      "kernel=freertos,kernel_version=10.5.1,board=stm32f407-disco,counter=dwt,unit=cycles,"
      "debugger=0,"
      "dhcsr=0x03000000,samples=" +
      std::to_string(per_series));
  // The ruler first, as the harness writes it: base_ticks=13 is checked against it.
  w.line("TEST,ruler");
  std::vector<uint64_t> irq(per_series), task(per_series);
  std::string rec;
  std::vector<uint64_t> loop(1000, 13);
  for (size_t i = 0; i < loop.size(); i += 16) {
    rec = "RAW,ruler_loop," + std::to_string(i);
    for (size_t k = i; k < std::min(loop.size(), i + 16); ++k) rec += "," + std::to_string(loop[k]);
    w.line(rec);
  }
  w.info.samples += loop.size();
  std::vector<uint64_t> copy = loop;
  std::vector<uint64_t> scratch;
  const auto s = rb::stats::summarize(copy, scratch);
  auto ns = [&](uint64_t x) { return rb::stats::ticks_to_ns(x, kHz); };
  w.line(
      fmt::format("RESULT,ruler_loop,n={},hz={},min_ticks={},median_ticks={},avg_ticks={},max_"
                  "ticks={},min_ns={},"
                  "avg_ns={},max_ns={}",
                  s.n, kHz, s.min, s.median, s.avg_ticks, s.max, ns(s.min),
                  rb::stats::mean_ns(s.sum, s.n, kHz), ns(s.max)));
  std::mt19937_64 rng(2024);
  for (uint64_t t = 0; w.bytes_so_far() < target; ++t) {
    w.line("TEST,irq_latency_" + std::to_string(t));
    w.line("PHASE,busy,irq=" + std::to_string(per_series) + ",task=" + std::to_string(per_series) +
           ",bad=0,status=OK");
    for (size_t i = 0; i < per_series; ++i) {
      const uint64_t r = rng();
      if (mixed) {
        irq[i] = 95 + (r & 7) + ((r >> 8) % 64 == 0 ? 2 : 0);
        task[i] = 995 + ((r >> 16) % 9) + ((r >> 32) % 100 == 0 ? 1 : 0);
      } else {
        irq[i] = 26 + (r & 7) + ((r >> 8) % 64 == 0 ? 19 : 0);
        task[i] = 466 + ((r >> 16) % 9) + ((r >> 32) % 100 == 0 ? 166 : 0);
      }
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
LogInfo generate_in_child(const fs::path& path, uint64_t target, size_t per_series, bool mixed) {
  int fds[2];
  if (pipe(fds) != 0) {
    fmt::print(stderr, "pipe: {}\n", std::strerror(errno));
    std::exit(1);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const LogInfo info = generate(path, target, per_series, mixed);
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

// Runs argv as a child with stdout to /dev/null, its environment this
// program's plus `env` (NAME=value entries); wall time and its rusage.
RunResult run(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) {
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

// `runs` back-to-back pairs (a, then b), so that both see the same load on
// a shared machine: the best run of each, and the median of the pairs'
// ratios b / a.
struct Paired {
  RunResult a, b;
  double median_ratio = 0;
};

Paired paired_runs(const std::vector<std::string>& a_args, const std::vector<std::string>& b_args,
                   int runs, const std::vector<std::string>& b_env = {}) {
  Paired p;
  std::vector<double> ratios;
  for (int i = 0; i < runs; ++i) {
    const RunResult a = run(a_args);
    const RunResult b = run(b_args, b_env);
    if (i == 0 || a.seconds < p.a.seconds) p.a = a;
    if (i == 0 || b.seconds < p.b.seconds) p.b = b;
    ratios.push_back(b.seconds / std::max(a.seconds, 1e-6));
  }
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  p.median_ratio = n % 2 == 1 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  return p;
}

// verify's RAW line parser has an AVX-512 (VBMI) path and an AVX2 one, each
// used where the CPU has it; RTOSBENCH_SIMD=avx2 makes verify use at most
// the AVX2 one, =sse the path every x86-64 CPU runs.
struct Paths {
  bool avx512 = false, avx2 = false;
};

Paths cpu_paths() {
  Paths p;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  p.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
             __builtin_cpu_supports("avx512vbmi2") &&
             __builtin_cpu_supports("bmi2");
  p.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("sse4.2");
#endif
  return p;
}

void print_verify(const char* label, double mb, const Paired& pair, int runs) {
  const RunResult& wc = pair.a;
  const RunResult& v = pair.b;
  fmt::print(
      "  {:<16} wall {:7.3f} s {:6.0f} MB/s  cpu {:7.3f} s  peak RSS {:5.1f} MiB (exit "
      "{}{})\n",
      label, v.seconds, mb / v.seconds, v.cpu_seconds, v.maxrss_kib / 1024.0, v.exit_code,
      v.exit_code == 0 ? ", valid" : ", NOT valid");
  fmt::print(
      "  verify / wc -l   wall {:6.2f}x best of each, {:.2f}x median of {} back-to-back pairs  "
      "cpu {:6.2f}x  (target: within 3x)\n",
      v.seconds / wc.seconds, pair.median_ratio, runs,
      v.cpu_seconds / std::max(wc.cpu_seconds, 1e-3));
}

void measure(const std::string& label, const fs::path& log, const LogInfo& info,
             const std::string& rtosbench, int runs, bool avx2_row, bool sse_row) {
  const double mb = static_cast<double>(info.bytes) / 1e6;
  fmt::print("\n{}: {:.1f} MiB, {} lines, {} RAW samples, {} tests of {} samples\n", label,
             static_cast<double>(info.bytes) / (1 << 20), info.lines, info.samples, info.tests,
             info.tests ? (info.samples - 1000) / info.tests : 0);
  const std::vector<std::string> wc_args = {"wc", "-l", log.string()};
  const std::vector<std::string> verify_args = {rtosbench, "verify", log.string()};
  const Paired pair = paired_runs(wc_args, verify_args, runs);
  const RunResult& wc = pair.a;
  fmt::print(
      "  wc -l            wall {:7.3f} s {:6.0f} MB/s  cpu {:7.3f} s  peak RSS {:5.1f} MiB (exit "
      "{})\n",
      wc.seconds, mb / wc.seconds, wc.cpu_seconds, wc.maxrss_kib / 1024.0, wc.exit_code);
  print_verify("rtosbench verify", mb, pair, runs);
  // The same on the narrower paths other CPUs take (each its own pairs with wc -l).
  if (avx2_row) {
    print_verify("verify SIMD=avx2", mb,
                 paired_runs(wc_args, verify_args, runs, {"RTOSBENCH_SIMD=avx2"}), runs);
  }
  if (sse_row) {
    print_verify("verify SIMD=sse", mb,
                 paired_runs(wc_args, verify_args, runs, {"RTOSBENCH_SIMD=sse"}), runs);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string rtosbench;
  fs::path dir = fs::temp_directory_path();
  double gib = 1.0, small_mib = 100.0;
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "{} needs a value\n", a);
        std::exit(64);
      }
      return argv[++i];
    };
    if (a == "--rtosbench") {
      rtosbench = value();
    } else if (a == "--dir") {
      dir = value();
    } else if (a == "--gib") {
      gib = std::stod(value());
    } else if (a == "--small-mib") {
      small_mib = std::stod(value());
    } else if (a == "--runs") {
      runs = std::max(1, std::stoi(value()));
    } else {
      fmt::print(stderr,
                 "usage: verify_throughput [--rtosbench PATH] [--dir DIR] [--gib X] [--small-mib "
                 "Y] [--runs N]\n");
      return 64;
    }
  }
  if (rtosbench.empty()) {
    // The build tree layout: build/bench/verify_throughput and build/src/rtosbench.
    rtosbench =
        (fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "src" / "rtosbench")
            .string();
  }
  if (!fs::exists(rtosbench)) {
    fmt::print(stderr, "rtosbench binary not found at {} (use --rtosbench PATH)\n", rtosbench);
    return 66;
  }
  const fs::path work = dir / ("rtosbench-verify-throughput-" + std::to_string(::getpid()));
  fs::create_directories(work);
  fmt::print("verify_throughput: {} ({} run(s) each, best kept), logs in {}\n", rtosbench, runs,
             work.string());
  const Paths paths = cpu_paths();
  fmt::print("RAW line parser: {} path{}\n",
             paths.avx512 ? "AVX-512" : paths.avx2 ? "AVX2" : "SSE",
             paths.avx512 || paths.avx2
                 ? "; the large logs are also verified on the narrower paths (RTOSBENCH_SIMD)"
                 : "");

  constexpr size_t kPerSeries = 500000;  // one test = 1 million samples
  struct Case {
    std::string label, file;
    uint64_t bytes;
    bool mixed;      // values of mixed widths
    bool narrower;   // also time the narrower RAW paths
  };
  const uint64_t large = static_cast<uint64_t>(gib * (1ull << 30));
  const Case cases[] = {
      {"small log", "small.log", static_cast<uint64_t>(small_mib * (1 << 20)), false, false},
      {"large log", "large.log", large, false, true},
      {"large log, mixed widths", "mixed.log", large, true, true},
  };
  for (const Case& c : cases) {
    const fs::path log = work / c.file;
    const auto t0 = std::chrono::steady_clock::now();
    const LogInfo info = generate_in_child(log, c.bytes, kPerSeries, c.mixed);
    fmt::print("\ngenerated {} in {:.1f} s", log.filename().string(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    measure(c.label, log, info, rtosbench, runs, c.narrower && paths.avx512 && paths.avx2,
            c.narrower && (paths.avx512 || paths.avx2));
    if (std::getenv("RB_KEEP_LOGS") == nullptr) fs::remove(log);
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
