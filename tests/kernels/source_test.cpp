// Kernel sources against real git repositories made in a temporary
// directory (the fetch path clones from a file:// URL: no network).
#include "kernels/source.h"

#include <gtest/gtest.h>

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
    ASSERT_EQ(std::system(("git -C " + upstream_.string() + " " + args + " >/dev/null").c_str()), 0) << args;
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
  EXPECT_NE(k.error().message.find("--kernel-source fakeos=PATH"), std::string::npos) << k.error().message;
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

TEST_F(KernelSources, CachedCheckoutIsMovedToTheTag) {
  std::filesystem::create_directories(root_ / "cache");
  ASSERT_EQ(std::system(("git clone -q " + upstream_.string() + " " + (root_ / "cache" / "fakeos-v1.0.0").string()).c_str()), 0);
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

TEST_F(KernelSources, FetchByCommitPinsAVersionWithoutTag) {
  // The tagged commit is older than the branch head: fetched by its id.
  spec_.tag = "";
  spec_.commit = tag_commit_;
  SourceResolver without_fetch(*runner_, options());
  auto missing = without_fetch.resolve(spec_, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("at commit " + tag_commit_), std::string::npos) << missing.error().message;
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
  count.argv = {"git", "-C", (root_ / "cache" / ("fakeos-" + tag_commit_)).string(), "rev-list", "--count", "--all"};
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
  EXPECT_NE(k.error().message.find("pinned commit is " + tag_commit_.substr(0, 12)), std::string::npos)
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

TEST(KernelCache, EntryNamedByCommitElseTag) {
  EXPECT_EQ(cache_entry_name("fakeos", "V1.2.3", "", "1.2.3"), "fakeos-V1.2.3");
  EXPECT_EQ(cache_entry_name("tencentos", "master", "abcdef0123456789abcdef0123456789abcdef01", "2.5.2"),
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
