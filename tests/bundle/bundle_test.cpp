// rb::bundle: MANIFEST writing and reading, a bundle of a fixture run that
// checks clean, and each refusal: a tampered member, one MANIFEST does not
// name, one it names that is missing, a result that disagrees with its
// capture (each by name and its own exit code), and hostile archives (path
// traversal, absolute paths, links, devices, members outside the top
// directory, no MANIFEST first), which never write outside the temp dir.
#include "bundle/bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../report/run_fixture.h"
#include "util/sha256.h"

namespace {

namespace fs = std::filesystem;
using rb::bundle::Refusal;

struct Member {
  std::string name;
  std::string data;
  unsigned type = AE_IFREG;
  std::string link;  // symlink target or hardlink source
};

// Every member of an archive, in order.
std::vector<Member> members_of(const fs::path& file) {
  std::vector<Member> out;
  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  archive_read_support_filter_zstd(a);
  EXPECT_EQ(archive_read_open_filename(a, file.c_str(), 1 << 16), ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    Member m{archive_entry_pathname(e), "", archive_entry_filetype(e), ""};
    char buf[4096];
    for (la_ssize_t n; (n = archive_read_data(a, buf, sizeof buf)) > 0;) m.data.append(buf, n);
    out.push_back(m);
  }
  archive_read_free(a);
  return out;
}

void pack(const std::vector<Member>& members, const fs::path& file) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_zstd(a);
  ASSERT_EQ(archive_write_open_filename(a, file.c_str()), ARCHIVE_OK);
  for (const auto& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_filetype(e, m.type);
    archive_entry_set_perm(e, 0644);
    if (m.type == AE_IFLNK) archive_entry_set_symlink(e, m.link.c_str());
    if (m.type == AE_IFREG && !m.link.empty()) archive_entry_set_hardlink(e, m.link.c_str());
    if (m.type == AE_IFCHR) archive_entry_set_rdev(e, 0x0103);
    archive_entry_set_size(e, m.type == AE_IFREG && m.link.empty() ? m.data.size() : 0);
    ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
    if (m.type == AE_IFREG && m.link.empty() && !m.data.empty())
      archive_write_data(a, m.data.data(), m.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Bundle : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = rb::testrun::temp_dir("bundle");
    run_ = rb::testrun::write_run(
        dir_, rb::testrun::standard_run("20260101T000000Z-fixture-abc123", "2026-01-01T00:00:00Z"));
    file_ = dir_ / "run.tar.zst";
    auto w = rb::bundle::write_bundle(run_, file_);
    ASSERT_TRUE(w.ok()) << w.error().message;
    members_ = members_of(file_);
    ASSERT_FALSE(members_.empty());
  }
  void TearDown() override { fs::remove_all(dir_); }

  Member& member(const std::string& rel) {
    for (auto& m : members_)
      if (m.name == top() + "/" + rel) return m;
    throw std::runtime_error("no member " + rel);
  }
  std::string top() const { return run_.filename().string(); }
  // MANIFEST again, for the members as they are now.
  void remanifest() {
    std::vector<rb::bundle::ManifestEntry> entries;
    for (const auto& m : members_)
      if (m.name != top() + "/MANIFEST")
        entries.push_back({m.name.substr(top().size() + 1), rb::sha256_hex(m.data)});
    member("MANIFEST").data = rb::bundle::manifest_text(entries);
  }
  fs::path repack(const std::string& name) {
    const fs::path f = dir_ / name;
    pack(members_, f);
    return f;
  }
  // The one problem check finds, which must be of `kind` and name `rel`.
  void expect_refused(const fs::path& f, Refusal kind, const std::string& rel) {
    auto r = rb::bundle::check(f);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_FALSE(r->problems.empty());
    EXPECT_EQ(rb::bundle::exit_code(*r), static_cast<int>(kind));
    bool named = false;
    for (const auto& p : r->problems) {
      EXPECT_EQ(p.kind, kind) << p.message;
      named = named || (p.member == rel && p.message.find(rel) != std::string::npos);
    }
    EXPECT_TRUE(named) << r->problems.front().message;
  }
  // A hostile archive: refused as bad input, the message containing `why`,
  // and nothing written next to the bundle.
  void expect_hostile(const std::vector<Member>& members, const std::string& why) {
    const fs::path f = dir_ / "hostile.tar.zst";
    pack(members, f);
    auto r = rb::bundle::check(f);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, rb::ErrorKind::kBadInput);
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_FALSE(fs::exists(dir_ / "evil"));
    EXPECT_FALSE(fs::exists(dir_.parent_path() / "evil"));
  }

  fs::path dir_, run_, file_;
  std::vector<Member> members_;
};

TEST(Manifest, WritesSortedSha256sumLinesAndReadsThemBack) {
  const std::string a(64, 'a'), b(64, 'b');
  const std::string text = rb::bundle::manifest_text({{"run.json", b}, {"jobs/x/result.json", a}});
  EXPECT_EQ(text, a + "  jobs/x/result.json\n" + b + "  run.json\n");
  auto m = rb::bundle::parse_manifest(text);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->size(), 2u);
  EXPECT_EQ((*m)[0].path, "jobs/x/result.json");
  EXPECT_EQ((*m)[0].sha256, a);
  EXPECT_EQ((*m)[1].path, "run.json");
}

TEST(Manifest, RefusesMalformedAndUnsafeLinesByLineNumber) {
  const std::string h(64, 'c');
  const std::pair<std::string, std::string> cases[] = {
      {h + "  ok\n" + std::string(63, 'c') + "  short\n", "MANIFEST:2"},
      {std::string(64, 'C') + "  upper\n", "MANIFEST:1"},
      {h + " one-space\n", "MANIFEST:1"},
      {h + "  /etc/passwd\n", "absolute"},
      {h + "  a/../../evil\n", "'..'"},
      {h + "  a//b\n", "empty path component"},
      {h + "  x\n" + h + "  x\n", "twice"},
      {h + "  MANIFEST\n", "names itself"},
      {h + "  no-line-end", "no line end"},
  };
  for (const auto& [text, why] : cases) {
    auto m = rb::bundle::parse_manifest(text);
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.error().kind, rb::ErrorKind::kBadInput);
    EXPECT_NE(m.error().message.find(why), std::string::npos) << m.error().message;
  }
}

TEST(Manifest, MemberPaths) {
  EXPECT_EQ(rb::bundle::member_path_problem("jobs/a/attempt-1/capture.raw"), "");
  EXPECT_NE(rb::bundle::member_path_problem(""), "");
  EXPECT_NE(rb::bundle::member_path_problem("/abs"), "");
  EXPECT_NE(rb::bundle::member_path_problem(".."), "");
  EXPECT_NE(rb::bundle::member_path_problem("a/./b"), "");
  EXPECT_NE(rb::bundle::member_path_problem("a\\b"), "");
  EXPECT_NE(rb::bundle::member_path_problem("a\nb"), "");
  EXPECT_NE(rb::bundle::member_path_problem(std::string(1025, 'x')), "");
}

TEST_F(Bundle, HoldsEveryFileOfTheRunUnderItsTopWithManifestFirst) {
  EXPECT_EQ(members_.front().name, top() + "/MANIFEST");
  auto m = rb::bundle::parse_manifest(members_.front().data);
  ASSERT_TRUE(m.ok()) << m.error().message;
  size_t files = 0;
  for (auto it = fs::recursive_directory_iterator(run_); it != fs::recursive_directory_iterator();
       ++it) {
    if (!it->is_regular_file()) continue;
    ++files;
    const std::string rel = it->path().lexically_relative(run_).generic_string();
    bool listed = false;
    for (const auto& e : *m)
      if (e.path == rel) {
        listed = true;
        EXPECT_EQ(e.sha256, rb::sha256_hex(read_file(it->path()))) << rel;
      }
    EXPECT_TRUE(listed) << rel;
  }
  EXPECT_EQ(m->size(), files);
  EXPECT_EQ(members_.size(), files + 1);
  // The same files give the same bytes.
  auto again = rb::bundle::write_bundle(run_, dir_ / "again.tar.zst");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(read_file(file_), read_file(dir_ / "again.tar.zst"));
  EXPECT_TRUE(rb::bundle::looks_like_bundle(file_));
  EXPECT_FALSE(rb::bundle::looks_like_bundle(run_ / "run.json"));
  EXPECT_FALSE(rb::bundle::looks_like_bundle(run_));
}

TEST_F(Bundle, ChecksClean) {
  auto r = rb::bundle::check(file_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const auto& p : r->problems) ADD_FAILURE() << p.message;
  EXPECT_EQ(rb::bundle::exit_code(*r), 0);
  EXPECT_GE(r->results, 3u);   // bare, freertos, threadx, nuttx (threadx has no capture)
  EXPECT_GE(r->captures, 2u);  // bare and freertos
  EXPECT_GE(r->series, 8u);
}

TEST_F(Bundle, ExtractsIntoATempDirThatGoesWithIt) {
  fs::path root;
  {
    auto x = rb::bundle::open_run(file_);
    ASSERT_TRUE(x.ok()) << x.error().message;
    root = (*x)->root();
    EXPECT_EQ(read_file(root / "run.json"), read_file(run_ / "run.json"));
    EXPECT_NE(root.string().find(fs::temp_directory_path().string()), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(root));
  EXPECT_FALSE(fs::exists(root.parent_path()));
}

TEST_F(Bundle, RefusesATamperedCaptureByName) {
  const std::string rel = "jobs/bare-O2-tick1000-fpu0/attempt-1/capture.raw";
  Member& m = member(rel);
  m.data[m.data.size() / 2] ^= 1;
  const fs::path f = repack("tampered.tar.zst");
  expect_refused(f, Refusal::kTampered, rel);
  auto x = rb::bundle::open_run(f);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().kind, rb::ErrorKind::kBadInput);
  EXPECT_NE(x.error().message.find(rel), std::string::npos) << x.error().message;
}

TEST_F(Bundle, RefusesAMemberManifestDoesNotName) {
  members_.push_back({top() + "/extra.txt", "smuggled"});
  const fs::path f = repack("extra.tar.zst");
  expect_refused(f, Refusal::kNotInManifest, "extra.txt");
  auto x = rb::bundle::extract(f);
  ASSERT_TRUE(x.ok());
  EXPECT_FALSE(fs::exists((*x)->root() / "extra.txt"));  // never extracted
}

TEST_F(Bundle, RefusesAMissingMember) {
  const std::string rel = "jobs/freertos-O2-tick1000-fpu0/result.json";
  std::erase_if(members_, [&](const Member& m) { return m.name == top() + "/" + rel; });
  expect_refused(repack("missing.tar.zst"), Refusal::kMissing, rel);
}

TEST_F(Bundle, RefusesAResultThatDisagreesWithItsCapture) {
  const std::string rel = "jobs/freertos-O2-tick1000-fpu0/result.json";
  auto j = nlohmann::json::parse(member(rel).data);
  j["series"][0]["median_ticks"] = j["series"][0]["median_ticks"].get<uint64_t>() + 1;
  member(rel).data = j.dump(2) + "\n";
  remanifest();  // MANIFEST agrees: only re-deriving the capture can tell
  expect_refused(repack("figure.tar.zst"), Refusal::kDisagrees, rel);
}

TEST_F(Bundle, RefusesACaptureThatIsNotTheRecordedOne) {
  const std::string rel = "jobs/bare-O2-tick1000-fpu0/attempt-1/capture.raw";
  member(rel).data += "noise after END\n";
  remanifest();
  expect_refused(repack("capture.tar.zst"), Refusal::kDisagrees,
                 "jobs/bare-O2-tick1000-fpu0/result.json");
}

TEST_F(Bundle, RefusesPathTraversal) {
  Member manifest = member("MANIFEST");
  expect_hostile({manifest, {top() + "/../evil", "x"}}, "'..'");
  expect_hostile({manifest, {"/tmp/evil", "x"}}, "absolute");
  expect_hostile({{"../evil/MANIFEST", manifest.data}}, "'..'");
}

TEST_F(Bundle, RefusesLinksAndDevices) {
  Member manifest = member("MANIFEST");
  expect_hostile({manifest, {top() + "/evil", "", AE_IFLNK, "/etc/passwd"}}, "symbolic link");
  expect_hostile({manifest, {top() + "/evil", "", AE_IFREG, top() + "/run.json"}}, "hard link");
  expect_hostile({manifest, {top() + "/evil", "", AE_IFCHR}}, "special file");
  // A symlinked directory before the member that would write through it.
  expect_hostile({manifest, {top() + "/jobs", "", AE_IFLNK, "/tmp"}, member("run.json")},
                 "symbolic link");
}

TEST_F(Bundle, RefusesWhatIsNoBundle) {
  expect_hostile({member("run.json"), member("MANIFEST")}, "is not " + top() + "/MANIFEST");
  expect_hostile({member("MANIFEST"), {"elsewhere/run.json", "{}"}}, "outside the top directory");
  expect_hostile({member("MANIFEST"), member("run.json"), member("run.json")}, "twice");
  rb::testrun::write(dir_ / "garbage.tar.zst", std::string(600, 'g'));
  auto r = rb::bundle::check(dir_ / "garbage.tar.zst");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, rb::ErrorKind::kBadInput);
  auto none = rb::bundle::check(dir_ / "absent.tar.zst");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, rb::ErrorKind::kCannotRead);
}

TEST_F(Bundle, RefusesToBundleASymlinkOrANonRun) {
  fs::create_symlink("/etc/passwd", run_ / "link");
  auto w = rb::bundle::write_bundle(run_, dir_ / "x.tar.zst");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, rb::ErrorKind::kBadInput);
  EXPECT_NE(w.error().message.find("symbolic link"), std::string::npos) << w.error().message;
  EXPECT_FALSE(fs::exists(dir_ / "x.tar.zst"));
  auto n = rb::bundle::write_bundle(dir_, dir_ / "y.tar.zst");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().kind, rb::ErrorKind::kCannotRead);
}

}  // namespace
