#pragma once
// Kernel sources: each kernel is pinned to an upstream git URL and a tag or
// a commit; the checkout is taken from a local path the user names (command
// line, then matrix) or from a cache directory, verified with git to be at
// the pin, and the commit actually used is recorded. Fetching is done only
// when asked.
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "util/process.h"
#include "util/result.h"

namespace rb::kernels {

struct ResolvedRepo {
  std::string name;            // kernel name, or extra source name
  std::filesystem::path path;  // checkout used
  std::string origin;          // "command line", "matrix", "cache", "fetched"
  std::string tag;             // pinned tag (informational when pinned_commit is set)
  std::string pinned_commit;   // pinned commit, empty when pinned by tag
  std::string commit;          // full commit id of HEAD; "n/a" when not a git checkout
  bool at_tag = false;         // HEAD is the pin's commit (the tag's, or pinned_commit)
  bool dirty = false;          // tracked files modified
  std::string note;            // why a mismatch was accepted (--allow-other-commit)
};

struct ResolvedKernel {
  bool has_source = false;  // false for kernels without upstream (bare)
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
  bool fetch =
      false;  // allow `git clone --depth 1 --branch TAG URL` / `git fetch --depth 1 URL COMMIT`
  bool allow_other_commit = false;  // accept a checkout not at the tag (recorded)
  // Only look: a cache entry off its pin is refused, not checked out at it
  // (`rtosbench kernels env`).
  bool check_only = false;
};

// Default cache: $RTOSBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/rtosbench/kernels,
// else ~/.cache/rtosbench/kernels.
std::filesystem::path default_cache_dir();

// The cache entry's directory name: <name>-<commit> when pinned by commit,
// else <name>-<tag> (<name>-<version> without either), made file-name safe.
std::string cache_entry_name(const std::string& name, const std::string& tag,
                             const std::string& commit, const std::string& version);

// Parses "NAME=PATH" (PATH made absolute); error names the argument.
Result<std::pair<std::string, std::filesystem::path>> parse_override(const std::string& arg);

// One pinned repository: a kernel's main source or one of its extra sources.
struct RepoPin {
  std::string key;                    // kernel name, or "kernel.extra" (the --kernel-source NAME)
  std::string url;                    // upstream git URL; empty when none is known
  std::string tag;                    // pinned tag (informational when commit is set)
  std::string commit;                 // pinned commit, empty when pinned by tag
  std::filesystem::path matrix_path;  // the matrix's `source:`; may be empty
  std::string cache_name;             // entry name under the cache directory (cache_entry_name)
  std::string supply{};  // no public source: what the user supplies (KernelSpec::supply)

  bool by_commit() const { return !commit.empty(); }
  // The pin as messages name it: "commit <id>", the tag, or "(no tag)".
  std::string describe() const;
};

// The repositories of a kernel's pin: its own (key: the kernel's name),
// then each extra source (key: "kernel.extra"); none without a source.
std::vector<RepoPin> repo_pins(const matrix::KernelSpec& kernel);

// The environment variable the port tests take a repository's checkout
// from (`rtosbench kernels env` sets it): RTOSBENCH_KERNEL_<KEY>, the key
// upper-cased with '.' as '_' (RTOSBENCH_KERNEL_UCOS3_UC_CPU).
std::string env_variable(const std::string& key);

// Where the pin's checkout is taken from, in order: the command line
// (--kernel-source KEY=PATH), the matrix, the cache entry. Fills name, tag,
// pinned_commit, path and origin; looks at nothing on disk.
ResolvedRepo locate(const RepoPin& pin, const ResolveOptions& options);

// Compares `r.commit` (HEAD) with `pin_commit`, the commit the pin names in
// the checkout ("" when its tag is not there): sets `r.at_tag`, or refuses
// (kUnavailable) unless `allow_other_commit`, which records why in `r.note`.
Status check_pin(const RepoPin& pin, const std::string& pin_commit, bool allow_other_commit,
                 ResolvedRepo& r);

// A checkout as git is given it: its git directory and work tree named
// explicitly, so git looks for no repository itself (it would take a
// directory of plain files HEAD, objects, refs for one) and a core.worktree
// in its config moves nothing.
struct Checkout {
  std::filesystem::path git_dir;    // <top>/.git, or where a .git file points
  std::filesystem::path work_tree;  // <top>: the directory holding .git
  std::filesystem::path dir;        // the source: <top> or a directory below it
  // --git-dir=... --work-tree=... -C <dir>
  std::vector<std::string> git_args() const;
  // The config files git reads from the repository (config, config.worktree,
  // and the common directory's of a linked worktree).
  std::vector<std::filesystem::path> config_files() const;
};

// The checkout `source` is in: the nearest .git (directory or `gitdir:`
// file) at or above it, found without git; none when there is no .git. A
// source that is itself a bare git directory is refused (kUnavailable).
Result<std::optional<Checkout>> find_checkout(const std::filesystem::path& source);

class SourceResolver {
 public:
  SourceResolver(ProcessRunner& runner, ResolveOptions options);

  // Finds and verifies the kernel's checkout(s). The error message says what
  // is missing or wrong and how to fix it; callers report it as
  // SOURCE_MISSING. Its kind: kCannotRead when no checkout is there,
  // kUnavailable when one is but cannot be verified at the pin (another
  // commit, modified files, not git, a failed git command), kCannotWrite
  // when the fetched clone cannot be put into the cache. git commands and
  // their output go to `log` (may be empty). Thread-safe; results are
  // memoised per kernel name.
  Result<ResolvedKernel> resolve(const matrix::KernelSpec& kernel,
                                 const std::filesystem::path& log);

  const ResolveOptions& options() const { return options_; }

  // One repository: locate, fetch into the cache if allowed, move our cache
  // to the pin, check_pin, check_clean. Errors as resolve().
  Result<ResolvedRepo> resolve_repo(const RepoPin& pin, const std::filesystem::path& log);

 private:
  // Clones the tag (or fetches the commit) into <dest>.partial-<pid>, then
  // renames it to `dest`; nothing is left behind on failure.
  Status fetch_into_cache(const RepoPin& pin, const std::filesystem::path& dest,
                          const std::filesystem::path& log);
  // The commit the pin names in the checkout at r.path: the pinned commit,
  // or the tag's ("" when the tag is not there; fetched into our cache if
  // allowed).
  std::string find_pin_commit(const RepoPin& pin, const ResolvedRepo& r,
                              const std::filesystem::path& log);
  // Checks out the pin in a checkout that is ours (origin cache or fetched)
  // and is elsewhere, fetching a missing commit if allowed; updates r.commit.
  Status move_cache_to_pin(const RepoPin& pin, const std::string& pin_commit, ResolvedRepo& r,
                           const std::filesystem::path& log);
  // Modified tracked files: refused unless --allow-other-commit (noted).
  Status check_clean(const RepoPin& pin, ResolvedRepo& r, const std::filesystem::path& log);
  // `git init` + `git fetch --depth 1 URL COMMIT` + checkout into `dir`.
  Status fetch_commit(const std::string& url, const std::string& commit,
                      const std::filesystem::path& dir, const std::filesystem::path& log);
  // Refuses (kUnavailable, naming the file and the key) a checkout whose own
  // git config sets a key that runs a program, reads another file or moves
  // the work tree (core.fsmonitor, core.worktree, filter.*, alias.*, ...).
  Status check_git_config(const Checkout& checkout, const std::string& key);
  // git with the repository's programs switched off (no fsmonitor, no hooks,
  // no ext:: transport, no bare repository found by looking around).
  ProcessResult git(const std::vector<std::string>& args, const std::filesystem::path& log);
  // The same in the checkout `dir` is in (find_checkout), named explicitly.
  ProcessResult git_in(const std::filesystem::path& dir, const std::vector<std::string>& args,
                       const std::filesystem::path& log);

  ProcessRunner& runner_;
  ResolveOptions options_;
  std::mutex mu_;
  std::map<std::string, Result<ResolvedKernel>> memo_;
};

}  // namespace rb::kernels
