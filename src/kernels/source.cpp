#include "kernels/source.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <unistd.h>

namespace rb::kernels {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out;
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
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "rtosbench" / "kernels";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "rtosbench" / "kernels";
  return std::filesystem::temp_directory_path() / "rtosbench-kernels";
}

std::string cache_entry_name(const std::string& name, const std::string& tag, const std::string& commit,
                             const std::string& version) {
  return sanitize(name + "-" + (!commit.empty() ? commit : !tag.empty() ? tag : version));
}

Result<std::pair<std::string, std::filesystem::path>> parse_override(const std::string& arg) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
    return Error{fmt::format("--kernel-source '{}': expected NAME=PATH", arg)};
  }
  return std::make_pair(arg.substr(0, eq), std::filesystem::absolute(arg.substr(eq + 1)).lexically_normal());
}

SourceResolver::SourceResolver(ProcessRunner& runner, ResolveOptions options)
    : runner_(runner), options_(std::move(options)) {}

ProcessResult SourceResolver::git(const std::vector<std::string>& args, const std::filesystem::path& log) {
  ProcessSpec spec;
  spec.argv = {"git", "-c", "safe.directory=*"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.log = log;
  spec.timeout = std::chrono::minutes(10);
  spec.env["GIT_TERMINAL_PROMPT"] = "0";
  return runner_.run(spec);
}

Status SourceResolver::fetch_commit(const std::string& url, const std::string& commit,
                                   const std::filesystem::path& dir, const std::filesystem::path& log) {
  // A commit that no tag names cannot be cloned with --branch; a shallow
  // fetch of exactly that commit also keeps the download small.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"init", "--quiet", dir.string()},
           {"-C", dir.string(), "fetch", "--quiet", "--depth", "1", url, commit},
           {"-C", dir.string(), "checkout", "--quiet", "--detach", "FETCH_HEAD"}}) {
    auto r = git(args, log);
    if (!r.ok()) {
      return Error{fmt::format("git {} failed ({}): {}", fmt::join(args, " "), r.describe(), r.tail(3))};
    }
  }
  return {};
}

Result<ResolvedRepo> SourceResolver::resolve_repo(const std::string& key, const std::string& url,
                                                  const std::string& tag, const std::string& commit,
                                                  const std::filesystem::path& matrix_path,
                                                  const std::string& cache_name,
                                                  const std::filesystem::path& log) {
  ResolvedRepo r;
  r.name = key;
  r.tag = tag;
  r.pinned_commit = commit;
  const bool by_commit = !commit.empty();
  const std::string pin = by_commit ? "commit " + commit : tag.empty() ? "(no tag)" : tag;
  if (auto it = options_.overrides.find(key); it != options_.overrides.end()) {
    r.path = it->second;
    r.origin = "command line";
  } else if (!matrix_path.empty()) {
    r.path = matrix_path;
    r.origin = "matrix";
  } else {
    r.path = options_.cache_dir / cache_name;
    r.origin = "cache";
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(r.path, ec)) {
    if (r.origin != "cache") {
      return Error{fmt::format("source of '{}' ({}, from the {}) is not a directory", key, r.path.string(), r.origin)};
    }
    if (!options_.fetch || url.empty()) {
      return Error{fmt::format(
          "no source for '{}' at {}: not in the kernel cache ({}); name a checkout with "
          "--kernel-source {}=PATH{}",
          key, pin, r.path.string(), key,
          url.empty() ? "" : fmt::format(", or pass --fetch-kernels to fetch {} at {}", url, pin))};
    }
    std::filesystem::create_directories(options_.cache_dir, ec);
    std::filesystem::path tmp = r.path;
    tmp += fmt::format(".partial-{}", ::getpid());
    std::filesystem::remove_all(tmp, ec);
    if (by_commit) {
      if (auto f = fetch_commit(url, commit, tmp, log); !f.ok()) {
        std::filesystem::remove_all(tmp, ec);
        return f.error();
      }
    } else {
      auto clone = git({"clone", "--quiet", "--depth", "1", "--branch", tag, url, tmp.string()}, log);
      if (!clone.ok()) {
        std::filesystem::remove_all(tmp, ec);
        return Error{fmt::format("git clone --depth 1 --branch {} {} failed ({}): {}", tag, url, clone.describe(),
                                 clone.tail(3))};
      }
    }
    std::filesystem::rename(tmp, r.path, ec);
    if (ec) return Error{fmt::format("cannot move clone to {}: {}", r.path.string(), ec.message())};
    r.origin = "fetched";
  }

  auto head = git({"-C", r.path.string(), "rev-parse", "--verify", "HEAD"}, log);
  if (!head.ok()) {
    if (!options_.allow_other_commit) {
      return Error{fmt::format("source of '{}' at {} is not a git checkout, so its version cannot be verified ({}); "
                               "use a git checkout of {} or pass --allow-other-commit",
                               key, r.path.string(), head.tail(1), pin)};
    }
    r.commit = "n/a";
    r.note = "not a git checkout; accepted by --allow-other-commit";
    return r;
  }
  r.commit = trim(head.output);
  const bool ours = r.origin == "cache" || r.origin == "fetched";
  std::string pin_commit;
  if (by_commit) {
    // With a commit pin the tag is informational: a branch name such as
    // `master` resolves to wherever the branch is now.
    pin_commit = commit;
    if (r.commit != commit && ours) {
      // The cache is ours: move it to the pinned commit, fetching it if needed.
      auto co = git({"-C", r.path.string(), "checkout", "--quiet", "--detach", commit}, log);
      if (!co.ok() && options_.fetch && !url.empty()) {
        auto f = git({"-C", r.path.string(), "fetch", "--quiet", "--depth", "1", url, commit}, log);
        if (f.ok()) co = git({"-C", r.path.string(), "checkout", "--quiet", "--detach", "FETCH_HEAD"}, log);
      }
      if (!co.ok()) {
        return Error{fmt::format("cached source {} is at {} and commit {} is not in it; pass --fetch-kernels to fetch "
                                 "it, or remove the directory",
                                 r.path.string(), r.commit.substr(0, 12), commit)};
      }
      auto now = git({"-C", r.path.string(), "rev-parse", "--verify", "HEAD"}, log);
      r.commit = now.ok() ? trim(now.output) : r.commit;
    }
  } else {
    auto tagc = git({"-C", r.path.string(), "rev-parse", "--verify", "--quiet", tag + "^{commit}"}, log);
    pin_commit = tagc.ok() ? trim(tagc.output) : "";
    if (pin_commit.empty() && !url.empty() && r.origin == "cache" && options_.fetch) {
      // A shallow clone of another tag: fetch just this one.
      auto f = git({"-C", r.path.string(), "fetch", "--quiet", "--depth", "1", "origin", "tag", tag}, log);
      if (f.ok()) {
        tagc = git({"-C", r.path.string(), "rev-parse", "--verify", "--quiet", tag + "^{commit}"}, log);
        pin_commit = tagc.ok() ? trim(tagc.output) : "";
      }
    }
    if (pin_commit.empty()) {
      if (!options_.allow_other_commit) {
        return Error{fmt::format("tag {} of '{}' is not in {} (HEAD is {}); fetch the tag (git -C {} fetch origin tag {}) "
                                 "or pass --allow-other-commit",
                                 tag, key, r.path.string(), r.commit.substr(0, 12), r.path.string(), tag)};
      }
      r.note = fmt::format("tag {} not found; built HEAD {} (--allow-other-commit)", tag, r.commit.substr(0, 12));
    } else if (pin_commit != r.commit && ours) {
      // The cache is ours: move it to the pinned tag.
      auto co = git({"-C", r.path.string(), "checkout", "--quiet", "--detach", tag}, log);
      if (!co.ok()) {
        return Error{fmt::format("cannot check out {} in cached source {}: {}", tag, r.path.string(), co.tail(2))};
      }
      r.commit = pin_commit;
    }
  }
  if (!pin_commit.empty()) {
    if (pin_commit == r.commit) {
      r.at_tag = true;
    } else if (!options_.allow_other_commit) {
      std::string want = by_commit ? commit : tag;
      return Error{fmt::format("checkout of '{}' at {} is at {} but the pinned {} is {}; run "
                               "`git -C {} checkout {}` or pass --allow-other-commit",
                               key, r.path.string(), r.commit.substr(0, 12), by_commit ? "commit" : "tag " + tag,
                               pin_commit.substr(0, 12), r.path.string(), want)};
    } else {
      r.note = fmt::format("HEAD {} is not {} ({}); accepted by --allow-other-commit", r.commit.substr(0, 12),
                           by_commit ? "the pinned commit" : "tag " + tag, pin_commit.substr(0, 12));
    }
  }
  auto status = git({"-C", r.path.string(), "status", "--porcelain", "--untracked-files=no"}, log);
  r.dirty = status.ok() && !trim(status.output).empty();
  if (r.dirty) {
    if (!options_.allow_other_commit) {
      return Error{fmt::format("checkout of '{}' at {} has modified tracked files (git status); "
                               "restore them or pass --allow-other-commit",
                               key, r.path.string())};
    }
    r.note += (r.note.empty() ? "" : "; ") + std::string("modified tracked files (--allow-other-commit)");
  }
  return r;
}

Result<ResolvedKernel> SourceResolver::resolve(const matrix::KernelSpec& kernel, const std::filesystem::path& log) {
  std::lock_guard lock(mu_);
  if (auto it = memo_.find(kernel.name); it != memo_.end()) return it->second;
  ResolvedKernel out;
  bool overridden = options_.overrides.count(kernel.name) > 0;
  if (!kernel.needs_source() && !overridden) {
    memo_.emplace(kernel.name, out);
    return out;
  }
  out.has_source = true;
  auto main = resolve_repo(kernel.name, kernel.git, kernel.tag, kernel.commit, kernel.source,
                           cache_entry_name(kernel.name, kernel.tag, kernel.commit, kernel.version), log);
  if (!main.ok()) {
    Result<ResolvedKernel> err = Error{fmt::format("kernel '{}' {}: {}", kernel.name, kernel.version, main.error().message)};
    memo_.emplace(kernel.name, err);
    return err;
  }
  out.main = *main;
  for (const auto& x : kernel.extra_sources) {
    std::string key = kernel.name + "." + x.name;
    auto r = resolve_repo(key, x.git, x.tag, x.commit, x.source,
                          cache_entry_name(kernel.name + "-" + x.name, x.tag, x.commit, x.tag), log);
    if (!r.ok()) {
      Result<ResolvedKernel> err = Error{fmt::format("kernel '{}' {}: {}", kernel.name, kernel.version, r.error().message)};
      memo_.emplace(kernel.name, err);
      return err;
    }
    out.extras.push_back(*r);
  }
  memo_.emplace(kernel.name, out);
  return out;
}

}  // namespace rb::kernels
