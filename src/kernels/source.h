#pragma once
// Kernel sources: each kernel is pinned to an upstream git URL and a tag or
// a commit; the checkout is taken from a local path the user names (command
// line, then matrix) or from a cache directory, verified with git to be at
// the pin, and the commit actually used is recorded. Fetching is done only
// when asked.
#include "matrix/model.h"
#include "util/process.h"
#include "util/result.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace rb::kernels {

struct ResolvedRepo {
  std::string name;                 // kernel name, or extra source name
  std::filesystem::path path;       // checkout used
  std::string origin;               // "command line", "matrix", "cache", "fetched"
  std::string tag;                  // pinned tag (informational when pinned_commit is set)
  std::string pinned_commit;        // pinned commit, empty when pinned by tag
  std::string commit;               // full commit id of HEAD; "n/a" when not a git checkout
  bool at_tag = false;              // HEAD is the pin's commit (the tag's, or pinned_commit)
  bool dirty = false;               // tracked files modified
  std::string note;                 // why a mismatch was accepted (--allow-other-commit)
};

struct ResolvedKernel {
  bool has_source = false;          // false for kernels without upstream (bare)
  ResolvedRepo main;
  std::vector<ResolvedRepo> extras;
  // A stable description of exactly what was used (commits, dirtiness), for
  // the build cache key. Empty when the content cannot be pinned (no git).
  std::string identity() const;
};

struct ResolveOptions {
  // `--kernel-source NAME=PATH`; NAME is a kernel name or "kernel.extra".
  std::map<std::string, std::filesystem::path> overrides;
  std::filesystem::path cache_dir;  // <cache>/<kernel>-<tag>/ or <cache>/<kernel>-<commit>/
  bool fetch = false;               // allow `git clone --depth 1 --branch TAG URL` / `git fetch --depth 1 URL COMMIT`
  bool allow_other_commit = false;  // accept a checkout not at the tag (recorded)
};

// Default cache: $RTOSBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/rtosbench/kernels,
// else ~/.cache/rtosbench/kernels.
std::filesystem::path default_cache_dir();

// The cache entry's directory name: <name>-<commit> when pinned by commit,
// else <name>-<tag> (<name>-<version> without either), made file-name safe.
std::string cache_entry_name(const std::string& name, const std::string& tag, const std::string& commit,
                             const std::string& version);

// Parses "NAME=PATH" (PATH made absolute); error names the argument.
Result<std::pair<std::string, std::filesystem::path>> parse_override(const std::string& arg);

class SourceResolver {
 public:
  SourceResolver(ProcessRunner& runner, ResolveOptions options);

  // Finds and verifies the kernel's checkout(s). The error message says what
  // is missing or wrong and how to fix it; callers report it as
  // SOURCE_MISSING. git commands and their output go to `log` (may be
  // empty). Thread-safe; results are memoised per kernel name.
  Result<ResolvedKernel> resolve(const matrix::KernelSpec& kernel, const std::filesystem::path& log);

  const ResolveOptions& options() const { return options_; }

 private:
  Result<ResolvedRepo> resolve_repo(const std::string& key, const std::string& git, const std::string& tag,
                                    const std::string& commit, const std::filesystem::path& matrix_path,
                                    const std::string& cache_name, const std::filesystem::path& log);
  // `git init` + `git fetch --depth 1 URL COMMIT` + checkout into `dir`.
  Status fetch_commit(const std::string& url, const std::string& commit, const std::filesystem::path& dir,
                      const std::filesystem::path& log);
  ProcessResult git(const std::vector<std::string>& args, const std::filesystem::path& log);

  ProcessRunner& runner_;
  ResolveOptions options_;
  std::mutex mu_;
  std::map<std::string, Result<ResolvedKernel>> memo_;
};

}  // namespace rb::kernels
