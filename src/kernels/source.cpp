#include "kernels/source.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/replace.hpp>
#include <boost/algorithm/string/split.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "util/url.h"

namespace rb::kernels {

using boost::algorithm::trim_right_copy;

namespace {

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out;
}

// A key of a checkout's own git config that makes git run a program, read
// another file or work on another tree (`git config --list` spelling:
// section and name lower-case). A lab repository or a shared cache is not
// trusted to set any of them.
bool untrusted_git_key(const std::string& key) {
  const std::string k = boost::algorithm::to_lower_copy(key);
  const std::string section = k.substr(0, k.find('.'));
  const std::string name = k.substr(k.rfind('.') + 1);
  static const std::set<std::string> sections = {"alias",     "filter",   "include",
                                                 "includeif", "pager",    "credential",
                                                 "protocol",  "difftool", "mergetool"};
  static const std::set<std::string> names = {
      "command",        "cmd",          "program",  "helper",     "textconv",
      "driver",         "editor",       "pager",    "sshcommand", "uploadpack",
      "receivepack",    "proxycommand", "tunnel",   "fsmonitor",  "worktree",
      "askpass",        "hookspath",    "gitproxy", "external",   "alternaterefscommand",
      "packobjectshook"};
  return sections.count(section) > 0 || names.count(name) > 0;
}

}  // namespace

std::string ResolvedKernel::identity() const {
  if (!has_source) return "none";
  std::string id;
  auto add = [&](const ResolvedRepo& r) {
    if (r.commit == "n/a") {
      id.clear();
      return false;
    }
    id += fmt::format("{}={}{};", r.name, r.commit, r.dirty ? "+dirty" : "");
    return true;
  };
  if (!add(main)) return {};
  for (const auto& e : extras) {
    if (!add(e)) return {};
  }
  return id;
}

std::filesystem::path default_cache_dir() {
  if (const char* d = std::getenv("RTOSBENCH_KERNEL_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "rtosbench" / "kernels";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "rtosbench" / "kernels";
  return std::filesystem::temp_directory_path() / "rtosbench-kernels";
}

std::string cache_entry_name(const std::string& name, const std::string& tag,
                             const std::string& commit, const std::string& version) {
  return sanitize(name + "-" + (!commit.empty() ? commit : !tag.empty() ? tag : version));
}

Result<std::pair<std::string, std::filesystem::path>> parse_override(const std::string& arg) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--kernel-source '{}': expected NAME=PATH", arg));
  }
  return std::make_pair(arg.substr(0, eq),
                        std::filesystem::absolute(arg.substr(eq + 1)).lexically_normal());
}

std::vector<RepoPin> repo_pins(const matrix::KernelSpec& kernel) {
  std::vector<RepoPin> out{RepoPin{
      kernel.name, kernel.git, kernel.tag, kernel.commit, kernel.source,
      cache_entry_name(kernel.name, kernel.tag, kernel.commit, kernel.version), kernel.supply}};
  for (const auto& x : kernel.extra_sources) {
    out.push_back(RepoPin{kernel.name + "." + x.name, x.git, x.tag, x.commit, x.source,
                          cache_entry_name(kernel.name + "-" + x.name, x.tag, x.commit, x.tag)});
  }
  return out;
}

std::string env_variable(const std::string& key) {
  return "RTOSBENCH_KERNEL_" +
         boost::algorithm::replace_all_copy(boost::algorithm::to_upper_copy(key), ".", "_");
}

std::string RepoPin::describe() const {
  return by_commit() ? "commit " + commit : tag.empty() ? "(no tag)" : tag;
}

ResolvedRepo locate(const RepoPin& pin, const ResolveOptions& options) {
  ResolvedRepo r;
  r.name = pin.key;
  r.tag = pin.tag;
  r.pinned_commit = pin.commit;
  if (auto it = options.overrides.find(pin.key); it != options.overrides.end()) {
    r.path = it->second;
    r.origin = "command line";
  } else if (!pin.matrix_path.empty()) {
    r.path = pin.matrix_path;
    r.origin = "matrix";
  } else {
    r.path = options.cache_dir / pin.cache_name;
    r.origin = "cache";
  }
  return r;
}

Status check_pin(const RepoPin& pin, const std::string& pin_commit, bool allow_other_commit,
                 ResolvedRepo& r) {
  if (pin_commit.empty()) {
    // Only a tag pin can be missing from the checkout.
    if (!allow_other_commit) {
      return make_error(
          ErrorKind::kUnavailable,
          fmt::format(
              "tag {} of '{}' is not in {} (HEAD is {}); fetch the tag (git -C {} fetch origin "
              "tag {}) or pass --allow-other-commit",
              pin.tag, pin.key, r.path.string(), r.commit.substr(0, 12), r.path.string(), pin.tag));
    }
    r.note = fmt::format("tag {} not found; built HEAD {} (--allow-other-commit)", pin.tag,
                         r.commit.substr(0, 12));
    return {};
  }
  if (pin_commit == r.commit) {
    r.at_tag = true;
  } else if (!allow_other_commit) {
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("checkout of '{}' at {} is at {} but the pinned {} is {}; run "
                    "`git -C {} checkout {}` or pass --allow-other-commit",
                    pin.key, r.path.string(), r.commit.substr(0, 12),
                    pin.by_commit() ? "commit" : "tag " + pin.tag, pin_commit.substr(0, 12),
                    r.path.string(), pin.by_commit() ? pin.commit : pin.tag));
  } else {
    r.note = fmt::format(
        "HEAD {} is not {} ({}); accepted by --allow-other-commit", r.commit.substr(0, 12),
        pin.by_commit() ? "the pinned commit" : "tag " + pin.tag, pin_commit.substr(0, 12));
  }
  return {};
}

SourceResolver::SourceResolver(ProcessRunner& runner, ResolveOptions options)
    : runner_(runner), options_(std::move(options)) {}

Result<std::optional<Checkout>> find_checkout(const std::filesystem::path& source) {
  std::error_code ec;
  const auto dir = std::filesystem::weakly_canonical(std::filesystem::absolute(source), ec);
  if (ec)
    return make_error(ErrorKind::kCannotRead, fmt::format("{}: {}", source.string(), ec.message()));
  // git itself would take a directory holding HEAD, objects and refs for a
  // bare repository and use its config: a git directory committed as plain
  // files into a lab repository.
  if (std::filesystem::is_regular_file(dir / "HEAD", ec) &&
      std::filesystem::is_directory(dir / "objects", ec) &&
      std::filesystem::is_directory(dir / "refs", ec)) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("{} is a bare git directory (HEAD, objects, refs), not a "
                                  "checkout; name the checkout it belongs to",
                                  dir.string()));
  }
  for (auto top = dir;; top = top.parent_path()) {
    const auto dot_git = top / ".git";
    if (std::filesystem::is_directory(dot_git, ec))
      return std::optional<Checkout>{Checkout{dot_git, top, dir}};
    if (std::filesystem::is_regular_file(dot_git, ec)) {
      // A linked worktree or a submodule: "gitdir: PATH".
      std::ifstream in(dot_git);
      std::string line;
      std::getline(in, line);
      if (line.rfind("gitdir: ", 0) != 0) {
        return make_error(ErrorKind::kUnavailable,
                          fmt::format("{} is not a `gitdir: PATH` file", dot_git.string()));
      }
      std::filesystem::path git_dir = trim_right_copy(line.substr(8));
      if (git_dir.is_relative()) git_dir = top / git_dir;
      return std::optional<Checkout>{Checkout{git_dir.lexically_normal(), top, dir}};
    }
    if (top == top.parent_path()) return std::optional<Checkout>{};
  }
}

std::vector<std::string> Checkout::git_args() const {
  return {"--git-dir=" + git_dir.string(), "--work-tree=" + work_tree.string(), "-C", dir.string()};
}

std::vector<std::filesystem::path> Checkout::config_files() const {
  std::vector<std::filesystem::path> out;
  std::vector<std::filesystem::path> dirs{git_dir};
  if (std::ifstream in(git_dir / "commondir"); in) {
    std::string line;
    std::getline(in, line);
    std::filesystem::path common = trim_right_copy(line);
    if (!common.empty())
      dirs.push_back((common.is_relative() ? git_dir / common : common).lexically_normal());
  }
  for (const auto& d : dirs) {
    for (const char* f : {"config", "config.worktree"}) {
      std::error_code ec;
      if (std::filesystem::exists(d / f, ec)) out.push_back(d / f);
    }
  }
  return out;
}

ProcessResult SourceResolver::git(const std::vector<std::string>& args,
                                  const std::filesystem::path& log) {
  ProcessSpec spec;
  // Whatever the repository's config says: no fsmonitor or hook program, no
  // ext:: transport, no bare repository found by looking around. There is no
  // safe.directory: every command that works in a checkout names its git
  // directory (Checkout::git_args), whose config has been checked.
  spec.argv = {"git"};
  for (const char* c : {"core.fsmonitor=false", "core.hooksPath=/dev/null",
                        "protocol.ext.allow=never", "safe.bareRepository=explicit"})
    spec.argv.insert(spec.argv.end(), {"-c", c});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.log = log;
  spec.timeout = std::chrono::minutes(10);
  spec.env["GIT_TERMINAL_PROMPT"] = "0";
  return runner_.run(spec);
}

ProcessResult SourceResolver::git_in(const std::filesystem::path& dir,
                                     const std::vector<std::string>& args,
                                     const std::filesystem::path& log) {
  auto co = find_checkout(dir);
  if (!co.ok() || !*co) {
    ProcessResult r;
    r.error = co.ok() ? dir.string() + " is not a git checkout" : co.error().message;
    return r;
  }
  std::vector<std::string> all = (*co)->git_args();
  all.insert(all.end(), args.begin(), args.end());
  return git(all, log);
}

Status SourceResolver::check_git_config(const Checkout& checkout, const std::string& key) {
  for (const auto& file : checkout.config_files()) {
    // Read as a file, not as a repository's config: no include is followed.
    // Not logged: a remote URL in it may carry a password.
    auto list = git({"config", "--file", file.string(), "--no-includes", "--list", "-z"}, {});
    if (!list.ok()) {
      return make_error(ErrorKind::kUnavailable,
                        fmt::format("source of '{}': cannot read its git config {} ({}): {}", key,
                                    file.string(), list.describe(), list.tail(2)));
    }
    std::vector<std::string> entries;
    boost::split(entries, list.output, [](char c) { return c == '\0'; });
    for (const auto& entry : entries) {
      const std::string name = entry.substr(0, entry.find('\n'));
      if (untrusted_git_key(name)) {
        return make_error(
            ErrorKind::kUnavailable,
            fmt::format("source of '{}' at {}: its git config {} sets {}, which makes git run a "
                        "program or work on another tree; rtosbench does not take a checkout's "
                        "own config on trust. Remove it (git config --file {} --unset-all {}) or "
                        "use a fresh clone",
                        key, checkout.dir.string(), file.string(), name, file.string(), name));
      }
    }
  }
  return {};
}

Status SourceResolver::fetch_commit(const std::string& url, const std::string& commit,
                                    const std::filesystem::path& dir,
                                    const std::filesystem::path& log) {
  // A commit that no tag names cannot be cloned with --branch; a shallow
  // fetch of exactly that commit also keeps the download small.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"init", "--quiet", "--", dir.string()},
           {"fetch", "--quiet", "--depth", "1", "--", url, commit},
           {"checkout", "--quiet", "--detach", "FETCH_HEAD", "--"}}) {
    auto r = args.front() == "init" ? git(args, log) : git_in(dir, args, log);
    if (!r.ok()) {
      return make_error(ErrorKind::kUnavailable,
                        fmt::format("git {} failed ({}): {}",
                                    redact_urls_in(fmt::format("{}", fmt::join(args, " "))),
                                    r.describe(), r.tail(3)));
    }
  }
  return {};
}

Status SourceResolver::fetch_into_cache(const RepoPin& pin, const std::filesystem::path& dest,
                                        const std::filesystem::path& log) {
  std::error_code ec;
  std::filesystem::create_directories(options_.cache_dir, ec);
  if (ec) {
    return make_error(ErrorKind::kCannotWrite,
                      fmt::format("cannot create the kernel cache {}: {}",
                                  options_.cache_dir.string(), ec.message()));
  }
  std::filesystem::path tmp = dest;
  tmp += fmt::format(".partial-{}", ::getpid());
  std::filesystem::remove_all(tmp, ec);
  if (ec) {
    return make_error(
        ErrorKind::kCannotWrite,
        fmt::format("cannot remove the unfinished fetch {}: {}", tmp.string(), ec.message()));
  }
  Status got = pin.by_commit() ? fetch_commit(pin.url, pin.commit, tmp, log) : Status{};
  if (!pin.by_commit()) {
    auto clone =
        git({"clone", "--quiet", "--depth", "1", "--branch", pin.tag, "--", pin.url, tmp.string()},
            log);
    if (!clone.ok())
      got = make_error(ErrorKind::kUnavailable,
                       fmt::format("git clone --depth 1 --branch {} {} failed ({}): {}", pin.tag,
                                   redact_url(pin.url), clone.describe(), clone.tail(3)));
  }
  if (got.ok()) std::filesystem::rename(tmp, dest, ec);
  if (got.ok() && ec)
    got = make_error(ErrorKind::kCannotWrite,
                     fmt::format("cannot move clone to {}: {}", dest.string(), ec.message()));
  if (!got.ok()) {
    std::error_code ignored;  // best effort: the error being returned says what went wrong
    std::filesystem::remove_all(tmp, ignored);
  }
  return got;
}

std::string SourceResolver::find_pin_commit(const RepoPin& pin, const ResolvedRepo& r,
                                            const std::filesystem::path& log) {
  // With a commit pin the tag is informational: a branch name such as
  // `master` resolves to wherever the branch is now.
  if (pin.by_commit()) return pin.commit;
  const std::vector<std::string> rev_parse = {"rev-parse", "--verify", "--quiet",
                                              "--end-of-options", pin.tag + "^{commit}"};
  auto tagc = git_in(r.path, rev_parse, log);
  std::string pin_commit = tagc.ok() ? trim_right_copy(tagc.output) : "";
  if (pin_commit.empty() && !pin.url.empty() && r.origin == "cache" && options_.fetch) {
    // A shallow clone of another tag: fetch just this one.
    auto f =
        git_in(r.path, {"fetch", "--quiet", "--depth", "1", "--", "origin", "tag", pin.tag}, log);
    if (f.ok()) {
      tagc = git_in(r.path, rev_parse, log);
      pin_commit = tagc.ok() ? trim_right_copy(tagc.output) : "";
    }
  }
  return pin_commit;
}

Status SourceResolver::move_cache_to_pin(const RepoPin& pin, const std::string& pin_commit,
                                         ResolvedRepo& r, const std::filesystem::path& log) {
  // A checkout the user named is never changed; the cache is ours.
  const bool ours = r.origin == "cache" || r.origin == "fetched";
  if (!ours || pin_commit.empty() || pin_commit == r.commit) return {};
  const std::string dir = r.path.string();
  if (!pin.by_commit()) {
    auto co = git_in(dir, {"checkout", "--quiet", "--detach", pin.tag, "--"}, log);
    if (!co.ok()) {
      return make_error(
          ErrorKind::kUnavailable,
          fmt::format("cannot check out {} in cached source {}: {}", pin.tag, dir, co.tail(2)));
    }
    r.commit = pin_commit;
    return {};
  }
  auto co = git_in(dir, {"checkout", "--quiet", "--detach", pin.commit, "--"}, log);
  if (!co.ok() && options_.fetch && !pin.url.empty()) {
    auto f = git_in(dir, {"fetch", "--quiet", "--depth", "1", "--", pin.url, pin.commit}, log);
    if (f.ok()) co = git_in(dir, {"checkout", "--quiet", "--detach", "FETCH_HEAD", "--"}, log);
  }
  if (!co.ok()) {
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("cached source {} is at {} and commit {} is not in it; pass --fetch-kernels to "
                    "fetch it, or remove the directory",
                    dir, r.commit.substr(0, 12), pin.commit));
  }
  auto now = git_in(dir, {"rev-parse", "--verify", "HEAD"}, log);
  r.commit = now.ok() ? trim_right_copy(now.output) : r.commit;
  return {};
}

Status SourceResolver::check_clean(const RepoPin& pin, ResolvedRepo& r,
                                   const std::filesystem::path& log) {
  // Untracked and ignored files count: a build reads them (a stray NuttX
  // .config or Make.defs from an in-tree build) as it reads tracked ones.
  auto status =
      git_in(r.path, {"status", "--porcelain", "--ignored", "--untracked-files=normal"}, log);
  std::vector<std::string> tracked, other;
  if (status.ok()) {
    std::istringstream in(status.output);
    for (std::string l; std::getline(in, l);) {
      if (l.size() < 4) continue;
      (l.compare(0, 2, "??") == 0 || l.compare(0, 2, "!!") == 0 ? other : tracked)
          .push_back(l.substr(3));
    }
  }
  r.dirty = !tracked.empty() || !other.empty();
  if (!r.dirty) return {};
  auto some = [](const std::vector<std::string>& v) {
    std::vector<std::string> head(v.begin(), v.begin() + std::min<size_t>(v.size(), 3));
    return fmt::format("{}{}", fmt::join(head, ", "), v.size() > 3 ? ", ..." : "");
  };
  std::string what;
  if (!tracked.empty()) what = fmt::format("modified tracked files ({})", some(tracked));
  if (!other.empty()) {
    what += fmt::format(
        "{}files that are not in the commit ({}: untracked or ignored; a build "
        "reads them too)",
        what.empty() ? "" : " and ", some(other));
  }
  if (!options_.allow_other_commit) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("checkout of '{}' at {} has {} (git status --ignored); restore "
                                  "it (git checkout . && git clean -fdx) or pass "
                                  "--allow-other-commit",
                                  pin.key, r.path.string(), what));
  }
  r.note += (r.note.empty() ? "" : "; ") + what + " (--allow-other-commit)";
  return {};
}

Result<ResolvedRepo> SourceResolver::resolve_repo(const RepoPin& pin,
                                                  const std::filesystem::path& log) {
  ResolvedRepo r = locate(pin, options_);
  std::error_code ec;
  if (!std::filesystem::is_directory(r.path, ec)) {
    if (r.origin != "cache") {
      return make_error(ErrorKind::kCannotRead,
                        fmt::format("source of '{}' ({}, from the {}) is not a directory", pin.key,
                                    r.path.string(), r.origin));
    }
    if (!pin.supply.empty()) {
      return make_error(
          ErrorKind::kCannotRead,
          fmt::format("no source for '{}': it has no public source; supply {} with "
                      "--kernel-source {}=PATH (or the matrix's `source:`); the kernel cache "
                      "({}) has none",
                      pin.key, pin.supply, pin.key, r.path.string()));
    }
    if (!options_.fetch || pin.url.empty()) {
      return make_error(
          ErrorKind::kCannotRead,
          fmt::format(
              "no source for '{}' at {}: not in the kernel cache ({}); name a checkout with "
              "--kernel-source {}=PATH{}",
              pin.key, pin.describe(), r.path.string(), pin.key,
              pin.url.empty() ? ""
                              : fmt::format(", or pass --fetch-kernels to fetch {} at {}",
                                            redact_url(pin.url), pin.describe())));
    }
    if (auto f = fetch_into_cache(pin, r.path, log); !f.ok()) return f.error();
    r.origin = "fetched";
  }

  auto checkout = find_checkout(r.path);
  if (!checkout.ok()) {
    return make_error(checkout.error().kind,
                      fmt::format("source of '{}': {}", pin.key, checkout.error().message));
  }
  if (*checkout) {
    if (auto s = check_git_config(**checkout, pin.key); !s.ok()) return s.error();
  }
  ProcessResult head;
  if (*checkout) {
    head = git_in(r.path, {"rev-parse", "--verify", "HEAD"}, log);
  } else {
    head.started = true;
    head.exit_code = 1;
    head.output = "no .git in it or in a directory above it";
  }
  if (!head.ok()) {
    if (!pin.supply.empty()) {
      // A user-supplied source (no public repository): nothing to pin it to.
      r.commit = "n/a";
      r.note = "user-supplied source, not a git checkout";
      return r;
    }
    if (!options_.allow_other_commit) {
      return make_error(
          ErrorKind::kUnavailable,
          fmt::format(
              "source of '{}' at {} is not a git checkout, so its version cannot be verified "
              "({}); use a git checkout of {} or pass --allow-other-commit",
              pin.key, r.path.string(), head.tail(1), pin.describe()));
    }
    r.commit = "n/a";
    r.note = "not a git checkout; accepted by --allow-other-commit";
    return r;
  }
  r.commit = trim_right_copy(head.output);
  const std::string pin_commit = find_pin_commit(pin, r, log);
  if (!options_.check_only) {
    if (auto s = move_cache_to_pin(pin, pin_commit, r, log); !s.ok()) return s.error();
  }
  if (auto s = check_pin(pin, pin_commit, options_.allow_other_commit, r); !s.ok())
    return s.error();
  if (auto s = check_clean(pin, r, log); !s.ok()) return s.error();
  return r;
}

Result<ResolvedKernel> SourceResolver::resolve(const matrix::KernelSpec& kernel,
                                               const std::filesystem::path& log) {
  std::lock_guard lock(mu_);
  if (auto it = memo_.find(kernel.name); it != memo_.end()) return it->second;
  ResolvedKernel out;
  bool overridden = options_.overrides.count(kernel.name) > 0;
  if (!kernel.needs_source() && !overridden) {
    memo_.emplace(kernel.name, out);
    return out;
  }
  out.has_source = true;
  auto fail = [&](const Error& e) {
    Result<ResolvedKernel> err = make_error(
        e.kind, fmt::format("kernel '{}' {}: {}", kernel.name, kernel.version, e.message));
    memo_.emplace(kernel.name, err);
    return err;
  };
  const auto pins = repo_pins(kernel);
  for (size_t i = 0; i < pins.size(); ++i) {
    auto r = resolve_repo(pins[i], log);
    if (!r.ok()) return fail(r.error());
    if (i == 0)
      out.main = *r;
    else
      out.extras.push_back(*r);
  }
  memo_.emplace(kernel.name, out);
  return out;
}

}  // namespace rb::kernels
