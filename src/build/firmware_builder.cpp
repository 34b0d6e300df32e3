#include "build/firmware_builder.h"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "build/footprint.h"
#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace rb::build {

namespace {

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

void log_line(const std::filesystem::path& log, const std::string& line) {
  if (log.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(log.parent_path(), ec);
  (void)append_to_file(log, line + "\n");
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// An exclusive lock on a cache entry while it is checked or built, so two
// runs sharing a cache do not build into the same directory at once.
class EntryLock {
 public:
  explicit EntryLock(const std::filesystem::path& file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~EntryLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  EntryLock(const EntryLock&) = delete;
  EntryLock& operator=(const EntryLock&) = delete;

 private:
  int fd_ = -1;
};

// firmware/CMakeLists.txt's rb_variant_not_built, and the error it becomes.
constexpr std::string_view kNotBuilt = "rtosbench: variant not built: ";
constexpr std::string_view kNotBuiltError = "the port does not build this variant: ";

}  // namespace

bool variant_not_built(const Error& e) {
  return e.kind == ErrorKind::kUnavailable && e.message.rfind(kNotBuiltError, 0) == 0;
}

bool rebuild_cannot_help(const Error& e) {
  return variant_not_built(e) || is_contract_error(e);
}

std::string error_excerpt(const std::string& output) {
  std::istringstream in(output);
  std::string line;
  std::vector<std::string> errors, last;
  // A CMake error prints its text on the indented lines under
  // "CMake Error at F:L (message):", up to a blank line: the excerpt is the
  // location with that text, the only part that says what went wrong.
  std::string cmake_error;
  bool in_cmake_error = false;
  auto end_cmake_error = [&] {
    if (in_cmake_error && errors.size() < 3) errors.push_back(cmake_error);
    in_cmake_error = false;
  };
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (in_cmake_error) {
      if (line.rfind("  ", 0) == 0) {
        cmake_error += " " + line.substr(line.find_first_not_of(' '));
        continue;
      }
      end_cmake_error();
    }
    if (line.empty()) continue;
    last.push_back(line);
    if (last.size() > 3) last.erase(last.begin());
    if (line.rfind("CMake Error", 0) == 0 && line.back() == ':') {
      cmake_error = line;
      if (const auto at = cmake_error.rfind(" (message):"); at != std::string::npos)
        cmake_error = cmake_error.substr(0, at) + ":";
      in_cmake_error = true;
      continue;
    }
    std::string lower = line;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool is_error = lower.find("error") != std::string::npos &&
                    lower.rfind("ninja: build stopped", 0) != 0 &&
                    lower.rfind("failed: ", 0) != 0 && lower.find(" -c ") == std::string::npos;
    if (is_error && errors.size() < 3) errors.push_back(line);
  }
  end_cmake_error();
  const auto& pick = errors.empty() ? last : errors;
  std::string out;
  for (const auto& l : pick) out += (out.empty() ? "" : " | ") + l;
  if (out.size() > 400) out = out.substr(0, 397) + "...";
  return out.empty() ? "(no output)" : out;
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Footprint, text, data, bss, flash, ram)

nlohmann::json to_json(const BuildOutput& b) {
  nlohmann::json j{
      {"cached", b.cached},         {"cacheable", b.cacheable},   {"key", b.key},
      {"nonce", b.nonce},           {"elf_sha256", b.elf_sha256}, {"map_sha256", b.map_sha256},
      {"bin_sha256", b.bin_sha256}, {"footprint", b.footprint},   {"defines", b.defines},
      {"seconds", b.seconds},       {"built_at", b.built_at},
  };
  if (b.contract)
    j["contract"] = {{"symbols", b.contract->symbols},
                     {"config", b.contract->config},
                     {"skipped", b.contract->skipped},
                     {"files", b.contract->files}};
  return j;
}

std::map<std::string, std::string> job_defines(const BuildRequest& req) {
  const auto& j = req.job;
  std::map<std::string, std::string> d{
      {"RB_PORT", j.kernel.port},
      {"RB_BOARD", j.board},
      {"RB_WARMUP", std::to_string(j.warmup)},
      {"RB_SAMPLES", std::to_string(j.samples)},
      {"RB_TESTS", fmt::format("{}", fmt::join(j.tests, ","))},
      {"RB_KERNEL_VERSION", j.kernel.version},
      {"RB_KERNEL_COMMIT", req.kernel.has_source ? req.kernel.main.commit : "n/a"},
  };
  for (const auto& a : model::axes()) d[std::string(a.define)] = j.axis(std::string(a.key));
  if (req.kernel.has_source) {
    d["RB_KERNEL_SOURCE"] = req.kernel.main.path.string();
    for (const auto& x : req.kernel.extras) {
      std::string name = x.name.substr(x.name.find('.') + 1);
      d["RB_KERNEL_SOURCE_" + upper(name)] = x.path.string();
    }
  }
  return d;
}

Result<std::string> input_manifest(const BuildRequest& req) {
  std::ostringstream m;
  m << "rtosbench-build-inputs 1\n";
  m << "toolchain.gcc " << req.toolchain.gcc_banner << '\n';
  m << "toolchain.gcc_version " << req.toolchain.gcc_version << '\n';
  m << "toolchain.cmake " << req.toolchain.cmake_version << '\n';
  m << "toolchain.ninja " << req.toolchain.ninja_version << '\n';
  // The compiler by its bytes: another build of the same version is another input.
  if (!req.toolchain.gcc_sha256.empty())
    m << "toolchain.gcc_sha256 " << req.toolchain.gcc_sha256 << '\n';
  if (!req.toolchain.cc1_sha256.empty())
    m << "toolchain.cc1_sha256 " << req.toolchain.cc1_sha256 << '\n';
  for (const auto& [k, v] : job_defines(req)) {
    if (k.rfind("RB_KERNEL_SOURCE", 0) == 0)
      continue;  // where the source is does not change the image
    m << "define " << k << '=' << v << '\n';
  }
  m << "kernel " << req.kernel.identity() << '\n';
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  auto it = std::filesystem::recursive_directory_iterator(req.firmware_dir, ec);
  for (auto end = std::filesystem::recursive_directory_iterator(); ec || it != end;
       it.increment(ec)) {
    if (ec)
      return Error{fmt::format("cannot list firmware sources in {}: {}", req.firmware_dir.string(),
                               ec.message())};
    std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind('.', 0) == 0 || name.rfind("build", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(it->path().lexically_relative(req.firmware_dir));
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto h = sha256_file(req.firmware_dir / f);
    if (!h.ok()) return h.error();
    m << "file " << f.generic_string() << ' ' << *h << '\n';
  }
  return m.str();
}

std::filesystem::path default_build_cache_dir() {
  if (const char* d = std::getenv("RTOSBENCH_BUILD_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "rtosbench" / "builds";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "rtosbench" / "builds";
  return std::filesystem::temp_directory_path() / "rtosbench-builds";
}

CmakeBuilder::CmakeBuilder(ProcessRunner& runner, std::filesystem::path cache_dir)
    : runner_(runner), cache_dir_(std::move(cache_dir)) {}

namespace {

Result<BuildOutput> build_output_from_json(const nlohmann::json& j) {
  try {
    BuildOutput b;
    b.cached = j.at("cached").get<bool>();
    b.cacheable = j.value("cacheable", true);
    b.key = j.at("key").get<std::string>();
    b.nonce = j.at("nonce").get<std::string>();
    b.elf_sha256 = j.at("elf_sha256").get<std::string>();
    b.map_sha256 = j.at("map_sha256").get<std::string>();
    b.bin_sha256 = j.value("bin_sha256", "");  // records older than the field: recomputed
    b.footprint = j.at("footprint").get<Footprint>();
    b.defines = j.at("defines").get<std::map<std::string, std::string>>();
    b.seconds = j.value("seconds", 0.0);
    b.built_at = j.value("built_at", "");
    if (j.contains("contract")) {
      const auto& c = j.at("contract");
      b.contract =
          ContractSummary{c.at("symbols").get<int>(), c.at("config").get<int>(),
                          c.value("skipped", 0), c.value("files", std::vector<std::string>{})};
    }
    return b;
  } catch (const std::exception& e) {
    return Error{fmt::format("build record: {}", e.what())};
  }
}

// The image contract of req.job.kernel checked on a built image in
// `build_dir`: every drift is a line of req.log; an image with drifts is an
// error (the job's BUILD_ERROR) naming them all. Nothing to check: nullopt.
Result<std::optional<ContractSummary>> check_image_contract(
    ProcessRunner& runner, const BuildRequest& req, const std::filesystem::path& elf,
    const std::filesystem::path& build_dir) {
  const auto& contract = req.job.kernel.contract;
  if (contract.empty()) return std::optional<ContractSummary>();
  // A rule may name the board's core too: the kernel's CPU ports differ.
  model::Variant variant = req.job.variant;
  variant["cpu"] = req.job.cpu;
  auto check = check_contract(runner, contract, variant,
                              ContractInputs{elf, build_dir, req.job.kernel.port});
  if (!check.ok()) return check.error();
  if (!check->drifts.empty()) {
    log_line(req.log, fmt::format("image contract: {} drift(s):", check->drifts.size()));
    for (const auto& d : check->drifts) log_line(req.log, "  drift: " + d);
    return contract_error(check->drifts);
  }
  const auto& s = check->summary;
  log_line(req.log, fmt::format("image contract kept: {} symbol rule(s), {} configuration "
                                "rule(s) ({}), {} rule group(s) not for this variant",
                                s.symbols, s.config, fmt::join(s.files, ", "), s.skipped));
  return std::optional<ContractSummary>(s);
}

// The cache entry's image when its record matches what is on disk (its
// contract checked again), nullopt when it must be built.
std::optional<Result<BuildOutput>> cached_image(ProcessRunner& runner, const BuildRequest& req,
                                                const BuildOutput& out,
                                                const std::filesystem::path& record) {
  if (!out.cacheable || !std::filesystem::exists(record)) return std::nullopt;
  std::ifstream in(record);
  try {
    auto prior = build_output_from_json(nlohmann::json::parse(in));
    if (!prior.ok() || !std::filesystem::exists(out.elf) || !std::filesystem::exists(out.map))
      return std::nullopt;
    auto elf_sha = sha256_file(out.elf);
    if (!elf_sha.ok() || *elf_sha != prior->elf_sha256) {
      log_line(req.log, "build cache entry " + out.key + " does not match its record; rebuilding");
      return std::nullopt;
    }
    BuildOutput hit = *prior;
    hit.cached = true;
    hit.dir = out.dir;
    hit.elf = out.elf;
    hit.map = out.map;
    hit.bin = out.bin;
    hit.size_json = out.size_json;
    if (hit.bin_sha256.empty()) {
      if (auto bs = sha256_file(out.bin); bs.ok()) hit.bin_sha256 = *bs;
    }
    log_line(req.log, fmt::format("build cache hit: {} (built {}, elf sha256 {})", out.key,
                                  hit.built_at, hit.elf_sha256));
    auto kept = check_image_contract(runner, req, hit.elf, out.dir / "build");
    if (!kept.ok()) return Result<BuildOutput>(kept.error());
    hit.contract = *kept;
    return Result<BuildOutput>(hit);
  } catch (const std::exception&) {
    log_line(req.log, "build cache record " + record.string() + " unreadable; rebuilding");
    return std::nullopt;
  }
}

// cmake configure, then ninja, within the request's timeout.
Status configure_and_compile(ProcessRunner& runner, const BuildRequest& req,
                             const BuildOutput& out) {
  const std::filesystem::path bdir = out.dir / "build";
  const auto start = std::chrono::steady_clock::now();
  auto remaining = [&]() {
    auto used = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    return std::max(std::chrono::milliseconds(1), req.timeout - used);
  };
  ProcessSpec configure;
  configure.argv = {
      "cmake",
      "-S",
      req.firmware_dir.string(),
      "-B",
      bdir.string(),
      "-G",
      "Ninja",
      "-DCMAKE_TOOLCHAIN_FILE=" + (req.firmware_dir / "cmake" / "arm-none-eabi.cmake").string(),
      "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"};
  for (const auto& [k, v] : out.defines) configure.argv.push_back("-D" + k + "=" + v);
  configure.log = req.log;
  configure.timeout = remaining();
  log_line(req.log, fmt::format("build key {}\n$ {}", out.key, fmt::join(configure.argv, " ")));
  auto c = runner.run(configure);
  if (!c.ok()) {
    const std::string excerpt = error_excerpt(c.output);
    if (auto at = excerpt.find(kNotBuilt); at != std::string::npos) {
      std::string why = excerpt.substr(at + kNotBuilt.size());
      why = why.substr(0, why.find(" | "));
      return make_error(ErrorKind::kUnavailable, std::string(kNotBuiltError) + why);
    }
    return Error{fmt::format("cmake configure failed ({}): {}", c.describe(), excerpt)};
  }
  ProcessSpec compile;
  // ninja itself, not `cmake --build`: it is then the child that gets the
  // parent-death signal, and on SIGTERM it stops the compilers it started.
  compile.argv = {"ninja", "-C", bdir.string()};
  if (req.parallel > 0) {
    compile.argv.push_back("-j");
    compile.argv.push_back(std::to_string(req.parallel));
  }
  compile.parent_death_signal = SIGTERM;
  compile.log = req.log;
  compile.timeout = remaining();
  log_line(req.log, fmt::format("$ {}", fmt::join(compile.argv, " ")));
  auto b = runner.run(compile);
  if (!b.ok())
    return Error{
        fmt::format("firmware build failed ({}): {}", b.describe(), error_excerpt(b.output))};
  return {};
}

// The built files' footprint and hashes.
Status record_outputs(BuildOutput& out) {
  for (const auto& p : {out.elf, out.map, out.bin, out.size_json}) {
    if (!std::filesystem::exists(p))
      return Error{fmt::format("the firmware build wrote no {}", p.string())};
  }
  auto fp = read_size_json(out.size_json);
  if (!fp.ok()) return fp.error();
  out.footprint = *fp;
  for (auto [file, sha] :
       {std::pair{&out.elf, &out.elf_sha256}, std::pair{&out.map, &out.map_sha256},
        std::pair{&out.bin, &out.bin_sha256}}) {
    auto h = sha256_file(*file);
    if (!h.ok()) return h.error();
    *sha = *h;
  }
  out.built_at = utc_now();
  return {};
}

}  // namespace

Result<BuildOutput> CmakeBuilder::build(const BuildRequest& req) {
  auto manifest = input_manifest(req);
  if (!manifest.ok()) return manifest.error();
  BuildOutput out;
  out.key = sha256_hex(*manifest);
  out.nonce = out.key.substr(0, 8);
  out.cacheable = !req.kernel.identity().empty();
  out.defines = job_defines(req);
  out.defines["RB_NONCE"] = out.nonce;
  out.dir = cache_dir_ / out.key;
  const std::filesystem::path bdir = out.dir / "build";
  out.elf = bdir / "rtosbench-fw.elf";
  out.map = bdir / "rtosbench-fw.map";
  out.bin = bdir / "rtosbench-fw.bin";
  out.size_json = bdir / "size.json";

  std::error_code ec;
  std::filesystem::create_directories(out.dir, ec);
  if (ec)
    return Error{
        fmt::format("cannot create build cache entry {}: {}", out.dir.string(), ec.message())};
  EntryLock lock(out.dir / "lock");

  const std::filesystem::path record = out.dir / "build.json";
  if (auto hit = cached_image(runner_, req, out, record)) return *hit;
  std::filesystem::remove(record, ec);
  if (auto s = write_file_atomic(out.dir / "inputs.txt", *manifest); !s.ok()) return s.error();

  const auto start = std::chrono::steady_clock::now();
  if (auto s = configure_and_compile(runner_, req, out); !s.ok()) return s.error();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (auto s = record_outputs(out); !s.ok()) return s.error();
  // The record is written only for an image that keeps its contract.
  auto kept = check_image_contract(runner_, req, out.elf, bdir);
  if (!kept.ok()) return kept.error();
  out.contract = *kept;
  if (out.cacheable) {
    if (auto s = write_file_atomic(
            record,
            to_json(out).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
        !s.ok())
      return s.error();
  }
  log_line(req.log, fmt::format("built in {:.1f} s: elf sha256 {}", out.seconds, out.elf_sha256));
  return out;
}

}  // namespace rb::build
