#pragma once
// The two configuration files of a run (docs/matrix.md):
// - a test matrix says WHAT to measure: kernels pinned to upstream versions,
//   variants, tests, sample counts, repeats, pinned conditions, timeouts;
// - a bench file says WHAT IS PLUGGED IN: board instances with their probe,
//   serial port, reset method and power-cycle command (after twister's
//   hardware map), so one matrix runs on any bench.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "model/axes.h"
#include "model/catalog.h"

namespace rb::matrix {

using model::ExtraSource;
using model::KernelSpec;

struct Timeouts {
  double build_s = 900;
  double flash_s = 120;
  double capture_s = 600;    // whole capture, `cont` to END
  double inactivity_s = 30;  // longest silence on the port
};

struct Retries {
  int build = 0;    // BUILD_ERROR
  int flash = 1;    // FLASH_ERROR
  int capture = 1;  // TIMEOUT, PORT_ERROR, PROTOCOL_ERROR (never INVALID)
};

// How far one statistic may differ between the loads of a repeated job: the
// spread (max - min across the loads) may be at most max(abs, pct % of the
// smallest load's value).
struct SpreadTolerance {
  double abs = 0;
  double pct = 0;
  bool off = false;  // the statistic is not judged
};

// `edges:`: the tolerance of the edges analysis (rb::edges, docs/matrix.md
// "Edges"): |edge - dwt| per sample at most tolerance_ns when set, else 2
// analyzer sample periods plus gpio_latency_ns (an estimate of a store to a
// GPIO set/reset register reaching the pin; docs/lab.md). `rtosbench edges
// --tolerance-ns / --gpio-latency-ns` override it.
struct EdgesSpec {
  std::optional<double> tolerance_ns;
  double gpio_latency_ns = 50.0;
};

// A named set of variants (`sweeps:`), selected by `rtosbench run --sweep
// NAME`: it replaces the matrix's variants (each axis it leaves out keeps the
// matrix's), may change samples/warmup and adds job-id globs to exclude.
struct Sweep {
  std::string name, note;
  std::map<std::string, std::vector<std::string>> variants;  // axis -> values
  std::optional<int> samples, warmup;
  std::vector<std::string> exclude;
};

struct Matrix {
  std::filesystem::path file;  // absolute path of the matrix file
  std::string name;
  std::filesystem::path bench;     // default bench file (absolute), may be empty
  std::filesystem::path firmware;  // firmware CMake project (absolute)
  catalog::Catalog catalog;        // what that firmware tree declares
  // The boards its jobs are built for (`board:` or `boards:`); empty: every
  // board type of the bench (filled when the run starts, for_boards).
  std::vector<std::string> boards;
  std::string gcc_pin;  // arm-none-eabi-gcc -dumpversion to require; empty: none
  std::vector<KernelSpec> kernels;
  // The variant axes (model::axes()): axis -> values, every axis present.
  std::map<std::string, std::vector<std::string>> variants;
  std::vector<std::string> tests{"all"};
  int samples = 10000;
  int warmup = 1000;
  // Loads per job (`loads:`, or its earlier name `repeats:`): each a cold
  // start of the same image (QEMU: a new process; hardware: flashed once,
  // then reset or power-cycled per load); overridden by `rtosbench run
  // --loads N`. 0 until the bench is known: for_boards sets the bench's
  // default (default_loads: 5 on hardware, 1 emulated).
  int repeats = 0;
  // The least free words every task stack must keep (END stack_min_free_words;
  // verify's stack_margin verdict); 0: not checked.
  int stack_margin_words = 64;
  // `reproducibility:` statistic name (known_statistics()) or "default" ->
  // tolerance between loads; empty: the bench's default (identical on the
  // emulated bench).
  std::map<std::string, SpreadTolerance> reproducibility;
  std::map<std::string, std::string> expect;  // CONFIG pins of every capture
  Timeouts timeouts;
  Retries retries;
  EdgesSpec edges;
  // `run --only` / `--exclude`: job-id globs (fnmatch) selecting the jobs
  // that run; empty `only` selects every job. Not read from the matrix file.
  std::vector<std::string> only, exclude;
  std::map<std::string, Sweep> sweeps;
  std::string sweep;  // the sweep selected (select_sweep), empty: none
};

enum class ResetMethod { kHardware, kSystem, kPowerCycle };

const char* to_string(ResetMethod r);

struct ProbeSpec {
  std::string serial;  // probe serial number: openocd `adapter serial`, pyocd `-u`
  std::string interface = "interface/stlink.cfg";  // openocd interface script
  std::string target;                              // openocd target script / pyocd target name
  std::string pack;                                // pyocd CMSIS pack
  bool connect_under_reset = false;
};

// How QEMU's USART1 reaches the capture. `socket` (the default) is lossless
// by construction: QEMU waits for the connection before the guest can run
// and blocks when the reader lags. `pty` goes through the tty path
// (serial_port) like a board, but QEMU 7.2 drops output written before it
// notices, by a once-a-second poll, that the pty was opened; the runner
// waits that out before releasing the guest (docs/run.md, "Capture
// transport").
enum class QemuSerial { kSocket, kPty };

struct QemuSpec {
  std::string machine = "netduinoplus2";
  std::string cpu = "cortex-m4";  // the board's core (LAVA's qemu template passes it as -cpu)
  QemuSerial serial = QemuSerial::kSocket;
  std::vector<std::string> extra_args;
};

// A board reached through a LAVA server instead of this host's probes
// (docs/lava.md): LAVA's scheduler picks a device of the type (and tags),
// its worker deploys the published image and boots it by the method the
// flasher names (qemu, openocd, pyocd; jlink by `boot:`).
struct LavaBoard {
  std::string device_type;        // e.g. "qemu", "stm32f4-discovery"
  std::vector<std::string> tags;  // device tags a device must carry
  std::string boot;               // LAVA boot method: qemu, openocd, pyocd, jlink
  int jobs = 1;                   // jobs of this entry in flight at once
  std::string priority = "medium";
};

struct BoardInstance {
  std::string id;     // unique in the bench, e.g. "disco-1"
  std::string board;  // board type; a job runs on instances of its matrix's board
  // A flasher registered in src/probe (flasher.cpp) and named by the board's
  // board.cmake (RB_BOARD_FLASHERS).
  std::string flasher = "qemu";
  // The flasher emulates the board (RB_BOARD_EMULATOR): no serial port to
  // name, a cold start per load, identical loads expected.
  bool emulated = true;
  ProbeSpec probe;
  QemuSpec qemu;
  model::BoardTarget target;  // the board's (its board.cmake)
  std::string serial_port;    // by-id path; empty for qemu (the pty is made per job)
  unsigned baud = 115200;
  ResetMethod reset = ResetMethod::kSystem;
  std::string power_cycle;        // shell command; required for power-cycle reset
  double port_wait_s = 10;        // how long to wait for the port to (re)appear
  std::optional<LavaBoard> lava;  // set: the board is a LAVA device type (the bench's `lava:`)
};

// A bench file's `lava:` server (docs/lava.md). The token is never in the
// bench file: an RTOSBENCH_LAVA_* variable or rtosbench's token file holds
// it, bound to the server's host (lava::read_token).
struct LavaServer {
  std::string url;                    // e.g. "https://lava.example.org/" (REST under api/v0.2/)
  std::string token_env;              // RTOSBENCH_LAVA_* variable holding `HOST TOKEN`, or ""
  std::filesystem::path publish_dir;  // where images are copied (absolute)
  std::string publish_url;  // how the workers fetch that directory (file:// or http(s)://)
  double poll_s = 2;        // between two state requests
  double queue_timeout_s = 6 * 3600;  // longest wait for a device before giving up
};

// A bench file's `analyzer:`: a logic analyzer sigrok-cli drives, wired to
// the edge variant's pins (docs/lab.md, "Wiring the analyzer"). Every string
// reaches sigrok-cli as one argument of its own, never a shell, and is
// allow-listed (docs/schema/bench.schema.json): a driver spec is
// `driver[:conn=...]`, so no value may hold ':', '=' or ','.
struct Analyzer {
  std::string driver;  // a sigrok driver (sigrok-cli -L): fx2lafw, demo, ...
  std::string conn;    // its conn= (USB bus.address, VID.PID, a port); "" for the first found
  // The device's channel wired to each role, renamed MK, EV and TK in the capture.
  std::string mk = "D0", ev = "D1", tk = "D2";
  uint64_t samplerate = 24000000;  // Hz
  std::string trigger;             // sigrok trigger on the roles, e.g. "MK=r"; "" none
  double start_timeout_s = 10;     // how long its acquisition may take to start
};

struct Bench {
  std::filesystem::path file;
  std::string name;
  std::vector<BoardInstance> boards;
  std::optional<LavaServer> lava;
  std::optional<Analyzer> analyzer;
};

// One expanded job: a kernel at one variant on one board. Its loads
// (Matrix::repeats) run inside the job.
struct Job {
  std::string id;        // e.g. "freertos-O2-tick1000-fpu0", "...-fpu0-checks"
  std::string build_id;  // the image's id (equal to id: one image per job)
  KernelSpec kernel;
  std::string board;
  std::string cpu;         // the board's core (its -mcpu=): a contract rule's `when: {cpu: ...}`
  model::Variant variant;  // axis -> value, every axis of model::axes()
  std::vector<std::string> tests;
  int samples = 10000;
  int warmup = 1000;
  bool port_exists = true;
  std::string port_missing_reason;  // set when !port_exists

  const std::string& axis(const std::string& key) const { return variant.at(key); }
  int axis_int(const std::string& key) const { return std::stoi(variant.at(key)); }
};

}  // namespace rb::matrix
