#include "protocol/records.h"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "util/decimal.h"
#include "util/utf8.h"

namespace rb::protocol {
namespace {

std::string quoted(std::string_view s) {
  return "'" + printable(s, 60) + "'";
}

Error fail(RecordKind kind, const std::string& what) {
  return Error{std::string(to_string(kind)) + ": " + what};
}

// The first positional field, which names the record's subject.
Result<std::string_view> name_field(const ParsedLine& line, const char* what) {
  if (line.fields.empty() || !line.fields[0].key.empty() || line.fields[0].value.empty()) {
    return fail(line.kind, std::string("the first field must be the ") + what);
  }
  return line.fields[0].value;
}

const Field* find(std::span<const Field> fields, std::string_view key) {
  for (const Field& f : fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

Result<uint64_t> number_field(const ParsedLine& line, std::string_view key) {
  const Field* f = find(line.fields, key);
  if (f == nullptr) return fail(line.kind, "field " + std::string(key) + "= is missing");
  auto v = parse_u64(f->value);
  if (!v)
    return fail(line.kind, "field " + std::string(key) + "=" + quoted(f->value) +
                               " is not an unsigned integer");
  return *v;
}

// No key may appear twice in one record: which one would count?
Status no_repeated_keys(const ParsedLine& line) {
  for (size_t i = 0; i < line.fields.size(); ++i) {
    if (line.fields[i].key.empty()) continue;
    for (size_t j = i + 1; j < line.fields.size(); ++j) {
      if (line.fields[i].key == line.fields[j].key) {
        return fail(line.kind, "key " + std::string(line.fields[i].key) + "= appears twice");
      }
    }
  }
  return {};
}

// The name field of a record whose other fields are key=value, none twice.
Result<std::string_view> keyed_record_name(const ParsedLine& line, const char* what) {
  auto n = name_field(line, what);
  if (!n) return n.error();
  if (auto s = no_repeated_keys(line); !s) return s.error();
  return *n;
}

// The value of `key`, which must be present and not empty.
Result<std::string_view> text_field(const ParsedLine& line, std::string_view key) {
  const Field* f = find(line.fields, key);
  if (f == nullptr || f->value.empty())
    return fail(line.kind, "field " + std::string(key) + "= is missing");
  return f->value;
}

// The fields after the name, each key=value; those whose key is not in
// `known` go to `out` (kept, not checked).
Status other_fields(const ParsedLine& line, std::initializer_list<std::string_view> known,
                    std::vector<Field>& out) {
  for (size_t i = 1; i < line.fields.size(); ++i) {
    const Field& f = line.fields[i];
    if (f.key.empty()) return fail(line.kind, "field " + quoted(f.value) + " is not key=value");
    if (std::find(known.begin(), known.end(), f.key) == known.end()) out.push_back(f);
  }
  return {};
}

}  // namespace

std::string printable(std::string_view s, size_t max) {
  const std::string v = valid_utf8(s.substr(0, max));
  std::string out;
  for (size_t i = 0; i < v.size();) {
    const size_t len = terminal_control_at(v, i);
    out += len ? "?" : v.substr(i, 1);
    i += len ? len : 1;
  }
  if (s.size() > max) out += "...";
  return out;
}

Result<BeginRecord> decode_begin(const ParsedLine& line) {
  auto p = name_field(line, "protocol version");
  if (!p) return p.error();
  if (line.fields.size() > 1)
    return fail(line.kind, "unexpected fields after the protocol version");
  return BeginRecord{*p};
}

Result<std::vector<Field>> decode_config(const ParsedLine& line) {
  if (line.fields.empty()) return fail(line.kind, "no key=value fields");
  for (const Field& f : line.fields) {
    if (f.key.empty()) return fail(line.kind, "field " + quoted(f.value) + " is not key=value");
  }
  if (auto s = no_repeated_keys(line); !s) return s.error();
  return std::vector<Field>(line.fields.begin(), line.fields.end());
}

Result<uint64_t> decode_dwt_read_pair(const ParsedLine& line) {
  if (line.fields.size() != 1 || !line.fields[0].key.empty()) {
    return fail(line.kind, "expected exactly one field, the tick count");
  }
  auto v = parse_u64(line.fields[0].value);
  if (!v) return fail(line.kind, quoted(line.fields[0].value) + " is not an unsigned integer");
  return *v;
}

Result<std::string_view> decode_test(const ParsedLine& line) {
  auto n = name_field(line, "test name");
  if (!n) return n.error();
  // The one field a TEST may carry: the longest silent window the test
  // announces (docs/protocol.md section 2); the capture reads it, verify
  // only checks its form.
  if (line.fields.size() == 2 && line.fields[1].key == "quiet_ms") {
    if (auto q = number_field(line, "quiet_ms"); !q) return q.error();
  } else if (line.fields.size() > 1) {
    return fail(line.kind, "unexpected fields after the test name");
  }
  return *n;
}

Result<PhaseRecord> decode_phase(const ParsedLine& line) {
  PhaseRecord r;
  auto n = keyed_record_name(line, "phase name");
  if (!n) return n.error();
  r.name = *n;
  for (auto [key, out] : {std::pair{"irq", &r.irq}, {"task", &r.task}, {"bad", &r.bad}}) {
    auto v = number_field(line, key);
    if (!v) return v.error();
    *out = *v;
  }
  auto status = text_field(line, "status");
  if (!status) return status.error();
  r.status = *status;
  if (find(line.fields, "expected") != nullptr) {
    auto e = number_field(line, "expected");
    if (!e) return e.error();
    r.expected = *e;
  }
  if (auto s = other_fields(line, {"irq", "task", "bad", "status", "expected"}, r.unknown); !s)
    return s.error();
  return r;
}

Result<ResultRecord> decode_result(const ParsedLine& line) {
  ResultRecord r;
  auto n = keyed_record_name(line, "series name");
  if (!n) return n.error();
  r.name = *n;
  if (auto s = other_fields(line, {}, r.fields); !s) return s.error();
  return r;
}

Result<CheckRecord> decode_check(const ParsedLine& line) {
  CheckRecord r;
  auto n = keyed_record_name(line, "check name");
  if (!n) return n.error();
  r.name = *n;
  for (auto [key, out] : {std::pair{"rounds", &r.rounds}, {"pass", &r.pass}, {"fail", &r.fail}}) {
    auto v = number_field(line, key);
    if (!v) return v.error();
    *out = *v;
  }
  auto status = text_field(line, "status");
  if (!status) return status.error();
  r.status = *status;
  return r;
}

Result<NaRecord> decode_na(const ParsedLine& line) {
  NaRecord r;
  auto n = name_field(line, "test or series name");
  if (!n) return n.error();
  r.name = *n;
  auto reason = text_field(line, "reason");
  if (!reason) return reason.error();
  r.reason = *reason;
  return r;
}

Result<EndRecord> decode_end(const ParsedLine& line) {
  EndRecord r;
  auto p = keyed_record_name(line, "protocol version");
  if (!p) return p.error();
  r.protocol = *p;
  if (auto s = other_fields(line, {}, r.fields); !s) return s.error();
  return r;
}

}  // namespace rb::protocol
