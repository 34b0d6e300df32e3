#include "matrix/load.h"

#include "matrix/expand.h"
#include "matrix/registry.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace rb::matrix {

const char* to_string(ResetMethod r) {
  switch (r) {
    case ResetMethod::kHardware: return "hardware";
    case ResetMethod::kSystem: return "system";
    case ResetMethod::kPowerCycle: return "power-cycle";
  }
  return "?";
}

std::string Diagnostic::format() const {
  if (line > 0) return fmt::format("{}:{}:{}: error: {}", file, line, column, message);
  return fmt::format("{}: error: {}", file, message);
}

const std::vector<std::string>& known_statistics() {
  static const std::vector<std::string> kStats{"n",   "min", "median", "avg",    "p90",   "p99",
                                               "p999", "max", "stddev", "jitter", "base"};
  return kStats;
}

const std::vector<StatisticAllowance>& hardware_allowances() {
  static const std::vector<StatisticAllowance> kAllowances{
      {"n", 0, 0},     {"min", 2, 5},     {"median", 2, 2},  {"avg", 2, 2},
      {"p90", 3, 5},   {"p99", 5, 5},     {"p999", 10, 10},  {"max", 20, 25},
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

// Collects diagnostics for one file; every accessor reports and goes on.
class Checker {
 public:
  // `shown` is the path as the user named it (diagnostics); `file` the
  // absolute path relative paths inside are resolved against.
  Checker(std::filesystem::path file, std::string shown) : file_(std::move(file)), shown_(std::move(shown)) {}

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
  bool check_map(const YAML::Node& map, const std::string& what, const std::vector<std::string>& allowed) {
    if (!map.IsMap()) {
      error(map, fmt::format("{} must be a mapping", what));
      return false;
    }
    for (auto it = map.begin(); it != map.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        error(it->first, fmt::format("unknown key '{}' in {} (allowed: {})", key, what, fmt::join(allowed, ", ")));
      }
    }
    return true;
  }

  std::optional<std::string> string(const YAML::Node& map, const std::string& key, const std::string& what,
                                    bool required) {
    YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (required) error(map, fmt::format("{} needs '{}'", what, key));
      return std::nullopt;
    }
    if (!n.IsScalar()) {
      error(n, fmt::format("'{}' in {} must be a string", key, what));
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<long long> integer(const YAML::Node& n, const std::string& what, long long min, long long max) {
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

  std::optional<double> number(const YAML::Node& n, const std::string& what, double min, double max) {
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
    error(n, fmt::format("{} must be a number of seconds in [{}, {}], got '{}'", what, min, max, n.Scalar()));
    return std::nullopt;
  }

  std::optional<std::string> choice(const YAML::Node& map, const std::string& key, const std::string& what,
                                    const std::vector<std::string>& allowed, bool required) {
    auto v = string(map, key, what, required);
    if (!v) return std::nullopt;
    if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
      error(map[key], fmt::format("'{}' in {} is '{}' (allowed: {})", key, what, *v, fmt::join(allowed, ", ")));
      return std::nullopt;
    }
    return v;
  }

  std::filesystem::path path(const std::string& value) const {
    std::filesystem::path p(value);
    if (!value.empty() && value[0] == '~') {
      const char* home = std::getenv("HOME");
      if (home) p = std::filesystem::path(home) / value.substr(value.size() > 1 && value[1] == '/' ? 2 : 1);
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

 private:
  std::filesystem::path file_;
  std::string shown_;
  std::vector<Diagnostic> errors_;
};

// Parses the text; a syntax error becomes the only diagnostic.
std::optional<YAML::Node> parse_yaml(const std::string& text, Checker& c) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) {
      c.error(root, "the file must be a YAML mapping");
      return std::nullopt;
    }
    return root;
  } catch (const YAML::ParserException& e) {
    c.error_at(e.mark, "YAML syntax: " + e.msg);
    return std::nullopt;
  }
}

std::optional<std::string> read_text(const std::filesystem::path& file, std::vector<Diagnostic>& errors) {
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file)) {
    errors.push_back(Diagnostic{file.string(), 0, 0, "cannot read the file (missing or not a regular file)"});
    return std::nullopt;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::regex kNameRe("^[a-z0-9][a-z0-9_]*$");
const std::regex kIdRe("^[A-Za-z0-9][A-Za-z0-9_.-]*$");

void parse_expect(Checker& c, const YAML::Node& n, const std::string& what,
                  std::map<std::string, std::optional<std::string>>& out, bool allow_null) {
  if (!n.IsMap()) {
    c.error(n, fmt::format("{} must be a mapping of CONFIG key to value", what));
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    std::string key = it->first.Scalar();
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
  if (!std::regex_match(*v, kCommitRe)) {
    c.error(map["commit"], fmt::format("'commit' of {} must be a full commit id (40 hex digits), got '{}'", what, *v));
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
    const YAML::Node& v = it->second;
    std::string what = fmt::format("reproducibility.{}", key);
    SpreadTolerance t;
    // A number >= 0; `percent` also takes a trailing '%'.
    auto nonneg = [&](const YAML::Node& x, const std::string& w, bool percent) -> std::optional<double> {
      std::string text = x.IsScalar() ? x.Scalar() : "";
      if (percent && !text.empty() && text.back() == '%') text.pop_back();
      try {
        size_t used = 0;
        double d = std::stod(text, &used);
        if (used == text.size() && d >= 0) return d;
      } catch (const std::exception&) {
      }
      c.error(x, percent ? fmt::format("{} must be a percentage >= 0 (e.g. 2 or \"2%\"), `off`, or {{abs: N, pct: P}}", w)
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
  static const std::vector<std::string> kKeys{"name", "port", "version", "git", "tag", "commit", "source",
                                              "note", "extra_sources", "expect"};
  if (!c.check_map(k, "a kernel", kKeys)) return;
  KernelSpec spec;
  auto name = c.string(k, "name", "a kernel", true);
  if (name) {
    if (!std::regex_match(*name, kNameRe)) {
      c.error(k["name"], fmt::format("kernel name '{}' must match [a-z0-9][a-z0-9_]*", *name));
    }
    for (const auto& other : m.kernels) {
      if (other.name == *name) c.error(k["name"], fmt::format("kernel '{}' is listed twice", *name));
    }
    spec.name = *name;
  }
  std::string what = fmt::format("kernel '{}'", spec.name);
  spec.port = c.string(k, "port", what, false).value_or(spec.name);
  if (k["port"].IsDefined() && !std::regex_match(spec.port, kNameRe)) {
    c.error(k["port"], fmt::format("port '{}' must match [a-z0-9][a-z0-9_]*", spec.port));
  }
  spec.git = c.string(k, "git", what, false).value_or("");
  spec.commit = pinned_commit(c, k, what);
  spec.tag = c.string(k, "tag", what, !spec.git.empty() && !k["commit"].IsDefined()).value_or("");
  spec.version = c.string(k, "version", what, !spec.git.empty()).value_or("n/a");
  if (auto s = c.string(k, "source", what, false)) spec.source = c.path(*s);
  spec.note = c.string(k, "note", what, false).value_or("");
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
        if (!x.name.empty() && !std::regex_match(x.name, kNameRe)) {
          c.error(e["name"], fmt::format("extra source name '{}' must match [a-z0-9][a-z0-9_]*", x.name));
        }
        x.git = c.string(e, "git", "an extra source", false).value_or("");
        x.commit = pinned_commit(c, e, fmt::format("extra source '{}'", x.name));
        x.tag = c.string(e, "tag", "an extra source", !x.git.empty() && !e["commit"].IsDefined()).value_or("");
        if (auto s = c.string(e, "source", "an extra source", false)) x.source = c.path(*s);
        if (x.git.empty() && x.source.empty()) {
          c.error(e, fmt::format("extra source '{}' needs 'git' or 'source'", x.name));
        }
        spec.extra_sources.push_back(std::move(x));
      }
    }
  }
  if (YAML::Node e = k["expect"]; e.IsDefined()) parse_expect(c, e, what + " expect", spec.expect, true);
  m.kernels.push_back(std::move(spec));
}

template <typename T, typename F>
void parse_list(Checker& c, const YAML::Node& n, const std::string& what, std::vector<T>& out, F item) {
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
    if (auto v = item(e)) values.push_back(*v);
  }
  out = values;
}

}  // namespace

Loaded<Matrix> parse_matrix(const std::string& text, const std::filesystem::path& file) {
  Loaded<Matrix> out;
  Checker c(std::filesystem::absolute(file).lexically_normal(), file.string());
  Matrix& m = out.value;
  m.file = c.file();
  m.firmware = std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "firmware";
  auto root_opt = parse_yaml(text, c);
  if (root_opt) {
    const YAML::Node& root = *root_opt;
    static const std::vector<std::string> kKeys{"matrix", "bench", "firmware", "board", "toolchain",
                                                "kernels", "variants", "tests", "samples", "warmup",
                                                "repeats", "reproducibility", "expect", "timeouts", "retries",
                                                // read by diff/regress from the run's matrix snapshot
                                                "tolerances"};
    c.check_map(root, "the matrix", kKeys);
    if (auto name = c.string(root, "matrix", "the matrix", true)) {
      if (!std::regex_match(*name, kIdRe)) c.error(root["matrix"], "matrix name must match [A-Za-z0-9][A-Za-z0-9_.-]*");
      m.name = *name;
    }
    if (auto b = c.string(root, "bench", "the matrix", false)) m.bench = c.path(*b);
    if (auto f = c.string(root, "firmware", "the matrix", false)) m.firmware = c.path(*f);
    m.board = c.choice(root, "board", "the matrix", board_names(), true).value_or("");
    if (YAML::Node t = root["toolchain"]; t.IsDefined()) {
      if (c.check_map(t, "toolchain", {"arm-none-eabi-gcc"})) {
        m.gcc_pin = c.string(t, "arm-none-eabi-gcc", "toolchain", false).value_or("");
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
    if (YAML::Node v = root["variants"]; v.IsDefined()) {
      if (c.check_map(v, "variants", {"opt", "tick_hz", "fpu_context"})) {
        if (v["opt"].IsDefined()) {
          parse_list<std::string>(c, v["opt"], "variants.opt", m.opts, [&](const YAML::Node& e) -> std::optional<std::string> {
            if (!e.IsScalar() || e.Scalar().empty()) {
              c.error(e, "variants.opt entries must be non-empty strings of compiler flags");
              return std::nullopt;
            }
            return e.Scalar();
          });
          std::map<std::string, std::string> ids;
          for (const auto& o : m.opts) {
            std::string id = opt_id(o);
            if (ids.count(id)) {
              c.error(v["opt"], fmt::format("variants.opt '{}' and '{}' give the same job id part '{}'", ids[id], o, id));
            }
            ids[id] = o;
          }
        }
        if (v["tick_hz"].IsDefined()) {
          parse_list<int>(c, v["tick_hz"], "variants.tick_hz", m.tick_hz, [&](const YAML::Node& e) -> std::optional<int> {
            auto x = c.integer(e, "variants.tick_hz", 0, 100000);
            return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
          });
        }
        if (v["fpu_context"].IsDefined()) {
          parse_list<int>(c, v["fpu_context"], "variants.fpu_context", m.fpu_context, [&](const YAML::Node& e) -> std::optional<int> {
            auto x = c.integer(e, "variants.fpu_context (allowed: 0, 1)", 0, 1);
            return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
          });
        }
      }
    }
    if (YAML::Node t = root["tests"]; t.IsDefined()) {
      std::vector<std::string> allowed = known_tests();
      allowed.insert(allowed.begin(), "all");
      parse_list<std::string>(c, t, "tests", m.tests, [&](const YAML::Node& e) -> std::optional<std::string> {
        if (!e.IsScalar() || std::find(allowed.begin(), allowed.end(), e.Scalar()) == allowed.end()) {
          c.error(e, fmt::format("unknown test '{}' (allowed: {})", e.IsScalar() ? e.Scalar() : "?", fmt::join(allowed, ", ")));
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
            if (auto v = c.integer(r[key], fmt::format("retries.{}", key), 0, 10)) out = static_cast<int>(*v);
          }
        };
        set("build", m.retries.build);
        set("flash", m.retries.flash);
        set("capture", m.retries.capture);
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
  static const std::vector<std::string> kKeys{"id", "board", "flasher", "probe", "qemu", "serial",
                                              "reset", "power_cycle", "port_wait"};
  if (!c.check_map(b, "a board instance", kKeys)) return;
  BoardInstance inst;
  if (auto id = c.string(b, "id", "a board instance", true)) {
    if (!std::regex_match(*id, kIdRe)) c.error(b["id"], fmt::format("board id '{}' must match [A-Za-z0-9][A-Za-z0-9_.-]*", *id));
    for (const auto& other : bench.boards) {
      if (other.id == *id) c.error(b["id"], fmt::format("board id '{}' is used twice", *id));
    }
    inst.id = *id;
  }
  std::string what = fmt::format("board '{}'", inst.id);
  inst.board = c.choice(b, "board", what, board_names(), true).value_or("");
  const BoardInfo* info = find_board(inst.board);
  auto flasher = c.choice(b, "flasher", what, board_flashers(), true);
  // With no valid flasher the checks that depend on it would only add noise.
  bool known_flasher = flasher.has_value();
  if (flasher && info && std::find(info->flashers.begin(), info->flashers.end(), *flasher) == info->flashers.end()) {
    c.error(b["flasher"], fmt::format("{}: board {} is not flashed by '{}' (its board.cmake names: {})", what,
                                      inst.board, *flasher, fmt::join(info->flashers, ", ")));
    known_flasher = false;
  }
  if (flasher) inst.flasher = *flasher;
  inst.emulated = info && flasher && info->emulator == *flasher;
  if (info && !info->qemu_machine.empty()) inst.qemu.machine = info->qemu_machine;
  if (YAML::Node p = b["probe"]; p.IsDefined()) {
    if (c.check_map(p, what + " probe", {"serial", "interface", "target", "pack", "connect_under_reset"})) {
      inst.probe.serial = c.string(p, "serial", what + " probe", false).value_or("");
      inst.probe.interface = c.string(p, "interface", what + " probe", false).value_or(inst.probe.interface);
      inst.probe.target = c.string(p, "target", what + " probe", false).value_or("");
      inst.probe.pack = c.string(p, "pack", what + " probe", false).value_or("");
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
      inst.qemu.machine = c.string(q, "machine", what + " qemu", false).value_or(inst.qemu.machine);
      if (auto t = c.choice(q, "serial", what + " qemu", {"socket", "pty"}, false)) {
        inst.qemu.serial = *t == "pty" ? QemuSerial::kPty : QemuSerial::kSocket;
      }
      if (YAML::Node a = q["extra_args"]; a.IsDefined()) {
        if (!a.IsSequence()) {
          c.error(a, "qemu.extra_args must be a list of strings");
        } else {
          for (const auto& e : a) inst.qemu.extra_args.push_back(e.Scalar());
        }
      }
    }
  }
  if (YAML::Node s = b["serial"]; s.IsDefined()) {
    if (c.check_map(s, what + " serial", {"port", "baud"})) {
      inst.serial_port =
          c.string(s, "port", what + " serial", known_flasher && !inst.emulated).value_or("");
      if (s["baud"].IsDefined()) {
        if (auto v = c.integer(s["baud"], "serial.baud", 300, 12000000)) inst.baud = static_cast<unsigned>(*v);
      }
    }
  } else if (known_flasher && !inst.emulated) {
    c.error(b, fmt::format("{} needs 'serial: {{port: /dev/serial/by-id/...}}'", what));
  }
  if (known_flasher && inst.emulated && !inst.serial_port.empty()) {
    c.error(b["serial"], fmt::format("{}: an emulated board has no serial port to name (one is made per job)", what));
  }
  if (auto r = c.choice(b, "reset", what, {"hardware", "system", "power-cycle"}, false)) {
    if (*r == "hardware") inst.reset = ResetMethod::kHardware;
    if (*r == "system") inst.reset = ResetMethod::kSystem;
    if (*r == "power-cycle") inst.reset = ResetMethod::kPowerCycle;
  }
  inst.power_cycle = c.string(b, "power_cycle", what, inst.reset == ResetMethod::kPowerCycle).value_or("");
  if (YAML::Node w = b["port_wait"]; w.IsDefined()) {
    if (auto v = c.number(w, "port_wait", 0, 600)) inst.port_wait_s = *v;
  }
  bench.boards.push_back(std::move(inst));
}

}  // namespace

Loaded<Bench> parse_bench(const std::string& text, const std::filesystem::path& file) {
  Loaded<Bench> out;
  Checker c(std::filesystem::absolute(file).lexically_normal(), file.string());
  out.value.file = c.file();
  if (auto root_opt = parse_yaml(text, c)) {
    const YAML::Node& root = *root_opt;
    c.check_map(root, "the bench", {"bench", "boards"});
    out.value.name = c.string(root, "bench", "the bench", true).value_or("");
    YAML::Node boards = root["boards"];
    if (!boards.IsDefined()) {
      c.error(root, "the bench needs 'boards' (a list of board instances)");
    } else if (!boards.IsSequence() || boards.size() == 0) {
      c.error(boards, "'boards' must be a non-empty list");
    } else {
      for (const auto& b : boards) parse_board(c, b, out.value);
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
