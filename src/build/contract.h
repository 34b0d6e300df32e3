#pragma once
// The image contract, checked after a build (docs/porting.md, "The image
// contract"): the kernel's kernel.yaml `contract:` says which symbols the
// ELF must and must not define, and what its generated configuration files
// (Zephyr's and NuttX's .config, a header such as RT-Thread's rtconfig.h as
// the compiler sees it) must hold. Every drift is collected; the builder
// fails the job BUILD_ERROR with the whole list.
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/axes.h"
#include "model/catalog.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::build {

// What a check covered: the counts of rules that held for the variant and
// were compared (a symbol or an option is one rule each), the rules whose
// `when` did not hold, and the configuration files read.
struct ContractSummary {
  int symbols = 0;
  int config = 0;
  int skipped = 0;
  std::vector<std::string> files;
};

struct ContractCheck {
  ContractSummary summary;
  std::vector<std::string> drifts;  // empty: the image keeps its contract
};

// Whether `when` holds for `variant` (every axis it names has one of its values).
bool when_holds(const model::When& when, const model::Variant& variant);

// The symbols `nm -P --defined-only` prints (undefined ones dropped).
std::set<std::string> parse_nm(const std::string& output);

// A Kconfig .config: option -> value ("n" for `# CONFIG_X is not set`),
// string values without their quotes.
std::map<std::string, std::string> parse_kconfig(const std::string& text);

// Compare one rule, adding a line per drift; return how many rules it compared.
int compare_symbols(const model::ContractSymbols& rule, const std::set<std::string>& defined,
                    std::vector<std::string>& drifts);
int compare_kconfig(const model::ContractConfig& rule,
                    const std::map<std::string, std::string>& config,
                    std::vector<std::string>& drifts);
// `macros`: name -> its expansion, absent when undefined.
int compare_header(const model::ContractConfig& rule,
                   const std::map<std::string, std::string>& macros,
                   std::vector<std::string>& drifts);

// The probe a header is evaluated with: it includes the header, then prints
// each required macro's expansion (or that it is undefined) on a line of its
// own that parse_header_probe reads back from the compiler's -E output.
std::string header_probe_source(const model::ContractConfig& rule);
std::map<std::string, std::string> parse_header_probe(const std::string& preprocessed);
// The header file the probe's -E output says was included (its linemarker), or "".
std::string included_header(const std::string& preprocessed, const std::string& name);

// A compile_commands.json "command" split as a shell would ('', "", \).
std::vector<std::string> split_command(const std::string& command);
// The compiler argv of one compile_commands.json entry, turned into one that
// preprocesses `probe` only (-E; no -c, -o, dependency files or source).
std::vector<std::string> probe_argv(const std::vector<std::string>& compile,
                                    const std::string& source, const std::filesystem::path& probe);

struct ContractInputs {
  std::filesystem::path elf;
  std::filesystem::path build_dir;  // the firmware build directory
  std::string port;                 // the port directory's name (the header's default unit)
  std::string nm = "arm-none-eabi-nm";
};

// Runs nm on the ELF, reads or evaluates each configuration file, compares.
// A configuration file the contract names but the build did not write, or
// a header that does not evaluate, is a drift too. Error only when the
// check itself cannot run (nm does not start).
Result<ContractCheck> check_contract(ProcessRunner& runner, const model::Contract& contract,
                                     const model::Variant& variant, const ContractInputs& in);

// "3 drift(s) from the image contract (kernel.yaml): a; b; c".
std::string drift_message(const std::vector<std::string>& drifts);

// The build error of an image that breaks its contract (kind kUnavailable,
// the drift message), and whether an error is one.
Error contract_error(const std::vector<std::string>& drifts);
bool is_contract_error(const Error& e);

}  // namespace rb::build
