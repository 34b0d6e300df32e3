#pragma once
// What the firmware tree declares, each fact in one place (docs/ARCHITECTURE.md):
// - a kernel port: firmware/ports/<port>/ (port.cmake; its pin, expected
//   CONFIG, NA reasons, known defects and footprint rules in kernel.yaml);
// - a board: firmware/boards/<board>/board.cmake (its `set(RB_BOARD_...)`
//   lines: flashers, console, expected CONFIG, what it cannot measure);
// - a harness test: one entry of firmware/harness/rb_tests.h.
// src/catalog reads them from the tree at run time; a matrix names them.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/lower_bound.h"

namespace rb::model {

// A second upstream repository a kernel needs (uC/OS-III's uC-CPU, NuttX's
// apps); passed to the firmware as RB_KERNEL_SOURCE_<NAME>.
struct ExtraSource {
  std::string name;
  std::string git;
  std::string tag;
  std::string commit;            // pinned commit (40 hex digits), empty if pinned by tag
  std::filesystem::path source;  // local checkout (absolute), empty if none
};

// How a kernel that links its own image sorts its map file (kernel.yaml
// `footprint:`): input files by fnmatch pattern, first match wins (owner
// kernel, kernel_support or none), and the output sections that hold text,
// data and bss beyond the usual .text, .data and .bss.
struct FootprintRules {
  struct File {
    std::string match, owner;
  };
  std::vector<File> files;
  std::map<std::string, std::vector<std::string>> sections;  // text, data, bss
};

// The image contract (kernel.yaml `contract:`): what the built artefacts must
// hold, checked after every build (src/build/contract.h). A rule holds for a
// job when its `when` holds: every axis it names has one of the listed values
// in the job's variant (an empty `when` always holds).
using When = std::map<std::string, std::vector<std::string>>;

struct ContractSymbols {
  When when;
  std::vector<std::string> present;  // must be defined in the ELF
  std::vector<std::string> absent;   // must not be
};

struct ContractConfig {
  When when;
  std::string file;    // kconfig: relative to the firmware build directory; header: an include name
  std::string format;  // "kconfig" (CONFIG_X=v, `# CONFIG_X is not set`) or "header"
  // header: the compile_commands.json entry whose flags evaluate it (fnmatch
  // pattern of its source file); empty: the port's own sources.
  std::string unit;
  // kconfig: option -> value ("n": not set or absent); header: macro -> its
  // expansion, "defined" or "undefined".
  std::map<std::string, std::string> require;
};

struct Contract {
  std::vector<ContractSymbols> symbols;
  std::vector<ContractConfig> config;
  bool empty() const { return symbols.empty() && config.empty(); }
};

// Work one kernel does in the measured path that the others do not, or
// leaves out where they keep it, and that the port could not equalise
// (kernel.yaml `unequal:`): the run records it with the job, the report marks
// the figures of `series` with it and prints `note`.
struct UnequalWork {
  std::string what;                 // short: "CPACR test on every switch"
  std::vector<std::string> series;  // the series whose figures hold it; "*": every series
  std::string note;                 // why it cannot be equalised, what it costs
};

struct KernelSpec {
  std::string name;     // job id prefix and CONFIG kernel name, e.g. "freertos"
  std::string port;     // firmware/ports/<port>/; defaults to name
  std::string version;  // pinned version, e.g. "10.5.1"; "n/a" without a kernel
  std::string git;      // upstream URL; empty for ports without a source (bare)
  std::string tag;      // upstream tag of `version` (optional with `commit`)
  // Pinned commit (40 hex digits) for a version that has no tag, or whose
  // tag could move (a branch): it wins over `tag`, which is then only checked.
  std::string commit;
  std::filesystem::path source;  // local checkout named in the matrix (absolute)
  std::string note;              // shown with every result
  // A kernel without a public source (PX5): what the user supplies with
  // --kernel-source NAME=PATH (or `source:`); a directory that is not a git
  // checkout is accepted for it, its commit n/a.
  std::string supply;
  std::vector<ExtraSource> extra_sources;
  // Per-kernel CONFIG pin overrides; an empty optional removes a pin.
  std::map<std::string, std::optional<std::string>> expect;
  std::map<std::string, std::string> na;       // harness test -> why NA by design
  std::map<std::string, std::string> defects;  // CHECK -> the kernel defect it finds
  // A defect found on some cores only (its kernel CPU port's): CHECK -> them.
  std::map<std::string, std::vector<std::string>> defect_cpus;
  // The cores its recipe has a kernel CPU port for, each with that port (the
  // CONFIG port_variant= its captures pin; empty: none pinned): port.cmake's
  // one-line set(RB_PORT_CPUS <core>[=<CPU port>] ...); no line: cortex-m4.
  std::map<std::string, std::string> cpu_ports;
  FootprintRules footprint;
  Contract contract;  // kernel.yaml `contract:`; empty: nothing checked after the build
  std::vector<UnequalWork> unequal;  // declared unequal work, in kernel.yaml order
  // The series on which the kernel's switchable API checks cost (RB_CHECKS
  // on against off; tests/ports/checks-test.sh): api_overhead unless its
  // checks sit elsewhere (LiteOS-M: in the task switch).
  std::string checks_series = "api_overhead";
  bool reference = false;  // the image kernel footprints are counted against (bare)
  bool discover = true;    // `kernels: all` takes it
  bool port_exists = true;
  bool needs_source() const { return !git.empty() || !source.empty() || !supply.empty(); }
};

// A register write a flasher makes on the board's part.
struct RegisterWrite {
  uint32_t address = 0;  // 0: none declared
  uint32_t value = 0;
};

// The addresses the flashers use on the board's part, from its board.cmake.
struct BoardTarget {
  // RB_BOARD_FLASH_BASE: where the image's first byte is loaded (its linker
  // script's flash origin); the flashers verify there. Every board sets it.
  uint32_t flash_base = 0;
  // RB_BOARD_DBGMCU_BASE: DBGMCU_IDCODE's address, DBGMCU_CR the word after
  // it (0: none). RB_BOARD_RESET_FLAGS_CLEAR `<address> <value>`: the write
  // that clears the reset-cause flags the firmware reads. Both are set by
  // every board a probe flashes.
  uint32_t dbgmcu_base = 0;
  RegisterWrite reset_flags_clear;
  // RB_BOARD_QEMU_ICOUNT_SHIFT: the emulator runs the image under
  // `-icount shift=N` (one instruction, 2^N virtual ns); the image checks it.
  unsigned qemu_icount_shift = 0;
};

struct BoardInfo {
  std::string name;                   // firmware/boards/<name>
  std::vector<std::string> flashers;  // RB_BOARD_FLASHERS
  std::string emulator;      // RB_BOARD_EMULATOR: the flasher that emulates it; empty: hardware
  std::string qemu_machine;  // RB_BOARD_QEMU_MACHINE
  std::string cpu;           // the core RB_BOARD_CPU_FLAGS' -mcpu= names, e.g. "cortex-m3"
  std::map<std::string, std::string> targets;  // RB_BOARD_TARGET_<flasher>
  unsigned uart_baud = 0;  // RB_BOARD_UART_BAUD: the console's rate in the image; 0: unknown
  std::string console;     // RB_BOARD_CONSOLE: where the console is wired (hints)
  BoardTarget target;
  // RB_BOARD_NOT_MEASURED_<series>: series -> why the board cannot measure
  // it. Still captured and verified; shown marked, never ranked, never judged.
  std::map<std::string, std::string> not_measured;
  // RB_BOARD_UNSTABLE_<series>: series -> why the bench itself can move it
  // between two runs of one image. Shown marked, never ranked, never judged.
  std::map<std::string, std::string> unstable;
  // RB_BOARD_LOWER_BOUND_<series> <cycles> <why>: the architectural lower
  // bound of the series on this core; verify marks a figure below it
  // INVALID (a broken ruler). None on a board whose unit is not cycles.
  std::map<std::string, LowerBound> lower_bounds;
  // RB_BOARD_EXPECT_<key>: CONFIG pins every capture on this board must
  // report (counter, unit, clocks, priority levels).
  std::map<std::string, std::string> expect;
  // RB_BOARD_DEV_ID (DBGMCU_IDCODE's DEV_ID, 0 unknown), RB_BOARD_DEVICE
  // (its family name) and RB_BOARD_REVISION_<REV_ID>: what doctor and smoke
  // compare a probe's reading with.
  unsigned dev_id = 0;
  std::string device;
  std::map<unsigned, std::string> revisions;
  // RB_BOARD_VCP_NOTE: what to know when the console is the probe's virtual
  // COM port (doctor's warning); empty when nothing. RB_BOARD_VCP_FIX: what
  // to do about it.
  std::string vcp_note;
  std::string vcp_fix;
  // Every other RB_BOARD_<KEY> line the host read, for the record.
  std::map<std::string, std::string> facts;

  // Why `series` is no measurement on this board ("" when it is one).
  std::string not_measured_reason(const std::string& series) const;
  // Why `series` is never ranked or judged here: not measured or unstable.
  std::string unjudged_reason(const std::string& series) const;
};

struct SeriesInfo {
  std::string name;
  std::string unit;  // "" the counter's (CONFIG unit); else bytes, per-mille
  std::string base;  // the ruler series its RESULT must name as base= ("" none)
};

struct HarnessTest {
  std::string name;
  std::string pacing;  // free, event or tick (rb_tests.h)
  std::vector<SeriesInfo> series;
};

}  // namespace rb::model
