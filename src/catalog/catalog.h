#pragma once
// The firmware tree's ports, boards and harness tests, read from the tree at
// run time (model/catalog.h says where each fact lives). A new port or board
// directory is known to the next command, with no host rebuild and no list
// to edit.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "util/result.h"
#include "util/yaml_doc.h"

namespace rb::catalog {

struct Catalog {
  std::filesystem::path firmware;  // absolute
  // Every port directory holding a port.cmake, the reference port (the one
  // whose kernel.yaml says `reference: true`) first, then by name; facts from
  // its kernel.yaml.
  std::vector<model::KernelSpec> kernels;
  std::vector<model::BoardInfo> boards;   // by name
  std::vector<model::HarnessTest> tests;  // rb_tests.h, in run order

  const model::KernelSpec* kernel(const std::string& name) const;
  // The reference kernel: the image every kernel-alone footprint is counted
  // against (load checks there is exactly one); nullptr in a tree without
  // ports.
  const model::KernelSpec* reference() const;
  const model::BoardInfo* board(const std::string& name) const;
  const model::HarnessTest* test(const std::string& name) const;
  std::vector<std::string> board_names() const;
  std::vector<std::string> test_names() const;
  // Every flasher some board names, sorted, once each.
  std::vector<std::string> flashers() const;
  // The unit of `series`: its own (bytes, per-mille) or the counter's.
  std::string series_unit(const std::string& series, const std::string& counter_unit) const;
  // Every series of every test -> the ruler series its RESULT must name as
  // base= ("" for none): verify's Options::baselines.
  std::map<std::string, std::string> series_baselines() const;
};

// Reads `firmware`. A kernel.yaml that is not valid is a diagnostic (with
// file:line:column); so is a board.cmake line with a value outside
// [A-Za-z0-9_./ :-]; so is a tree with ports of which none, or more than
// one, says `reference: true`. The error (kUsage, kCannotRead for a missing
// tree) counts them.
Result<Catalog> load(const std::filesystem::path& firmware, std::vector<Diagnostic>& diagnostics);

// The firmware tree next to the host's own sources (RTOSBENCH_SOURCE_DIR),
// or $RTOSBENCH_FIRMWARE.
std::filesystem::path default_firmware_dir();

// Parses one kernel.yaml (`port` names it in diagnostics).
bool parse_kernel_yaml(std::string_view text, const std::string& file, model::KernelSpec& out,
                       std::vector<Diagnostic>& diagnostics);

// A port.cmake's one-line set(RB_PORT_CPUS <core>[=<CPU port>] ...), an item
// with a space in double quotes, as firmware/CMakeLists.txt reads it: core ->
// CPU port (empty when none is named); no such line: {cortex-m4: ""}.
std::map<std::string, std::string> read_port_cpus(std::string_view port_cmake);

// `expect:` pins (kernel.yaml, a matrix's kernel entry): key -> value as
// text; a null removes the pin.
void read_pins(const nlohmann::json& e, std::map<std::string, std::optional<std::string>>& out);

}  // namespace rb::catalog
