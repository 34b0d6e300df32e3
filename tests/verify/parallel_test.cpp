// verify_file on several threads must give, byte for byte, the report the
// sequential reader gives: on every committed log, with pieces so small that
// every possible cut between lines (and inside CR LF pairs, long lines and
// runs of control bytes) happens, and on random logs built to stress those.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/line.h"
#include "protocol/raw16_avx2.h"
#include "protocol/raw16_avx512.h"
#include "log_builder.h"
#include "verify/parallel.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using rb::verify::Options;

std::string report_json(const fs::path& path, unsigned threads, size_t chunk) {
  Options o;
  o.threads = threads;
  o.chunk = chunk;
  auto r = rb::verify::verify_file(path, o);
  if (!r.ok()) return "error: " + r.error().message;
  return rb::verify::to_json(*r).dump(1);
}

class TempFile {
 public:
  explicit TempFile(const std::string& bytes)
      : path_(fs::temp_directory_path() /
              ("rb_parallel_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++))) {
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempFile() { fs::remove(path_); }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

// Each piece costs a few system calls, so on big files the smallest pieces
// are made larger: a few thousand pieces per file at most. Two threads also
// run with the RAW parser's wider paths off: AVX-512 off (the AVX2 path,
// where the CPU has it), then both off (the SSE path).
void expect_same_reports(const fs::path& path, const std::vector<size_t>& chunks) {
  namespace d = rb::protocol::detail;
  const std::string sequential = report_json(path, 1, 1 << 20);
  const size_t smallest = static_cast<size_t>(fs::file_size(path) / 2000) + 1;
  const bool avx512 = d::raw16_avx512_enabled(), avx2 = d::raw16_avx2_enabled();
  struct Run {
    unsigned threads;
    bool avx512, avx2;
    const char* paths;
  };
  for (const Run& run : {Run{2, true, true, ""}, Run{3, true, true, ""},
                         Run{2, false, true, " (AVX-512 off)"}, Run{2, false, false, " (SSE only)"}}) {
    d::use_raw16_avx512(run.avx512 && avx512);
    d::use_raw16_avx2(run.avx2 && avx2);
    for (size_t wanted : chunks) {
      const size_t chunk = std::max(wanted, smallest);
      EXPECT_EQ(report_json(path, run.threads, chunk), sequential)
          << path << " threads=" << run.threads << " chunk=" << chunk << run.paths;
    }
  }
  d::use_raw16_avx512(avx512);
  d::use_raw16_avx2(avx2);
}

TEST(ParallelVerify, EveryCommittedLogGivesTheSequentialReport) {
  std::vector<fs::path> logs;
  for (const auto& dir : {fs::path(RTOSBENCH_TEST_DATA) / "verify",
                          fs::path(RTOSBENCH_TEST_DATA) / "verify" / "generated"}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().extension() == ".log") logs.push_back(e.path());
    }
  }
  ASSERT_GT(logs.size(), 30u);
  for (const auto& log : logs) expect_same_reports(log, {1, 2, 7, 64, 1000});
}

// Random logs: valid V2 lines (RAW of uniform and mixed widths), corrupted
// ones, CR, LF, CR LF and lone CRs, NUL bytes, lines longer than 4096 bytes,
// and a last line without its end.
std::string random_log(uint32_t seed) {
  std::mt19937 rng(seed);
  rb::testlog::LogBuilder b = rb::testlog::valid_log();
  std::string text = b.str();
  // Cut the valid log in pieces and splice noise between some of them.
  std::string out;
  const char* ends[] = {"\n", "\r\n", "\r", "\r\r\n", "\n\r"};
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t take = 1 + rng() % 300;
    out += text.substr(pos, take);
    pos += take;
    switch (rng() % 12) {
      case 0:
        out += ends[rng() % 5];
        break;
      case 1:
        out += std::string(1 + rng() % 3, '\0');
        break;
      case 2:
        out += std::string(4000 + rng() % 200, 'x') + ends[rng() % 5];
        break;
      case 3: {
        std::string raw = "RAW,noise," + std::to_string(rng() % 5);
        const unsigned width = 1 + rng() % 5;
        for (int i = 0; i < 16; ++i) {
          raw += "," + std::to_string(rng() % (width == 5 ? 100000 : 10000));
        }
        out += rb::protocol::v2_line(raw, rng() % 100) + ends[rng() % 5];
        break;
      }
      case 4:
        out[out.size() - 1] ^= 0x20;  // a corrupt byte
        break;
      default:
        break;
    }
  }
  if (rng() % 2) out.resize(out.size() - 1 - rng() % 20);  // truncated
  return out;
}

TEST(ParallelVerify, RandomLogsGiveTheSequentialReport) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    TempFile f(random_log(seed));
    expect_same_reports(f.path(), {1, 3, 97, 4096, 5000});
  }
}

// Logs that are mostly long interleaved RAW series, which worker threads
// count in blocks (LogChecker::add_raw_block), with what must make the
// checker refuse a block and take its lines one by one: lost, repeated and
// corrupt lines, index gaps and repeats, lines without a suffix, values too
// wide to count or spread too far, more series at once than a block holds,
// RAW before BEGIN and after END, and V1 logs without suffixes.
std::string random_block_log(uint32_t seed) {
  std::mt19937 rng(seed);
  const bool v1 = seed % 5 == 0;
  std::string out;
  uint64_t seq = 0;
  auto emit = [&](const std::string& rec) {
    if (v1) {
      out += rec + "\n";
      return;
    }
    const unsigned roll = rng() % 400;
    if (roll == 0) {
      ++seq;  // a lost line
      return;
    }
    if (roll == 1) {
      out += rec + "\n";  // no suffix
      ++seq;
      return;
    }
    std::string line = rb::protocol::v2_line(rec, roll == 2 ? seq - 1 : seq);
    if (roll == 3) line[4] ^= 0x01;  // a corrupt byte
    out += line + "\n";
    if (roll != 2) ++seq;
  };
  auto raw_line = [&](const std::string& name, uint64_t first, size_t count, uint64_t base) {
    std::string r = "RAW," + name + "," + std::to_string(first);
    for (size_t i = 0; i < count; ++i) {
      uint64_t v = base + rng() % 9;
      const unsigned roll = rng() % 2000;
      if (roll == 0) v = 70000 + rng() % 1000;  // too wide for a block
      if (roll == 1) v = rng() % 65536;         // spreads the series
      // Now and then written with leading zeros to 6 digits: the general
      // parser reads it, the short path (parse_raw16) leaves the line to it.
      std::string digits = std::to_string(v);
      if (roll >= 2 && roll < 12 && digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
      r += "," + digits;
    }
    return r;
  };
  // Series names short, or of one length and told apart by their first or
  // last byte only.
  auto name = [&](size_t s) {
    switch (seed % 3) {
      case 0:
        return "s" + std::to_string(s);
      case 1:
        return std::to_string(s % 10) + "_series_name" + std::to_string(s / 10);
      default:
        return "series_name_" + std::to_string(s / 10) + std::to_string(s % 10);
    }
  };
  if (rng() % 4 == 0) emit(raw_line("early", 0, 16, 10));  // before BEGIN
  emit(v1 ? "BEGIN,RTOS_BENCH_V1" : "BEGIN,RTOS_BENCH_V2");
  emit("CONFIG,core=168000000,unit=cycles,debugger=0");
  for (int test = 0; test < 3; ++test) {
    emit("TEST,t" + std::to_string(test));
    const size_t series = 1 + rng() % 11;  // more than a block's 8 at times
    std::vector<uint64_t> next(series, 0);
    const size_t rounds = 20 + rng() % 400;
    for (size_t round = 0; round < rounds; ++round) {
      for (size_t s = 0; s < series; ++s) {
        if (rng() % 7 == 0) continue;  // series interleave unevenly
        size_t count = 16;
        const unsigned roll = rng() % 300;
        if (roll < 20) count = 1 + rng() % 16;
        if (roll == 20) count = 17;  // more than a line may carry
        uint64_t first = next[s];
        if (roll == 21) first += 3;                       // index gap
        if (roll == 22 && first >= 16) first -= 16;       // repeated samples
        emit(raw_line(name(s), first, count, 30 + 100 * s));
        next[s] = first + count;
      }
    }
    for (size_t s = 0; s < series; ++s) {
      if (rng() % 3 == 0) continue;  // RAW without RESULT
      emit("RESULT," + name(s) + ",n=" + std::to_string(next[s]) + ",hz=168000000");
    }
  }
  if (rng() % 3 != 0) emit(v1 ? "END,RTOS_BENCH_V1" : "END,RTOS_BENCH_V2");
  if (rng() % 4 == 0) emit(raw_line("late", 0, 16, 10));  // after END
  return out;
}

TEST(ParallelVerify, RandomBlockLogsGiveTheSequentialReport) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    TempFile f(random_block_log(seed));
    expect_same_reports(f.path(), {1, 500, 4096, 65536, 1 << 20});
  }
}

TEST(ParallelVerify, LinesWithoutLineFeedsAndHugeLines) {
  // Only CRs; one line of 3 MB; CR LF pairs everywhere; nothing but line ends.
  const std::string valid = rb::testlog::valid_log().str(true, "\n");
  std::string cr_only = valid;
  for (char& c : cr_only) {
    if (c == '\n') c = '\r';
  }
  std::string crlf;
  for (char c : valid) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  for (const std::string& bytes :
       {cr_only, crlf, std::string(3 << 20, 'a') + "\n" + valid, valid + std::string(3 << 20, 'a'),
        std::string(100000, '\n'), std::string(100000, '\r'), std::string("\r\n", 2)}) {
    TempFile f(bytes);
    expect_same_reports(f.path(), {1, 5, 4096, 65536});
  }
}

TEST(ParallelVerify, NextLineStartFindsTheSequentialReadersBoundaries) {
  //                  0123 4 5678 9 0 1234
  const std::string s = "ab\r\ncd\re\n\nfg\r";
  TempFile f(s);
  auto file = rb::InputFile::open(f.path());
  ASSERT_TRUE(file.ok());
  const uint64_t size = s.size();
  auto at = [&](uint64_t from, uint64_t limit = UINT64_MAX) {
    auto r = rb::verify::next_line_start(*file, size, from, limit);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : 0;
  };
  EXPECT_EQ(at(1), 4u);   // after "ab\r\n", not between CR and LF
  EXPECT_EQ(at(3), 4u);
  EXPECT_EQ(at(4), 4u);   // byte 3 is LF: 4 is a line start
  EXPECT_EQ(at(5), 7u);   // "cd\r" then 'e': a lone CR ends the line
  EXPECT_EQ(at(8), 9u);
  EXPECT_EQ(at(10), 10u); // an empty line starts at 10
  EXPECT_EQ(at(11), 13u); // "fg\r" at the end: the end of the file
  EXPECT_EQ(at(5, 6), 6u);  // none before the limit
}

TEST(ParallelVerify, ThreadsOptionPicksTheReader) {
  Options o;
  o.threads = 1;
  EXPECT_EQ(rb::verify::parsing_threads(o), 1u);
  o.threads = 0;
  EXPECT_GE(rb::verify::parsing_threads(o), 1u);
}

}  // namespace
