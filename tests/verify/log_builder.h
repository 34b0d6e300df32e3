#pragma once
// Test helper: builds protocol logs (docs/protocol.md) for the verify tests
// and for the committed test data (gen_verify_logs.cpp). RESULT fields are
// computed here with a plain std::sort and the nearest-rank formula written
// out again, not with rb::stats, so a bug there cannot hide in both places.
// The CRC is the library's; tests/data/verify/independent_v2.log pins it
// against an independent implementation (make_independent_log.py).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "protocol/line.h"

namespace rb::testlog {

struct Entry {
  std::string text;
  bool protocol = true;  // false: an other line, written verbatim (no suffix)
};

// Deterministic samples: `base` plus a small spread, with a rare spike.
inline std::vector<uint64_t> samples(uint32_t seed, size_t n, uint64_t base, uint64_t spread,
                                     uint64_t spike = 0) {
  std::mt19937 rng(seed);
  std::vector<uint64_t> v;
  v.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = base + (spread ? rng() % spread : 0);
    if (spike && rng() % 50 == 0) x += spike;
    v.push_back(x);
  }
  return v;
}

inline uint64_t ns_of(uint64_t ticks, uint64_t hz) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(ticks) * 1000000000u / hz);
}

// The RESULT record of a series, every field derived from `v`.
inline std::string result_record(const std::string& name, std::vector<uint64_t> v, uint64_t hz,
                                 std::optional<uint64_t> base = std::nullopt) {
  std::sort(v.begin(), v.end());
  const uint64_t n = v.size();
  auto pct = [&](uint64_t num, uint64_t den) {
    uint64_t rank = (num * n + den - 1) / den;  // ceil(num/den * n)
    if (rank < 1) rank = 1;
    return v[rank - 1];
  };
  unsigned __int128 sum = 0;
  for (uint64_t x : v) sum += x;
  const uint64_t avg = static_cast<uint64_t>(sum / n);
  const uint64_t avg_ns =
      static_cast<uint64_t>(sum * 1000000000u / (static_cast<unsigned __int128>(n) * hz));
  const uint64_t mn = v.front(), med = pct(50, 100), p90 = pct(90, 100), p99 = pct(99, 100),
                 p999 = pct(999, 1000), mx = v.back();
  std::string r = "RESULT," + name + ",n=" + std::to_string(n) + ",hz=" + std::to_string(hz);
  auto add = [&](const char* k, uint64_t x) {
    r += std::string(",") + k + "=" + std::to_string(x);
  };
  add("min_ticks", mn);
  add("median_ticks", med);
  add("avg_ticks", avg);
  add("p90_ticks", p90);
  add("p99_ticks", p99);
  add("p999_ticks", p999);
  add("max_ticks", mx);
  add("min_ns", ns_of(mn, hz));
  add("median_ns", ns_of(med, hz));
  add("avg_ns", avg_ns);
  add("p90_ns", ns_of(p90, hz));
  add("p99_ns", ns_of(p99, hz));
  add("p999_ns", ns_of(p999, hz));
  add("max_ns", ns_of(mx, hz));
  if (base) add("base_ticks", *base);
  return r;
}

// RAW records of a series, `per_line` values each.
inline std::vector<std::string> raw_records(const std::string& name, const std::vector<uint64_t>& v,
                                            size_t per_line = 16) {
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); i += per_line) {
    std::string r = "RAW," + name + "," + std::to_string(i);
    for (size_t k = i; k < std::min(v.size(), i + per_line); ++k) r += "," + std::to_string(v[k]);
    out.push_back(std::move(r));
  }
  return out;
}

inline uint64_t median_of(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[(50 * v.size() + 99) / 100 - 1];
}

class LogBuilder {
 public:
  LogBuilder& rec(std::string text) {
    entries.push_back(Entry{std::move(text), true});
    return *this;
  }
  LogBuilder& noise(std::string text) {
    entries.push_back(Entry{std::move(text), false});
    return *this;
  }
  LogBuilder& series(const std::string& name, const std::vector<uint64_t>& v, uint64_t hz,
                     std::optional<uint64_t> base = std::nullopt) {
    for (std::string& r : raw_records(name, v)) rec(std::move(r));
    return rec(result_record(name, v, hz, base));
  }
  // Two series whose RAW lines alternate line by line (allowed by the protocol).
  LogBuilder& interleaved(const std::string& a, const std::vector<uint64_t>& va,
                          const std::string& b, const std::vector<uint64_t>& vb, uint64_t hz,
                          std::optional<uint64_t> base) {
    auto ra = raw_records(a, va), rb = raw_records(b, vb);
    for (size_t i = 0; i < std::max(ra.size(), rb.size()); ++i) {
      if (i < ra.size()) rec(ra[i]);
      if (i < rb.size()) rec(rb[i]);
    }
    rec(result_record(a, va, hz, base));
    return rec(result_record(b, vb, hz, base));
  }

  // Index of the first entry whose text starts with `prefix` (npos if none).
  size_t find(const std::string& prefix) const {
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].text.rfind(prefix, 0) == 0) return i;
    }
    return std::string::npos;
  }

  // The log text: protocol lines framed with consecutive seq numbers when
  // `v2`, each line followed by `eol`.
  std::vector<std::string> lines(bool v2 = true) const {
    std::vector<std::string> out;
    uint64_t seq = 0;
    for (const Entry& e : entries) {
      out.push_back(e.protocol && v2 ? protocol::v2_line(e.text, seq++) : e.text);
    }
    return out;
  }
  static std::string join(const std::vector<std::string>& lines, const std::string& eol = "\r\n") {
    std::string s;
    for (const std::string& l : lines) s += l + eol;
    return s;
  }
  std::string str(bool v2 = true, const std::string& eol = "\r\n") const {
    return join(lines(v2), eol);
  }

  std::vector<Entry> entries;
};

constexpr uint64_t kHz = 168000000;

// A complete, valid V2 log as the rtosbench harness writes it: ruler,
// api_overhead, irq_latency with two phases (interleaved pair), mutex with a
// CHECK, and an NA. `samples_per_series` is also every phase's irq/task count.
inline LogBuilder valid_log(size_t samples_per_series = 40, const std::string& unit = "cycles") {
  const size_t n = samples_per_series;
  LogBuilder b;
  b.noise("rtosbench harness 0.1 (build 7f3a9c21)");
  b.noise("[boot] clocks up");
  b.rec("BEGIN,RTOS_BENCH_V2");
  b.rec(
      "CONFIG,core=168000000,core_measured=168000000,tick=1000,preempt=1,slicing=1,fpu=0,"
      "compiler=12.2.1 20221205,opt=-O2 "
      "-g0,kernel=freertos,kernel_version=10.5.1,kernel_commit=def7d2df,"
      "port=freertos,board=stm32f407-disco,harness=3fa2c0d1e4b5a697");
  b.rec("CONFIG,counter=" + std::string(unit == "instructions" ? "tim2" : "dwt") + ",unit=" + unit +
        ",debugger=0,dhcsr=0x03000000,reset_cause=por,flash_ws=5,icache=1,dcache=1,prefetch=1,"
        "fpccr=0xc0000000,warmup=1000,samples=" +
        std::to_string(n) + ",irq_prio=14,tick_prio=15,stack_words=512,nonce=7f3a9c21");
  const uint64_t hz = unit == "instructions" ? 1000000000 : kHz;
  b.rec("TEST,ruler");
  auto pair = samples(1, n, 1, 2);
  auto loop = samples(2, n, 12, 3);
  b.series("ruler_read_pair", pair, hz);
  b.series("ruler_loop", loop, hz);
  b.rec("DWT_READ_PAIR," + std::to_string(median_of(pair)));
  const uint64_t base = median_of(loop);
  b.rec("TEST,api_overhead");
  b.series("api_overhead", samples(3, n, 118, 6, 40), hz, base);
  b.rec("TEST,irq_latency");
  for (const char* phase : {"idle", "busy"}) {
    b.rec(std::string("PHASE,") + phase + ",irq=" + std::to_string(n) +
          ",task=" + std::to_string(n) + ",bad=0,status=OK");
    const uint32_t seed = phase[0] == 'i' ? 4 : 6;
    b.interleaved("irq_entry", samples(seed, n, 26, 3, 19), "event_to_task",
                  samples(seed + 1, n, 466, 5, 160), hz, base);
  }
  b.rec("TEST,mutex");
  b.series("mutex_lock_unlock", samples(8, n, 90, 4), hz, base);
  b.rec("CHECK,mutex_pi,rounds=100,pass=100,fail=0,status=OK");
  b.rec("TEST,time_slice");
  b.rec("NA,time_slice,reason=configUSE_TIME_SLICING is off in this build");
  b.rec("END,RTOS_BENCH_V2,heap_free=122760,min_heap=118440");
  b.noise("$ ");
  return b;
}

}  // namespace rb::testlog
