#include "matrix/load.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "matrix/expand.h"
#include "matrix/registry.h"
#include "util/utf8.h"

namespace rb::matrix {

const char* to_string(ResetMethod r) {
  switch (r) {
    case ResetMethod::kHardware:
      return "hardware";
    case ResetMethod::kSystem:
      return "system";
    case ResetMethod::kPowerCycle:
      return "power-cycle";
  }
  return "?";
}

namespace {

// What a diagnostic may print of a hostile file: valid UTF-8 without control
// characters (each shown as \\xNN), so a message never drives a terminal.
std::string printable(std::string_view s) {
  std::string out;
  for (char ch : valid_utf8(s)) {
    auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7F) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string Diagnostic::format() const {
  if (line > 0)
    return fmt::format("{}:{}:{}: error: {}", printable(file), line, column, printable(message));
  return fmt::format("{}: error: {}", printable(file), printable(message));
}

const std::vector<std::string>& known_statistics() {
  static const std::vector<std::string> kStats{"n",    "min", "median", "avg",    "p90", "p99",
                                               "p999", "max", "stddev", "jitter", "base"};
  return kStats;
}

const std::vector<StatisticAllowance>& hardware_allowances() {
  static const std::vector<StatisticAllowance> kAllowances{
      {"n", 0, 0},       {"min", 2, 5},       {"median", 2, 2}, {"avg", 2, 2},
      {"p90", 3, 5},     {"p99", 5, 5},       {"p999", 10, 10}, {"max", 20, 25},
      {"stddev", 2, 25}, {"jitter", 0.05, 5}, {"base", 1, 2}};
  return kAllowances;
}

const std::vector<std::string>& known_tests() {
  static const std::vector<std::string> kTests = [] {
    std::vector<std::string> names;
    for (const auto& t : harness_tests()) names.push_back(t.name);
    return names;
  }();
  return kTests;
}

namespace {

// An allow-listed value is at most this long: std::regex recurses per
// character, so a longer one is refused before any regular expression sees it.
constexpr size_t kMaxAllowListed = 512;

bool matches(const std::string& value, const std::regex& re) {
  return value.size() <= kMaxAllowListed && std::regex_match(value, re);
}

// `value` as a diagnostic quotes it: at most 80 bytes.
std::string clipped(const std::string& value) {
  return value.size() <= 80 ? value : value.substr(0, 80) + "...";
}

// Collects diagnostics for one file; every accessor reports and goes on.
class Checker {
 public:
  // `shown` is the path as the user named it (diagnostics); `file` the
  // absolute path relative paths inside are resolved against.
  Checker(std::filesystem::path file, std::string shown)
      : file_(std::move(file)), shown_(std::move(shown)) {}

  void error(const YAML::Node& at, std::string message) {
    Diagnostic d{shown_, 0, 0, std::move(message)};
    if (at.IsDefined()) {
      YAML::Mark m = at.Mark();
      if (m.line >= 0) {
        d.line = m.line + 1;
        d.column = m.column + 1;
      }
    }
    errors_.push_back(std::move(d));
  }
  void error_at(const YAML::Mark& m, std::string message) {
    errors_.push_back(Diagnostic{shown_, m.line + 1, m.column + 1, std::move(message)});
  }

  // Reports every key of `map` not in `allowed`; false when `map` is not a map.
  bool check_map(const YAML::Node& map, const std::string& what,
                 const std::vector<std::string>& allowed) {
    if (!map.IsMap()) {
      error(map, fmt::format("{} must be a mapping", what));
      return false;
    }
    for (auto it = map.begin(); it != map.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        error(it->first, fmt::format("unknown key '{}' in {} (allowed: {})", key, what,
                                     fmt::join(allowed, ", ")));
      }
    }
    return true;
  }

  // A string value: valid UTF-8 without control characters (a `multiline`
  // one may hold line breaks and tabs), else an error and nullopt.
  std::optional<std::string> string(const YAML::Node& map, const std::string& key,
                                    const std::string& what, bool required,
                                    bool multiline = false) {
    YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (required) error(map, fmt::format("{} needs '{}'", what, key));
      return std::nullopt;
    }
    if (!n.IsScalar()) {
      error(n, fmt::format("'{}' in {} must be a string", key, what));
      return std::nullopt;
    }
    if (!text(n, fmt::format("'{}' in {}", key, what), multiline)) return std::nullopt;
    return n.Scalar();
  }

  // The scalar `n` is valid UTF-8 and has no control character (but line
  // breaks and tabs when `multiline`); otherwise reports it.
  bool text(const YAML::Node& n, const std::string& what, bool multiline = false) {
    const std::string& s = n.Scalar();
    if (valid_utf8(s) != s) {
      error(n, fmt::format("{} is not valid UTF-8", what));
      return false;
    }
    for (char ch : s) {
      auto u = static_cast<unsigned char>(ch);
      if ((u < 0x20 || u == 0x7F) && !(multiline && (ch == '\n' || ch == '\t'))) {
        error(n, fmt::format("{} holds a control character (\\x{:02x})", what, u));
        return false;
      }
    }
    return true;
  }

  // `value` (read from `at`) matches the field's allow-list `re`, described
  // by `rule`; otherwise reports it and returns false.
  bool allowed(const YAML::Node& at, const std::string& value, const std::regex& re,
               const std::string& what, const std::string& rule) {
    if (matches(value, re)) return true;
    if (value.size() > kMaxAllowListed) {
      error(at, fmt::format("{} '{}' is not allowed: longer than {} characters", what,
                            clipped(value), kMaxAllowListed));
    } else {
      error(at, fmt::format("{} '{}' is not allowed: {}", what, value, rule));
    }
    return false;
  }

  std::optional<long long> integer(const YAML::Node& n, const std::string& what, long long min,
                                   long long max) {
    if (!n.IsScalar()) {
      error(n, fmt::format("{} must be an integer in [{}, {}]", what, min, max));
      return std::nullopt;
    }
    const std::string& s = n.Scalar();
    long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < min || v > max) {
      error(n, fmt::format("{} must be an integer in [{}, {}], got '{}'", what, min, max, s));
      return std::nullopt;
    }
    return v;
  }

  std::optional<double> number(const YAML::Node& n, const std::string& what, double min,
                               double max) {
    if (!n.IsScalar()) {
      error(n, fmt::format("{} must be a number of seconds in [{}, {}]", what, min, max));
      return std::nullopt;
    }
    try {
      size_t used = 0;
      double v = std::stod(n.Scalar(), &used);
      if (used == n.Scalar().size() && v >= min && v <= max) return v;
    } catch (const std::exception&) {
    }
    error(n, fmt::format("{} must be a number of seconds in [{}, {}], got '{}'", what, min, max,
                         n.Scalar()));
    return std::nullopt;
  }

  std::optional<std::string> choice(const YAML::Node& map, const std::string& key,
                                    const std::string& what,
                                    const std::vector<std::string>& allowed, bool required) {
    auto v = string(map, key, what, required);
    if (!v) return std::nullopt;
    if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
      error(map[key], fmt::format("'{}' in {} is '{}' (allowed: {})", key, what, *v,
                                  fmt::join(allowed, ", ")));
      return std::nullopt;
    }
    return v;
  }

  std::filesystem::path path(const std::string& value) const {
    std::filesystem::path p(value);
    if (!value.empty() && value[0] == '~') {
      const char* home = std::getenv("HOME");
      if (home)
        p = std::filesystem::path(home) / value.substr(value.size() > 1 && value[1] == '/' ? 2 : 1);
    }
    if (p.is_relative()) p = file_.parent_path() / p;
    return p.lexically_normal();
  }

  // In file order, so a reader can walk down the file.
  std::vector<Diagnostic>& errors() {
    std::stable_sort(errors_.begin(), errors_.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::pair(a.line, a.column) < std::pair(b.line, b.column);
    });
    return errors_;
  }
  const std::filesystem::path& file() const { return file_; }
  size_t error_count() const { return errors_.size(); }

 private:
  std::filesystem::path file_;
  std::string shown_;
  std::vector<Diagnostic> errors_;
};

// Limits on a configuration file: far above any real matrix or bench.
constexpr size_t kMaxFileBytes = 1 << 20;
constexpr int kMaxDepth = 32;
constexpr size_t kMaxNodes = 100000;

// Walks the document: a key given twice in one mapping is an error (yaml-cpp
// keeps both and answers the first), and so is nesting deeper than kMaxDepth
// or more than kMaxNodes nodes (aliases counted at every use). False when the
// walk stopped at a limit.
bool check_structure(const YAML::Node& n, Checker& c, int depth, size_t& nodes) {
  if (++nodes > kMaxNodes) {
    c.error(n, fmt::format("the file has more than {} YAML nodes (aliases counted at every use)",
                           kMaxNodes));
    return false;
  }
  if (depth > kMaxDepth) {
    c.error(n, fmt::format("the file nests deeper than {} levels", kMaxDepth));
    return false;
  }
  if (n.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (it->first.IsScalar()) {
        auto [at, fresh] = seen.emplace(it->first.Scalar(), it->first.Mark());
        if (!fresh) {
          c.error(it->first, fmt::format("key '{}' is given twice (first at line {})",
                                         it->first.Scalar(), at->second.line + 1));
        }
      } else if (!check_structure(it->first, c, depth + 1, nodes)) {
        return false;
      }
      if (!check_structure(it->second, c, depth + 1, nodes)) return false;
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n) {
      if (!check_structure(e, c, depth + 1, nodes)) return false;
    }
  }
  return true;
}

// Parses the text; a syntax error becomes the only diagnostic. A file with a
// duplicate key or past a size limit is refused as a whole.
std::optional<YAML::Node> parse_yaml(const std::string& text, Checker& c) {
  if (text.size() > kMaxFileBytes) {
    c.error(YAML::Node(), fmt::format("the file is larger than {} bytes", kMaxFileBytes));
    return std::nullopt;
  }
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) {
      c.error(root, "the file must be a YAML mapping");
      return std::nullopt;
    }
    size_t nodes = 0;
    const size_t before = c.error_count();
    if (!check_structure(root, c, 0, nodes) || c.error_count() != before) return std::nullopt;
    return root;
  } catch (const YAML::ParserException& e) {
    c.error_at(e.mark, "YAML syntax: " + e.msg);
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    c.error_at(e.mark, "YAML: " + e.msg);
    return std::nullopt;
  }
}

std::optional<std::string> read_text(const std::filesystem::path& file,
                                     std::vector<Diagnostic>& errors) {
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file)) {
    errors.push_back(
        Diagnostic{file.string(), 0, 0, "cannot read the file (missing or not a regular file)"});
    return std::nullopt;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::regex kNameRe("^[a-z0-9][a-z0-9_]*$");
const std::regex kIdRe("^[A-Za-z0-9][A-Za-z0-9_.-]*$");

// Allow-lists of the strings that reach a child process, a tool's command
// language or a path (docs/matrix.md, "Strings the tool passes on"). None
// lets a value start with '-' (an option to the tool that receives it).
const char* const kVersionRule = "[A-Za-z0-9][A-Za-z0-9._+-]*";
const std::regex kVersionRe("^[A-Za-z0-9][A-Za-z0-9._+-]*$");
const char* const kGitRule =
    "an http(s)://, ssh://, git:// or file:// URL, or user@host:path, of [A-Za-z0-9._~:/@%+=-]";
const std::regex kGitRe(
    "^((https?|ssh|git|file)://[A-Za-z0-9._~:/@%+=-]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[A-Za-z0-9._~/"
    "+-]+)$");
const std::regex kGccPinRe("^[0-9]+(\\.[0-9]+)*$");
const std::regex kConfigKeyRe("^[a-z][a-z0-9_.]*$");
// Compiler flags, one per space-separated token: optimisation, debug, -f and
// -m options (not -fplugin), -D/-U macros, warnings and -std. No '/', ',' or
// quote anywhere: no path, no option passed on to the assembler or linker.
const char* const kOptRule =
    "space-separated -O*, -g*, -f<option>[=value] (not -fplugin), -m<option>[=value], "
    "-D<MACRO>[=value], "
    "-U<MACRO>, -W<warning> or -std=<standard>, values of [A-Za-z0-9_.+-]";
const std::regex kOptFlagRe(
    "^-(O[0-3sgz]?|Ofast|g[0-3]?|ggdb[0-3]?|gdwarf(-[2-5])?|f(?!plugin)[a-z0-9][a-z0-9-]*(=[A-Za-"
    "z0-9_.+-]+)?|"
    "m[a-z0-9][a-z0-9-]*(=[A-Za-z0-9_.+-]+)?|D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|U[A-Za-z_]"
    "[A-Za-z0-9_]*|"
    "W[a-z0-9][a-z0-9=-]*|std=[a-z0-9+]+)$");
const char* const kSerialRule =
    "[A-Za-z0-9][A-Za-z0-9_.:-]* (it reaches OpenOCD's Tcl and pyOCD's command line)";
const std::regex kSerialRe("^[A-Za-z0-9][A-Za-z0-9_.:-]*$");
const char* const kScriptRule =
    "a relative path of [A-Za-z0-9_.+-] components, none starting with '.' or '-'";
const std::regex kScriptRe("^[A-Za-z0-9_][A-Za-z0-9_.+-]*(/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*$");
const char* const kPortRule = "an absolute path of [A-Za-z0-9_.:+@-] components, without '..'";
const std::regex kPortRe("^(/[A-Za-z0-9_.:+@-]+)+$");
const char* const kPackRule = "a path of [A-Za-z0-9_./~+@:-], not starting with '-'";
const std::regex kPackRe("^[A-Za-z0-9_./~+@:][A-Za-z0-9_./~+@:-]*$");
const char* const kQemuArgRule =
    "an option among -d, -icount, -rtc, -cpu, -m, -global, -accel, -smp, -no-reboot, or a value of "
    "[A-Za-z0-9_.,=:+] not starting with '-'";
const std::regex kQemuArgRe(
    "^(-(d|icount|rtc|cpu|m|global|accel|smp|no-reboot)|[A-Za-z0-9_.,=:+][A-Za-z0-9_.,=:+-]*)$");
const char* const kCommandRule =
    "a program and its arguments separated by single spaces, of [A-Za-z0-9_./:=,+@%~-] (no shell "
    "syntax: "
    "put more in a script)";
const std::regex kCommandRe("^[A-Za-z0-9_./~][A-Za-z0-9_./:=,+@%~-]*( [A-Za-z0-9_./:=,+@%~-]+)*$");

// Programs a power_cycle command may start: USB hub and switch tools. A
// program a bench file names beyond these (a script, a path) runs only when
// the user lists it in RTOSBENCH_POWER_TOOLS (colon-separated), which the
// bench file cannot set (docs/security.md).
bool power_tool_allowed(const std::string& program) {
  static const std::set<std::string> kKnown{"uhubctl", "ykushcmd", "sispmctl", "usbrelay"};
  if (kKnown.count(program) > 0) return true;
  const char* env = std::getenv("RTOSBENCH_POWER_TOOLS");
  for (std::string_view list = env ? env : ""; !list.empty();) {
    size_t colon = std::min(list.find(':'), list.size());
    if (list.substr(0, colon) == program) return true;
    list.remove_prefix(std::min(colon + 1, list.size()));
  }
  return false;
}

// A path with a ".." component.
bool climbs(const std::string& path) {
  for (const auto& part : std::filesystem::path(path)) {
    if (part == "..") return true;
  }
  return false;
}

void parse_expect(Checker& c, const YAML::Node& n, const std::string& what,
                  std::map<std::string, std::optional<std::string>>& out, bool allow_null) {
  if (!n.IsMap()) {
    c.error(n, fmt::format("{} must be a mapping of CONFIG key to value", what));
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar() || !matches(it->first.Scalar(), kConfigKeyRe)) {
      c.error(it->first, fmt::format("{}: a key must be a CONFIG key, [a-z][a-z0-9_.]*", what));
      continue;
    }
    std::string key = it->first.Scalar();
    if (it->second.IsScalar() && !c.text(it->second, fmt::format("{}: value of '{}'", what, key)))
      continue;
    if (it->second.IsNull() && allow_null) {
      out[key] = std::nullopt;
    } else if (!it->second.IsScalar()) {
      c.error(it->second, fmt::format("{}: value of '{}' must be a scalar", what, key));
    } else {
      out[key] = it->second.Scalar();
    }
  }
}

// `commit:`: a full commit id, because `git fetch URL COMMIT` and the
// verification need all 40 hex digits; lower-cased.
std::string pinned_commit(Checker& c, const YAML::Node& map, const std::string& what) {
  auto v = c.string(map, "commit", what, false);
  if (!v) return "";
  static const std::regex kCommitRe("^[0-9a-fA-F]{40}$");
  if (!matches(*v, kCommitRe)) {
    c.error(map["commit"],
            fmt::format("'commit' of {} must be a full commit id (40 hex digits), got '{}'", what,
                        clipped(*v)));
    return "";
  }
  std::string lower = *v;
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return lower;
}

// `reproducibility:`: statistic (or `default`) -> a percentage, `off`, or
// {abs, pct}.
void parse_reproducibility(Checker& c, const YAML::Node& n, Matrix& m) {
  std::vector<std::string> allowed = known_statistics();
  allowed.insert(allowed.begin(), "default");
  if (!c.check_map(n, "reproducibility", allowed)) return;
  for (auto it = n.begin(); it != n.end(); ++it) {
    std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) continue;
    const YAML::Node v = it->second;  // a copy: it-> is a temporary proxy
    std::string what = fmt::format("reproducibility.{}", key);
    SpreadTolerance t;
    // A number >= 0; `percent` also takes a trailing '%'.
    auto nonneg = [&](const YAML::Node& x, const std::string& w,
                      bool percent) -> std::optional<double> {
      std::string text = x.IsScalar() ? x.Scalar() : "";
      if (percent && !text.empty() && text.back() == '%') text.pop_back();
      try {
        size_t used = 0;
        double d = std::stod(text, &used);
        if (used == text.size() && d >= 0) return d;
      } catch (const std::exception&) {
      }
      c.error(
          x,
          percent
              ? fmt::format(
                    "{} must be a percentage >= 0 (e.g. 2 or \"2%\"), `off`, or {{abs: N, pct: P}}",
                    w)
              : fmt::format("{} must be a number >= 0 (in the statistic's unit)", w));
      return std::nullopt;
    };
    auto percent = [&](const YAML::Node& x, const std::string& w) { return nonneg(x, w, true); };
    if (v.IsScalar() && v.Scalar() == "off") {
      t.off = true;
    } else if (v.IsScalar()) {
      auto p = percent(v, what);
      if (!p) continue;
      t.pct = *p;
    } else if (c.check_map(v, what, {"abs", "pct"})) {
      if (v["pct"].IsDefined()) {
        if (auto p = percent(v["pct"], what + ".pct")) t.pct = *p;
      }
      if (v["abs"].IsDefined()) {
        if (auto a = nonneg(v["abs"], what + ".abs", false)) t.abs = *a;
      }
    } else {
      continue;
    }
    m.reproducibility[key] = t;
  }
}

void parse_kernel(Checker& c, const YAML::Node& k, Matrix& m) {
  static const std::vector<std::string> kKeys{"name",          "port",   "version", "git",
                                              "tag",           "commit", "source",  "note",
                                              "extra_sources", "expect", "supply"};
  if (!c.check_map(k, "a kernel", kKeys)) return;
  KernelSpec spec;
  auto name = c.string(k, "name", "a kernel", true);
  if (name) {
    if (!matches(*name, kNameRe)) {
      c.error(k["name"],
              fmt::format("kernel name '{}' must match [a-z0-9][a-z0-9_]*", clipped(*name)));
    }
    for (const auto& other : m.kernels) {
      if (other.name == *name)
        c.error(k["name"], fmt::format("kernel '{}' is listed twice", clipped(*name)));
    }
    // A refused name is only ever shown, clipped.
    spec.name = matches(*name, kNameRe) ? *name : clipped(*name);
  }
  std::string what = fmt::format("kernel '{}'", spec.name);
  spec.port = c.string(k, "port", what, false).value_or(spec.name);
  if (k["port"].IsDefined() && !matches(spec.port, kNameRe)) {
    c.error(k["port"], fmt::format("port '{}' must match [a-z0-9][a-z0-9_]*", spec.port));
  }
  spec.git = c.string(k, "git", what, false).value_or("");
  if (!spec.git.empty() && !c.allowed(k["git"], spec.git, kGitRe, "git of " + what, kGitRule))
    spec.git.clear();
  spec.commit = pinned_commit(c, k, what);
  spec.tag = c.string(k, "tag", what, !spec.git.empty() && !k["commit"].IsDefined()).value_or("");
  if (!spec.tag.empty()) c.allowed(k["tag"], spec.tag, kVersionRe, "tag of " + what, kVersionRule);
  spec.supply = c.string(k, "supply", what, false, true).value_or("");
  if (!spec.supply.empty() && !spec.git.empty()) {
    c.error(k["supply"], fmt::format("{} has both 'git' and 'supply' (supply is for kernels "
                                     "without a public source)",
                                     what));
  }
  spec.version =
      c.string(k, "version", what, !spec.git.empty() || !spec.supply.empty()).value_or("n/a");
  if (k["version"].IsDefined())
    c.allowed(k["version"], spec.version, kVersionRe, "version of " + what, kVersionRule);
  if (auto s = c.string(k, "source", what, false)) spec.source = c.path(*s);
  spec.note = c.string(k, "note", what, false, true).value_or("");
  for (const char* pin : {"tag", "commit"}) {
    if (k[pin].IsDefined() && spec.git.empty() && spec.source.empty()) {
      c.error(k[pin], fmt::format("{} has a {} but neither 'git' nor 'source'", what, pin));
    }
  }
  if (YAML::Node extras = k["extra_sources"]; extras.IsDefined()) {
    if (!extras.IsSequence()) {
      c.error(extras, fmt::format("'extra_sources' of {} must be a list", what));
    } else {
      for (const auto& e : extras) {
        static const std::vector<std::string> kExtraKeys{"name", "git", "tag", "commit", "source"};
        if (!c.check_map(e, fmt::format("an extra source of {}", what), kExtraKeys)) continue;
        ExtraSource x;
        x.name = c.string(e, "name", "an extra source", true).value_or("");
        if (!x.name.empty() && !matches(x.name, kNameRe)) {
          c.error(e["name"],
                  fmt::format("extra source name '{}' must match [a-z0-9][a-z0-9_]*", x.name));
        }
        const std::string xwhat = fmt::format("extra source '{}'", x.name);
        x.git = c.string(e, "git", "an extra source", false).value_or("");
        if (!x.git.empty() && !c.allowed(e["git"], x.git, kGitRe, "git of " + xwhat, kGitRule))
          x.git.clear();
        x.commit = pinned_commit(c, e, xwhat);
        x.tag = c.string(e, "tag", "an extra source", !x.git.empty() && !e["commit"].IsDefined())
                    .value_or("");
        if (!x.tag.empty()) c.allowed(e["tag"], x.tag, kVersionRe, "tag of " + xwhat, kVersionRule);
        if (auto s = c.string(e, "source", "an extra source", false)) x.source = c.path(*s);
        if (x.git.empty() && x.source.empty()) {
          c.error(e, fmt::format("extra source '{}' needs 'git' or 'source'", x.name));
        }
        spec.extra_sources.push_back(std::move(x));
      }
    }
  }
  if (YAML::Node e = k["expect"]; e.IsDefined())
    parse_expect(c, e, what + " expect", spec.expect, true);
  m.kernels.push_back(std::move(spec));
}

template <typename T, typename F>
void parse_list(Checker& c, const YAML::Node& n, const std::string& what, std::vector<T>& out,
                F item) {
  if (n.IsScalar()) {
    if (auto v = item(n)) out = {*v};
    return;
  }
  if (!n.IsSequence() || n.size() == 0) {
    c.error(n, fmt::format("{} must be a non-empty list", what));
    return;
  }
  std::vector<T> values;
  for (const auto& e : n) {
    auto v = item(e);
    if (!v) continue;
    if (std::find(values.begin(), values.end(), *v) != values.end()) {
      c.error(
          e, fmt::format("{}: '{}' is given twice (two jobs would have one id)", what, e.Scalar()));
      continue;
    }
    values.push_back(*v);
  }
  out = values;
}

}  // namespace

namespace {

// `variants:` (or a sweep's `variants:`): the build axes a job varies over.
void parse_variants(Checker& c, const YAML::Node& v, Matrix& m) {
  if (c.check_map(v, "variants",
                  {"opt", "tick_hz", "fpu_context", "checks", "ramfunc", "tickless"})) {
    if (v["opt"].IsDefined()) {
      parse_list<std::string>(
          c, v["opt"], "variants.opt", m.opts,
          [&](const YAML::Node& e) -> std::optional<std::string> {
            if (!e.IsScalar() || e.Scalar().empty()) {
              c.error(e, "variants.opt entries must be non-empty strings of compiler flags");
              return std::nullopt;
            }
            if (!c.text(e, "variants.opt")) return std::nullopt;
            std::istringstream flags(e.Scalar());
            int n = 0;
            for (std::string flag; flags >> flag; ++n) {
              if (!c.allowed(e, flag, kOptFlagRe, "variants.opt flag", kOptRule))
                return std::nullopt;
            }
            if (n == 0) {
              c.error(e, "variants.opt entries must be compiler flags separated by spaces");
              return std::nullopt;
            }
            return e.Scalar();
          });
      std::map<std::string, std::string> ids;
      for (const auto& o : m.opts) {
        std::string id = opt_id(o);
        if (ids.count(id)) {
          c.error(v["opt"], fmt::format("variants.opt '{}' and '{}' give the same job id part '{}'",
                                        ids[id], o, id));
        }
        ids[id] = o;
      }
    }
    if (v["tick_hz"].IsDefined()) {
      parse_list<int>(c, v["tick_hz"], "variants.tick_hz", m.tick_hz,
                      [&](const YAML::Node& e) -> std::optional<int> {
                        auto x = c.integer(e, "variants.tick_hz", 0, 100000);
                        return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
                      });
    }
    if (v["fpu_context"].IsDefined()) {
      parse_list<int>(c, v["fpu_context"], "variants.fpu_context", m.fpu_context,
                      [&](const YAML::Node& e) -> std::optional<int> {
                        auto x = c.integer(e, "variants.fpu_context (allowed: 0, 1)", 0, 1);
                        return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
                      });
    }
    if (v["ramfunc"].IsDefined()) {
      parse_list<int>(c, v["ramfunc"], "variants.ramfunc", m.ramfunc,
                      [&](const YAML::Node& e) -> std::optional<int> {
                        auto x = c.integer(e, "variants.ramfunc (allowed: 0, 1)", 0, 1);
                        return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
                      });
    }
    if (v["tickless"].IsDefined()) {
      parse_list<int>(c, v["tickless"], "variants.tickless", m.tickless,
                      [&](const YAML::Node& e) -> std::optional<int> {
                        auto x = c.integer(e, "variants.tickless (allowed: 0, 1)", 0, 1);
                        return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
                      });
    }
    if (v["checks"].IsDefined()) {
      parse_list<std::string>(
          c, v["checks"], "variants.checks", m.checks,
          [&](const YAML::Node& e) -> std::optional<std::string> {
            if (!e.IsScalar() || (e.Scalar() != "off" && e.Scalar() != "on")) {
              c.error(e, fmt::format("variants.checks must be off or on, got '{}' (allowed: "
                                     "off, on)",
                                     e.IsScalar() ? clipped(e.Scalar()) : "?"));
              return std::nullopt;
            }
            return e.Scalar();
          });
    }
  }
}

// `sweeps:`: named sets of variants a user selects with `run --sweep NAME`
// (docs/matrix.md); each starts from the matrix's own variants.
void parse_sweeps(Checker& c, const YAML::Node& n, Matrix& m) {
  if (!n.IsMap()) {
    c.error(n, "'sweeps' must be a mapping of sweep name to its settings");
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar() || !matches(it->first.Scalar(), kIdRe)) {
      c.error(it->first, "a sweep name must match [A-Za-z0-9][A-Za-z0-9_.-]*");
      continue;
    }
    const YAML::Node body = it->second;  // a copy: it-> is a temporary proxy
    if (!c.check_map(body, "sweep " + it->first.Scalar(),
                     {"variants", "samples", "warmup", "exclude", "note"}))
      continue;
    Matrix axes = m;
    if (body["variants"].IsDefined()) parse_variants(c, body["variants"], axes);
    Sweep sw;
    sw.name = it->first.Scalar();
    sw.opts = axes.opts;
    sw.tick_hz = axes.tick_hz;
    sw.fpu_context = axes.fpu_context;
    sw.checks = axes.checks;
    sw.ramfunc = axes.ramfunc;
    sw.tickless = axes.tickless;
    if (YAML::Node v = body["samples"]; v.IsDefined()) {
      if (auto x = c.integer(v, "sweep samples", 1, 10000000)) sw.samples = static_cast<int>(*x);
    }
    if (YAML::Node v = body["warmup"]; v.IsDefined()) {
      if (auto x = c.integer(v, "sweep warmup", 0, 10000000)) sw.warmup = static_cast<int>(*x);
    }
    if (YAML::Node v = body["exclude"]; v.IsDefined()) {
      parse_list<std::string>(c, v, "sweep exclude", sw.exclude,
                              [&](const YAML::Node& e) -> std::optional<std::string> {
                                if (!e.IsScalar() || e.Scalar().empty()) {
                                  c.error(e, "sweep exclude entries must be job-id globs");
                                  return std::nullopt;
                                }
                                if (!c.text(e, "sweep exclude")) return std::nullopt;
                                return e.Scalar();
                              });
    }
    if (auto note = c.string(body, "note", "sweep " + sw.name, false, true)) sw.note = *note;
    m.sweeps[sw.name] = std::move(sw);
  }
}

}  // namespace

Status select_sweep(Matrix& m, const std::string& name) {
  auto it = m.sweeps.find(name);
  if (it == m.sweeps.end()) {
    std::string known;
    for (const auto& [n, s] : m.sweeps) known += (known.empty() ? "" : ", ") + n;
    return make_error(ErrorKind::kUsage,
                      fmt::format("--sweep {}: the matrix has no such sweep (it has: {})", name,
                                  known.empty() ? "none" : known));
  }
  const Sweep& s = it->second;
  m.opts = s.opts;
  m.tick_hz = s.tick_hz;
  m.fpu_context = s.fpu_context;
  m.checks = s.checks;
  m.ramfunc = s.ramfunc;
  m.tickless = s.tickless;
  if (s.samples) m.samples = *s.samples;
  if (s.warmup) m.warmup = *s.warmup;
  m.exclude.insert(m.exclude.end(), s.exclude.begin(), s.exclude.end());
  m.sweep = name;
  return {};
}

Loaded<Matrix> parse_matrix(const std::string& text, const std::filesystem::path& file) {
  Loaded<Matrix> out;
  Checker c(std::filesystem::absolute(file).lexically_normal(), file.string());
  Matrix& m = out.value;
  m.file = c.file();
  m.firmware = std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "firmware";
  auto root_opt = parse_yaml(text, c);
  if (root_opt) {
    const YAML::Node& root = *root_opt;
    static const std::vector<std::string> kKeys{
        "matrix", "bench", "firmware", "board", "toolchain", "kernels", "variants", "tests",
        "samples", "warmup", "repeats", "reproducibility", "expect", "timeouts", "retries",
        "stack_margin_words", "sweeps",
        // read by diff/regress from the run's matrix snapshot
        "tolerances"};
    c.check_map(root, "the matrix", kKeys);
    if (auto name = c.string(root, "matrix", "the matrix", true)) {
      if (!matches(*name, kIdRe))
        c.error(root["matrix"], "matrix name must match [A-Za-z0-9][A-Za-z0-9_.-]*");
      m.name = *name;
    }
    if (auto b = c.string(root, "bench", "the matrix", false)) m.bench = c.path(*b);
    if (auto f = c.string(root, "firmware", "the matrix", false)) m.firmware = c.path(*f);
    m.board = c.choice(root, "board", "the matrix", board_names(), true).value_or("");
    if (YAML::Node t = root["toolchain"]; t.IsDefined()) {
      if (c.check_map(t, "toolchain", {"arm-none-eabi-gcc"})) {
        m.gcc_pin = c.string(t, "arm-none-eabi-gcc", "toolchain", false).value_or("");
        if (!m.gcc_pin.empty() && !c.allowed(t["arm-none-eabi-gcc"], m.gcc_pin, kGccPinRe,
                                             "toolchain arm-none-eabi-gcc", "a version, 12.2.1")) {
          m.gcc_pin.clear();
        }
      }
    }
    YAML::Node kernels = root["kernels"];
    if (!kernels.IsDefined()) {
      c.error(root, "the matrix needs 'kernels' (a list)");
    } else if (!kernels.IsSequence() || kernels.size() == 0) {
      c.error(kernels, "'kernels' must be a non-empty list");
    } else {
      for (const auto& k : kernels) parse_kernel(c, k, m);
    }
    if (YAML::Node v = root["variants"]; v.IsDefined()) parse_variants(c, v, m);
    if (YAML::Node t = root["tests"]; t.IsDefined()) {
      std::vector<std::string> allowed = known_tests();
      allowed.insert(allowed.begin(), "all");
      parse_list<std::string>(
          c, t, "tests", m.tests, [&](const YAML::Node& e) -> std::optional<std::string> {
            if (!e.IsScalar() ||
                std::find(allowed.begin(), allowed.end(), e.Scalar()) == allowed.end()) {
              c.error(e, fmt::format("unknown test '{}' (allowed: {})",
                                     e.IsScalar() ? e.Scalar() : "?", fmt::join(allowed, ", ")));
              return std::nullopt;
            }
            return e.Scalar();
          });
      if (m.tests.size() > 1 && std::find(m.tests.begin(), m.tests.end(), "all") != m.tests.end()) {
        c.error(t, "'all' cannot be combined with other tests");
      }
    }
    if (YAML::Node n = root["samples"]; n.IsDefined()) {
      if (auto v = c.integer(n, "samples", 1, 10000000)) m.samples = static_cast<int>(*v);
    }
    if (YAML::Node n = root["warmup"]; n.IsDefined()) {
      if (auto v = c.integer(n, "warmup", 0, 10000000)) m.warmup = static_cast<int>(*v);
    }
    if (YAML::Node s = root["sweeps"]; s.IsDefined()) parse_sweeps(c, s, m);
    if (YAML::Node n = root["stack_margin_words"]; n.IsDefined()) {
      if (auto v = c.integer(n, "stack_margin_words", 0, 4096))
        m.stack_margin_words = static_cast<int>(*v);
    }
    if (YAML::Node n = root["repeats"]; n.IsDefined()) {
      if (auto v = c.integer(n, "repeats", 1, 1000)) m.repeats = static_cast<int>(*v);
    }
    if (YAML::Node r = root["reproducibility"]; r.IsDefined()) parse_reproducibility(c, r, m);
    if (YAML::Node e = root["expect"]; e.IsDefined()) {
      std::map<std::string, std::optional<std::string>> pins;
      parse_expect(c, e, "expect", pins, false);
      for (auto& [k, v] : pins) m.expect[k] = v.value_or("");
    }
    if (YAML::Node t = root["timeouts"]; t.IsDefined()) {
      if (c.check_map(t, "timeouts", {"build", "flash", "capture", "inactivity"})) {
        auto set = [&](const char* key, double& out) {
          if (t[key].IsDefined()) {
            if (auto v = c.number(t[key], fmt::format("timeouts.{}", key), 0.1, 86400)) out = *v;
          }
        };
        set("build", m.timeouts.build_s);
        set("flash", m.timeouts.flash_s);
        set("capture", m.timeouts.capture_s);
        set("inactivity", m.timeouts.inactivity_s);
      }
    }
    if (YAML::Node r = root["retries"]; r.IsDefined()) {
      if (c.check_map(r, "retries", {"build", "flash", "capture"})) {
        auto set = [&](const char* key, int& out) {
          if (r[key].IsDefined()) {
            if (auto v = c.integer(r[key], fmt::format("retries.{}", key), 0, 10))
              out = static_cast<int>(*v);
          }
        };
        set("build", m.retries.build);
        set("flash", m.retries.flash);
        set("capture", m.retries.capture);
      }
    }
    // Every job id is one file name and names one job: built from
    // allow-listed parts, unique because every part is (checked above).
    if (c.error_count() == 0) {
      static const std::regex kJobIdRe("^[a-z0-9][A-Za-z0-9_-]*$");
      std::set<std::string> ids;
      for (const auto& j : expand_jobs(m)) {
        if (!matches(j.id, kJobIdRe) || !ids.insert(j.id).second) {
          c.error(root,
                  fmt::format("job id '{}' is not a unique [a-z0-9][A-Za-z0-9_-]* name", j.id));
        }
      }
    }
  }
  out.errors = std::move(c.errors());
  return out;
}

Loaded<Matrix> load_matrix(const std::filesystem::path& file) {
  Loaded<Matrix> out;
  auto text = read_text(file, out.errors);
  if (!text) return out;
  return parse_matrix(*text, file);
}

namespace {

void parse_board(Checker& c, const YAML::Node& b, Bench& bench) {
  static const std::vector<std::string> kKeys{"id",        "board",  "flasher", "probe",
                                              "qemu",      "serial", "reset",   "power_cycle",
                                              "port_wait", "lava"};
  if (!c.check_map(b, "a board instance", kKeys)) return;
  BoardInstance inst;
  if (auto id = c.string(b, "id", "a board instance", true)) {
    if (!matches(*id, kIdRe))
      c.error(b["id"],
              fmt::format("board id '{}' must match [A-Za-z0-9][A-Za-z0-9_.-]*", clipped(*id)));
    for (const auto& other : bench.boards) {
      if (other.id == *id)
        c.error(b["id"], fmt::format("board id '{}' is used twice", clipped(*id)));
    }
    // A refused id is only ever shown, clipped.
    inst.id = matches(*id, kIdRe) ? *id : clipped(*id);
  }
  std::string what = fmt::format("board '{}'", inst.id);
  inst.board = c.choice(b, "board", what, board_names(), true).value_or("");
  const BoardInfo* info = find_board(inst.board);
  auto flasher = c.choice(b, "flasher", what, board_flashers(), true);
  // With no valid flasher the checks that depend on it would only add noise.
  bool known_flasher = flasher.has_value();
  if (flasher && info &&
      std::find(info->flashers.begin(), info->flashers.end(), *flasher) == info->flashers.end()) {
    c.error(b["flasher"],
            fmt::format("{}: board {} is not flashed by '{}' (its board.cmake names: {})", what,
                        inst.board, *flasher, fmt::join(info->flashers, ", ")));
    known_flasher = false;
  }
  if (flasher) inst.flasher = *flasher;
  inst.emulated = info && flasher && info->emulator == *flasher;
  if (info && !info->qemu_machine.empty()) inst.qemu.machine = info->qemu_machine;
  if (YAML::Node p = b["probe"]; p.IsDefined()) {
    if (c.check_map(p, what + " probe",
                    {"serial", "interface", "target", "pack", "connect_under_reset"})) {
      // Each value checked against its allow-list; a refused one is dropped.
      auto field = [&](const char* key, const std::regex& re, const char* rule, std::string& out) {
        auto v = c.string(p, key, what + " probe", false);
        if (v && c.allowed(p[key], *v, re, fmt::format("{} probe.{}", what, key), rule)) out = *v;
      };
      field("serial", kSerialRe, kSerialRule, inst.probe.serial);
      field("interface", kScriptRe, kScriptRule, inst.probe.interface);
      field("target", kScriptRe, kScriptRule, inst.probe.target);
      field("pack", kPackRe, kPackRule, inst.probe.pack);
      if (auto u = c.choice(p, "connect_under_reset", what + " probe", {"true", "false"}, false)) {
        inst.probe.connect_under_reset = *u == "true";
      }
    }
  }
  if (inst.probe.target.empty() && info && info->targets.count(inst.flasher)) {
    inst.probe.target = info->targets.at(inst.flasher);
  }
  if (YAML::Node q = b["qemu"]; q.IsDefined()) {
    if (c.check_map(q, what + " qemu", {"machine", "serial", "extra_args"})) {
      if (auto mach = c.string(q, "machine", what + " qemu", false);
          mach && c.allowed(q["machine"], *mach, kIdRe, what + " qemu.machine",
                            "[A-Za-z0-9][A-Za-z0-9_.-]*")) {
        inst.qemu.machine = *mach;
      }
      if (auto t = c.choice(q, "serial", what + " qemu", {"socket", "pty"}, false)) {
        inst.qemu.serial = *t == "pty" ? QemuSerial::kPty : QemuSerial::kSocket;
      }
      if (YAML::Node a = q["extra_args"]; a.IsDefined()) {
        if (!a.IsSequence()) {
          c.error(a, "qemu.extra_args must be a list of strings");
        } else {
          for (const auto& e : a) {
            if (!e.IsScalar()) {
              c.error(e, "qemu.extra_args must be a list of strings");
            } else if (c.text(e, what + " qemu.extra_args") &&
                       c.allowed(e, e.Scalar(), kQemuArgRe, what + " qemu.extra_args entry",
                                 kQemuArgRule)) {
              inst.qemu.extra_args.push_back(e.Scalar());
            }
          }
        }
      }
    }
  }
  if (YAML::Node l = b["lava"]; l.IsDefined()) {
    const std::string lw = what + " lava";
    if (c.check_map(l, lw, {"device_type", "tags", "boot", "jobs", "priority"})) {
      LavaBoard lb;
      if (auto t = c.string(l, "device_type", lw, true);
          t && c.allowed(l["device_type"], *t, kIdRe, lw + ".device_type",
                         "[A-Za-z0-9][A-Za-z0-9_.-]*")) {
        lb.device_type = *t;
      }
      if (YAML::Node t = l["tags"]; t.IsDefined()) {
        if (!t.IsSequence()) {
          c.error(t, lw + ".tags must be a list of tag names");
        } else {
          for (const auto& e : t) {
            if (e.IsScalar() &&
                c.allowed(e, e.Scalar(), kIdRe, lw + ".tags entry", "[A-Za-z0-9][A-Za-z0-9_.-]*")) {
              lb.tags.push_back(e.Scalar());
            } else if (!e.IsScalar()) {
              c.error(e, lw + ".tags must be a list of tag names");
            }
          }
        }
      }
      // The boot method: the flasher's own, unless named (jlink is LAVA's alone).
      lb.boot = c.choice(l, "boot", lw, {"qemu", "openocd", "pyocd", "jlink"}, false)
                    .value_or(inst.flasher);
      if (YAML::Node j = l["jobs"]; j.IsDefined()) {
        if (auto v = c.integer(j, lw + ".jobs", 1, 256)) lb.jobs = static_cast<int>(*v);
      }
      lb.priority =
          c.choice(l, "priority", lw, {"low", "medium", "high"}, false).value_or("medium");
      inst.lava = std::move(lb);
    }
  }
  // A LAVA device's serial line is the worker's: nothing to name here.
  const bool local_port = known_flasher && !inst.emulated && !inst.lava;
  if (YAML::Node s = b["serial"]; s.IsDefined()) {
    if (c.check_map(s, what + " serial", {"port", "baud"})) {
      inst.serial_port = c.string(s, "port", what + " serial", local_port).value_or("");
      if (!inst.serial_port.empty()) {
        if (!matches(inst.serial_port, kPortRe) || climbs(inst.serial_port)) {
          c.error(s["port"], fmt::format("{} serial.port '{}' is not allowed: {}", what,
                                         inst.serial_port, kPortRule));
          inst.serial_port.clear();
        }
      }
      if (info && info->uart_baud > 0) inst.baud = info->uart_baud;
      if (s["baud"].IsDefined()) {
        if (auto v = c.integer(s["baud"], "serial.baud", 300, 12000000)) {
          inst.baud = static_cast<unsigned>(*v);
          // The image talks at its board's rate: another one reads garbage.
          if (info && info->uart_baud > 0 && inst.baud != info->uart_baud && !inst.emulated) {
            c.error(s["baud"],
                    fmt::format("{} serial.baud {}: the {} firmware's console runs at {} "
                                "(RB_BOARD_UART_BAUD in firmware/boards/{}/board.cmake); use {} "
                                "or rebuild the firmware at another rate",
                                what, inst.baud, inst.board, info->uart_baud, inst.board,
                                info->uart_baud));
          }
        }
      }
    }
  } else if (local_port) {
    c.error(b, fmt::format("{} needs 'serial: {{port: /dev/serial/by-id/...}}'", what));
  }
  if (known_flasher && inst.emulated && !inst.serial_port.empty()) {
    c.error(b["serial"],
            fmt::format("{}: an emulated board has no serial port to name (one is made per job)",
                        what));
  }
  if (auto r = c.choice(b, "reset", what, {"hardware", "system", "power-cycle"}, false)) {
    if (*r == "hardware") inst.reset = ResetMethod::kHardware;
    if (*r == "system") inst.reset = ResetMethod::kSystem;
    if (*r == "power-cycle") inst.reset = ResetMethod::kPowerCycle;
  }
  inst.power_cycle =
      c.string(b, "power_cycle", what, inst.reset == ResetMethod::kPowerCycle).value_or("");
  if (!inst.power_cycle.empty() && !c.allowed(b["power_cycle"], inst.power_cycle, kCommandRe,
                                              what + " power_cycle", kCommandRule)) {
    inst.power_cycle.clear();
  } else if (!inst.power_cycle.empty()) {
    std::string program = inst.power_cycle.substr(0, inst.power_cycle.find(' '));
    if (!power_tool_allowed(program)) {
      c.error(
          b["power_cycle"],
          fmt::format("{} power_cycle: '{}' is not a power-switch tool rtosbench knows (uhubctl, "
                      "ykushcmd, sispmctl, usbrelay); list it in the environment variable "
                      "RTOSBENCH_POWER_TOOLS to allow it",
                      what, program));
      inst.power_cycle.clear();
    }
  }
  if (YAML::Node w = b["port_wait"]; w.IsDefined()) {
    if (auto v = c.number(w, "port_wait", 0, 600)) inst.port_wait_s = *v;
  }
  bench.boards.push_back(std::move(inst));
}

// The bench's `lava:` server. The token itself is refused: only where to
// find it (token_env or token_file).
LavaServer parse_lava_server(Checker& c, const YAML::Node& l) {
  LavaServer s;
  const std::string what = "the bench's lava";
  if (!c.check_map(l, what, {"url", "token_env", "token_file", "publish", "poll", "queue_timeout"}))
    return s;
  static const std::regex kUrlRe(R"(https?://[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+)");
  if (auto u = c.string(l, "url", what, true);
      u && c.allowed(l["url"], *u, kUrlRe, what + ".url", "an http:// or https:// URL")) {
    s.url = *u;
    if (s.url.back() != '/') s.url += '/';
  }
  if (auto e = c.string(l, "token_env", what, false);
      e && c.allowed(l["token_env"], *e, std::regex("[A-Za-z_][A-Za-z0-9_]*"), what + ".token_env",
                     "an environment variable name")) {
    s.token_env = *e;
  }
  if (auto f = c.string(l, "token_file", what, false)) s.token_file = c.path(*f);
  if (s.token_env.empty() == s.token_file.empty()) {
    c.error(l, what +
                   " needs exactly one of 'token_env' (an environment variable name) or "
                   "'token_file' (a file holding the token); never the token itself");
  }
  if (YAML::Node p = l["publish"]; !p.IsDefined()) {
    c.error(l, what + " needs 'publish: {dir: ..., url: ...}' (where the workers fetch images)");
  } else if (c.check_map(p, what + ".publish", {"dir", "url"})) {
    if (auto d = c.string(p, "dir", what + ".publish", true)) s.publish_dir = c.path(*d);
    static const std::regex kPubRe(R"((file|https?)://[A-Za-z0-9._~:/@!$&'()*+,;=%-]+)");
    if (auto u = c.string(p, "url", what + ".publish", true);
        u && c.allowed(p["url"], *u, kPubRe, what + ".publish.url",
                       "a file://, http:// or https:// URL")) {
      s.publish_url = *u;
      while (!s.publish_url.empty() && s.publish_url.back() == '/') s.publish_url.pop_back();
    }
  }
  if (YAML::Node n = l["poll"]; n.IsDefined()) {
    if (auto v = c.number(n, what + ".poll", 0.1, 600)) s.poll_s = *v;
  }
  if (YAML::Node n = l["queue_timeout"]; n.IsDefined()) {
    if (auto v = c.number(n, what + ".queue_timeout", 1, 7 * 24 * 3600)) s.queue_timeout_s = *v;
  }
  return s;
}

}  // namespace

Loaded<Bench> parse_bench(const std::string& text, const std::filesystem::path& file) {
  Loaded<Bench> out;
  Checker c(std::filesystem::absolute(file).lexically_normal(), file.string());
  out.value.file = c.file();
  if (auto root_opt = parse_yaml(text, c)) {
    const YAML::Node& root = *root_opt;
    c.check_map(root, "the bench", {"bench", "boards", "lava"});
    out.value.name = c.string(root, "bench", "the bench", true).value_or("");
    if (!out.value.name.empty() && !c.allowed(root["bench"], out.value.name, kIdRe, "bench name",
                                              "[A-Za-z0-9][A-Za-z0-9_.-]*")) {
      out.value.name.clear();
    }
    YAML::Node boards = root["boards"];
    if (!boards.IsDefined()) {
      c.error(root, "the bench needs 'boards' (a list of board instances)");
    } else if (!boards.IsSequence() || boards.size() == 0) {
      c.error(boards, "'boards' must be a non-empty list");
    } else {
      for (const auto& b : boards) parse_board(c, b, out.value);
    }
    if (YAML::Node l = root["lava"]; l.IsDefined()) {
      out.value.lava = parse_lava_server(c, l);
    }
    // IsDefined first: on a root that is not a map, boards is an invalid node,
    // whose IsSequence() throws.
    const bool board_list = boards.IsDefined() && boards.IsSequence();
    for (size_t i = 0; board_list && i < out.value.boards.size(); ++i) {
      if (out.value.boards[i].lava && !out.value.lava) {
        c.error(boards[i]["lava"],
                fmt::format("board '{}' is a LAVA device but the bench has no 'lava:' server",
                            out.value.boards[i].id));
      }
    }
  }
  out.errors = std::move(c.errors());
  return out;
}

Loaded<Bench> load_bench(const std::filesystem::path& file) {
  Loaded<Bench> out;
  auto text = read_text(file, out.errors);
  if (!text) return out;
  return parse_bench(*text, file);
}

}  // namespace rb::matrix
