#pragma once
// Building one firmware image per job: the firmware's CMake project driven
// out of tree, with a cache of finished builds keyed by a hash of every input
// (firmware sources, RB_* options, kernel commits, toolchain versions), so an
// unchanged job is not rebuilt.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "build/contract.h"
#include "build/toolchain.h"
#include "kernels/source.h"
#include "matrix/model.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::build {

struct BuildRequest {
  matrix::Job job;
  std::filesystem::path firmware_dir;  // the firmware CMake project
  kernels::ResolvedKernel kernel;
  Toolchain toolchain;
  std::filesystem::path log;  // this attempt's build log
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};
  int parallel = 0;  // ninja -j; 0: ninja's default
};

struct Footprint {
  uint64_t text = 0, data = 0, bss = 0, flash = 0, ram = 0;
};

struct BuildOutput {
  bool cached = false;        // true: taken from the cache, nothing compiled
  bool cacheable = true;      // false when an input cannot be pinned (kernel not in git)
  std::string key;            // sha256 of the input manifest
  std::string nonce;          // RB_NONCE built into the image (first 8 hex of key)
  std::filesystem::path dir;  // cache entry with the artifacts
  std::filesystem::path elf, map, bin, size_json;
  std::string elf_sha256, map_sha256;
  std::string bin_sha256;  // the image that is flashed (rtosbench-fw.bin)
  Footprint footprint;
  std::map<std::string, std::string> defines;  // RB_* passed to CMake
  double seconds = 0;                          // configure + build time (0 when cached)
  std::string built_at;                        // UTC time of the build that produced the artifacts
  // What the image contract checked on this image (after the build, and again
  // on a cache hit); absent for a kernel without a contract.
  std::optional<ContractSummary> contract;
};

nlohmann::json to_json(const BuildOutput& b);

// The RB_* cache variables of a job (without RB_NONCE, which comes from the key).
std::map<std::string, std::string> job_defines(const BuildRequest& req);

// The text whose sha256 is the cache key: one input per line, stable order.
// Error when a firmware source cannot be read.
Result<std::string> input_manifest(const BuildRequest& req);

// The lines of a build's output that say what went wrong (compiler and
// CMake errors), joined with " | ", at most 400 characters.
std::string error_excerpt(const std::string& output);

// Whether a build failed because the port does not build the job's variant
// (its recipe called rb_variant_not_built: a tickless kernel it lacks, a tick
// rate its kernel fixes): such a job is PORT_MISSING with the reason, never
// BUILD_ERROR, and never retried.
bool variant_not_built(const Error& e);

// Whether building again gives the same failure: a variant the port does not
// build, or an image that breaks its contract (the same inputs make the same
// image). Such a build is not retried.
bool rebuild_cannot_help(const Error& e);

// Build cache directory: $RTOSBENCH_BUILD_CACHE, else
// $XDG_CACHE_HOME/rtosbench/builds, else ~/.cache/rtosbench/builds.
std::filesystem::path default_build_cache_dir();

class FirmwareBuilder {
 public:
  virtual ~FirmwareBuilder() = default;
  // Builds (or takes from the cache) the job's image. The error carries the
  // failing step and the last lines of the compiler output; every line goes
  // to req.log.
  virtual Result<BuildOutput> build(const BuildRequest& req) = 0;
};

// The cmake backend: `cmake -S firmware -B <cache>/<key>/build -G Ninja
// -DCMAKE_TOOLCHAIN_FILE=firmware/cmake/arm-none-eabi.cmake -DRB_...`, then
// `cmake --build` (compile_commands.json exported for the contract's
// header rules), then the image contract. Outputs: rtosbench-fw.elf/.map/.bin, size.json.
class CmakeBuilder final : public FirmwareBuilder {
 public:
  CmakeBuilder(ProcessRunner& runner, std::filesystem::path cache_dir);
  Result<BuildOutput> build(const BuildRequest& req) override;

 private:
  ProcessRunner& runner_;
  std::filesystem::path cache_dir_;
};

}  // namespace rb::build
