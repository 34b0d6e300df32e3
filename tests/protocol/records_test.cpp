#include "protocol/records.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace rb::protocol;

// Decoding keeps views into the line, so each test keeps its text alive.
struct Decoded {
  explicit Decoded(std::string s) : text(std::move(s)) {}
  const ParsedLine& line() { return parser.parse(text); }
  std::string text;
  LineParser parser;
};

TEST(Records, SeedThreeLinesDecodeFieldByField) {
  // Seed 003's lines verbatim (tests/data/verify/seed003.log).
  {
    Decoded d("BEGIN,RTOS_BENCH_V1");
    auto b = decode_begin(d.line());
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->protocol, "RTOS_BENCH_V1");
  }
  {
    Decoded d(
        "CONFIG,core=250000000,tick=1000,preempt=1,slicing=1,fpu=0,compiler=14.2.1 "
        "20241119,ICACHE=1");
    auto c = decode_config(d.line());
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->size(), 7u);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"core", "250000000"}, {"tick", "1000"}, {"preempt", "1"},
        {"slicing", "1"},      {"fpu", "0"},     {"compiler", "14.2.1 20241119"},
        {"ICACHE", "1"}};
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*c)[i].key, want[i].first);
      EXPECT_EQ((*c)[i].value, want[i].second);
    }
  }
  {
    Decoded d("DWT_READ_PAIR,1");
    auto v = decode_dwt_read_pair(d.line());
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v, 1u);
  }
  {
    Decoded d("PHASE,critical20us,irq=2048,task=2048,bad=0,status=OK");
    auto p = decode_phase(d.line());
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->name, "critical20us");
    EXPECT_EQ(p->irq, 2048u);
    EXPECT_EQ(p->task, 2048u);
    EXPECT_EQ(p->bad, 0u);
    EXPECT_EQ(p->status, "OK");
    EXPECT_FALSE(p->expected.has_value());
    EXPECT_TRUE(p->unknown.empty());
  }
  {
    Decoded d(
        "RESULT,event_to_task,n=2048,hz=250000000,min_ticks=463,avg_ticks=517,p99_ticks=2956,max_"
        "ticks=5456,"
        "min_ns=1852,avg_ns=2068,p99_ns=11824,max_ns=21824");
    auto r = decode_result(d.line());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->name, "event_to_task");
    const std::vector<std::pair<std::string, std::string>> want = {
        {"n", "2048"},         {"hz", "250000000"},   {"min_ticks", "463"}, {"avg_ticks", "517"},
        {"p99_ticks", "2956"}, {"max_ticks", "5456"}, {"min_ns", "1852"},   {"avg_ns", "2068"},
        {"p99_ns", "11824"},   {"max_ns", "21824"}};
    ASSERT_EQ(r->fields.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(r->fields[i].key, want[i].first);
      EXPECT_EQ(r->fields[i].value, want[i].second);
    }
  }
  {
    Decoded d("END,RTOS_BENCH_V1,heap_free=122760,min_heap=118440");
    auto e = decode_end(d.line());
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->protocol, "RTOS_BENCH_V1");
    ASSERT_EQ(e->fields.size(), 2u);
    EXPECT_EQ(e->fields[1].key, "min_heap");
    EXPECT_EQ(e->fields[1].value, "118440");
  }
}

TEST(Records, PhaseWithExpectedAndUnknownKeys) {
  Decoded d("PHASE,idle,irq=10,task=10,bad=0,status=OK,expected=10,cpu=1");
  auto p = decode_phase(d.line());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->expected, 10u);
  ASSERT_EQ(p->unknown.size(), 1u);
  EXPECT_EQ(p->unknown[0].key, "cpu");
}

TEST(Records, ErrorsNameTheRecordAndTheField) {
  struct {
    const char* line;
    const char* needle;
  } cases[] = {
      {"BEGIN", "BEGIN: the first field must be the protocol version"},
      {"BEGIN,RTOS_BENCH_V2,extra", "unexpected fields"},
      {"CONFIG,core", "'core' is not key=value"},
      {"CONFIG,a=1,a=2", "a= appears twice"},
      {"DWT_READ_PAIR,x", "'x' is not an unsigned integer"},
      {"DWT_READ_PAIR", "exactly one field"},
      {"TEST", "test name"},
      {"PHASE,idle,task=1,bad=0,status=OK", "irq= is missing"},
      {"PHASE,idle,irq=-1,task=1,bad=0,status=OK", "irq='-1' is not an unsigned integer"},
      {"PHASE,idle,irq=1,task=1,bad=0", "status= is missing"},
      {"PHASE,idle,irq=1,task=1,bad=0,status=OK,expected=lots", "expected='lots'"},
      {"RESULT,n=5", "series name"},
      {"RESULT,x,17", "'17' is not key=value"},
      {"CHECK,pi,rounds=1,pass=1,status=OK", "fail= is missing"},
      {"NA,x", "reason= is missing"},
      {"END", "protocol version"},
  };
  for (const auto& c : cases) {
    Decoded d(c.line);
    const ParsedLine& l = d.line();
    std::string msg;
    switch (l.kind) {
      case RecordKind::kBegin:
        msg = decode_begin(l).ok() ? "" : decode_begin(l).error().message;
        break;
      case RecordKind::kConfig:
        msg = decode_config(l).ok() ? "" : decode_config(l).error().message;
        break;
      case RecordKind::kDwtReadPair:
        msg = decode_dwt_read_pair(l).ok() ? "" : decode_dwt_read_pair(l).error().message;
        break;
      case RecordKind::kTest:
        msg = decode_test(l).ok() ? "" : decode_test(l).error().message;
        break;
      case RecordKind::kPhase:
        msg = decode_phase(l).ok() ? "" : decode_phase(l).error().message;
        break;
      case RecordKind::kResult:
        msg = decode_result(l).ok() ? "" : decode_result(l).error().message;
        break;
      case RecordKind::kCheck:
        msg = decode_check(l).ok() ? "" : decode_check(l).error().message;
        break;
      case RecordKind::kNa:
        msg = decode_na(l).ok() ? "" : decode_na(l).error().message;
        break;
      case RecordKind::kEnd:
        msg = decode_end(l).ok() ? "" : decode_end(l).error().message;
        break;
      default:
        msg = "not a record";
        break;
    }
    EXPECT_NE(msg.find(c.needle), std::string::npos) << c.line << " -> '" << msg << "'";
  }
}

TEST(Records, SeedFileHoldsOnlyProtocolLinesThatAllDecode) {
  std::ifstream f(std::string(RTOSBENCH_TEST_DATA) + "/verify/seed003.log");
  ASSERT_TRUE(f) << "missing tests/data/verify/seed003.log";
  std::string text;
  LineParser parser;
  int n = 0;
  while (std::getline(f, text)) {
    const ParsedLine& l = parser.parse(text);
    ++n;
    ASSERT_NE(l.kind, RecordKind::kOther) << text;
    EXPECT_EQ(l.suffix, Suffix::kAbsent) << text;
    bool ok = false;
    switch (l.kind) {
      case RecordKind::kBegin:
        ok = decode_begin(l).ok();
        break;
      case RecordKind::kConfig:
        ok = decode_config(l).ok();
        break;
      case RecordKind::kDwtReadPair:
        ok = decode_dwt_read_pair(l).ok();
        break;
      case RecordKind::kPhase:
        ok = decode_phase(l).ok();
        break;
      case RecordKind::kResult:
        ok = decode_result(l).ok();
        break;
      case RecordKind::kEnd:
        ok = decode_end(l).ok();
        break;
      default:
        break;
    }
    EXPECT_TRUE(ok) << text;
  }
  EXPECT_EQ(n, 16);
}

}  // namespace
