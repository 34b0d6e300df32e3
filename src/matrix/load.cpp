#include "matrix/load.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <boost/algorithm/string/case_conv.hpp>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <set>

#include "matrix/expand.h"
#include "util/posix_file.h"
#include "util/url.h"

namespace rb::matrix {

using nlohmann::json;

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

const catalog::Catalog& default_catalog() {
  static const catalog::Catalog kCatalog = [] {
    std::vector<Diagnostic> d;
    auto c = catalog::load(catalog::default_firmware_dir(), d);
    if (!c.ok()) {
      std::string all = c.error().message;
      for (const auto& x : d) all += "\n" + x.format();
      throw std::runtime_error(all);
    }
    return std::move(*c);
  }();
  return kCatalog;
}

const json& matrix_schema() {
  static const json kSchema = [] {
    json s = schema("matrix");
    json variants = {{"type", "object"}, {"additionalProperties", false}};
    for (const auto& a : model::axes()) {
      json value = json::parse(a.value_schema);
      variants["properties"][std::string(a.key)] = {
          {"description",
           fmt::format("{} ({}; CONFIG {}): a list of values", a.title, a.define, a.config)},
          {"type", "array"},
          {"minItems", 1},
          {"uniqueItems", true},
          {"items", value}};
    }
    s["definitions"]["variants"] = variants;
    json by_stat = {{"type", "object"}, {"additionalProperties", false}};
    by_stat["properties"]["default"] = {{"$ref", "#/definitions/tolerance"}};
    for (const auto& st : model::statistics())
      by_stat["properties"][std::string(st.name)] = {{"$ref", "#/definitions/tolerance"}};
    s["definitions"]["tolerances_by_statistic"] = by_stat;
    return s;
  }();
  return kSchema;
}

namespace {

std::optional<std::string> read_text(const std::filesystem::path& file,
                                     std::vector<Diagnostic>& errors) {
  std::error_code ec;
  auto t = std::filesystem::is_directory(file, ec) ? std::nullopt : read_whole_file(file);
  if (!t)
    errors.push_back(
        Diagnostic{file.string(), 0, 0, "cannot read the file (missing or not a regular file)"});
  return t;
}

// One file being checked: its document, where its relative paths start, and
// the problems found so far.
struct Check {
  YamlDoc doc;
  std::filesystem::path file;  // absolute
  std::vector<Diagnostic> errors;

  // A problem at `pointer`, unless the schema already refused part of it.
  void error(const std::string& pointer, std::string message) {
    if (doc.lost_part_of(pointer)) return;
    errors.push_back(doc.at(pointer, std::move(message)));
  }
  // A path the file names, relative to the file's directory.
  std::filesystem::path path(const std::string& value) const {
    std::filesystem::path p(value);
    if (p.is_relative()) p = file.parent_path() / p;
    return p.lexically_normal();
  }
  std::vector<Diagnostic> sorted() {
    std::stable_sort(errors.begin(), errors.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::pair(a.line, a.column) < std::pair(b.line, b.column);
    });
    return std::move(errors);
  }
};

// Parses `text` and checks it against `schema`; false when the file's shape
// is wrong (the semantic checks would only add noise).
bool shaped(Check& c, const std::string& text, const std::filesystem::path& shown,
            const json& schema) {
  c.file = std::filesystem::absolute(shown).lexically_normal();
  if (!parse_yaml_doc(text, shown.string(), c.doc, c.errors)) return false;
  // `variants:` axes (a sweep's too) take one value without brackets.
  auto listify = [&](json& variants, const std::string& at) {
    if (!variants.is_object()) return;
    for (auto& [k, v] : variants.items()) {
      if (v.is_array()) continue;
      v = json::array({v});
      if (auto m = c.doc.marks.find(at + "/" + k); m != c.doc.marks.end())
        c.doc.marks.emplace(at + "/" + k + "/0", m->second);
    }
  };
  if (c.doc.value.contains("variants")) listify(c.doc.value["variants"], "/variants");
  if (c.doc.value.contains("sweeps") && c.doc.value["sweeps"].is_object())
    for (auto& [n, s] : c.doc.value["sweeps"].items())
      if (s.is_object() && s.contains("variants"))
        listify(s["variants"], "/sweeps/" + n + "/variants");
  // A shape error leaves the rest to check: the offending values are taken out.
  check_schema(c.doc, schema, c.errors);
  return c.doc.value.is_object();
}

// A matrix entry of `kernels:`: the port's facts, overridden by the entry.
KernelSpec read_kernel(Check& c, const json& e, const std::string& at,
                       const catalog::Catalog& cat) {
  const std::string name = e.is_string() ? e.get<std::string>() : e.value("name", "");
  const std::string port = e.is_object() ? e.value("port", name) : name;
  KernelSpec k;
  if (const auto* known = cat.kernel(port)) {
    k = *known;
  } else {
    k.port_exists = false;
    k.version = "n/a";
  }
  k.name = name;
  k.port = port;
  if (e.is_object()) {
    // A new pin replaces the port's whole pin: a tag does not keep its commit.
    if (e.contains("git") || e.contains("tag") || e.contains("commit")) {
      k.git = e.value("git", k.git);
      k.tag = e.value("tag", "");
      k.commit = e.value("commit", "");
    }
    boost::algorithm::to_lower(k.commit);
    k.version = e.value("version", k.version);
    k.note = e.value("note", k.note);
    k.supply = e.value("supply", k.supply);
    if (e.contains("source")) k.source = c.path(e["source"].get<std::string>());
    if (e.contains("expect")) catalog::read_pins(e["expect"], k.expect);
    if (e.contains("extra_sources")) {
      k.extra_sources.clear();
      for (const auto& x : e["extra_sources"]) {
        ExtraSource s{
            x.value("name", ""), x.value("git", ""), x.value("tag", ""), x.value("commit", ""), {}};
        if (x.contains("source")) s.source = c.path(x["source"].get<std::string>());
        if (s.git.empty() && s.source.empty())
          c.error(at, fmt::format("extra source '{}' needs 'git' or 'source'", s.name));
        if (!s.git.empty() && s.tag.empty() && s.commit.empty())
          c.error(at, fmt::format("extra source '{}' needs a 'tag' or a 'commit'", s.name));
        k.extra_sources.push_back(std::move(s));
      }
    }
  }
  const std::string what = fmt::format("kernel '{}'", name);
  if (!k.git.empty() && k.tag.empty() && k.commit.empty())
    c.error(at, fmt::format("{} needs 'tag' or 'commit' with its 'git'", what));
  if ((!k.tag.empty() || !k.commit.empty()) && k.git.empty() && k.source.empty())
    c.error(at, fmt::format("{} has a tag or commit but neither 'git' nor 'source'", what));
  if (!k.supply.empty() && !k.git.empty())
    c.error(at, fmt::format("{} has both 'git' and 'supply' (supply is for kernels without a "
                            "public source)",
                            what));
  if ((!k.git.empty() || !k.supply.empty()) && k.version == "n/a")
    c.error(at, fmt::format("{} needs 'version'", what));
  return k;
}

std::vector<std::string> strings(const json& v) {
  std::vector<std::string> out;
  for (const auto& e : v.is_array() ? v : json::array({v})) out.push_back(scalar_text(e));
  return out;
}

// `variants:` (or a sweep's): axis -> values, checked beyond the schema.
void read_variants(Check& c, const json& v, const std::string& at,
                   std::map<std::string, std::vector<std::string>>& out) {
  for (auto& [axis, values] : v.items()) out[axis] = strings(values);
  if (auto it = out.find("opt"); it != out.end()) {
    std::map<std::string, std::string> ids;
    for (const auto& o : it->second) {
      std::string id = model::opt_id(o);
      if (ids.count(id))
        c.error(at + "/opt",
                fmt::format("variants.opt '{}' and '{}' give the same job id part '{}'", ids[id], o,
                            id));
      ids[id] = o;
    }
  }
}

// QEMU takes a word that follows no option as a disk image to open, and
// -global can set a property that names a file: each allowed option takes
// exactly its value (-no-reboot none), and no value is a bare word or a
// file-naming property.
void check_qemu_args(Check& c, const std::string& at, const std::vector<std::string>& args) {
  static const std::set<std::string> with_value = {"-d", "-icount", "-rtc",   "-cpu",
                                                   "-m", "-global", "-accel", "-smp"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string where = fmt::format("{}/{}", at, i);
    if (a.empty() || a[0] != '-') {
      c.error(where, fmt::format("'{}' follows no option that takes a value: QEMU would open it "
                                 "as a disk image",
                                 printable(a)));
      continue;
    }
    if (!with_value.count(a)) continue;  // -no-reboot; anything else the schema refused
    if (i + 1 >= args.size() || args[i + 1].empty() || args[i + 1][0] == '-') {
      c.error(where, fmt::format("'{}' needs its value as the next item", a));
      continue;
    }
    const std::string& v = args[++i];
    if (a == "-global") {
      const size_t dot = v.find('.'), eq = v.find('=');
      std::string prop = dot != std::string::npos && eq != std::string::npos && dot < eq
                             ? v.substr(dot + 1, eq - dot - 1)
                             : std::string();
      boost::algorithm::to_lower(prop);
      if (prop.empty()) {
        c.error(fmt::format("{}/{}", at, i),
                fmt::format("-global '{}' is not <driver>.<property>=<value>", printable(v)));
      } else if (prop.find("file") != std::string::npos || prop.find("path") != std::string::npos ||
                 prop.find("drive") != std::string::npos ||
                 prop.find("chardev") != std::string::npos) {
        c.error(fmt::format("{}/{}", at, i),
                fmt::format("-global '{}' sets a property that names a file, a drive or a "
                            "character device",
                            printable(v)));
      }
    }
  }
}

SpreadTolerance tolerance_of(const json& v) {
  SpreadTolerance t;
  auto percent = [](const json& x) {
    std::string s = scalar_text(x);
    if (!s.empty() && s.back() == '%') s.pop_back();
    return std::strtod(s.c_str(), nullptr);
  };
  if (v.is_string() && v.get<std::string>() == "off") {
    t.off = true;
  } else if (v.is_object()) {
    if (v.contains("pct")) t.pct = percent(v["pct"]);
    if (v.contains("abs")) t.abs = v["abs"].get<double>();
  } else {
    t.pct = percent(v);
  }
  return t;
}

void read_sweeps(Check& c, const json& sweeps, Matrix& m) {
  for (auto& [name, body] : sweeps.items()) {
    Sweep sw;
    sw.name = name;
    sw.note = body.value("note", "");
    sw.variants = m.variants;
    if (body.contains("variants"))
      read_variants(c, body["variants"], "/sweeps/" + name + "/variants", sw.variants);
    if (body.contains("samples")) sw.samples = body["samples"].get<int>();
    if (body.contains("warmup")) sw.warmup = body["warmup"].get<int>();
    if (body.contains("exclude")) sw.exclude = strings(body["exclude"]);
    m.sweeps[name] = std::move(sw);
  }
}

EdgesSpec edges_of(const json& v) {
  EdgesSpec e;
  const json x = v.value("edges", json::object());
  if (x.contains("tolerance_ns")) e.tolerance_ns = x["tolerance_ns"].get<double>();
  e.gpio_latency_ns = x.value("gpio_latency_ns", e.gpio_latency_ns);
  return e;
}

void read_matrix_body(Check& c, Matrix& m, const std::filesystem::path& firmware) {
  const json& v = c.doc.value;
  m.name = v.value("matrix", "");
  if (v.contains("bench")) m.bench = c.path(v["bench"].get<std::string>());
  m.firmware = !firmware.empty()        ? std::filesystem::absolute(firmware).lexically_normal()
               : v.contains("firmware") ? c.path(v["firmware"].get<std::string>())
                                        : catalog::default_firmware_dir();
  std::vector<Diagnostic> tree;
  auto cat = catalog::load(m.firmware, tree);
  if (!cat.ok()) {
    c.error("/firmware", cat.error().message);
    for (auto& d : tree) c.errors.push_back(std::move(d));
    return;
  }
  m.catalog = std::move(*cat);
  std::vector<std::string> boards;
  if (v.contains("board")) boards.push_back(v["board"].get<std::string>());
  if (v.contains("boards")) boards = strings(v["boards"]);
  for (const auto& b : boards) {
    if (!m.catalog.board(b))
      c.error(v.contains("board") ? "/board" : "/boards",
              fmt::format("'{}' is not a board of the firmware tree (allowed: {})", b,
                          fmt::join(m.catalog.board_names(), ", ")));
  }
  m.boards = boards;
  if (v.contains("toolchain")) m.gcc_pin = v["toolchain"].value("arm-none-eabi-gcc", "");
  // `all` (alone, or first in the list): every discovered port; an entry
  // after it that names one of them replaces it in place (its overrides).
  const json kernels = v.value("kernels", json::array());
  const json entries = kernels.is_string() ? json::array({kernels}) : kernels;
  std::set<std::string> from_all, listed;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at = kernels.is_string() ? "/kernels" : fmt::format("/kernels/{}", i);
    if (entries[i] == "all") {
      if (i != 0) c.error(at, "'all' must be the first entry of 'kernels'");
      for (const auto& k : m.catalog.kernels) {
        if (!k.discover) continue;
        m.kernels.push_back(k);
        from_all.insert(k.name);
      }
      continue;
    }
    KernelSpec k = read_kernel(c, entries[i], at, m.catalog);
    if (!listed.insert(k.name).second)
      c.error(at, fmt::format("kernel '{}' is listed twice", k.name));
    auto same = std::find_if(m.kernels.begin(), m.kernels.end(),
                             [&](const KernelSpec& x) { return x.name == k.name; });
    if (same != m.kernels.end() && from_all.count(k.name))
      *same = std::move(k);
    else
      m.kernels.push_back(std::move(k));
  }
  for (const auto& a : model::axes())
    m.variants[std::string(a.key)] = {std::string(a.default_value)};
  if (v.contains("variants")) read_variants(c, v["variants"], "/variants", m.variants);
  if (v.contains("tests") && v["tests"].is_array()) {
    m.tests = strings(v["tests"]);
    const auto known = m.catalog.test_names();
    for (size_t i = 0; i < m.tests.size(); ++i) {
      if (std::find(known.begin(), known.end(), m.tests[i]) == known.end())
        c.error(fmt::format("/tests/{}", i), fmt::format("unknown test '{}' (allowed: all, {})",
                                                         m.tests[i], fmt::join(known, ", ")));
    }
  }
  m.samples = v.value("samples", m.samples);
  m.warmup = v.value("warmup", m.warmup);
  // `loads:` is the name; `repeats:`, its earlier name, still reads.
  if (v.contains("loads") && v.contains("repeats"))
    c.error("/repeats", "'repeats' is the earlier name of 'loads': give one of them");
  m.repeats = v.value("loads", v.value("repeats", m.repeats));
  m.stack_margin_words = v.value("stack_margin_words", m.stack_margin_words);
  const json reproducibility_ = v.value("reproducibility", json::object());
  for (auto& [k, t] : reproducibility_.items()) m.reproducibility[k] = tolerance_of(t);
  const json expect_ = v.value("expect", json::object());
  for (auto& [k, e] : expect_.items()) m.expect[k] = scalar_text(e);
  const json t = v.value("timeouts", json::object());
  m.timeouts.build_s = t.value("build", m.timeouts.build_s);
  m.timeouts.flash_s = t.value("flash", m.timeouts.flash_s);
  m.timeouts.capture_s = t.value("capture", m.timeouts.capture_s);
  m.timeouts.inactivity_s = t.value("inactivity", m.timeouts.inactivity_s);
  const json r = v.value("retries", json::object());
  m.retries.build = r.value("build", m.retries.build);
  m.retries.flash = r.value("flash", m.retries.flash);
  m.retries.capture = r.value("capture", m.retries.capture);
  if (v.contains("sweeps")) read_sweeps(c, v["sweeps"], m);
  m.edges = edges_of(v);
}

// Every job id is one file name and names one job.
void check_job_ids(Check& c, Matrix m) {
  static const std::regex kJobIdRe("^[a-z0-9][A-Za-z0-9_.-]*$");
  if (m.boards.empty()) m.boards = {"board"};
  std::set<std::string> ids;
  for (const auto& j : expand_jobs(m)) {
    if (j.id.size() > 200 || !std::regex_match(j.id, kJobIdRe) || !ids.insert(j.id).second)
      c.error("", fmt::format("job id '{}' is not a unique [a-z0-9][A-Za-z0-9_.-]* name", j.id));
  }
}

}  // namespace

Loaded<EdgesSpec> parse_matrix_edges(const std::string& text, const std::filesystem::path& file) {
  Loaded<EdgesSpec> out;
  Check c;
  if (shaped(c, text, file, matrix_schema())) out.value = edges_of(c.doc.value);
  out.errors = std::move(c.errors);
  return out;
}

Loaded<Matrix> parse_matrix(const std::string& text, const std::filesystem::path& file,
                            const std::filesystem::path& firmware) {
  Loaded<Matrix> out;
  Check c;
  out.value.firmware = catalog::default_firmware_dir();
  if (shaped(c, text, file, matrix_schema())) {
    out.value.file = c.file;
    try {
      read_matrix_body(c, out.value, firmware);
      if (c.errors.empty()) check_job_ids(c, out.value);
    } catch (const std::exception& e) {  // a shape the schema let through: a bug, said so
      c.error("", std::string("cannot read the matrix: ") + e.what());
    }
  }
  out.value.file = c.file;
  out.errors = c.sorted();
  return out;
}

Loaded<Matrix> load_matrix(const std::filesystem::path& file,
                           const std::filesystem::path& firmware) {
  Loaded<Matrix> out;
  auto t = read_text(file, out.errors);
  if (!t) return out;
  return parse_matrix(*t, file, firmware);
}

int default_loads(const Matrix& m, const Bench& bench) {
  for (const auto& b : bench.boards) {
    if (b.emulated) continue;
    if (std::find(m.boards.begin(), m.boards.end(), b.board) != m.boards.end())
      return kHardwareLoads;
  }
  return 1;
}

Status for_boards(Matrix& m, const Bench& bench) {
  if (m.boards.empty()) {
    for (const auto& b : bench.boards) {
      if (std::find(m.boards.begin(), m.boards.end(), b.board) == m.boards.end())
        m.boards.push_back(b.board);
    }
  }
  if (m.repeats == 0) m.repeats = default_loads(m, bench);
  for (const auto& want : m.boards) {
    bool have = std::any_of(bench.boards.begin(), bench.boards.end(),
                            [&](const BoardInstance& b) { return b.board == want; });
    if (!have) {
      std::vector<std::string> got;
      for (const auto& b : bench.boards) got.push_back(b.id + " (" + b.board + ")");
      return make_error(
          ErrorKind::kUnavailable,
          fmt::format("bench '{}' ({}) has no board instance of board '{}' that "
                      "matrix '{}' is built for; it has: {}",
                      bench.name, bench.file.string(), want, m.name, fmt::join(got, ", ")));
    }
  }
  return {};
}

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
  m.variants = s.variants;
  if (s.samples) m.samples = *s.samples;
  if (s.warmup) m.warmup = *s.warmup;
  m.exclude.insert(m.exclude.end(), s.exclude.begin(), s.exclude.end());
  m.sweep = name;
  return {};
}

namespace {

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

bool climbs(const std::string& path) {
  for (const auto& part : std::filesystem::path(path))
    if (part == "..") return true;
  return false;
}

void read_probe(Check& c, const json& p, const std::string& at, BoardInstance& inst) {
  inst.probe.serial = p.value("serial", "");
  inst.probe.interface = p.value("interface", inst.probe.interface);
  inst.probe.target = p.value("target", "");
  inst.probe.pack = p.value("pack", "");
  inst.probe.connect_under_reset = p.value("connect_under_reset", false);
  static const std::regex kScript(R"(^(interface|target|board)/.*\.cfg$)");
  if (inst.flasher == "openocd" && !inst.probe.target.empty() &&
      !std::regex_match(inst.probe.target, kScript))
    c.error(at + "/target", fmt::format("board '{}' probe.target '{}': OpenOCD takes one of its "
                                        "own scripts, target/<name>.cfg",
                                        inst.id, inst.probe.target));
  if (inst.flasher == "pyocd" && std::regex_match(inst.probe.target, kScript))
    c.error(at + "/target", fmt::format("board '{}' probe.target '{}': pyOCD takes a target "
                                        "name (pyocd list --targets), not a script",
                                        inst.id, inst.probe.target));
  if (climbs(inst.probe.interface) || climbs(inst.probe.target) || climbs(inst.probe.pack))
    c.error(at, fmt::format("board '{}': a probe path may not hold '..'", inst.id));
}

void read_lava_board(const json& l, BoardInstance& inst) {
  LavaBoard lb;
  lb.device_type = l.value("device_type", "");
  if (l.contains("tags")) lb.tags = strings(l["tags"]);
  lb.boot = l.value("boot", inst.flasher);
  lb.jobs = l.value("jobs", 1);
  lb.priority = l.value("priority", "medium");
  inst.lava = std::move(lb);
}

void read_serial(Check& c, const json& b, const std::string& at, const model::BoardInfo* info,
                 BoardInstance& inst, bool local_port) {
  const std::string what = fmt::format("board '{}'", inst.id);
  if (info && info->uart_baud > 0) inst.baud = info->uart_baud;
  if (!b.contains("serial")) {
    if (local_port)
      c.error(at + "/serial",
              fmt::format("{} needs 'serial: {{port: /dev/serial/by-id/...}}'", what));
    return;
  }
  const json& s = b["serial"];
  inst.serial_port = s.value("port", "");
  if (inst.serial_port.empty() && local_port)
    c.error(at + "/serial", fmt::format("{} needs serial.port", what));
  if (!inst.serial_port.empty() && climbs(inst.serial_port)) {
    c.error(at + "/serial/port", fmt::format("{} serial.port may not hold '..'", what));
    inst.serial_port.clear();
  }
  if (!local_port && !inst.serial_port.empty() && inst.emulated)
    c.error(at + "/serial",
            fmt::format("{}: an emulated board has no serial port to name (one is made per job)",
                        what));
  if (s.contains("baud")) {
    inst.baud = s["baud"].get<unsigned>();
    // The image talks at its board's rate: another one reads garbage.
    if (info && info->uart_baud > 0 && inst.baud != info->uart_baud && !inst.emulated)
      c.error(
          at + "/serial/baud",
          fmt::format("{} serial.baud {}: the {} firmware's console runs at {} "
                      "(RB_BOARD_UART_BAUD in firmware/boards/{}/board.cmake); use {} or "
                      "rebuild the firmware at another rate",
                      what, inst.baud, inst.board, info->uart_baud, inst.board, info->uart_baud));
  }
}

void read_board(Check& c, const json& b, const std::string& at, const catalog::Catalog& cat,
                Bench& bench) {
  BoardInstance inst;
  inst.id = b.value("id", "");
  for (const auto& other : bench.boards)
    if (other.id == inst.id)
      c.error(at + "/id", fmt::format("board id '{}' is used twice", inst.id));
  const std::string what = fmt::format("board '{}'", inst.id);
  inst.board = b.value("board", "");
  const model::BoardInfo* info = cat.board(inst.board);
  if (!info)
    c.error(at + "/board", fmt::format("{}: '{}' is not a board of the firmware tree (allowed: {})",
                                       what, inst.board, fmt::join(cat.board_names(), ", ")));
  inst.flasher = b.value("flasher", "");
  bool known = info && std::find(info->flashers.begin(), info->flashers.end(), inst.flasher) !=
                           info->flashers.end();
  if (info && !known)
    c.error(at + "/flasher",
            fmt::format("{}: board {} is not flashed by '{}' (its board.cmake "
                        "names: {})",
                        what, inst.board, inst.flasher, fmt::join(info->flashers, ", ")));
  inst.emulated = info && info->emulator == inst.flasher;
  if (info && !info->qemu_machine.empty()) inst.qemu.machine = info->qemu_machine;
  if (info && !info->cpu.empty()) inst.qemu.cpu = info->cpu;
  if (info) inst.target = info->target;
  if (b.contains("probe")) read_probe(c, b["probe"], at + "/probe", inst);
  if (inst.probe.target.empty() && info && info->targets.count(inst.flasher))
    inst.probe.target = info->targets.at(inst.flasher);
  if (b.contains("qemu")) {
    const json& q = b["qemu"];
    inst.qemu.machine = q.value("machine", inst.qemu.machine);
    inst.qemu.serial =
        q.value("serial", "socket") == "pty" ? QemuSerial::kPty : QemuSerial::kSocket;
    if (q.contains("extra_args")) {
      inst.qemu.extra_args = strings(q["extra_args"]);
      check_qemu_args(c, at + "/qemu/extra_args", inst.qemu.extra_args);
    }
  }
  if (b.contains("lava")) read_lava_board(b["lava"], inst);
  // A LAVA device's serial line is the worker's: nothing to name here.
  read_serial(c, b, at, info, inst, known && !inst.emulated && !inst.lava);
  const std::string reset = b.value("reset", "system");
  inst.reset = reset == "hardware"      ? ResetMethod::kHardware
               : reset == "power-cycle" ? ResetMethod::kPowerCycle
                                        : ResetMethod::kSystem;
  inst.power_cycle = b.value("power_cycle", "");
  if (inst.reset == ResetMethod::kPowerCycle && inst.power_cycle.empty())
    c.error(at + "/power_cycle",
            fmt::format("{} needs 'power_cycle' (its reset is power-cycle)", what));
  if (!inst.power_cycle.empty()) {
    std::string program = inst.power_cycle.substr(0, inst.power_cycle.find(' '));
    if (!power_tool_allowed(program)) {
      c.error(at + "/power_cycle",
              fmt::format("{} power_cycle: '{}' is not a power-switch tool rtosbench knows "
                          "(uhubctl, ykushcmd, sispmctl, usbrelay); list it in the environment "
                          "variable RTOSBENCH_POWER_TOOLS to allow it",
                          what, program));
      inst.power_cycle.clear();
    }
  }
  inst.port_wait_s = b.value("port_wait", inst.port_wait_s);
  bench.boards.push_back(std::move(inst));
}

// The bench's `lava:` server. The token is never in the bench, nor a file
// it names: only which RTOSBENCH_LAVA_* variable holds it (token_env), else
// rtosbench's own token file; either binds it to the server's host
// (lava::read_token). The token goes over https, or plain http to this
// machine only.
LavaServer read_lava_server(Check& c, const json& l) {
  LavaServer s;
  s.url = l.value("url", "");
  if (!s.url.empty() && s.url.back() != '/') s.url += '/';
  if (!s.url.empty() && url_scheme(s.url) != "https" && !is_loopback_host(url_host(s.url)))
    c.error("/lava/url",
            fmt::format("lava.url '{}': plain http would send the token in clear; use https "
                        "(http only to this machine: localhost, 127.0.0.1, [::1])",
                        redact_url(s.url)));
  s.token_env = l.value("token_env", "");
  if (l.contains("token_file"))
    c.error("/lava/token_file",
            "a bench file does not name the LAVA token's file: rtosbench reads "
            "$RTOSBENCH_LAVA_TOKEN_FILE, else ~/.config/rtosbench/lava-tokens, one `HOST TOKEN` "
            "per line (docs/lava.md)");
  const json p = l.value("publish", json::object());
  if (p.contains("dir")) s.publish_dir = c.path(p["dir"].get<std::string>());
  s.publish_url = p.value("url", "");
  if (!url_password(s.publish_url).empty())
    c.error("/lava/publish/url",
            fmt::format("lava.publish.url '{}' carries a password: it goes into every job "
                        "definition, which the LAVA server shows; serve the images without one",
                        redact_url(s.publish_url)));
  while (!s.publish_url.empty() && s.publish_url.back() == '/') s.publish_url.pop_back();
  s.poll_s = l.value("poll", s.poll_s);
  s.queue_timeout_s = l.value("queue_timeout", s.queue_timeout_s);
  return s;
}

// The bench's `analyzer:`. The schema allow-lists each string; the roles
// must sit on three distinct channels, and the trigger names roles only.
Analyzer read_analyzer(Check& c, const json& a) {
  Analyzer an;
  an.driver = a.value("driver", "");
  an.conn = a.value("conn", "");
  if (climbs(an.conn)) c.error("/analyzer/conn", "analyzer.conn may not hold '..'");
  const json ch = a.value("channels", json::object());
  an.mk = ch.value("MK", an.mk);
  an.ev = ch.value("EV", an.ev);
  an.tk = ch.value("TK", an.tk);
  if (an.mk == an.ev || an.mk == an.tk || an.ev == an.tk)
    c.error("/analyzer/channels",
            fmt::format("analyzer.channels: MK, EV and TK need three distinct channels (MK {}, "
                        "EV {}, TK {})",
                        an.mk, an.ev, an.tk));
  an.samplerate = a.value("samplerate", an.samplerate);
  an.trigger = a.value("trigger", "");
  an.start_timeout_s = a.value("start_timeout", an.start_timeout_s);
  return an;
}

void read_bench_body(Check& c, const catalog::Catalog& cat, Bench& bench) {
  const json& v = c.doc.value;
  bench.name = v.value("bench", "");
  const json boards = v.value("boards", json::array());
  for (size_t i = 0; i < boards.size(); ++i)
    read_board(c, boards[i], fmt::format("/boards/{}", i), cat, bench);
  if (v.contains("lava")) bench.lava = read_lava_server(c, v["lava"]);
  if (v.contains("analyzer")) bench.analyzer = read_analyzer(c, v["analyzer"]);
  for (size_t i = 0; i < bench.boards.size(); ++i) {
    if (bench.boards[i].lava && !bench.lava)
      c.error(fmt::format("/boards/{}/lava", i),
              fmt::format("board '{}' is a LAVA device but the bench has no 'lava:' server",
                          bench.boards[i].id));
  }
}

}  // namespace

Loaded<Bench> parse_bench(const std::string& text, const std::filesystem::path& file,
                          const catalog::Catalog* catalog) {
  Loaded<Bench> out;
  Check c;
  if (shaped(c, text, file, schema("bench"))) {
    try {
      read_bench_body(c, catalog ? *catalog : default_catalog(), out.value);
    } catch (const std::exception& e) {  // a shape the schema let through: a bug, said so
      c.error("", std::string("cannot read the bench: ") + e.what());
    }
  }
  out.value.file = c.file;
  out.errors = c.sorted();
  return out;
}

Loaded<Bench> load_bench(const std::filesystem::path& file, const catalog::Catalog* catalog) {
  Loaded<Bench> out;
  auto t = read_text(file, out.errors);
  if (!t) return out;
  return parse_bench(*t, file, catalog);
}

}  // namespace rb::matrix
