#pragma once
// The configuration files (matrix, bench, a port's kernel.yaml) are YAML read
// into typed JSON and checked against their JSON Schema (docs/schema/, the
// same files an editor can use), so the shape of every file is declared once,
// outside the code. Every diagnostic keeps file:line:column.
//
// Scalars follow YAML 1.2's core schema: a plain `10000` is an integer,
// `1.5` a number, `true`/`false` a boolean, `~`/`null`/empty a null, anything
// else (and every quoted scalar) a string; `off` stays the string "off".
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

struct Diagnostic {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
  std::string message;
  std::string format() const;  // "file:line:column: error: message"
};

// `s` as a diagnostic may print it: valid UTF-8, control characters and the
// bidirectional overrides shown as \xNN / \u{NNNN}, at most `max` bytes.
std::string printable(std::string_view s, size_t max = 80);

// One parsed file: its value and where each of its nodes stood.
struct YamlDoc {
  std::string file;  // as the user named it (diagnostics)
  nlohmann::json value;
  // JSON pointer ("/kernels/0/name") -> {line, column}, 1-based.
  std::map<std::string, std::pair<int, int>> marks;

  // What check_schema took out of `value` (JSON pointers).
  std::vector<std::string> taken_out;

  // A diagnostic at `pointer` (or its nearest ancestor that has a mark).
  Diagnostic at(const std::string& pointer, std::string message) const;
  // Whether check_schema took `pointer` or a part of it out: a later check
  // of it would only repeat that problem.
  bool lost_part_of(const std::string& pointer) const;
};

// Limits on a configuration file: far above any real one.
inline constexpr size_t kMaxConfigBytes = 1 << 20;
inline constexpr size_t kMaxConfigScalar = 4096;

// Parses `text`: one YAML document whose root is a mapping. A syntax error,
// a second document, a key given twice, nesting deeper than 32, more than
// 100000 nodes (aliases counted at every use), a scalar over
// kMaxConfigScalar bytes, invalid UTF-8 or a control character in a scalar
// (line breaks and tabs aside) are diagnostics; false when any was found.
bool parse_yaml_doc(std::string_view text, const std::string& file, YamlDoc& out,
                    std::vector<Diagnostic>& errors);

// Checks `doc` against `schema` (one of schema(), or made from one; it must
// outlive the process: its parsed form is kept); every violation is a
// diagnostic in file order. Each offending value is then taken out of
// doc.value (an unknown key, a value of the wrong type or form), so that
// what is left has the schema's shape and the file's other problems can be
// found by the checks a schema cannot make. False when any was found.
bool check_schema(YamlDoc& doc, const nlohmann::json& schema, std::vector<Diagnostic>& errors);

// Checks a JSON value (a result file) against `schema`: "" when it
// conforms, else the first violation as "<path>: <message>".
std::string schema_violation(const nlohmann::json& value, const nlohmann::json& schema);

// A scalar of a parsed file as text: a string as it is, a boolean as
// true/false, null as "", a number as written.
std::string scalar_text(const nlohmann::json& v);

// The embedded schema `name`; throws std::out_of_range for an unknown one.
const nlohmann::json& schema(std::string_view name);

}  // namespace rb
