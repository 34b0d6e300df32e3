#include "util/yaml_doc.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "util/utf8.h"

namespace rb {

// Generated from docs/schema/*.schema.json (src/CMakeLists.txt).
std::string_view embedded_schema_text(std::string_view name);

using nlohmann::json;

std::string printable(std::string_view s, size_t max) {
  return escape_controls(s, max);
}

std::string Diagnostic::format() const {
  if (line > 0)
    return fmt::format("{}:{}:{}: error: {}", printable(file, 4096), line, column,
                       printable(message, 4096));
  return fmt::format("{}: error: {}", printable(file, 4096), printable(message, 4096));
}

bool YamlDoc::lost_part_of(const std::string& pointer) const {
  return std::any_of(taken_out.begin(), taken_out.end(), [&](const std::string& t) {
    return t == pointer || t.rfind(pointer + "/", 0) == 0;
  });
}

Diagnostic YamlDoc::at(const std::string& pointer, std::string message) const {
  std::string p = pointer;
  while (true) {
    if (auto it = marks.find(p); it != marks.end())
      return Diagnostic{file, it->second.first, it->second.second, std::move(message)};
    if (p.empty()) break;
    p = p.substr(0, p.rfind('/'));
  }
  return Diagnostic{file, 0, 0, std::move(message)};
}

namespace {

std::string pointer_token(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// A plain scalar as YAML 1.2's core schema types it.
json typed_scalar(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted
  static const std::regex kInt("^[-+]?[0-9]+$");
  static const std::regex kFloat(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s.size() <= 20 && std::regex_match(s, kInt)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
  } else if (s.size() <= 64 && std::regex_match(s, kFloat)) {
    double d = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return s;  // an integer or number out of range stays text, which no number field takes
}

struct Converter {
  YamlDoc& doc;
  std::vector<Diagnostic>& errors;
  size_t nodes = 0;
  bool stop = false;

  void error(const YAML::Mark& m, std::string message) {
    errors.push_back(Diagnostic{doc.file, m.line >= 0 ? m.line + 1 : 0,
                                m.line >= 0 ? m.column + 1 : 0, std::move(message)});
  }

  // `ptr` as a diagnostic names it: kernels[0].note ("a key" for a key).
  static std::string path_of(const std::string& ptr) {
    std::string out;
    size_t i = 0;
    while (i < ptr.size()) {
      size_t j = std::min(ptr.find('/', i + 1), ptr.size());
      std::string t = ptr.substr(i + 1, j - i - 1);
      bool index = !t.empty() && std::all_of(t.begin(), t.end(), ::isdigit);
      out += index ? "[" + t + "]" : (out.empty() ? "" : ".") + t;
      i = j;
    }
    return out.empty() ? "a value" : "'" + out + "'";
  }

  bool scalar_ok(const YAML::Node& n, const std::string& ptr) {
    const std::string& s = n.Scalar();
    const std::string what = path_of(ptr);
    if (s.size() > kMaxConfigScalar) {
      error(n.Mark(), fmt::format("{} is longer than {} bytes", what, kMaxConfigScalar));
      return false;
    }
    if (valid_utf8(s) != s) {
      error(n.Mark(), fmt::format("{} is not valid UTF-8", what));
      return false;
    }
    for (char ch : s) {
      auto u = static_cast<unsigned char>(ch);
      if ((u < 0x20 || u == 0x7F) && ch != '\n' && ch != '\t') {
        error(n.Mark(), fmt::format("{} holds a control character (\\x{:02x})", what, u));
        return false;
      }
    }
    return true;
  }

  json convert(const YAML::Node& n, const std::string& ptr, int depth) {
    if (stop) return nullptr;
    if (++nodes > 100000) {
      error(n.Mark(), "the file has more than 100000 YAML nodes (aliases counted at every use)");
      stop = true;
      return nullptr;
    }
    if (depth > 32) {
      error(n.Mark(), "the file nests deeper than 32 levels");
      stop = true;
      return nullptr;
    }
    if (n.Mark().line >= 0)
      doc.marks.emplace(ptr, std::pair(n.Mark().line + 1, n.Mark().column + 1));
    if (n.IsMap()) {
      json obj = json::object();
      std::map<std::string, int> seen;
      for (auto it = n.begin(); it != n.end() && !stop; ++it) {
        if (!it->first.IsScalar()) {
          error(it->first.Mark(), "a key must be a plain string");
          continue;
        }
        const std::string key = it->first.Scalar();
        if (!scalar_ok(it->first, ptr + "/(a key)")) continue;
        auto [at, fresh] = seen.emplace(key, it->first.Mark().line + 1);
        if (!fresh) {
          error(it->first.Mark(), fmt::format("key '{}' is given twice (first at line {})",
                                              printable(key), at->second));
          continue;
        }
        const std::string child = ptr + "/" + pointer_token(key);
        doc.marks.emplace(child + "#key",
                          std::pair(it->first.Mark().line + 1, it->first.Mark().column + 1));
        const YAML::Node value = it->second;  // a copy: it-> is a temporary proxy
        if (value.Mark().line < 0) doc.marks.emplace(child, doc.marks.at(child + "#key"));
        obj[key] = convert(value, child, depth + 1);
      }
      return obj;
    }
    if (n.IsSequence()) {
      json arr = json::array();
      size_t i = 0;
      for (const auto& e : n) arr.push_back(convert(e, ptr + "/" + std::to_string(i++), depth + 1));
      return arr;
    }
    if (n.IsScalar()) return scalar_ok(n, ptr) ? typed_scalar(n) : json();
    return nullptr;
  }
};

}  // namespace

namespace {
// The 1-based line of a marker that starts a second YAML document in
// `text` (`---` after content, or content after `...`); 0 when there is none.
int second_document_line(std::string_view text) {
  auto marker = [](std::string_view l, std::string_view m) {
    return l.substr(0, 3) == m && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
  };
  bool content = false, ended = false;
  int n = 0;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(at, end - at);
    at = end + 1;
    ++n;
    const size_t first = l.find_first_not_of(" \t\r");
    const bool blank = first == std::string_view::npos || l[first] == '#';
    if (marker(l, "---")) {
      if (content || ended) return n;
      const size_t rest = l.find_first_not_of(" \t\r", 3);
      content = rest != std::string_view::npos && l[rest] != '#';
    } else if (marker(l, "...")) {
      ended = content || ended;
    } else if (!blank && !(l[0] == '%' && !content)) {
      if (ended) return n;
      content = true;
    }
    if (end == text.size()) break;
  }
  return 0;
}
}  // namespace

bool parse_yaml_doc(std::string_view text, const std::string& file, YamlDoc& out,
                    std::vector<Diagnostic>& errors) {
  out.file = file;
  const size_t before = errors.size();
  if (text.size() > kMaxConfigBytes) {
    errors.push_back(
        Diagnostic{file, 0, 0, fmt::format("the file is larger than {} bytes", kMaxConfigBytes)});
    return false;
  }
  // A second document is found by its column-0 marker (YAML 1.2 forbids
  // `---` and `...` at column 0 inside any scalar), not with YAML::LoadAll,
  // which never returns on some inputs (yaml-cpp 0.7: a lone ",").
  if (int line = second_document_line(text); line > 0) {
    errors.push_back(Diagnostic{file, line, 1,
                                "the file holds more than one YAML document (a second '---'): "
                                "only one is read, so nothing after it may be ignored"});
    return false;
  }
  std::vector<YAML::Node> docs;
  try {
    docs.push_back(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    errors.push_back(Diagnostic{file, e.mark.line + 1, e.mark.column + 1, "YAML syntax: " + e.msg});
    return false;
  }
  if (docs.empty() || !docs[0].IsMap()) {
    errors.push_back(Diagnostic{file, 1, 1, "the file must be a YAML mapping"});
    return false;
  }
  try {
    Converter c{out, errors};
    out.value = c.convert(docs[0], "", 0);
  } catch (const YAML::Exception& e) {
    errors.push_back(Diagnostic{file, e.mark.line + 1, e.mark.column + 1, "YAML: " + e.msg});
  }
  return errors.size() == before;
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

const json& schema(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, json, std::less<>> cache;
  std::lock_guard lock(mu);
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::string_view text = embedded_schema_text(name);
    if (text.empty()) throw std::out_of_range("no schema " + std::string(name));
    it = cache.emplace(std::string(name), json::parse(text)).first;
  }
  return it->second;
}

namespace {

struct Violation {
  std::string pointer;  // JSON pointer into the document
  std::string path;     // kernels[0].name
  std::string message;
  std::string unknown_key;  // set for a key the schema does not allow
  bool missing = false;     // a required key is absent (nothing to take out)
};

// The subschema at `root`'s `ref` ("#/$defs/x"), or `s` itself.
const json& deref(const json& root, const json& s) {
  if (s.is_object() && s.contains("$ref") && s["$ref"].is_string()) {
    std::string ref = s["$ref"].get<std::string>();
    if (ref.rfind("#", 0) == 0) {
      try {
        return root.at(json::json_pointer(ref.substr(1)));
      } catch (const std::exception&) {
      }
    }
  }
  return s;
}

// The schema that applies at `tokens` of the document, as far as a plain
// walk over properties, patternProperties, additionalProperties and items
// can tell; nullptr when it cannot.
const json* schema_at(const json& root, const json& doc, const std::vector<std::string>& tokens) {
  const json* s = &deref(root, root);
  const json* d = &doc;
  for (const auto& t : tokens) {
    if (!s->is_object()) return nullptr;
    if (d->is_array() && s->contains("items")) {
      s = &deref(root, (*s)["items"]);
      size_t i = std::stoul(t);
      d = i < d->size() ? &(*d)[i] : nullptr;
    } else if (d->is_object()) {
      const json* next = nullptr;
      if (s->contains("properties") && (*s)["properties"].contains(t))
        next = &(*s)["properties"][t];
      if (!next && s->contains("patternProperties")) {
        for (auto& [re, sub] : (*s)["patternProperties"].items()) {
          if (std::regex_search(t, std::regex(re))) next = &sub;
        }
      }
      if (!next && s->contains("additionalProperties") && (*s)["additionalProperties"].is_object())
        next = &(*s)["additionalProperties"];
      if (!next) return nullptr;
      s = &deref(root, *next);
      d = d->contains(t) ? &(*d)[t] : nullptr;
    } else {
      return nullptr;
    }
    if (!d) return s;
  }
  return s;
}

std::string type_words(const json& type) {
  std::vector<std::string> names;
  for (const auto& t : type.is_array() ? type : json::array({type})) {
    std::string n = t.get<std::string>();
    names.push_back(n == "object"    ? "a mapping"
                    : n == "array"   ? "a list"
                    : n == "integer" ? "an integer"
                                     : "a " + n);
  }
  return fmt::format("{}", fmt::join(names, " or "));
}

std::string value_words(const json* v) {
  if (!v) return "";
  if (v->is_string()) return "'" + printable(v->get<std::string>()) + "'";
  if (v->is_object()) return "a mapping";
  if (v->is_array()) return "a list";
  return printable(v->dump());
}

// valijson's description of one violation in the words of the project's
// other messages, with what the schema allows.
std::string explain(const std::string& description, const json* sub, const json* value) {
  static const std::regex kUnknown(".*constraints: '(.*)'\\.$");
  static const std::regex kMissing("Missing required property '(.*)'\\.");
  std::smatch m;
  if (std::regex_match(description, m, kUnknown)) {
    std::vector<std::string> keys;
    if (sub && sub->contains("properties"))
      for (auto& [k, _] : (*sub)["properties"].items()) keys.push_back(k);
    return fmt::format("unknown key '{}'{}", printable(m[1].str()),
                       keys.empty() ? "" : fmt::format(" (allowed: {})", fmt::join(keys, ", ")));
  }
  if (std::regex_match(description, m, kMissing)) return fmt::format("needs '{}'", m[1].str());
  if (description.find("'type' constraint") != std::string::npos && sub && sub->contains("type"))
    return fmt::format("must be {}, got {}", type_words((*sub)["type"]), value_words(value));
  if (description.find("enum values") != std::string::npos && sub && sub->contains("enum")) {
    std::vector<std::string> allowed;
    for (const auto& e : (*sub)["enum"])
      allowed.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    return fmt::format("{} is not allowed (allowed: {})", value_words(value),
                       fmt::join(allowed, ", "));
  }
  if (description.find("'pattern' constraint") != std::string::npos && sub) {
    std::string rule = sub->contains("x-rule") ? (*sub)["x-rule"].get<std::string>()
                                               : "must match " + sub->value("pattern", "");
    return fmt::format("{} is not allowed: {}", value_words(value), rule);
  }
  if (description.rfind("Expected number", 0) == 0 && sub) {
    auto bound = [&](const char* k) {
      return sub->contains(k) ? (*sub)[k].dump() : std::string("-");
    };
    const bool integer = sub->value("type", json()) == "integer";
    return fmt::format("must be {} in [{}, {}], got {}", integer ? "an integer" : "a number",
                       bound("minimum"), bound("maximum"), value_words(value));
  }
  if (description.find("uniqueness constraint") != std::string::npos)
    return "a value is given twice (two jobs would have one id)";
  if (description.find("no longer than") != std::string::npos)
    return fmt::format("{} is not allowed: {}", value_words(value),
                       description.substr(0, description.size() - 1));
  std::string d = description;
  if (!d.empty() && d.back() == '.') d.pop_back();
  return d;
}

// The parsed form of `root`, made once (valijson's Schema is not copyable).
const valijson::Schema& parsed(const json& root) {
  static std::mutex mu;
  static std::map<const json*, std::unique_ptr<valijson::Schema>> cache;
  std::lock_guard lock(mu);
  auto& s = cache[&root];
  if (!s) {
    s = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter sa(root);
    parser.populateSchema(sa, *s);
  }
  return *s;
}

// The first number of 2^63 or more: valijson compares integers as int64_t,
// so one above wraps negative and passes a schema's maximum; no figure or
// setting this tool reads comes near it, so none reaches a signed member.
constexpr auto kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
bool beyond_int64(const json& j, std::vector<std::string>& tokens) {
  if (j.is_number_unsigned() && j.get<uint64_t>() > kMaxInt64) return true;
  if (!j.is_structured()) return false;
  for (auto& [k, v] : j.items()) {
    tokens.push_back(k);  // an array item's key is its index
    if (beyond_int64(v, tokens)) return true;
    tokens.pop_back();
  }
  return false;
}

// The pointer and path of `tokens` in `value` into `v`; the value there,
// nullptr when there is none.
const json* locate(const json& value, const std::vector<std::string>& tokens, Violation& v) {
  const json* d = &value;
  for (const auto& t : tokens) {
    v.pointer += "/" + pointer_token(t);
    bool index = d && d->is_array();
    v.path += index ? "[" + t + "]" : (v.path.empty() ? "" : ".") + t;
    if (d && d->is_array())
      d = std::stoul(t) < d->size() ? &(*d)[std::stoul(t)] : nullptr;
    else if (d && d->is_object() && d->contains(t))
      d = &(*d)[t];
    else
      d = nullptr;
  }
  return d;
}

std::vector<Violation> violations(const json& value, const json& root) {
  if (std::vector<std::string> at; beyond_int64(value, at)) {
    Violation v;
    const json* d = locate(value, at, v);
    v.message = fmt::format("{} is out of range (at most {})", d->get<uint64_t>(), kMaxInt64);
    return {v};
  }
  const valijson::Schema& s = parsed(root);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter da(value);
  validator.validate(s, da, &results);
  // valijson reports each failure again on every level above it ("Failed to
  // validate against schema associated with property ..."): only the
  // innermost words say what is wrong.
  static const std::regex kWrapper(
      "^Failed to validate (against schema associated with|item #|against child schema|against "
      "any child|against dependent|against additional|value for)");
  std::vector<Violation> out;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<valijson::ValidationResults::Error> all;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) all.push_back(e);
  // A wrapper is shown only when nothing under it says more (valijson 1.0
  // reports a failed propertyNames by its wrapper alone): a failure is
  // never lost.
  auto under = [&](const valijson::ValidationResults::Error& w) {
    return std::any_of(all.begin(), all.end(), [&](const auto& x) {
      return !std::regex_search(x.description, kWrapper) && x.context.size() >= w.context.size() &&
             std::equal(w.context.begin(), w.context.end(), x.context.begin());
    });
  };
  for (const auto& err : all) {
    e = err;
    if (std::regex_search(e.description, kWrapper) && under(e)) continue;
    std::vector<std::string> tokens;
    for (size_t i = 1; i < e.context.size(); ++i) {
      const std::string& c = e.context[i];
      tokens.push_back(
          c.size() >= 2 && c.front() == '[' && c.back() == ']' ? c.substr(1, c.size() - 2) : c);
    }
    Violation v;
    const json* d = locate(value, tokens, v);
    v.message = explain(e.description, schema_at(root, value, tokens), d);
    static const std::regex kUnknownKey("^unknown key '(.*)'( \\(allowed.*)?$");
    std::smatch m;
    if (std::regex_match(v.message, m, kUnknownKey)) v.unknown_key = m[1];
    v.missing = v.message.rfind("needs '", 0) == 0;
    if (seen.emplace(v.pointer, v.message).second) out.push_back(std::move(v));
  }
  return out;
}

// Takes the values of `found` out of `value`, deepest first so that the
// indices of the others hold.
void take_out(json& value, const std::vector<Violation>& found, std::vector<std::string>& taken) {
  std::vector<std::string> drop;
  for (const auto& v : found) {
    if (!v.unknown_key.empty())
      drop.push_back(v.pointer + "/" + pointer_token(v.unknown_key));
    else if (!v.missing && !v.pointer.empty())
      drop.push_back(v.pointer);
  }
  std::sort(drop.rbegin(), drop.rend());
  taken.insert(taken.end(), drop.begin(), drop.end());
  for (const auto& p : drop) {
    try {
      const json::json_pointer ptr(p);
      json& parent = value.at(ptr.parent_pointer());
      if (parent.is_object())
        parent.erase(ptr.back());
      else if (parent.is_array())
        parent.erase(std::stoul(ptr.back()));
    } catch (const std::exception&) {
      // already taken out with its parent
    }
  }
}

}  // namespace

bool check_schema(YamlDoc& doc, const json& schema, std::vector<Diagnostic>& errors) {
  std::vector<Diagnostic> out;
  std::set<std::pair<std::string, std::string>> said;
  // valijson stops looking inside a mapping at its first bad member: what is
  // found is taken out and the rest checked again, until nothing is left.
  for (int pass = 0; pass < 16; ++pass) {
    const auto found = violations(doc.value, schema);
    if (found.empty()) break;
    bool fresh = false;
    for (const auto& v : found) {
      // A container emptied by taking its bad members out says nothing new.
      const bool consequence =
          pass > 0 && std::any_of(said.begin(), said.end(), [&](const auto& x) {
            return x.first.rfind(v.pointer + "/", 0) == 0;
          });
      if (consequence || !said.emplace(v.pointer, v.message).second) continue;
      fresh = true;
      // An unknown key is shown where the key stands.
      const std::string key =
          v.unknown_key.empty() ? "" : v.pointer + "/" + pointer_token(v.unknown_key);
      Diagnostic d =
          doc.marks.count(key + "#key") ? doc.at(key + "#key", "") : doc.at(v.pointer, "");
      d.message = v.path.empty() ? v.message : fmt::format("'{}': {}", v.path, v.message);
      out.push_back(std::move(d));
    }
    take_out(doc.value, found, doc.taken_out);
    if (!fresh) break;
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  errors.insert(errors.end(), out.begin(), out.end());
  return out.empty();
}

std::string schema_violation(const json& value, const json& schema) {
  auto found = violations(value, schema);
  if (found.empty()) return "";
  return fmt::format("{}: {}", found.front().path.empty() ? "(document)" : found.front().path,
                     found.front().message);
}

}  // namespace rb
