#include "build/contract.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <wordexp.h>

#include <algorithm>
#include <boost/algorithm/string/trim.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/atomic_write.h"
#include "util/posix_file.h"

namespace rb::build {

namespace {

// "(when checks=off)" for a rule with a condition, "" without.
std::string when_text(const model::When& when) {
  if (when.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [axis, values] : when)
    parts.push_back(fmt::format("{}={}", axis, fmt::join(values, "|")));
  return fmt::format(" (when {})", fmt::join(parts, ", "));
}

// A macro's expansion as compared: without white space, without parentheses
// around the whole, an integer literal as its decimal value.
std::string normal_value(const std::string& text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  auto encloses = [](const std::string& x) {
    if (x.size() < 2 || x.front() != '(' || x.back() != ')') return false;
    int depth = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] == '(') ++depth;
      if (x[i] == ')' && --depth == 0 && i + 1 != x.size()) return false;
    }
    return true;
  };
  while (encloses(s)) s = s.substr(1, s.size() - 2);
  std::string digits = s;
  while (!digits.empty() && std::string_view("uUlL").find(digits.back()) != std::string_view::npos)
    digits.pop_back();
  if (!digits.empty() && std::isdigit(static_cast<unsigned char>(digits[0]))) {
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(digits.c_str(), &end, 0);
    if (errno == 0 && end && *end == '\0') return std::to_string(v);
  }
  return s;
}

constexpr std::string_view kProbeMark = "\"rbcontract:";
constexpr std::string_view kUndefined = "rbcontract_undefined";

}  // namespace

bool when_holds(const model::When& when, const model::Variant& variant) {
  for (const auto& [axis, values] : when) {
    auto it = variant.find(axis);
    if (it == variant.end()) return false;
    if (std::find(values.begin(), values.end(), it->second) == values.end()) return false;
  }
  return true;
}

std::set<std::string> parse_nm(const std::string& output) {
  std::set<std::string> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    // POSIX format: "name type [value [size]]".
    std::istringstream words(line);
    std::string name, type;
    if (!(words >> name >> type) || type.size() != 1) continue;
    if (type == "U" || type == "w" || type == "v") continue;  // undefined, weak undefined
    out.insert(name);
  }
  return out;
}

std::map<std::string, std::string> parse_kconfig(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    boost::algorithm::trim(line);
    if (line.rfind("# CONFIG_", 0) == 0 && line.size() > 13 &&
        line.compare(line.size() - 11, 11, " is not set") == 0) {
      // (insert_or_assign: GCC 12 warns -Wrestrict, falsely, on operator= of "n")
      out.insert_or_assign(line.substr(2, line.size() - 13), std::string(1, 'n'));
      continue;
    }
    if (line.rfind("CONFIG_", 0) != 0) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    out[line.substr(0, eq)] = value;
  }
  return out;
}

int compare_symbols(const model::ContractSymbols& rule, const std::set<std::string>& defined,
                    std::vector<std::string>& drifts) {
  const std::string when = when_text(rule.when);
  for (const auto& s : rule.present)
    if (!defined.count(s))
      drifts.push_back(
          fmt::format("symbol {} is not in the image, the contract says present{}", s, when));
  for (const auto& s : rule.absent)
    if (defined.count(s))
      drifts.push_back(
          fmt::format("symbol {} is in the image, the contract says absent{}", s, when));
  return static_cast<int>(rule.present.size() + rule.absent.size());
}

int compare_kconfig(const model::ContractConfig& rule,
                    const std::map<std::string, std::string>& config,
                    std::vector<std::string>& drifts) {
  for (const auto& [key, want] : rule.require) {
    auto it = config.find(key);
    // An option Kconfig did not write (its dependencies unmet) is not set.
    const std::string have = it == config.end() ? "n" : it->second;
    if (have != want)
      drifts.push_back(fmt::format("{}: {} is {}{}, the contract requires {}{}", rule.file, key,
                                   have, it == config.end() ? " (not written)" : "", want,
                                   when_text(rule.when)));
  }
  return static_cast<int>(rule.require.size());
}

int compare_header(const model::ContractConfig& rule,
                   const std::map<std::string, std::string>& macros,
                   std::vector<std::string>& drifts) {
  for (const auto& [key, want] : rule.require) {
    auto it = macros.find(key);
    const bool defined = it != macros.end();
    bool ok;
    if (want == "undefined")
      ok = !defined;
    else if (want == "defined")
      ok = defined;
    else
      ok = defined && normal_value(it->second) == normal_value(want);
    if (!ok)
      drifts.push_back(fmt::format("{}: {} is {}, the contract requires {}{}", rule.file, key,
                                   defined ? "'" + it->second + "'" : "undefined", want,
                                   when_text(rule.when)));
  }
  return static_cast<int>(rule.require.size());
}

std::string header_probe_source(const model::ContractConfig& rule) {
  std::string s = fmt::format("#include \"{}\"\n", rule.file);
  for (const auto& [key, want] : rule.require) {
    (void)want;
    s += fmt::format("#ifdef {0}\n{1}{0}\" {0}\n#else\n{1}{0}\" {2}\n#endif\n", key, kProbeMark,
                     kUndefined);
  }
  return s;
}

std::map<std::string, std::string> parse_header_probe(const std::string& preprocessed) {
  std::map<std::string, std::string> out;
  std::istringstream in(preprocessed);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(kProbeMark, 0) != 0) continue;
    const auto close = line.find('"', kProbeMark.size());
    if (close == std::string::npos) continue;
    const std::string name = line.substr(kProbeMark.size(), close - kProbeMark.size());
    const std::string value = boost::algorithm::trim_copy(line.substr(close + 1));
    if (value == kUndefined) continue;
    out[name] = value;
  }
  return out;
}

std::string included_header(const std::string& preprocessed, const std::string& name) {
  std::istringstream in(preprocessed);
  std::string line;
  while (std::getline(in, line)) {
    // A linemarker: # 1 "path" 1 (flag 1: entering the file).
    if (line.rfind("# 1 \"", 0) != 0) continue;
    const auto close = line.find('"', 5);
    if (close == std::string::npos) continue;
    const std::string path = line.substr(5, close - 5);
    if (path == name ||
        (path.size() > name.size() &&
         path.compare(path.size() - name.size() - 1, std::string::npos, "/" + name) == 0))
      return path;
  }
  return "";
}

// compile_commands.json's `command` is a shell command line: the C library's
// own shell-word splitter reads it, with command substitution refused.
std::vector<std::string> split_command(const std::string& command) {
  std::vector<std::string> out;
  wordexp_t w{};
  if (::wordexp(command.c_str(), &w, WRDE_NOCMD | WRDE_UNDEF) == 0)
    out.assign(w.we_wordv, w.we_wordv + w.we_wordc);
  ::wordfree(&w);
  return out;
}

std::vector<std::string> probe_argv(const std::vector<std::string>& compile,
                                    const std::string& source, const std::filesystem::path& probe) {
  std::vector<std::string> out;
  for (size_t i = 0; i < compile.size(); ++i) {
    const std::string& a = compile[i];
    if (i > 0 && (a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ")) {
      ++i;  // and its value
      continue;
    }
    if (i > 0 && (a == "-c" || a == "-MD" || a == "-MMD" || a == source ||
                  (a.rfind("-o", 0) == 0 && a.size() > 2) || a.rfind("-MF", 0) == 0))
      continue;
    out.push_back(a);
  }
  out.insert(out.end(), {"-E", "-x", "c", probe.string()});
  return out;
}

namespace {

// The files read, each once.
void add_file(ContractSummary& s, const std::string& file) {
  if (std::find(s.files.begin(), s.files.end(), file) == s.files.end()) s.files.push_back(file);
}

// One header rule: the compile_commands.json entry of its unit, the probe
// preprocessed with that entry's flags, its macros compared.
int check_header(ProcessRunner& runner, const model::ContractConfig& rule, size_t index,
                 const ContractInputs& in, ContractCheck& out) {
  auto drift = [&](const std::string& what) {
    out.drifts.push_back(rule.file + ": " + what);
    return 0;
  };
  auto text = read_whole_file(in.build_dir / "compile_commands.json");
  if (!text) return drift("no compile_commands.json in the build directory to evaluate it with");
  const std::string unit = rule.unit.empty() ? "*/ports/" + in.port + "/*" : rule.unit;
  nlohmann::json entry;
  try {
    for (const auto& e : nlohmann::json::parse(*text)) {
      if (e.contains("file") && e["file"].is_string() &&
          ::fnmatch(unit.c_str(), e["file"].get<std::string>().c_str(), 0) == 0) {
        entry = e;
        break;
      }
    }
  } catch (const std::exception& e) {
    return drift(fmt::format("compile_commands.json does not parse: {}", e.what()));
  }
  if (entry.is_null())
    return drift(fmt::format("no compiled source matches '{}' to evaluate it with", unit));
  std::vector<std::string> compile;
  if (entry.contains("arguments") && entry["arguments"].is_array())
    compile = entry["arguments"].get<std::vector<std::string>>();
  else if (entry.contains("command") && entry["command"].is_string())
    compile = split_command(entry["command"].get<std::string>());
  if (compile.empty()) return drift("its compile_commands.json entry has no command");
  const auto probe = in.build_dir / "contract" / fmt::format("header-{}.c", index);
  std::error_code ec;
  std::filesystem::create_directories(probe.parent_path(), ec);
  if (auto s = write_file_atomic(probe, header_probe_source(rule)); !s.ok())
    return drift(s.error().message);
  ProcessSpec spec;
  spec.argv = probe_argv(compile, entry.value("file", ""), probe);
  spec.cwd = entry.value("directory", in.build_dir.string());
  spec.timeout = std::chrono::seconds(60);
  auto r = runner.run(spec);
  if (!r.ok())
    return drift(
        fmt::format("the compiler does not evaluate it ({}): {}", r.describe(), r.tail(3)));
  const std::string path = included_header(r.output, rule.file);
  add_file(out.summary, path.empty() ? rule.file : path);
  return compare_header(rule, parse_header_probe(r.output), out.drifts);
}

}  // namespace

Result<ContractCheck> check_contract(ProcessRunner& runner, const model::Contract& contract,
                                     const model::Variant& variant, const ContractInputs& in) {
  ContractCheck out;
  bool any_symbols = false;
  for (const auto& r : contract.symbols) any_symbols |= when_holds(r.when, variant);
  if (any_symbols) {
    ProcessSpec nm;
    nm.argv = {in.nm, "-P", "--defined-only", in.elf.string()};
    nm.timeout = std::chrono::seconds(60);
    auto r = runner.run(nm);
    if (!r.ok())
      return Error{fmt::format("the image contract: {} {} failed ({}): {}", in.nm, in.elf.string(),
                               r.describe(), r.tail(3))};
    if (r.output.size() >= (1u << 20))
      return Error{
          fmt::format("the image contract: {} printed 1 MiB or more; its symbols were "
                      "not all read",
                      in.nm)};
    const auto defined = parse_nm(r.output);
    for (const auto& rule : contract.symbols) {
      if (when_holds(rule.when, variant))
        out.summary.symbols += compare_symbols(rule, defined, out.drifts);
      else
        ++out.summary.skipped;
    }
  } else {
    out.summary.skipped += static_cast<int>(contract.symbols.size());
  }
  for (size_t i = 0; i < contract.config.size(); ++i) {
    const auto& rule = contract.config[i];
    if (!when_holds(rule.when, variant)) {
      ++out.summary.skipped;
      continue;
    }
    if (rule.format == "header") {
      out.summary.config += check_header(runner, rule, i, in, out);
      continue;
    }
    auto text = read_whole_file(in.build_dir / rule.file);
    if (!text) {
      out.drifts.push_back(
          fmt::format("{}: the build wrote no such file (the contract reads it)", rule.file));
      continue;
    }
    add_file(out.summary, rule.file);
    out.summary.config += compare_kconfig(rule, parse_kconfig(*text), out.drifts);
  }
  return out;
}

namespace {
constexpr std::string_view kDriftText = " drift(s) from the image contract (kernel.yaml): ";
}

std::string drift_message(const std::vector<std::string>& drifts) {
  return fmt::format("{}{}{}", drifts.size(), kDriftText, fmt::join(drifts, "; "));
}

Error contract_error(const std::vector<std::string>& drifts) {
  return make_error(ErrorKind::kUnavailable, drift_message(drifts));
}

bool is_contract_error(const Error& e) {
  return e.kind == ErrorKind::kUnavailable && e.message.find(kDriftText) != std::string::npos;
}

}  // namespace rb::build
