// libFuzzer target for the log parser: the line splitter, the line parser
// and record decoders, and the whole checker with its text and JSON reports.
// Built with clang++ -fsanitize=fuzzer,address,undefined when RTOSBENCH_FUZZ
// is ON (tests/fuzz/tests.cmake). Besides "no crash, no hang, no leak" it
// checks invariants that must hold for any input, aborting when one breaks.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/line.h"
#include "protocol/raw16_avx512.h"
#include "protocol/records.h"
#include "stats/accumulator.h"
#include "stats/summary.h"
#include "util/line_reader.h"
#include "verify/verify.h"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

void decode_all(const rb::protocol::ParsedLine& l) {
  using rb::protocol::RecordKind;
  switch (l.kind) {
    case RecordKind::kBegin:
      (void)rb::protocol::decode_begin(l);
      break;
    case RecordKind::kConfig:
      (void)rb::protocol::decode_config(l);
      break;
    case RecordKind::kDwtReadPair:
      (void)rb::protocol::decode_dwt_read_pair(l);
      break;
    case RecordKind::kTest:
      (void)rb::protocol::decode_test(l);
      break;
    case RecordKind::kPhase:
      (void)rb::protocol::decode_phase(l);
      break;
    case RecordKind::kResult:
      (void)rb::protocol::decode_result(l);
      break;
    case RecordKind::kCheck:
      (void)rb::protocol::decode_check(l);
      break;
    case RecordKind::kNa:
      (void)rb::protocol::decode_na(l);
      break;
    case RecordKind::kEnd:
      (void)rb::protocol::decode_end(l);
      break;
    case RecordKind::kRaw:
      require((l.error == nullptr) == !l.raw_values.empty(), "RAW: values exactly when no error");
      break;
    case RecordKind::kOther:
      break;
  }
}

// The histogram accumulator must give exactly what summarize() gives, for any
// values: the input's bytes as samples, repeated past the list limit.
void check_accumulator(std::string_view input) {
  if (input.size() < 2) return;
  std::vector<uint64_t> values;
  for (size_t i = 0; i + 1 < input.size(); i += 2) {
    uint64_t v = static_cast<unsigned char>(input[i]) |
                 (uint64_t{static_cast<unsigned char>(input[i + 1])} << 8);
    if ((v & 0xF000) == 0xF000) v <<= 40;  // now and then far outside any band
    values.push_back(v);
  }
  rb::stats::SampleAccumulator acc;
  std::vector<uint64_t> all;
  while (all.size() <= rb::stats::SampleAccumulator::kListLimit + 100) {
    acc.add(values);
    all.insert(all.end(), values.begin(), values.end());
  }
  std::vector<uint64_t> scratch;
  const rb::stats::Summary a = acc.summarize(scratch);
  const rb::stats::Summary b = rb::stats::summarize(all, scratch);
  require(a.n == b.n && a.min == b.min && a.max == b.max && a.median == b.median &&
              a.p90 == b.p90 && a.p99 == b.p99 && a.p999 == b.p999 && a.sum == b.sum &&
              a.avg_ticks == b.avg_ticks,
          "accumulator equals summarize");
}

}  // namespace

// One reading of a line by parse_raw16 (or one of its paths): refused, or
// what LineParser::parse read.
void check_raw16_reading(bool ok, std::string_view text, const rb::protocol::ParsedLine& parsed,
                         const uint16_t* out, const rb::protocol::Raw16& r) {
  if (!ok) return;
  require(parsed.kind == rb::protocol::RecordKind::kRaw && parsed.error == nullptr,
          "parse_raw16 takes only well-formed RAW");
  require(parsed.suffix == r.suffix && parsed.raw_name == r.name && parsed.raw_first == r.first,
          "parse_raw16 suffix, name and first index");
  require(parsed.suffix != rb::protocol::Suffix::kValid || parsed.seq == r.seq, "parse_raw16 seq");
  require(parsed.raw_values.size() == r.count && r.count <= 16, "parse_raw16 value count");
  uint16_t lo = UINT16_MAX, hi = 0;
  for (size_t i = 0; i < r.count; ++i) {
    require(parsed.raw_values[i] == out[i], "parse_raw16 values");
    lo = std::min(lo, out[i]);
    hi = std::max(hi, out[i]);
  }
  require(r.lo == lo && r.hi == hi, "parse_raw16 minimum and maximum");
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    require(u >= 0x20 && u != 0x7f, "parse_raw16 takes no line with a control byte");
  }
}

// parse_raw16, its SSE path alone, and Raw16Readers that live across
// inputs (so lines meet layouts learned from earlier ones; one of them with
// AVX2 at most and bytes to read past the line) each refuse the line or
// read what LineParser::parse read.
void check_raw16(std::string_view text, const rb::protocol::ParsedLine& parsed) {
  static rb::protocol::Raw16Reader reader;
  uint16_t out[16 + 8];
  rb::protocol::Raw16 r;
  bool ok = rb::protocol::parse_raw16(text, out, 16, r);
  check_raw16_reading(ok, text, parsed, out, r);
  r = {};
  ok = rb::protocol::detail::parse_raw16_sse(text, out, 16, r);
  check_raw16_reading(ok, text, parsed, out, r);
  r = {};
  ok = reader.read(text, out, 16, r);
  check_raw16_reading(ok, text, parsed, out, r);
  // A reader that may read 128 bytes past the line and uses AVX2 at most.
  static rb::protocol::Raw16Reader avx2_reader;
  static std::string buffer;
  buffer.assign(text);
  buffer.append(128, ',');
  namespace d = rb::protocol::detail;
  const bool avx512 = d::raw16_avx512_enabled();
  d::use_raw16_avx512(false);
  r = {};
  ok = avx2_reader.read(std::string_view(buffer.data(), text.size()),
                        buffer.data() + buffer.size(), out, 16, r);
  d::use_raw16_avx512(avx512);
  check_raw16_reading(ok, std::string_view(buffer.data(), text.size()), parsed, out, r);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  // Split with a tiny buffer and line limit so that every boundary case of
  // the reader is reached; account for every byte.
  rb::MemorySource source(input);
  rb::LineReader::Options opt;
  opt.max_line = 64;
  opt.buffer = 1 + (size % 97);
  rb::LineReader reader(source, opt);
  rb::protocol::LineParser parser;
  rb::Line line;
  uint64_t bytes_in_lines = 0, lines = 0;
  while (reader.next(line)) {
    ++lines;
    require(line.number == lines, "line numbers are consecutive");
    require(line.overlong ? line.text.empty() : line.text.size() == line.length, "text length");
    bytes_in_lines += line.length;
    const auto& parsed = parser.parse(line.text);
    decode_all(parsed);
    check_raw16(line.text, parsed);
    // Framing any record and parsing it back gives the record and a valid CRC.
    if (!line.overlong && !line.control && line.text.find('|') == std::string_view::npos) {
      const std::string framed = rb::protocol::v2_line(line.text, line.number);
      const auto& back = parser.parse(framed);
      require(back.suffix == rb::protocol::Suffix::kValid, "framed line has a valid suffix");
      require(back.seq == line.number, "framed seq round trip");
      require(back.record == line.text, "framed record round trip");
    }
  }
  // The whole input as one line, when it holds no line end (lines longer
  // than the reader's limit above reach parse_raw16's widest path here).
  if (input.find_first_of("\r\n") == std::string_view::npos) {
    check_raw16(input, parser.parse(input));
  }
  require(reader.status().ok(), "memory source never fails");
  require(reader.bytes_consumed() == size, "every byte read");
  require(bytes_in_lines <= size, "lines hold no more bytes than the input");

  // The whole checker, and both reports of whatever it found.
  std::istringstream in{std::string(input)};
  rb::verify::Options vopt;
  vopt.expect["core"] = "168000000";
  vopt.read_buffer = 4096;
  const rb::verify::Report report = rb::verify::verify_stream(in, vopt);
  rb::verify::Outcome worst = rb::verify::Outcome::kValid;
  for (const auto& v : report.verdicts) worst = rb::verify::worst(worst, v.severity);
  require(rb::verify::worst(worst, report.outcome) == report.outcome,
          "outcome covers every verdict");
  require(report.lines <= size + 1, "no more lines than bytes");
  (void)rb::verify::to_text(report);
  (void)rb::verify::to_json(report).dump();  // throws (and so aborts) on invalid UTF-8

  // The parallel reader cuts the file into pieces at line ends; with pieces
  // of a few bytes every cut is tried, and the report must not change. (At
  // most ~64 pieces, and only for every fourth input size: the threads cost
  // more than the rest of this function.)
  if (size >= 2 && size % 4 == 0) {
    const int fd = ::memfd_create("rb_fuzz", MFD_CLOEXEC);
    require(fd >= 0, "memfd_create");
    require(::write(fd, data, size) == static_cast<ssize_t>(size), "write to memfd");
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    rb::verify::Options seq = vopt, par = vopt;
    seq.threads = 1;
    par.threads = 2;
    par.chunk = std::max<size_t>(1 + size % 13, size / 64);
    auto a = rb::verify::verify_file(path, seq);
    auto b = rb::verify::verify_file(path, par);
    ::close(fd);
    require(a.ok() && b.ok(), "a memfd is readable");
    require(rb::verify::to_json(*a).dump() == rb::verify::to_json(*b).dump(),
            "the parallel reader gives the sequential report");
  }

  check_accumulator(input);
  return 0;
}
