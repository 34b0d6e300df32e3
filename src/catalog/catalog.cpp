#include "catalog/catalog.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/algorithm/string/case_conv.hpp>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "model/axes.h"
#include "util/posix_file.h"

namespace rb::model {

std::string BoardInfo::not_measured_reason(const std::string& series) const {
  auto it = not_measured.find(series);
  return it == not_measured.end() ? "" : it->second;
}

std::string BoardInfo::unjudged_reason(const std::string& series) const {
  if (auto r = not_measured_reason(series); !r.empty()) return r;
  auto it = unstable.find(series);
  return it == unstable.end() ? "" : it->second;
}

}  // namespace rb::model

namespace rb::catalog {

using nlohmann::json;

namespace {

// The settings the host reads; any other is a build setting.
const std::map<std::string, std::string model::BoardInfo::*> kBoardText{
    {"EMULATOR", &model::BoardInfo::emulator}, {"QEMU_MACHINE", &model::BoardInfo::qemu_machine},
    {"CONSOLE", &model::BoardInfo::console},   {"DEVICE", &model::BoardInfo::device},
    {"VCP_NOTE", &model::BoardInfo::vcp_note}, {"VCP_FIX", &model::BoardInfo::vcp_fix}};
const std::set<std::string> kBoardOther{"FLASHERS",         "UART_BAUD",   "DEV_ID",
                                        "FLASH_BASE",       "DBGMCU_BASE", "RESET_FLAGS_CLEAR",
                                        "QEMU_ICOUNT_SHIFT"};
const std::map<std::string, std::map<std::string, std::string> model::BoardInfo::*> kBoardMaps{
    {"TARGET_", &model::BoardInfo::targets},
    {"NOT_MEASURED_", &model::BoardInfo::not_measured},
    {"UNSTABLE_", &model::BoardInfo::unstable},
    {"EXPECT_", &model::BoardInfo::expect}};
const std::vector<std::string> kBoardFamilies{"TARGET_", "NOT_MEASURED_", "UNSTABLE_",
                                              "EXPECT_", "REVISION_",     "LOWER_BOUND_"};

// One host setting RB_BOARD_<key> (of `family`, a prefix of kBoardFamilies
// or empty) into the board: empty, or what is wrong with its value.
std::string apply_board_setting(const std::string& key, const std::string& family,
                                const std::string& value, model::BoardInfo& b) {
  // The target's addresses: `0x` and one to eight hex digits each.
  static const std::regex kWord(R"(^0x[0-9A-Fa-f]{1,8}$)");
  static const std::regex kWrite(R"(^(0x[0-9A-Fa-f]{1,8}) (0x[0-9A-Fa-f]{1,8})$)");
  auto word = [](const std::string& t) {
    return static_cast<uint32_t>(std::strtoul(t.c_str(), nullptr, 16));
  };
  const std::string sub = key.substr(family.size());
  if (key == "FLASHERS") {
    std::istringstream words(value);
    for (std::string w; words >> w;) b.flashers.push_back(w);
  } else if (kBoardText.count(key)) {
    b.*kBoardText.at(key) = value;
  } else if (key == "UART_BAUD") {
    b.uart_baud = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
  } else if (key == "DEV_ID") {
    b.dev_id = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 0));
  } else if (key == "FLASH_BASE" || key == "DBGMCU_BASE") {
    if (!std::regex_match(value, kWord))
      return fmt::format("RB_BOARD_{}: expected an address 0x...", key);
    (key == "FLASH_BASE" ? b.target.flash_base : b.target.dbgmcu_base) = word(value);
  } else if (key == "RESET_FLAGS_CLEAR") {
    std::smatch wm;
    if (!std::regex_match(value, wm, kWrite))
      return "RB_BOARD_RESET_FLAGS_CLEAR: expected `<address> <value>`, both 0x...";
    b.target.reset_flags_clear = {word(wm[1]), word(wm[2])};
  } else if (key == "QEMU_ICOUNT_SHIFT") {
    static const std::regex kShift(R"(^([0-9]|10)$)");  // QEMU accepts 0 to 10
    if (!std::regex_match(value, kShift)) return "RB_BOARD_QEMU_ICOUNT_SHIFT: expected 0 to 10";
    b.target.qemu_icount_shift = static_cast<unsigned>(std::stoul(value));
  } else if (kBoardMaps.count(family)) {
    (b.*kBoardMaps.at(family))[sub] = value;
  } else if (family == "LOWER_BOUND_") {
    // `<cycles> <why>`: a positive count of core cycles, then what sets it.
    static const std::regex kBound(R"(^([0-9]{1,9}) +(.+)$)");
    std::smatch bm;
    if (!std::regex_match(value, bm, kBound) || std::stoull(bm[1]) == 0)
      return fmt::format(
          "RB_BOARD_{}: expected `<cycles> <why>` (a positive count of core "
          "cycles, then what sets the bound)",
          key);
    b.lower_bounds[sub] = model::LowerBound{std::stoull(bm[1]), bm[2]};
  } else if (family == "REVISION_") {
    b.revisions[static_cast<unsigned>(std::strtoul(sub.c_str(), nullptr, 0))] = value;
  }
  return {};
}

// One board.cmake: its one-line `set(RB_BOARD_<KEY> <value>)` settings, and
// those of the files it includes from the boards directory
// (`include("${RB_BOARD_DIR}/../common/x.cmake")`, settings boards share), in
// the order CMake reads them.
void read_board_file(const std::filesystem::path& file, const std::string& shown,
                     model::BoardInfo& b, std::vector<Diagnostic>& diagnostics, int depth) {
  std::ifstream in(file);
  if (!in) {
    diagnostics.push_back(Diagnostic{shown, 0, 0, "cannot read this board file"});
    return;
  }
  static const std::regex kInclude(
      R"re(^include\("\$\{RB_BOARD_DIR\}/([A-Za-z0-9_./-]+\.cmake)"\)\s*(#.*)?$)re");
  static const std::regex kSet(R"(^set\(RB_BOARD_([A-Za-z0-9_]+) (.*)\)\s*(#.*)?$)");
  static const std::regex kValue(R"(^[A-Za-z0-9_./ :-]+$)");
  // The VCP hints are prose for doctor: commas, apostrophes and parentheses too.
  static const std::regex kProse(R"(^[A-Za-z0-9_./ :,'()-]+$)");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_match(line, m, kInclude)) {
      // Within firmware/boards/ only, and not deeper than a shared file.
      const auto boards = std::filesystem::weakly_canonical(file.parent_path().parent_path());
      const auto target = std::filesystem::weakly_canonical(file.parent_path() / m[1].str());
      const auto rel = target.lexically_relative(boards);
      if (depth > 0 || rel.empty() || *rel.begin() == "..") {
        diagnostics.push_back(Diagnostic{
            shown, n, 1,
            "a board may include only a file of firmware/boards/ that includes none itself"});
        continue;
      }
      read_board_file(target, "firmware/boards/" + rel.string(), b, diagnostics, depth + 1);
      continue;
    }
    if (!std::regex_match(line, m, kSet)) continue;
    const std::string key = m[1];
    std::string value = m[2];
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    std::string family;
    for (const auto& f : kBoardFamilies) {
      if (key.rfind(f, 0) == 0) family = f;
    }
    if (key == "CPU_FLAGS") {  // a build setting; the host reads the core it names
      static const std::regex kMcpu(R"((^| )-mcpu=([a-z0-9.+-]+)( |$))");
      if (std::smatch cm; std::regex_search(value, cm, kMcpu)) b.cpu = cm[2];
      continue;
    }
    if (!kBoardText.count(key) && !kBoardOther.count(key) && family.empty())
      continue;  // a build setting, not the host's
    if (key.rfind("VCP_", 0) == 0 ? !std::regex_match(value, kProse)
                                  : !std::regex_match(value, kValue)) {
      diagnostics.push_back(Diagnostic{shown, n, 1,
                                       fmt::format("RB_BOARD_{}: the value has a character outside "
                                                   "[A-Za-z0-9_./ :-]",
                                                   key)});
      continue;
    }
    if (auto wrong = apply_board_setting(key, family, value, b); !wrong.empty())
      diagnostics.push_back(Diagnostic{shown, n, 1, std::move(wrong)});
  }
}

void read_board(const std::filesystem::path& file, const std::string& shown, model::BoardInfo& b,
                std::vector<Diagnostic>& diagnostics) {
  read_board_file(file, shown, b, diagnostics, 0);
  if (b.flashers.empty()) {
    diagnostics.push_back(Diagnostic{
        shown, 0, 0, "names no flasher (set(RB_BOARD_FLASHERS ...)): no bench can use it"});
  }
  if (b.target.flash_base == 0) {
    diagnostics.push_back(Diagnostic{
        shown, 0, 0, "sets no RB_BOARD_FLASH_BASE: no flasher could verify the image it loads"});
  }
  // A probe reads the ID and clears the reset flags with the board's own addresses.
  const bool probed = std::any_of(b.flashers.begin(), b.flashers.end(),
                                  [&](const std::string& f) { return f != b.emulator; });
  if (probed && (b.target.dbgmcu_base == 0 || b.target.reset_flags_clear.address == 0)) {
    diagnostics.push_back(Diagnostic{
        shown, 0, 0,
        "a probe flashes it, so it sets RB_BOARD_DBGMCU_BASE and RB_BOARD_RESET_FLAGS_CLEAR (the "
        "ID's address and the write that clears the reset flags the firmware reads)"});
  }
}

// harness/rb_tests.h: `  X(name, capabilities, RB_PACE_<pacing>, "series[:unit][@base] ...")`.
bool read_tests(const std::filesystem::path& file, const std::string& shown,
                std::vector<model::HarnessTest>& out, std::vector<Diagnostic>& diagnostics) {
  std::ifstream in(file);
  if (!in) {
    diagnostics.push_back(Diagnostic{shown, 0, 0, "cannot read the harness test table"});
    return false;
  }
  static const std::regex kEntry(
      R"re(^  X\(([a-z0-9_]+),[^,]*,\s*RB_PACE_([A-Z]+),\s*"([^"]*)"\))re");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("  X(", 0) != 0) continue;
    std::smatch m;
    if (!std::regex_search(line, m, kEntry)) {
      diagnostics.push_back(Diagnostic{
          shown, n, 1,
          "an entry must read X(name, capabilities, RB_PACE_<FREE|EVENT|TICK>, \"series ...\")"});
      continue;
    }
    model::HarnessTest t;
    t.name = m[1];
    t.pacing = m[2];
    boost::algorithm::to_lower(t.pacing);
    std::istringstream words(m[3].str());
    for (std::string w; words >> w;) {
      model::SeriesInfo s;
      if (auto at = w.find('@'); at != std::string::npos) {
        s.base = w.substr(at + 1);
        w.resize(at);
      }
      auto colon = w.find(':');
      s.name = w.substr(0, colon);
      if (colon != std::string::npos) s.unit = w.substr(colon + 1);
      t.series.push_back(std::move(s));
    }
    out.push_back(std::move(t));
  }
  if (out.empty()) diagnostics.push_back(Diagnostic{shown, 0, 0, "lists no harness test"});
  return !out.empty();
}

// `when:` of a contract rule: every key a variant axis or `cpu` (the board's
// core, as its -mcpu= names it), each value one or a list (as text, the way
// a job's variant holds it).
void read_when(const json& w, const std::string& at, const YamlDoc& doc, model::When& out,
               std::vector<Diagnostic>& diagnostics) {
  for (auto& [axis, values] : w.items()) {
    if (axis != "cpu" && !model::find_axis(axis)) {
      std::vector<std::string> names;
      for (const auto& a : model::axes()) names.emplace_back(a.key);
      diagnostics.push_back(doc.at(
          at + "/" + axis,
          fmt::format("'{}' is not a variant axis ({}) or cpu", axis, fmt::join(names, ", "))));
      continue;
    }
    auto& list = out[axis];
    if (values.is_array())
      for (const auto& x : values) list.push_back(scalar_text(x));
    else
      list.push_back(scalar_text(values));
  }
}

void read_contract(const json& c, const YamlDoc& doc, model::Contract& out,
                   std::vector<Diagnostic>& diagnostics) {
  const json symbols = c.value("symbols", json::array());
  for (size_t i = 0; i < symbols.size(); ++i) {
    const json& g = symbols[i];
    const std::string at = fmt::format("/contract/symbols/{}", i);
    model::ContractSymbols r;
    read_when(g.value("when", json::object()), at + "/when", doc, r.when, diagnostics);
    r.present = g.value("present", std::vector<std::string>{});
    r.absent = g.value("absent", std::vector<std::string>{});
    if (r.present.empty() && r.absent.empty())
      diagnostics.push_back(doc.at(at, "a symbol rule names no 'present' or 'absent' symbol"));
    for (const auto& name : r.present)
      if (std::find(r.absent.begin(), r.absent.end(), name) != r.absent.end())
        diagnostics.push_back(
            doc.at(at, fmt::format("'{}' is both present and absent in one rule", name)));
    out.symbols.push_back(std::move(r));
  }
  const json config = c.value("config", json::array());
  for (size_t i = 0; i < config.size(); ++i) {
    const json& f = config[i];
    const std::string at = fmt::format("/contract/config/{}", i);
    model::ContractConfig r;
    read_when(f.value("when", json::object()), at + "/when", doc, r.when, diagnostics);
    r.file = f.value("file", "");
    r.format = f.value("format", "");
    r.unit = f.value("unit", "");
    const json require = f.value("require", json::object());
    for (auto& [key, value] : require.items()) {
      if (r.format == "kconfig" && key.rfind("CONFIG_", 0) != 0)
        diagnostics.push_back(
            doc.at(at + "/require/" + key,
                   fmt::format("'{}': a kconfig option starts with CONFIG_", key)));
      r.require[key] = scalar_text(value);
    }
    if (r.format != "header" && !r.unit.empty())
      diagnostics.push_back(doc.at(at + "/unit", "'unit' is for a header only"));
    out.config.push_back(std::move(r));
  }
}

}  // namespace

bool parse_kernel_yaml(std::string_view text, const std::string& file, model::KernelSpec& k,
                       std::vector<Diagnostic>& diagnostics) {
  YamlDoc doc;
  if (!parse_yaml_doc(text, file, doc, diagnostics)) return false;
  if (!check_schema(doc, schema("kernel"), diagnostics)) return false;
  const json& v = doc.value;
  k.version = v.value("version", "n/a");
  k.git = v.value("git", "");
  k.tag = v.value("tag", "");
  k.commit = v.value("commit", "");
  boost::algorithm::to_lower(k.commit);
  k.supply = v.value("supply", "");
  k.note = v.value("note", "");
  k.reference = v.value("reference", false);
  k.checks_series = v.value("checks_series", k.checks_series);
  k.discover = v.value("discover", true);
  for (const auto& x : v.value("extra_sources", json::array())) {
    model::ExtraSource e{
        x.value("name", ""), x.value("git", ""), x.value("tag", ""), x.value("commit", ""), {}};
    boost::algorithm::to_lower(e.commit);
    k.extra_sources.push_back(std::move(e));
  }
  if (v.contains("expect")) read_pins(v["expect"], k.expect);
  const json na_ = v.value("na", json::object());
  for (auto& [t, why] : na_.items()) k.na[t] = why.get<std::string>();
  const json defects_ = v.value("defects", json::object());
  for (auto& [c, d] : defects_.items()) {
    k.defects[c] = d.is_string() ? d.get<std::string>() : d.value("why", "");
    if (d.is_object()) k.defect_cpus[c] = d.value("cpus", std::vector<std::string>{});
  }
  const json unequal_ = v.value("unequal", json::array());
  for (const json& u : unequal_)
    k.unequal.push_back(
        {u.value("what", ""), u.value("series", std::vector<std::string>{}), u.value("note", "")});
  const json fp = v.value("footprint", json::object());
  for (const auto& f : fp.value("files", json::array()))
    k.footprint.files.push_back({f.value("match", ""), f.value("owner", "none")});
  const json sections_ = fp.value("sections", json::object());
  for (auto& [kind, names] : sections_.items())
    k.footprint.sections[kind] = names.get<std::vector<std::string>>();
  const size_t before = diagnostics.size();
  if (v.contains("contract")) read_contract(v["contract"], doc, k.contract, diagnostics);
  if (!k.git.empty() && k.tag.empty() && k.commit.empty())
    diagnostics.push_back(doc.at("/git", "'git' needs a 'tag' or a 'commit' to pin"));
  if (!k.git.empty() && !k.supply.empty())
    diagnostics.push_back(doc.at("/supply",
                                 "has both 'git' and 'supply' (supply is for kernels "
                                 "without a public source)"));
  if ((!k.git.empty() || !k.supply.empty()) && k.version == "n/a")
    diagnostics.push_back(doc.at("", "a kernel with a source needs its 'version'"));
  for (size_t i = 0; i < k.extra_sources.size(); ++i) {
    const auto& e = k.extra_sources[i];
    if (e.git.empty())
      diagnostics.push_back(
          doc.at(fmt::format("/extra_sources/{}", i), "an extra source needs 'git'"));
    else if (e.tag.empty() && e.commit.empty())
      diagnostics.push_back(doc.at(fmt::format("/extra_sources/{}", i),
                                   "an extra source needs a 'tag' or a 'commit'"));
  }
  return diagnostics.size() == before;
}

std::map<std::string, std::string> read_port_cpus(std::string_view port_cmake) {
  static const std::regex kLine(R"((^|\n)set\(RB_PORT_CPUS ([^)\n]*)\))");
  static const std::regex kItem(R"re("([^"=]+)(=([^"]*))?"|([^\s"=]+)(=(\S*))?)re");
  std::match_results<std::string_view::const_iterator> line;
  if (!std::regex_search(port_cmake.begin(), port_cmake.end(), line, kLine))
    return {{"cortex-m4", ""}};
  std::map<std::string, std::string> cpus;
  const std::string items = line[2].str();
  for (std::sregex_iterator i(items.begin(), items.end(), kItem), end; i != end; ++i) {
    const auto& m = *i;
    if (m[1].matched)
      cpus[m[1].str()] = m[3].str();
    else
      cpus[m[4].str()] = m[6].str();
  }
  return cpus;
}

void read_pins(const json& e, std::map<std::string, std::optional<std::string>>& out) {
  for (auto& [k, v] : e.items())
    out[k] = v.is_null() ? std::nullopt : std::optional(scalar_text(v));
}

std::filesystem::path default_firmware_dir() {
  if (const char* env = std::getenv("RTOSBENCH_FIRMWARE"); env && *env)
    return std::filesystem::absolute(env).lexically_normal();
  return std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "firmware";
}

Result<Catalog> load(const std::filesystem::path& firmware_in,
                     std::vector<Diagnostic>& diagnostics) {
  namespace fs = std::filesystem;
  Catalog c;
  c.firmware = fs::absolute(firmware_in).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(c.firmware / "ports", ec))
    return make_error(
        ErrorKind::kCannotRead,
        fmt::format("{} is not a firmware tree (it has no ports/)", c.firmware.string()));
  const size_t before = diagnostics.size();
  static const std::regex kName("^[a-z0-9][a-z0-9_.-]*$");
  for (const auto& e : fs::directory_iterator(c.firmware / "ports", ec)) {
    const std::string name = e.path().filename().string();
    if (!fs::exists(e.path() / "port.cmake") || !std::regex_match(name, kName)) continue;
    model::KernelSpec k;
    k.name = k.port = name;
    k.version = "n/a";
    if (auto text = read_whole_file(e.path() / "kernel.yaml"))
      parse_kernel_yaml(*text, "firmware/ports/" + name + "/kernel.yaml", k, diagnostics);
    if (auto text = read_whole_file(e.path() / "port.cmake")) k.cpu_ports = read_port_cpus(*text);
    c.kernels.push_back(std::move(k));
  }
  std::sort(c.kernels.begin(), c.kernels.end(), [](const auto& a, const auto& b) {
    return std::pair(!a.reference, a.name) < std::pair(!b.reference, b.name);
  });
  // Exactly one reference port: the host names it nowhere else. A tree
  // without ports has no kernel to count against one.
  std::vector<std::string> references;
  for (const auto& k : c.kernels)
    if (k.reference) references.push_back(k.name);
  if (!c.kernels.empty() && references.empty())
    diagnostics.push_back(Diagnostic{"firmware/ports", 0, 0,
                                     "no port's kernel.yaml says 'reference: true' (the image "
                                     "every kernel-alone footprint is counted against)"});
  if (references.size() > 1)
    diagnostics.push_back(
        Diagnostic{"firmware/ports", 0, 0,
                   fmt::format("{} ports say 'reference: true' ({}); exactly one may",
                               references.size(), fmt::join(references, ", "))});
  for (const auto& e : fs::directory_iterator(c.firmware / "boards", ec)) {
    const std::string name = e.path().filename().string();
    if (!fs::exists(e.path() / "board.cmake") || !std::regex_match(name, kName)) continue;
    model::BoardInfo b;
    b.name = name;
    read_board(e.path() / "board.cmake", "firmware/boards/" + name + "/board.cmake", b,
               diagnostics);
    c.boards.push_back(std::move(b));
  }
  std::sort(c.boards.begin(), c.boards.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  if (fs::exists(c.firmware / "harness" / "rb_tests.h", ec))
    read_tests(c.firmware / "harness" / "rb_tests.h", "firmware/harness/rb_tests.h", c.tests,
               diagnostics);
  // A declared unequal work names series the harness writes (or "*").
  std::set<std::string> known;
  for (const auto& t : c.tests)
    for (const auto& s : t.series) known.insert(s.name);
  for (const auto& k : c.kernels)
    for (const auto& u : k.unequal)
      for (const auto& s : u.series)
        if (s != "*" && !known.empty() && !known.count(s))
          diagnostics.push_back(
              Diagnostic{"firmware/ports/" + k.port + "/kernel.yaml", 0, 0,
                         fmt::format("unequal '{}' names series '{}', which no harness test "
                                     "writes (firmware/harness/rb_tests.h)",
                                     u.what, s)});
  if (diagnostics.size() != before)
    return make_error(ErrorKind::kUsage,
                      fmt::format("the firmware tree {} has {} problem(s)", c.firmware.string(),
                                  diagnostics.size() - before));
  return c;
}

const model::KernelSpec* Catalog::kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

const model::KernelSpec* Catalog::reference() const {
  for (const auto& k : kernels)
    if (k.reference) return &k;
  return nullptr;
}

const model::BoardInfo* Catalog::board(const std::string& name) const {
  for (const auto& b : boards)
    if (b.name == name) return &b;
  return nullptr;
}

const model::HarnessTest* Catalog::test(const std::string& name) const {
  for (const auto& t : tests)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> Catalog::board_names() const {
  std::vector<std::string> out;
  for (const auto& b : boards) out.push_back(b.name);
  return out;
}

std::vector<std::string> Catalog::test_names() const {
  std::vector<std::string> out;
  for (const auto& t : tests) out.push_back(t.name);
  return out;
}

std::vector<std::string> Catalog::flashers() const {
  std::set<std::string> all;
  for (const auto& b : boards) all.insert(b.flashers.begin(), b.flashers.end());
  return {all.begin(), all.end()};
}

std::string Catalog::series_unit(const std::string& series, const std::string& counter_unit) const {
  for (const auto& t : tests)
    for (const auto& s : t.series)
      if (s.name == series && !s.unit.empty()) return s.unit;
  return counter_unit;
}

std::map<std::string, std::string> Catalog::series_baselines() const {
  std::map<std::string, std::string> out;
  for (const auto& t : tests)
    for (const auto& s : t.series) out[s.name] = s.base;
  return out;
}

}  // namespace rb::catalog
