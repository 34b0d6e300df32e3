// Writes the generated verify test logs into a directory:
//   gen_verify_logs DIR
// Each log is the valid V2 log of log_builder.h with one defect; the expected
// verdicts are hand-written in tests/data/verify/cases.tsv, not here.
// Regenerate the committed copies with `cmake --build BUILD --target
// regen_verify_data` (see docs/verify.md); the test verify_data_up_to_date
// fails when they drift.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include "log_builder.h"

using rb::testlog::LogBuilder;
using rb::testlog::valid_log;

namespace {

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  if (at == std::string::npos) {
    std::cerr << "gen_verify_logs: '" << from << "' not found\n";
    std::exit(1);
  }
  return s.replace(at, from.size(), to);
}

// Replaces `from` by `to` in the first record that starts with `prefix`.
LogBuilder edit(LogBuilder b, const std::string& prefix, const std::string& from,
                const std::string& to) {
  size_t i = b.find(prefix);
  if (i == std::string::npos) {
    std::cerr << "gen_verify_logs: no record starts with '" << prefix << "'\n";
    std::exit(1);
  }
  b.entries[i].text = replace_once(b.entries[i].text, from, to);
  return b;
}

LogBuilder erase(LogBuilder b, const std::string& prefix) {
  size_t i = b.find(prefix);
  if (i == std::string::npos) std::exit(1);
  b.entries.erase(b.entries.begin() + static_cast<std::ptrdiff_t>(i));
  return b;
}

LogBuilder insert_before(LogBuilder b, const std::string& prefix, rb::testlog::Entry e) {
  size_t i = b.find(prefix);
  if (i == std::string::npos) std::exit(1);
  b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(i), std::move(e));
  return b;
}

// Index of the line (after framing) that starts with `prefix`.
size_t line_index(const std::vector<std::string>& lines, const std::string& prefix) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind(prefix, 0) == 0) return i;
  }
  std::cerr << "gen_verify_logs: no line starts with '" << prefix << "'\n";
  std::exit(1);
}

std::string field_value(const std::string& record, const std::string& key) {
  size_t at = record.find("," + key + "=");
  size_t start = at + key.size() + 2;
  return record.substr(start, record.find_first_of(",|", start) - start);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gen_verify_logs DIR\n";
    return 64;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream f(dir / name, std::ios::binary);
    f << text;
    if (!f) {
      std::cerr << "gen_verify_logs: cannot write " << (dir / name) << "\n";
      std::exit(1);
    }
  };

  const LogBuilder base = valid_log();
  write("valid_v2.log", base.str());
  write("valid_v2_instructions.log", valid_log(40, "instructions").str());

  // Line ends: LF, CRLF and lone CR mixed in one capture.
  {
    auto lines = base.lines();
    std::string s;
    const char* eols[] = {"\n", "\r\n", "\r"};
    for (size_t i = 0; i < lines.size(); ++i) s += lines[i] + eols[i % 3];
    write("mixed_line_ends.log", s);
  }

  // V1 with RAW: re-derived, but no line integrity.
  {
    LogBuilder v1;
    v1.rec("BEGIN,RTOS_BENCH_V1");
    v1.rec("CONFIG,core=250000000,tick=1000,preempt=1,slicing=1,fpu=0,compiler=14.2.1 20241119");
    v1.rec("PHASE,idle,irq=40,task=40,bad=0,status=OK");
    v1.interleaved("irq_entry", rb::testlog::samples(11, 40, 26, 2, 19), "event_to_task",
                   rb::testlog::samples(12, 40, 466, 3, 166), 250000000, std::nullopt);
    v1.rec("END,RTOS_BENCH_V1,heap_free=122760,min_heap=118440");
    write("v1_with_raw.log", v1.str(false, "\n"));
  }

  // ---- BEGIN / END --------------------------------------------------------
  write("begin_missing.log", LogBuilder::join([&] {
          auto l = base.lines();
          l.erase(l.begin() + static_cast<std::ptrdiff_t>(line_index(l, "BEGIN,")));
          return l;
        }()));
  {
    auto l = base.lines();
    l.resize(line_index(l, "END,"));
    write("end_missing.log", LogBuilder::join(l));
    // Cut inside the last line: no line end, half a record.
    std::string s = LogBuilder::join(l);
    s.resize(s.size() - 30);
    write("truncated_mid_line.log", s);
  }
  write("end_mismatch.log", edit(base, "END,", "END,RTOS_BENCH_V2", "END,RTOS_BENCH_V1").str());
  write("empty.log", "");
  write("protocol_version.log", edit(edit(base, "BEGIN,", "V2", "V3"), "END,", "V2", "V3").str());
  {
    // The target reset mid-run: a second BEGIN (seq 0 again) before END.
    auto l = base.lines();
    size_t at = line_index(l, "TEST,mutex");
    std::vector<std::string> head(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(at));
    std::vector<std::string> again(l.begin() + static_cast<std::ptrdiff_t>(line_index(l, "BEGIN,")),
                                   l.end());
    head.insert(head.end(), again.begin(), again.end());
    write("begin_repeated.log", LogBuilder::join(head));
  }
  {
    LogBuilder b = base;
    b.entries.insert(b.entries.end() - 1, rb::testlog::Entry{"CONFIG,late=1", true});
    write("after_end.log", b.str());
  }

  // ---- integrity -------------------------------------------------------------
  {
    auto l = base.lines();
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(line_index(l, "CHECK,")));
    write("seq_gap.log", LogBuilder::join(l));
  }
  {
    auto l = base.lines();
    size_t i = line_index(l, "RAW,api_overhead,16,");
    l.insert(l.begin() + static_cast<std::ptrdiff_t>(i) + 1, l[i]);
    write("seq_duplicate.log", LogBuilder::join(l));
  }
  {
    auto l = base.lines();
    size_t i = line_index(l, "NA,");
    l[i] = replace_once(l[i], "is off", "is of");  // one byte lost; CRC unchanged
    write("bad_crc.log", LogBuilder::join(l));
  }
  write(
      "suffix_missing.log",
      insert_before(base, "TEST,api_overhead", rb::testlog::Entry{"CONFIG,extra=1", false}).str());
  {
    auto l = base.lines();
    size_t i = line_index(l, "CHECK,");
    l[i] = l[i].substr(0, l[i].size() - 8) + "DEADBEEF";  // uppercase hex is not a suffix
    write("suffix_malformed.log", LogBuilder::join(l));
  }
  {
    // A NUL inside a RAW line makes it noise: the line and its samples are lost.
    auto l = base.lines();
    size_t i = line_index(l, "RAW,mutex_lock_unlock,16,");
    l[i][10] = '\0';
    write("nul_in_line.log", LogBuilder::join(l));
  }
  {
    // Garbage: binary bytes, NULs, a lone CR, no protocol lines.
    std::string g;
    uint32_t x = 12345;
    for (int i = 0; i < 3000; ++i) {
      x = x * 1103515245u + 12345u;
      g.push_back(static_cast<char>((x >> 16) & 0xFF));
    }
    write("garbage.log", g);
  }

  // ---- RAW and RESULT --------------------------------------------------------
  {
    std::string rec = base.entries[base.find("RESULT,api_overhead,")].text;
    const uint64_t p99 = std::stoull(field_value(rec, "p99_ticks"));
    write("result_mismatch.log",
          edit(base, "RESULT,api_overhead,", ",p99_ticks=" + std::to_string(p99) + ",",
               ",p99_ticks=" + std::to_string(p99 + 1) + ",")
              .str());
  }
  {
    std::string rec = base.entries[base.find("RESULT,mutex_lock_unlock,")].text;
    const uint64_t avg_ns = std::stoull(field_value(rec, "avg_ns"));
    write("result_mismatch_ns.log",
          edit(base, "RESULT,mutex_lock_unlock,", ",avg_ns=" + std::to_string(avg_ns) + ",",
               ",avg_ns=" + std::to_string(avg_ns + 1) + ",")
              .str());
  }
  write("raw_index_gap.log", erase(base, "RAW,api_overhead,16,").str());
  {
    LogBuilder b = base;
    size_t i = b.find("RAW,api_overhead,16,");
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(i) + 1, b.entries[i]);
    write("raw_index_duplicate.log", b.str());
  }
  write("raw_without_result.log", erase(base, "RESULT,mutex_lock_unlock,").str());
  {
    // 17 values on one line: join the first two RAW lines of api_overhead.
    LogBuilder b = base;
    size_t i = b.find("RAW,api_overhead,0,");
    std::string second = b.entries[i + 1].text;
    second = second.substr(std::string("RAW,api_overhead,16,").size());
    b.entries[i].text += "," + second.substr(0, second.find(','));
    b.entries[i + 1].text = "RAW,api_overhead,17," + second.substr(second.find(',') + 1);
    write("raw_too_many_values.log", b.str());
  }
  {
    // A RESULT without RAW (unverified), in an otherwise valid V2 log.
    LogBuilder b = base;
    size_t i;
    while ((i = b.find("RAW,mutex_lock_unlock,")) != std::string::npos) {
      b.entries.erase(b.entries.begin() + static_cast<std::ptrdiff_t>(i));
    }
    write("unverified_v2.log", b.str());
  }
  {
    // Every sample 0: the counter was not running (DWT under QEMU).
    LogBuilder b = base;
    std::vector<uint64_t> zeros(40, 0);
    for (size_t i; (i = b.find("RAW,mutex_lock_unlock,")) != std::string::npos;) {
      b.entries.erase(b.entries.begin() + static_cast<std::ptrdiff_t>(i));
    }
    size_t r = b.find("RESULT,mutex_lock_unlock,");
    std::string base_ticks = field_value(b.entries[r].text, "base_ticks");
    b.entries.erase(b.entries.begin() + static_cast<std::ptrdiff_t>(r));
    std::vector<rb::testlog::Entry> add;
    for (auto& raw : rb::testlog::raw_records("mutex_lock_unlock", zeros))
      add.push_back({raw, true});
    add.push_back({rb::testlog::result_record("mutex_lock_unlock", zeros, rb::testlog::kHz,
                                              std::stoull(base_ticks)),
                   true});
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(r), add.begin(), add.end());
    write("zero_counter.log", b.str());
  }
  write("baseline_mismatch.log", [&] {
    std::string rec = base.entries[base.find("RESULT,api_overhead,")].text;
    std::string bt = field_value(rec, "base_ticks");
    return edit(base, "RESULT,api_overhead,", ",base_ticks=" + bt,
                ",base_ticks=" + std::to_string(std::stoull(bt) + 1))
        .str();
  }());
  // Named baselines (base=): a two-call ruler series and the series that
  // subtract it; the same log with a wrong base_ticks, and with base= naming
  // a series that is not a ruler series.
  auto named_base = [&](const std::string& api_base) {
    LogBuilder b = base;
    const size_t at = b.find("RESULT,ruler_loop,") + 1;
    const auto loop2 = rb::testlog::samples(9, 40, 20, 3);
    LogBuilder add;
    add.series("ruler_loop2", loop2, rb::testlog::kHz);
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(at), add.entries.begin(),
                     add.entries.end());
    const std::string m2 = std::to_string(rb::testlog::median_of(loop2));
    for (const char* s : {"RESULT,api_overhead,", "RESULT,mutex_lock_unlock,"}) {
      const std::string bt = field_value(b.entries[b.find(s)].text, "base_ticks");
      const std::string want = std::string(s) == "RESULT,api_overhead," ? api_base : "ruler_loop2";
      const std::string ticks = want == "ruler_loop" ? bt : m2;
      b = edit(b, s, ",base_ticks=" + bt, ",base_ticks=" + ticks + ",base=" + want);
    }
    return b;
  };
  write("baseline_named.log", named_base("ruler_loop2").str());
  write("baseline_named_mismatch.log", [&] {
    // api_overhead names ruler_loop2 but carries ruler_loop's median.
    LogBuilder b = named_base("ruler_loop");
    return edit(b, "RESULT,api_overhead,", ",base=ruler_loop", ",base=ruler_loop2").str();
  }());
  write("baseline_not_ruler.log", edit(named_base("ruler_loop2"), "RESULT,api_overhead,",
                                       ",base=ruler_loop2", ",base=no_such_series")
                                      .str());
  // base= naming another series of the log with its median (tick_overhead's
  // irq_dispatch over tick_irq_empty): valid without the harness test table,
  // which would name the one allowed.
  write("baseline_other_series.log", [&] {
    LogBuilder b = named_base("ruler_loop2");
    const std::string m =
        field_value(b.entries[b.find("RESULT,mutex_lock_unlock,")].text, "median_ticks");
    const std::string bt =
        field_value(b.entries[b.find("RESULT,api_overhead,")].text, "base_ticks");
    b = edit(b, "RESULT,api_overhead,", ",base_ticks=" + bt, ",base_ticks=" + m);
    return edit(b, "RESULT,api_overhead,", ",base=ruler_loop2", ",base=mutex_lock_unlock").str();
  }());
  // The heap test's allocation counts (RESULT calls=, refused=; issue 29):
  // 40 timed samples of 45 calls, 2 refused, is valid (a golden report shows
  // them); refused above calls, more samples than served calls, or calls
  // without refused are protocol errors (check `calls`).
  auto heap = [&](const std::string& counts) {
    LogBuilder b = base;
    const size_t at = b.find("TEST,time_slice");
    LogBuilder add;
    add.rec("TEST,heap");
    add.series("heap_alloc_mixed", rb::testlog::samples(20, 40, 60, 8), rb::testlog::kHz);
    add.entries.back().text += counts;
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(at), add.entries.begin(),
                     add.entries.end());
    return b;
  };
  write("heap_calls.log", heap(",calls=45,refused=2").str());
  write("heap_calls_refused_above.log", heap(",calls=45,refused=46").str());
  write("heap_calls_too_few.log", heap(",calls=41,refused=2").str());
  write("heap_calls_half.log", heap(",calls=45").str());
  write("malformed_phase.log", edit(base, "PHASE,busy,", ",task=", ",tsk=").str());
  {
    // round_trip against its own ruler series, ruler_round, and its pairing
    // CHECK failing: one sample's take of BACK returned without the
    // partner's round in it (issue 29).
    LogBuilder b = base;
    const size_t at = b.find("RESULT,ruler_loop,") + 1;
    const auto round = rb::testlog::samples(11, 40, 22, 2);
    LogBuilder add;
    add.series("ruler_round", round, rb::testlog::kHz);
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(at), add.entries.begin(),
                     add.entries.end());
    const uint64_t m = rb::testlog::median_of(round);
    LogBuilder rt;
    rt.rec("TEST,round_trip");
    rt.series("round_trip", rb::testlog::samples(12, 40, 230, 4, 100), rb::testlog::kHz, m);
    rt.entries.back().text += ",base=ruler_round";
    rt.rec("CHECK,round_trip_pairing,rounds=40,pass=39,fail=1,status=FAIL");
    const size_t before = b.find("TEST,time_slice");
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(before), rt.entries.begin(),
                     rt.entries.end());
    write("round_trip_pairing.log", b.str());
  }

  // ---- measurement validity ---------------------------------------------------
  write("phase_irq_task.log", edit(base, "PHASE,busy,", ",task=40,", ",task=39,").str());
  write("phase_bad.log", edit(base, "PHASE,busy,", ",bad=0,", ",bad=2,").str());
  write("phase_status.log", edit(base, "PHASE,busy,", ",status=OK", ",status=TIMEOUT").str());
  write("phase_declared.log", edit(edit(base, "PHASE,idle,", ",irq=40,", ",irq=38,"), "PHASE,idle,",
                                   ",task=40,", ",task=38,")
                                  .str());
  {
    // irq_entry and event_to_task of one phase with different counts; the
    // PHASE declares its count with expected= so only the pairing fails.
    LogBuilder b = edit(base, "PHASE,idle,", ",status=OK", ",status=OK,expected=40");
    size_t last = std::string::npos;
    for (size_t i = 0; i < b.entries.size(); ++i) {
      if (b.entries[i].text.rfind("RAW,event_to_task,32,", 0) == 0) {
        last = i;
        break;
      }
    }
    std::vector<uint64_t> ev = rb::testlog::samples(5, 40, 466, 5, 160);
    ev.pop_back();
    b.entries[last] = {rb::testlog::raw_records("event_to_task", ev).back(), true};
    size_t r = b.find("RESULT,event_to_task,");
    b.entries[r].text =
        rb::testlog::result_record("event_to_task", ev, rb::testlog::kHz,
                                   std::stoull(field_value(b.entries[r].text, "base_ticks")));
    write("paired_counts.log", b.str());
  }
  write("debugger.log", edit(edit(base, "CONFIG,counter=", ",debugger=0,", ",debugger=1,"),
                             "CONFIG,counter=", ",dhcsr=0x03000000,", ",dhcsr=0x03030001,")
                            .str());
  write("check_failed.log",
        edit(base, "CHECK,", ",pass=100,fail=0,status=OK", ",pass=97,fail=3,status=FAIL").str());
  {
    // A tickless build's tick_drift (issue 29 item 9): 40 sleeps of 8 ticks
    // at kHz, 1000 Hz, each 1344010 counter ticks (7 ppm ahead), and the
    // CHECK's drift_ppm= disagreeing with tick_sleep's RAW samples.
    LogBuilder b = base;
    LogBuilder td;
    td.rec("TEST,tick_drift");
    td.series("tick_sleep", std::vector<uint64_t>(40, 1344010), rb::testlog::kHz);
    td.rec(
        "CHECK,tick_drift,rounds=40,pass=40,fail=0,status=OK,sleep=8,step=8,uneven=0,"
        "ticks=320,elapsed=53760400,nominal=53760000,drift_ppm=0");
    const size_t before = b.find("TEST,time_slice");
    b.entries.insert(b.entries.begin() + static_cast<std::ptrdiff_t>(before), td.entries.begin(),
                     td.entries.end());
    write("tickless_drift.log", b.str());
  }
  write("config_conflict.log",
        insert_before(base, "TEST,ruler", rb::testlog::Entry{"CONFIG,tick=100", true}).str());
  return 0;
}
