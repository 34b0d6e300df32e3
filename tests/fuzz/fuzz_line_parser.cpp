// libFuzzer target for the log parser: the line splitter, the line parser
// (compared on every line with the naive test-only reference in
// tests/protocol/naive_line.h) and record decoders, and the whole checker
// with its text and JSON reports.
// Built with clang++ -fsanitize=fuzzer,address,undefined when RTOSBENCH_FUZZ
// is ON (tests/fuzz/tests.cmake). Besides "no crash, no hang, no leak" it
// checks invariants that must hold for any input, aborting when one breaks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../protocol/naive_line.h"
#include "protocol/line.h"
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
  const rb::stats::Summary a = acc.summarize();
  const rb::stats::Summary b = rb::stats::summarize(all);
  require(a.n == b.n && a.min == b.min && a.max == b.max && a.median == b.median &&
              a.p90 == b.p90 && a.p99 == b.p99 && a.p999 == b.p999 && a.sum == b.sum &&
              a.avg_ticks == b.avg_ticks,
          "accumulator equals summarize");
}

}  // namespace

// LineParser::parse reads `text` as the naive test-only reference does:
// the same suffix, record, kind, fields, RAW name, numbers and error.
void check_against_naive(std::string_view text, const rb::protocol::ParsedLine& p) {
  using rb::testing::NaiveLine;
  const NaiveLine want = rb::testing::naive_parse(std::string(text));
  require(static_cast<int>(p.suffix) == static_cast<int>(want.suffix), "naive: suffix");
  require(p.record == want.record, "naive: record");
  if (want.suffix == NaiveLine::Suffix::kValid || want.suffix == NaiveLine::Suffix::kBadCrc) {
    require(
        p.seq == want.seq && p.crc_given == want.crc_given && p.crc_computed == want.crc_computed,
        "naive: seq and CRCs");
  }
  require(std::string(p.kind == rb::protocol::RecordKind::kOther
                          ? ""
                          : rb::protocol::to_string(p.kind)) == want.kind,
          "naive: kind");
  if (p.kind == rb::protocol::RecordKind::kRaw) {
    require((p.error == nullptr) == (want.raw_error == NaiveLine::RawError::kNone),
            "naive: RAW error");
    if (p.error == nullptr) {
      require(p.raw_name == want.raw_name, "naive: RAW name");
      require(
          want.raw_numbers.size() == p.raw_values.size() + 1 &&
              p.raw_first == want.raw_numbers[0] &&
              std::equal(p.raw_values.begin(), p.raw_values.end(), want.raw_numbers.begin() + 1),
          "naive: RAW numbers");
    }
  } else if (p.kind != rb::protocol::RecordKind::kOther) {
    require(p.fields.size() == want.fields.size(), "naive: field count");
    for (size_t i = 0; i < want.fields.size(); ++i) {
      require(p.fields[i].key == want.fields[i].first && p.fields[i].value == want.fields[i].second,
              "naive: fields");
    }
  }
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
    check_against_naive(line.text, parsed);
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
  // than the reader's limit above reach the parser here).
  if (input.find_first_of("\r\n") == std::string_view::npos) {
    check_against_naive(input, parser.parse(input));
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

  check_accumulator(input);
  return 0;
}
