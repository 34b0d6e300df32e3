// Kernel sources against real git repositories made in a temporary
// directory (the fetch path clones from a file:// URL: no network).
#include "kernels/source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace rb::kernels {
namespace {

class KernelSources : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("rb-kernels-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    upstream_ = root_ / "upstream";
    std::filesystem::create_directories(upstream_);
    setenv("GIT_AUTHOR_NAME", "t", 1);
    setenv("GIT_AUTHOR_EMAIL", "t@example.org", 1);
    setenv("GIT_COMMITTER_NAME", "t", 1);
    setenv("GIT_COMMITTER_EMAIL", "t@example.org", 1);
    git("init -q -b main");
    std::ofstream(upstream_ / "fakeos.h") << "#define FAKEOS 1\n";
    git("add fakeos.h");
    git("commit -q -m v1");
    git("tag v1.0.0");
    tag_commit_ = output("rev-parse HEAD");
    std::ofstream(upstream_ / "fakeos.h") << "#define FAKEOS 2\n";
    git("commit -q -am v2");
    head_commit_ = output("rev-parse HEAD");
    runner_ = make_posix_runner();
    spec_.name = "fakeos";
    spec_.port = "fakeos";
    spec_.version = "1.0.0";
    spec_.git = "file://" + upstream_.string();
    spec_.tag = "v1.0.0";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void git(const std::string& args) {
    ASSERT_EQ(std::system(("git -C " + upstream_.string() + " " + args + " >/dev/null").c_str()), 0)
        << args;
  }
  std::string output(const std::string& args) {
    ProcessSpec s;
    s.argv = {"sh", "-c", "git -C " + upstream_.string() + " " + args};
    auto r = make_posix_runner()->run(s);
    std::string o = r.output;
    while (!o.empty() && o.back() == '\n') o.pop_back();
    return o;
  }
  ResolveOptions options() {
    ResolveOptions o;
    o.cache_dir = root_ / "cache";
    return o;
  }

  std::filesystem::path root_, upstream_;
  std::string tag_commit_, head_commit_;
  std::unique_ptr<ProcessRunner> runner_;
  matrix::KernelSpec spec_;
};

TEST_F(KernelSources, KernelWithoutSourceNeedsNothing) {
  SourceResolver r(*runner_, options());
  matrix::KernelSpec bare;
  bare.name = "bare";
  auto k = r.resolve(bare, {});
  ASSERT_TRUE(k.ok());
  EXPECT_FALSE(k->has_source);
  EXPECT_EQ(k->identity(), "none");
}

TEST_F(KernelSources, MissingFromCacheSaysHowToGetIt) {
  SourceResolver r(*runner_, options());
  auto k = r.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("--kernel-source fakeos=PATH"), std::string::npos)
      << k.error().message;
  EXPECT_NE(k.error().message.find("--fetch-kernels"), std::string::npos);
}

TEST_F(KernelSources, FetchClonesThePinnedTagIntoTheCache) {
  auto o = options();
  o.fetch = true;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, root_ / "git.log");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.origin, "fetched");
  EXPECT_EQ(k->main.commit, tag_commit_);
  EXPECT_TRUE(k->main.at_tag);
  EXPECT_TRUE(std::filesystem::exists(root_ / "cache" / "fakeos-v1.0.0" / "fakeos.h"));
  // A second resolver finds it in the cache without fetching.
  SourceResolver again(*runner_, options());
  auto k2 = again.resolve(spec_, {});
  ASSERT_TRUE(k2.ok()) << k2.error().message;
  EXPECT_EQ(k2->main.origin, "cache");
  EXPECT_EQ(k2->identity(), "fakeos=" + tag_commit_ + ";");
}

TEST_F(KernelSources, UserCheckoutAtTheTagIsAccepted) {
  git("checkout -q v1.0.0");
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, {});
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.origin, "command line");
  EXPECT_EQ(k->main.commit, tag_commit_);
}

TEST_F(KernelSources, UserCheckoutAtAnotherCommitIsAnErrorUnlessAllowed) {
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  SourceResolver strict(*runner_, o);
  auto k = strict.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("pinned tag v1.0.0"), std::string::npos) << k.error().message;
  EXPECT_NE(k.error().message.find("--allow-other-commit"), std::string::npos);
  o.allow_other_commit = true;
  SourceResolver lax(*runner_, o);
  auto k2 = lax.resolve(spec_, {});
  ASSERT_TRUE(k2.ok());
  EXPECT_EQ(k2->main.commit, head_commit_);
  EXPECT_FALSE(k2->main.at_tag);
  EXPECT_NE(k2->main.note.find("accepted by --allow-other-commit"), std::string::npos);
}

TEST_F(KernelSources, ModifiedCheckoutIsAnError) {
  git("checkout -q v1.0.0");
  std::ofstream(upstream_ / "fakeos.h") << "#define FAKEOS 3\n";
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("modified tracked files"), std::string::npos);
}

// A file the commit does not hold, untracked or ignored, is refused as a
// modified one is: a build reads it too (NuttX's in-tree .config).
TEST_F(KernelSources, UntrackedOrIgnoredFilesAreRefused) {
  git("checkout -q v1.0.0");
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  std::ofstream(upstream_ / ".gitignore") << ".config\n";
  std::ofstream(upstream_ / ".config") << "CONFIG_STALE=y\n";
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(k.error().message.find("not in the commit (.gitignore, .config: untracked or ignored"),
            std::string::npos)
      << k.error().message;
  EXPECT_NE(k.error().message.find("git clean -fdx"), std::string::npos);
  o.allow_other_commit = true;
  SourceResolver lax(*runner_, o);
  auto k2 = lax.resolve(spec_, {});
  ASSERT_TRUE(k2.ok()) << k2.error().message;
  EXPECT_TRUE(k2->main.dirty);
  EXPECT_NE(k2->main.note.find("untracked or ignored"), std::string::npos) << k2->main.note;
  std::filesystem::remove(upstream_ / ".config");
  std::filesystem::remove(upstream_ / ".gitignore");
  o.allow_other_commit = false;
  SourceResolver clean(*runner_, o);
  auto k3 = clean.resolve(spec_, {});
  ASSERT_TRUE(k3.ok()) << k3.error().message;
  EXPECT_FALSE(k3->main.dirty);
}

TEST_F(KernelSources, CachedCheckoutIsMovedToTheTag) {
  std::filesystem::create_directories(root_ / "cache");
  ASSERT_EQ(std::system(("git clone -q " + upstream_.string() + " " +
                         (root_ / "cache" / "fakeos-v1.0.0").string())
                            .c_str()),
            0);
  SourceResolver r(*runner_, options());
  auto k = r.resolve(spec_, {});
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.commit, tag_commit_);
  EXPECT_TRUE(k->main.at_tag);
}

TEST_F(KernelSources, DirectoryWithoutGitCannotBeVerified) {
  auto plain = root_ / "plain";
  std::filesystem::create_directories(plain);
  auto o = options();
  o.overrides["fakeos"] = plain;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("not a git checkout"), std::string::npos);
  o.allow_other_commit = true;
  SourceResolver lax(*runner_, o);
  auto k2 = lax.resolve(spec_, {});
  ASSERT_TRUE(k2.ok());
  EXPECT_EQ(k2->main.commit, "n/a");
  EXPECT_EQ(k2->identity(), "");  // cannot be cached
}

TEST_F(KernelSources, SuppliedKernelWithoutSourceSaysWhatToSupply) {
  // PX5-like: no public source, so no fetch and no git pin.
  matrix::KernelSpec px;
  px.name = "px";
  px.version = "4.0.0";
  px.supply = "the PX 4.0 source directory (px.c, px.h)";
  ASSERT_TRUE(px.needs_source());
  auto o = options();
  o.fetch = true;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(px, {});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().kind, ErrorKind::kCannotRead);
  EXPECT_NE(k.error().message.find("supply the PX 4.0 source directory (px.c, px.h) with "
                                   "--kernel-source px=PATH"),
            std::string::npos)
      << k.error().message;
  EXPECT_FALSE(std::filesystem::exists(root_ / "cache" / "px-4.0.0"));
}

TEST_F(KernelSources, SuppliedKernelAcceptsADirectoryThatIsNotGit) {
  auto plain = root_ / "px-src";
  std::filesystem::create_directories(plain);
  matrix::KernelSpec px;
  px.name = "px";
  px.version = "4.0.0";
  px.supply = "the PX source";
  auto o = options();
  o.overrides["px"] = plain;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(px, {});
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.commit, "n/a");
  EXPECT_EQ(k->main.note, "user-supplied source, not a git checkout");
  // A missing directory is still refused.
  o.overrides["px"] = root_ / "nowhere";
  SourceResolver missing(*runner_, o);
  EXPECT_FALSE(missing.resolve(px, {}).ok());
}

TEST_F(KernelSources, FetchByCommitPinsAVersionWithoutTag) {
  // The tagged commit is older than the branch head: fetched by its id.
  spec_.tag = "";
  spec_.commit = tag_commit_;
  SourceResolver without_fetch(*runner_, options());
  auto missing = without_fetch.resolve(spec_, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("at commit " + tag_commit_), std::string::npos)
      << missing.error().message;
  auto o = options();
  o.fetch = true;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, root_ / "git.log");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.origin, "fetched");
  EXPECT_EQ(k->main.commit, tag_commit_);
  EXPECT_EQ(k->main.pinned_commit, tag_commit_);
  EXPECT_TRUE(k->main.at_tag);
  EXPECT_TRUE(std::filesystem::exists(root_ / "cache" / ("fakeos-" + tag_commit_) / "fakeos.h"));
  // Only the pinned commit was fetched, not the branch head after it.
  ProcessSpec count;
  count.argv = {"git",      "-C",      (root_ / "cache" / ("fakeos-" + tag_commit_)).string(),
                "rev-list", "--count", "--all"};
  EXPECT_EQ(runner_->run(count).output, "1\n");
}

TEST_F(KernelSources, UserCheckoutMustBeAtThePinnedCommitWhateverTheBranchSays) {
  // `tag: main` names a branch that has moved on: with a commit pin it is
  // only informational.
  spec_.tag = "main";
  spec_.commit = tag_commit_;
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  SourceResolver strict(*runner_, o);
  auto k = strict.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("pinned commit is " + tag_commit_.substr(0, 12)),
            std::string::npos)
      << k.error().message;
  git("checkout -q " + tag_commit_);
  SourceResolver again(*runner_, o);
  auto k2 = again.resolve(spec_, {});
  ASSERT_TRUE(k2.ok()) << k2.error().message;
  EXPECT_EQ(k2->main.commit, tag_commit_);
  EXPECT_TRUE(k2->main.at_tag);
}

TEST_F(KernelSources, CachedCheckoutIsMovedToThePinnedCommit) {
  spec_.tag = "";
  spec_.commit = tag_commit_;
  auto entry = root_ / "cache" / cache_entry_name("fakeos", "", tag_commit_, "1.0.0");
  std::filesystem::create_directories(root_ / "cache");
  ASSERT_EQ(std::system(("git clone -q " + upstream_.string() + " " + entry.string()).c_str()), 0);
  SourceResolver r(*runner_, options());
  auto k = r.resolve(spec_, {});
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.origin, "cache");
  EXPECT_EQ(k->main.commit, tag_commit_);
  EXPECT_TRUE(k->main.at_tag);
}

// A source's own git configuration is not trusted: a lab repository can
// carry a git directory as plain files (HEAD, config, objects, refs), and
// any checkout's .git/config can name programs. Neither may run anything.
TEST_F(KernelSources, GitDirectoryCommittedAsPlainFilesRunsNothing) {
  git("checkout -q v1.0.0");
  auto lab = root_ / "lab" / "freertos";
  std::filesystem::create_directories(lab);
  std::filesystem::copy(upstream_ / "fakeos.h", lab / "fakeos.h");
  std::filesystem::copy(upstream_ / ".git", lab / "gitdir",
                        std::filesystem::copy_options::recursive);
  const auto marker = root_ / "fsmonitor-ran";
  std::ofstream(lab / "gitdir" / "config", std::ios::app)
      << "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch " << marker.string()
      << ";\"\n";
  for (const auto& source : {lab / "gitdir", lab}) {
    auto o = options();
    o.overrides["fakeos"] = source;
    SourceResolver r(*runner_, o);
    auto k = r.resolve(spec_, root_ / "git.log");
    EXPECT_FALSE(k.ok()) << source;
    EXPECT_FALSE(std::filesystem::exists(marker)) << source << ": core.fsmonitor ran";
    if (!k.ok() && source == lab / "gitdir") {
      EXPECT_EQ(k.error().kind, ErrorKind::kUnavailable);
      EXPECT_NE(k.error().message.find("bare git directory"), std::string::npos)
          << k.error().message;
    }
  }
}

TEST_F(KernelSources, CheckoutWhoseConfigRunsProgramsIsRefusedNamingTheKey) {
  git("checkout -q v1.0.0");
  const auto marker = root_ / "ran";
  for (const std::string key :
       {"core.fsmonitor", "core.worktree", "core.sshCommand", "core.pager", "core.editor",
        "core.hooksPath", "filter.lfs.smudge", "diff.c.textconv", "alias.st", "include.path",
        "credential.helper", "protocol.ext.allow"}) {
    std::string value = key == "core.worktree"        ? upstream_.string()
                        : key == "protocol.ext.allow" ? "always"
                                                      : "touch " + marker.string() + ";";
    git("config " + key + " '" + value + "'");
    auto o = options();
    o.overrides["fakeos"] = upstream_;
    SourceResolver r(*runner_, o);
    auto k = r.resolve(spec_, root_ / "git.log");
    git("config --unset " + key);
    ASSERT_FALSE(k.ok()) << key;
    EXPECT_EQ(k.error().kind, ErrorKind::kUnavailable) << key;
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    EXPECT_NE(lower(k.error().message).find(lower(key)), std::string::npos) << k.error().message;
    EXPECT_FALSE(std::filesystem::exists(marker)) << key << " ran";
  }
  // Harmless keys of a real clone are accepted.
  git("config pull.rebase true");
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, root_ / "git.log");
  EXPECT_TRUE(k.ok()) << k.error().message;
}

// A shared kernel cache may belong to another user (git would call it of
// "dubious ownership"): its config is checked by rtosbench itself, so it is
// still verified, without trusting every directory (no safe.directory=*).
TEST_F(KernelSources, CheckoutOwnedByAnotherUserIsStillVerified) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the checkout to another user";
  git("checkout -q v1.0.0");
  ASSERT_EQ(std::system(("chown -R 65534:65534 " + upstream_.string()).c_str()), 0);
  auto o = options();
  o.overrides["fakeos"] = upstream_;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, root_ / "git.log");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->main.commit, tag_commit_);
  std::ofstream(upstream_ / "fakeos.h") << "#define FAKEOS 3\n";
  SourceResolver modified(*runner_, o);
  EXPECT_FALSE(modified.resolve(spec_, {}).ok());
}

// A git URL that starts with '-' is refused at load (the schema); should one
// reach git, `--` keeps it a URL, never an option such as --upload-pack.
TEST_F(KernelSources, UrlStartingWithDashIsNeverAnOption) {
  const auto marker = root_ / "upload-pack-ran";
  auto o = options();
  o.fetch = true;
  SourceResolver r(*runner_, o);
  spec_.git = "--upload-pack=touch " + marker.string() + ";";
  spec_.commit = tag_commit_;
  auto k = r.resolve(spec_, root_ / "git.log");
  EXPECT_FALSE(k.ok());
  EXPECT_FALSE(std::filesystem::exists(marker)) << "--upload-pack ran";
  spec_.commit.clear();
  SourceResolver by_tag(*runner_, o);
  auto t = by_tag.resolve(spec_, root_ / "git.log");
  EXPECT_FALSE(t.ok());
  EXPECT_FALSE(std::filesystem::exists(marker)) << "--upload-pack ran";
}

TEST_F(KernelSources, ErrorsCarryTheirKind) {
  // Missing: cannot read. Present but not at the pin, or modified: the run refuses.
  SourceResolver empty_cache(*runner_, options());
  auto missing = empty_cache.resolve(spec_, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kCannotRead);
  auto o = options();
  o.overrides["fakeos"] = root_ / "nowhere";
  SourceResolver nowhere(*runner_, o);
  auto not_dir = nowhere.resolve(spec_, {});
  ASSERT_FALSE(not_dir.ok());
  EXPECT_EQ(not_dir.error().kind, ErrorKind::kCannotRead);
  EXPECT_NE(not_dir.error().message.find("is not a directory"), std::string::npos)
      << not_dir.error().message;
  o.overrides["fakeos"] = upstream_;  // at the branch head, not at the tag
  SourceResolver off_pin(*runner_, o);
  auto mismatch = off_pin.resolve(spec_, {});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().kind, ErrorKind::kUnavailable);
  git("checkout -q v1.0.0");
  std::ofstream(upstream_ / "fakeos.h") << "#define FAKEOS 3\n";
  SourceResolver modified(*runner_, o);
  auto dirty = modified.resolve(spec_, {});
  ASSERT_FALSE(dirty.ok());
  EXPECT_EQ(dirty.error().kind, ErrorKind::kUnavailable);
  EXPECT_EQ(parse_override("freertos").error().kind, ErrorKind::kUsage);
}

TEST_F(KernelSources, FailedFetchIsUnavailableAndLeavesNothingInTheCache) {
  spec_.git = "file://" + (root_ / "no-such-upstream").string();
  auto o = options();
  o.fetch = true;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, root_ / "git.log");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(k.error().message.find("git clone --depth 1 --branch v1.0.0"), std::string::npos)
      << k.error().message;
  ASSERT_TRUE(std::filesystem::is_directory(root_ / "cache"));
  EXPECT_TRUE(std::filesystem::is_empty(root_ / "cache"));  // no entry, no .partial-<pid>
  spec_.tag = "";
  spec_.commit = tag_commit_;
  SourceResolver by_commit(*runner_, o);
  auto c = by_commit.resolve(spec_, root_ / "git.log");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::kUnavailable);
  EXPECT_TRUE(std::filesystem::is_empty(root_ / "cache"));
}

TEST_F(KernelSources, CacheThatCannotBeCreatedIsAnError) {
  std::ofstream(root_ / "file") << "not a directory\n";
  auto o = options();
  o.cache_dir = root_ / "file" / "cache";
  o.fetch = true;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, {});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().kind, ErrorKind::kCannotWrite);
  EXPECT_NE(k.error().message.find("cannot create the kernel cache " + o.cache_dir.string()),
            std::string::npos)
      << k.error().message;
}

TEST_F(KernelSources, CloneThatCannotBeMovedIntoTheCacheIsAnError) {
  // A file where the entry belongs: the clone succeeds, the rename fails.
  std::filesystem::create_directories(root_ / "cache");
  std::ofstream(root_ / "cache" / "fakeos-v1.0.0") << "not a checkout\n";
  // A partial clone left by an earlier resolver of this process is replaced.
  auto stale = root_ / "cache" / ("fakeos-v1.0.0.partial-" + std::to_string(::getpid()));
  std::filesystem::create_directories(stale / "junk");
  auto o = options();
  o.fetch = true;
  SourceResolver r(*runner_, o);
  auto k = r.resolve(spec_, root_ / "git.log");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().kind, ErrorKind::kCannotWrite);
  EXPECT_NE(k.error().message.find("cannot move clone to " +
                                   (root_ / "cache" / "fakeos-v1.0.0").string()),
            std::string::npos)
      << k.error().message;
  EXPECT_FALSE(std::filesystem::exists(stale));  // the clone is not left behind
  // Once the file is gone the same fetch works.
  std::filesystem::remove(root_ / "cache" / "fakeos-v1.0.0");
  std::filesystem::create_directories(stale / "junk");
  SourceResolver again(*runner_, o);
  auto k2 = again.resolve(spec_, root_ / "git.log");
  ASSERT_TRUE(k2.ok()) << k2.error().message;
  EXPECT_EQ(k2->main.commit, tag_commit_);
  EXPECT_FALSE(std::filesystem::exists(root_ / "cache" / "fakeos-v1.0.0" / "junk"));
  EXPECT_FALSE(std::filesystem::exists(stale));
}

RepoPin tag_pin() {
  return RepoPin{"fakeos", "file:///up", "v1.0.0", "", "", "fakeos-v1.0.0"};
}

TEST(KernelPin, DescribedByCommitElseTag) {
  auto pin = tag_pin();
  EXPECT_EQ(pin.describe(), "v1.0.0");
  pin.commit = "abc";
  EXPECT_EQ(pin.describe(), "commit abc");
  pin.commit.clear();
  pin.tag.clear();
  EXPECT_EQ(pin.describe(), "(no tag)");
}

TEST(KernelPin, LocatedOnTheCommandLineThenInTheMatrixThenInTheCache) {
  ResolveOptions o;
  o.cache_dir = "/cache";
  auto pin = tag_pin();
  auto cached = locate(pin, o);
  EXPECT_EQ(cached.origin, "cache");
  EXPECT_EQ(cached.path, std::filesystem::path("/cache/fakeos-v1.0.0"));
  EXPECT_EQ(cached.name, "fakeos");
  EXPECT_EQ(cached.tag, "v1.0.0");
  pin.matrix_path = "/m/fakeos";
  auto from_matrix = locate(pin, o);
  EXPECT_EQ(from_matrix.origin, "matrix");
  EXPECT_EQ(from_matrix.path, std::filesystem::path("/m/fakeos"));
  o.overrides["fakeos.other"] = "/elsewhere";  // another key does not count
  EXPECT_EQ(locate(pin, o).origin, "matrix");
  o.overrides["fakeos"] = "/cli/fakeos";
  auto from_cli = locate(pin, o);
  EXPECT_EQ(from_cli.origin, "command line");
  EXPECT_EQ(from_cli.path, std::filesystem::path("/cli/fakeos"));
}

TEST(KernelPin, CheckedAgainstHead) {
  const std::string pinned(40, 'a'), head(40, 'b');
  auto pin = tag_pin();
  ResolvedRepo r;
  r.path = "/src/fakeos";
  r.commit = pinned;
  ASSERT_TRUE(check_pin(pin, pinned, false, r).ok());
  EXPECT_TRUE(r.at_tag);
  EXPECT_EQ(r.note, "");

  r = ResolvedRepo{};
  r.path = "/src/fakeos";
  r.commit = head;
  auto refused = check_pin(pin, pinned, false, r);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kUnavailable);
  EXPECT_EQ(refused.error().message,
            "checkout of 'fakeos' at /src/fakeos is at bbbbbbbbbbbb but the pinned tag v1.0.0 "
            "is aaaaaaaaaaaa; run `git -C /src/fakeos checkout v1.0.0` or pass "
            "--allow-other-commit");
  ASSERT_TRUE(check_pin(pin, pinned, true, r).ok());
  EXPECT_FALSE(r.at_tag);
  EXPECT_EQ(r.note,
            "HEAD bbbbbbbbbbbb is not tag v1.0.0 (aaaaaaaaaaaa); accepted by --allow-other-commit");

  pin.commit = pinned;
  r.note.clear();
  auto by_commit = check_pin(pin, pinned, false, r);
  ASSERT_FALSE(by_commit.ok());
  EXPECT_NE(
      by_commit.error().message.find(
          "the pinned commit is aaaaaaaaaaaa; run `git -C /src/fakeos checkout " + pinned + "`"),
      std::string::npos)
      << by_commit.error().message;
}

TEST(KernelPin, TagMissingFromTheCheckoutIsRefusedUnlessAllowed) {
  ResolvedRepo r;
  r.path = "/src/fakeos";
  r.commit = std::string(40, 'b');
  auto refused = check_pin(tag_pin(), "", false, r);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(refused.error().message.find(
                "tag v1.0.0 of 'fakeos' is not in /src/fakeos (HEAD is bbbbbbbbbbbb)"),
            std::string::npos)
      << refused.error().message;
  ASSERT_TRUE(check_pin(tag_pin(), "", true, r).ok());
  EXPECT_FALSE(r.at_tag);
  EXPECT_EQ(r.note, "tag v1.0.0 not found; built HEAD bbbbbbbbbbbb (--allow-other-commit)");
}

TEST(KernelCache, EntryNamedByCommitElseTag) {
  EXPECT_EQ(cache_entry_name("fakeos", "V1.2.3", "", "1.2.3"), "fakeos-V1.2.3");
  EXPECT_EQ(
      cache_entry_name("tencentos", "master", "abcdef0123456789abcdef0123456789abcdef01", "2.5.2"),
      "tencentos-abcdef0123456789abcdef0123456789abcdef01");
  EXPECT_EQ(cache_entry_name("x", "", "", "1.0 beta"), "x-1.0_beta");
}

TEST(KernelOverride, ParsesNameEqualsPath) {
  auto o = parse_override("freertos=/src/FreeRTOS-Kernel");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->first, "freertos");
  EXPECT_EQ(o->second, std::filesystem::path("/src/FreeRTOS-Kernel"));
  EXPECT_FALSE(parse_override("freertos").ok());
  EXPECT_FALSE(parse_override("=x").ok());
}

}  // namespace
}  // namespace rb::kernels
