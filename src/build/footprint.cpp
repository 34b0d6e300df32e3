#include "build/footprint.h"

#include <fmt/core.h>
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <vector>

namespace rb::build {

namespace {

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> f;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) f.push_back(line.substr(start, i - start));
  }
  return f;
}

bool is_hex_field(std::string_view s) {
  return s.size() > 2 && s[0] == '0' && s[1] == 'x';
}

std::optional<uint64_t> parse_hex(std::string_view s) {
  uint64_t n = 0;
  if (!is_hex_field(s) || s.size() > 18) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), n, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// "/lib<letters and _>.a(" anywhere in the file name: a member of a static
// library such as libc_nano.a or libgcc.a.
bool names_library_member(std::string_view file) {
  for (size_t p = file.find("/lib"); p != std::string_view::npos; p = file.find("/lib", p + 1)) {
    size_t i = p + 4;
    while (i < file.size() && ((file[i] >= 'a' && file[i] <= 'z') || file[i] == '_')) ++i;
    if (file.substr(i, 3) == ".a(") return true;
  }
  return false;
}

std::string slurp(const std::filesystem::path& p, std::string& error) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::error_code ec;
    error = std::filesystem::exists(p, ec) ? fmt::format("cannot read {}", p.string())
                                           : fmt::format("{} not found", p.string());
    return {};
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json part_json(const SectionBytes& b) {
  return nlohmann::json{
      {"text", b.text}, {"data", b.data}, {"bss", b.bss}, {"flash", b.flash()}, {"ram", b.ram()}};
}

// A build option's value; empty when it is not set.
std::string option(const std::map<std::string, std::string>& m, const char* k) {
  auto it = m.find(k);
  return it == m.end() ? std::string() : it->second;
}

// The `NAME:TYPE=value` entries of a CMakeCache.txt, the first of a name
// winning (as `sed | head -n 1` did). Error names the file when it cannot be read.
Result<std::map<std::string, std::string>> read_cache_entries(const std::filesystem::path& cache) {
  std::string error;
  std::istringstream in(slurp(cache, error));
  if (!error.empty()) return Error{error};
  std::map<std::string, std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':'), eq = line.find('=');
    if (colon == std::string::npos || eq == std::string::npos || colon > eq) continue;
    out.emplace(line.substr(0, colon), line.substr(eq + 1));
  }
  return out;
}

bool matches(const std::string& pattern, std::string_view name) {
  return ::fnmatch(pattern.c_str(), std::string(name).c_str(), 0) == 0;
}

// The owner the kernel's rules give `file` (first match wins): nullopt when
// no rule matches it, nullptr when the rule's owner is `none`.
std::optional<SectionBytes*> rule_owner(const model::FootprintRules& rules, std::string_view file,
                                        MapOwners& out) {
  for (const auto& r : rules.files) {
    if (!matches(r.match, file)) continue;
    if (r.owner == "kernel") return &out.kernel;
    if (r.owner == "kernel_support") return &out.kernel_support;
    return nullptr;
  }
  return std::nullopt;
}

// Whether output section `name` holds `kind` (text, data or bss): the usual
// sections, or one the kernel's rules name.
bool section_of(const model::FootprintRules& rules, const char* kind,
                std::initializer_list<std::string_view> usual, std::string_view name) {
  for (auto u : usual)
    if (name == u) return true;
  auto it = rules.sections.find(kind);
  if (it == rules.sections.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const std::string& p) { return matches(p, name); });
}

}  // namespace

Result<MapOwners> sum_map(std::string_view text, std::string_view port,
                          const model::FootprintRules& rules, const std::string& origin) {
  MapOwners out;
  const std::string glue = fmt::format("/ports/{}/", port);
  bool in_map = false;
  std::string_view output;  // the output section the input sections belong to
  bool pending = false;     // the previous line was a long input-section name alone
  size_t line_no = 0;
  std::string error;

  auto has = [](std::string_view file, std::string_view what) {
    return file.find(what) != std::string_view::npos;
  };
  auto account = [&](std::string_view size, std::string_view file) {
    SectionBytes* who = nullptr;
    if (has(file, "rb_kernel.dir/")) {
      who = &out.kernel;
    } else if (has(file, glue) || has(file, "/ports/posix/")) {
      who = &out.port_glue;  // the port, and the POSIX port a POSIX system's builds on
    } else if (has(file, "/boards/common/startup.c")) {
      who = &out.startup;
    } else if (auto r = rule_owner(rules, file, out)) {
      if (*r == nullptr) return;  // the kernel's rules say nobody's (an application archive)
      who = *r;
    } else if (names_library_member(file)) {
      who = &out.libs;
    } else {
      return;
    }
    uint64_t* kind = nullptr;
    if (section_of(rules, "data", {".data"}, output)) {
      kind = &who->data;
    } else if (section_of(rules, "bss", {".bss"}, output)) {
      kind = &who->bss;
    } else if (section_of(rules, "text", {".text", ".isr_vector", ".ARM.exidx"}, output)) {
      kind = &who->text;
    } else {
      return;
    }
    auto n = parse_hex(size);
    if (!n) {
      if (error.empty())
        error = fmt::format("{}:{}: size '{}' is not hexadecimal", origin, line_no, size);
      return;
    }
    *kind += *n;
  };

  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!in_map) {
      if (line.rfind("Linker script and memory map", 0) == 0) in_map = true;
      continue;
    }
    auto f = fields_of(line);
    // An output section starts in column 0: ".text   0x08000000   0x5444";
    // a kernel's own linker script may drop the dot: "text   0x08000188   0x4ef4".
    if (line.size() >= 2 &&
        ((line[0] == '.' && is_name_start(line[1])) ||
         (is_name_start(line[0]) && f.size() >= 3 && is_hex_field(f[1]) && is_hex_field(f[2])))) {
      output = f.front();
      pending = false;
      // The boards' main stack (stm32f4.ld: reset, main() and every
      // handler) has no input section: it belongs to the start-up, whose
      // role a kernel that owns start-up takes over with its own stacks.
      if (output == ".msp_stack" && f.size() >= 3) {
        if (auto n = parse_hex(f[2])) out.startup.bss += *n;
      }
      continue;
    }
    // An input section, one space in: " .text.foo  0x...  0x...  file", or
    // its name alone when too long, the rest on the next line.
    if (line.size() >= 2 && line[0] == ' ' &&
        (line[1] == '.' || line[1] == '*' || is_name_start(line[1])) && f.front() != "*fill*") {
      if (f.size() >= 4 && is_hex_field(f[1]) && is_hex_field(f[2])) {
        account(f[2], f[3]);
        pending = false;
      } else if (f.size() == 1) {
        pending = true;
      }
      continue;
    }
    if (pending && f.size() == 3 && is_hex_field(f[0]) && is_hex_field(f[1])) {
      account(f[1], f[2]);
    }
    pending = false;
  }
  if (!in_map) {
    return Error{
        fmt::format("{}: no 'Linker script and memory map' line: not a GNU ld map file", origin)};
  }
  if (!error.empty()) return Error{error};
  return out;
}

Result<MapOwners> sum_map_file(const std::filesystem::path& map, std::string_view port,
                               const model::FootprintRules& rules) {
  std::string error;
  std::string text = slurp(map, error);
  if (!error.empty()) return Error{error};
  return sum_map(text, port, rules, map.string());
}

Result<Footprint> read_size_json(const std::filesystem::path& p) {
  std::string error;
  std::string text = slurp(p, error);
  if (!error.empty()) return Error{error};
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    Footprint f;
    f.text = j.at("text").get<uint64_t>();
    f.data = j.at("data").get<uint64_t>();
    f.bss = j.at("bss").get<uint64_t>();
    f.flash = j.value("flash", f.text + f.data);
    f.ram = j.value("ram", f.data + f.bss);
    return f;
  } catch (const std::exception& e) {
    return Error{
        fmt::format("{}: not the expected {{\"text\",\"data\",\"bss\",\"flash\",\"ram\"}}: {}",
                    p.string(), e.what())};
  }
}

Result<KernelFootprint> kernel_footprint(const ImageFigures& kernel, const ImageFigures& bare,
                                         std::string_view reference_port) {
  if (bare.port != reference_port) {
    return Error{fmt::format("the reference image is not a {}-port build (RB_PORT={})",
                             reference_port, bare.port)};
  }
  if (kernel.map.kernel.text == 0) {
    return Error{fmt::format(
        "no kernel object (rb_kernel) in the map file of the {} image; is {} a kernel port?",
        kernel.port, kernel.port)};
  }
  KernelFootprint f;
  f.port = kernel.port;
  f.board = kernel.board;
  f.reference = bare.port;
  f.image_flash = kernel.size.flash;
  f.image_ram = kernel.size.ram;
  f.bare_flash = bare.size.flash;
  f.bare_ram = bare.size.ram;
  f.kernel = kernel.map.kernel;
  f.kernel_support = kernel.map.kernel_support;
  f.port_glue = kernel.map.port_glue;
  f.bare_port = bare.map.port_glue;
  auto minus = [](uint64_t a, uint64_t b) {
    return static_cast<int64_t>(a) - static_cast<int64_t>(b);
  };
  f.libs_flash = minus(kernel.map.libs.flash(), bare.map.libs.flash());
  f.libs_ram = minus(kernel.map.libs.ram(), bare.map.libs.ram());
  f.startup_flash = minus(kernel.map.startup.flash(), bare.map.startup.flash());
  f.startup_ram = minus(kernel.map.startup.ram(), bare.map.startup.ram());
  return f;
}

nlohmann::json to_json(const KernelFootprint& f) {
  return nlohmann::json{
      {"port", f.port},
      {"board", f.board},
      {"reference", f.reference},
      {"image", {{"flash", f.image_flash}, {"ram", f.image_ram}}},
      // The reference image's figures: the field names predate `reference`
      // and are kept so that result.json and `footprint --json` readers work.
      {"bare", {{"flash", f.bare_flash}, {"ram", f.bare_ram}}},
      {"delta", {{"flash", f.delta_flash()}, {"ram", f.delta_ram()}}},
      {"kernel", part_json(f.kernel)},
      {"kernel_support", part_json(f.kernel_support)},
      {"port_glue", part_json(f.port_glue)},
      {"libs", {{"flash", f.libs_flash}, {"ram", f.libs_ram}}},
      {"startup", {{"flash", f.startup_flash}, {"ram", f.startup_ram}}},
      {"bare_port", part_json(f.bare_port)},
  };
}

Status check_like_for_like(const std::map<std::string, std::string>& kernel_options,
                           const std::string& kernel_label,
                           const std::map<std::string, std::string>& bare_options,
                           const std::string& bare_label, std::string_view reference_port) {
  if (std::string p = option(bare_options, "RB_PORT"); p != reference_port) {
    return Error{
        fmt::format("{} is not a {}-port build (RB_PORT={})", bare_label, reference_port, p)};
  }
  for (const char* k : kLikeForLikeOptions) {
    std::string a = option(kernel_options, k), b = option(bare_options, k);
    if (a != b) {
      return Error{
          fmt::format("the builds differ in {} ('{}' in {}, '{}' in {}); compare like with like", k,
                      a, kernel_label, b, bare_label)};
    }
  }
  return {};
}

std::filesystem::path firmware_tree_of(const std::filesystem::path& dir) {
  auto entries = read_cache_entries(dir / "CMakeCache.txt");
  return entries ? option(*entries, "CMAKE_HOME_DIRECTORY") : "";
}

Result<BuildDirImage> read_build_dir(const std::filesystem::path& dir,
                                     const std::vector<model::KernelSpec>& kernels) {
  BuildDirImage b;
  b.dir = dir;
  for (const char* f : {"size.json", "rtosbench-fw.map", "CMakeCache.txt"}) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dir / f, ec)) {
      return Error{fmt::format("{} not found (is {} a built firmware directory?)",
                               (dir / f).string(), dir.string())};
    }
  }
  auto entries = read_cache_entries(dir / "CMakeCache.txt");
  if (!entries.ok()) return entries.error();
  for (const auto& [name, value] : *entries) {
    bool plain = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (name.rfind("RB_", 0) == 0 && plain) b.options.emplace(name, value);
  }
  b.figures.port = option(b.options, "RB_PORT");
  b.figures.board = option(b.options, "RB_BOARD");
  if (b.figures.port.empty()) {
    return Error{
        fmt::format("{}: no RB_PORT (not a firmware build)", (dir / "CMakeCache.txt").string())};
  }
  auto size = read_size_json(dir / "size.json");
  if (!size.ok()) return size.error();
  b.figures.size = *size;
  auto kernel = std::find_if(kernels.begin(), kernels.end(),
                             [&](const model::KernelSpec& k) { return k.port == b.figures.port; });
  if (kernel == kernels.end()) {
    return Error{fmt::format("{}: RB_PORT={} is no kernel port of the firmware tree",
                             (dir / "CMakeCache.txt").string(), b.figures.port)};
  }
  auto map = sum_map_file(dir / "rtosbench-fw.map", b.figures.port, kernel->footprint);
  if (!map.ok()) return map.error();
  b.figures.map = *map;
  return b;
}

Result<KernelFootprint> kernel_footprint_of(const BuildOutput& kernel,
                                            const model::FootprintRules& kernel_rules,
                                            const BuildOutput& bare,
                                            const model::FootprintRules& bare_rules,
                                            std::string_view reference_port) {
  std::string port = option(kernel.defines, "RB_PORT");
  auto kernel_label = fmt::format("the {} image", port.empty() ? "?" : port);
  if (auto s = check_like_for_like(kernel.defines, kernel_label, bare.defines,
                                   fmt::format("the {} reference image", reference_port),
                                   reference_port);
      !s.ok()) {
    return s.error();
  }
  auto figures = [](const BuildOutput& b,
                    const model::FootprintRules& rules) -> Result<ImageFigures> {
    ImageFigures f;
    f.port = option(b.defines, "RB_PORT");
    f.board = option(b.defines, "RB_BOARD");
    f.size = b.footprint;
    auto m = sum_map_file(b.map, f.port, rules);
    if (!m.ok()) return m.error();
    f.map = *m;
    return f;
  };
  auto k = figures(kernel, kernel_rules);
  if (!k.ok()) return k.error();
  auto b = figures(bare, bare_rules);
  if (!b.ok()) return b.error();
  return kernel_footprint(*k, *b, reference_port);
}

}  // namespace rb::build
