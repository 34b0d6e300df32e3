#pragma once
// Typed views of the protocol records other than RAW (docs/protocol.md
// section 2). These lines are rare (a few per series), so the decoders favour
// clear error messages over speed. Every view points into the ParsedLine's
// line and is valid as long as it is.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/line.h"
#include "util/result.h"

namespace rb::protocol {

struct BeginRecord {
  std::string_view protocol;  // "RTOS_BENCH_V1", "RTOS_BENCH_V2", or what the line says
};

struct PhaseRecord {
  std::string_view name;
  uint64_t irq = 0, task = 0, bad = 0;
  std::string_view status;
  std::optional<uint64_t> expected;
  std::vector<Field> unknown;  // keys this reader does not know, kept for the report
};

// A RESULT: the series name and every key=value field as written.
struct ResultRecord {
  std::string_view name;
  std::vector<Field> fields;
};

struct CheckRecord {
  std::string_view name;
  uint64_t rounds = 0, pass = 0, fail = 0;
  std::string_view status;
};

struct NaRecord {
  std::string_view name;
  std::string_view reason;
};

struct EndRecord {
  std::string_view protocol;
  std::vector<Field> fields;
};

// Printable, bounded copy of log text for messages (the log may hold
// anything): every character a terminal would act on (C0, DEL, C1 such as
// CSI, the bidirectional overrides; util/utf8.h) is a '?', invalid UTF-8 a
// U+FFFD, and more than `max` bytes end in "...".
std::string printable(std::string_view s, size_t max = 80);

// Each decoder fails with a message naming the record and the missing or
// malformed field; it does not know line numbers (the caller adds them).
Result<BeginRecord> decode_begin(const ParsedLine& line);
// CONFIG: every key=value field; a positional field is an error.
Result<std::vector<Field>> decode_config(const ParsedLine& line);
Result<uint64_t> decode_dwt_read_pair(const ParsedLine& line);
Result<std::string_view> decode_test(const ParsedLine& line);
Result<PhaseRecord> decode_phase(const ParsedLine& line);
Result<ResultRecord> decode_result(const ParsedLine& line);
Result<CheckRecord> decode_check(const ParsedLine& line);
Result<NaRecord> decode_na(const ParsedLine& line);
Result<EndRecord> decode_end(const ParsedLine& line);

}  // namespace rb::protocol
