// Bundles: MANIFEST, writing and the hostile-input reader (bundle.h).
#include "bundle/bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "store/result.h"
#include "util/posix_file.h"
#include "util/sha256.h"
#include "util/temp_dir.h"

namespace rb::bundle {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifest = "MANIFEST";
constexpr const char* kTempPrefix = "rtosbench-bundle";

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string archive_message(archive* a) {
  const char* m = archive_error_string(a);
  return m ? m : "unknown libarchive error";
}

using ArchiveWriter = std::unique_ptr<archive, decltype(&archive_write_free)>;
using ArchiveReader = std::unique_ptr<archive, decltype(&archive_read_free)>;
using EntryHolder = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

// The run directory's files, relative, sorted; symbolic links and special
// files are refused.
Result<std::vector<std::string>> run_files(const fs::path& run_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  auto unreadable = [&](const fs::path& p) {
    return make_error(ErrorKind::kCannotRead, fmt::format("{}: {}", p.string(), ec.message()));
  };
  fs::recursive_directory_iterator it(run_dir, fs::directory_options::none, ec), end;
  for (; ec || it != end; it.increment(ec)) {
    if (ec) return unreadable(run_dir);
    const fs::path rel = it->path().lexically_relative(run_dir);
    const fs::file_status st = it->symlink_status(ec);
    if (ec) return unreadable(it->path());
    if (fs::is_directory(st)) continue;
    if (!fs::is_regular_file(st)) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{}: {} is {}, not a regular file: a bundle holds files only",
                                    run_dir.string(), rel.string(),
                                    fs::is_symlink(st) ? "a symbolic link" : "a special file"));
    }
    if (rel == "run.lock") continue;
    const std::string name = rel.generic_string();
    if (auto p = member_path_problem(name); !p.empty())
      return make_error(ErrorKind::kBadInput, fmt::format("{}: {}: {}", run_dir.string(), name, p));
    out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status write_member(archive* a, const std::string& name, uint64_t size) {
  EntryHolder holder(archive_entry_new(), archive_entry_free);
  archive_entry* e = holder.get();
  archive_entry_set_pathname(e, name.c_str());
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, static_cast<la_int64_t>(size));
  archive_entry_set_mtime(e, 0, 0);
  archive_entry_set_uid(e, 0);
  archive_entry_set_gid(e, 0);
  if (archive_write_header(a, e) != ARCHIVE_OK)
    return make_error(ErrorKind::kCannotWrite, fmt::format("{}: {}", name, archive_message(a)));
  return {};
}

Status write_data(archive* a, const std::string& name, std::string_view data) {
  if (data.empty()) return {};
  if (archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
    return make_error(ErrorKind::kCannotWrite, fmt::format("{}: {}", name, archive_message(a)));
  return {};
}

// A temporary directory removed with the object.
struct OwnedDir {
  fs::path path;
  ~OwnedDir() {
    if (path.empty()) return;
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

// ---- MANIFEST -------------------------------------------------------------------

std::string member_path_problem(std::string_view path) {
  if (path.empty()) return "an empty path";
  if (path.size() > 1024) return "a path longer than 1024 bytes";
  if (path.front() == '/') return "an absolute path";
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f) return "a control character in the path";
    if (c == '\\') return "a backslash in the path";
  }
  size_t start = 0;
  while (true) {
    const size_t end = path.find('/', start);
    const std::string_view part =
        path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty()) return "an empty path component";
    if (part == "." || part == "..") return fmt::format("a '{}' path component", part);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return "";
}

std::string manifest_text(std::vector<ManifestEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  std::string out;
  for (const auto& e : entries) out += e.sha256 + "  " + e.path + "\n";
  return out;
}

Result<std::vector<ManifestEntry>> parse_manifest(std::string_view text) {
  std::vector<ManifestEntry> out;
  std::set<std::string> seen;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("MANIFEST:{}: the last line has no line end", line_no));
    }
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.size() < 67 || !is_hex64(line.substr(0, 64)) || line.substr(64, 2) != "  ") {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("MANIFEST:{}: not \"<64 lowercase hex digits>  <path>\"", line_no));
    }
    std::string path(line.substr(66));
    if (auto p = member_path_problem(path); !p.empty())
      return make_error(ErrorKind::kBadInput, fmt::format("MANIFEST:{}: {}", line_no, p));
    if (path == kManifest)
      return make_error(ErrorKind::kBadInput, fmt::format("MANIFEST:{}: names itself", line_no));
    if (!seen.insert(path).second)
      return make_error(ErrorKind::kBadInput,
                        fmt::format("MANIFEST:{}: {} is named twice", line_no, path));
    if (out.size() >= kMaxMembers)
      return make_error(ErrorKind::kBadInput,
                        fmt::format("MANIFEST: more than {} entries", kMaxMembers));
    out.push_back({std::move(path), std::string(line.substr(0, 64))});
  }
  return out;
}

// ---- writing --------------------------------------------------------------------

Result<Written> write_bundle(const fs::path& run_dir, const fs::path& out) {
  auto summary = store::read_run_summary(run_dir / "run.json");
  if (!summary.ok()) {
    return make_error(
        summary.error().kind == ErrorKind::kCannotRead ? ErrorKind::kCannotRead
                                                       : ErrorKind::kBadInput,
        fmt::format("{} is no run directory: {}", run_dir.string(), summary.error().message));
  }
  Written w;
  w.file = out;
  w.top = fs::absolute(run_dir).lexically_normal().filename().string();
  if (w.top.empty())
    w.top = fs::absolute(run_dir).lexically_normal().parent_path().filename().string();
  if (auto p = member_path_problem(w.top); !p.empty() || w.top.find('/') != std::string::npos)
    return make_error(
        ErrorKind::kBadInput,
        fmt::format("{}: its name cannot be a bundle's top directory", run_dir.string()));
  auto files = run_files(run_dir);
  if (!files.ok()) return files.error();

  std::vector<ManifestEntry> manifest;
  std::map<std::string, uint64_t> sizes;
  for (const auto& f : *files) {
    auto h = sha256_file(run_dir / f);
    if (!h.ok()) return make_error(ErrorKind::kCannotRead, h.error().message);
    std::error_code ec;
    const uint64_t size = fs::file_size(run_dir / f, ec);
    if (ec) return make_error(ErrorKind::kCannotRead, fmt::format("{}: {}", f, ec.message()));
    manifest.push_back({f, *h});
    sizes[f] = size;
    w.bytes += size;
  }
  w.members = manifest.size();
  const std::string manifest_body = manifest_text(manifest);

  const fs::path tmp = out.string() + fmt::format(".tmp-{}", ::getpid());
  OwnedDir cleanup;  // removes a half-written file
  cleanup.path = tmp;
  {
    ArchiveWriter aw(archive_write_new(), archive_write_free);
    if (!aw) return make_error(ErrorKind::kInternal, "archive_write_new failed");
    if (archive_write_set_format_pax_restricted(aw.get()) != ARCHIVE_OK ||
        archive_write_add_filter_zstd(aw.get()) != ARCHIVE_OK) {
      return make_error(ErrorKind::kInternal,
                        fmt::format("libarchive: tar with zstd: {}", archive_message(aw.get())));
    }
    if (archive_write_open_filename(aw.get(), tmp.c_str()) != ARCHIVE_OK)
      return make_error(ErrorKind::kCannotWrite,
                        fmt::format("{}: {}", tmp.string(), archive_message(aw.get())));
    const std::string mname = w.top + "/" + kManifest;
    if (auto s = write_member(aw.get(), mname, manifest_body.size()); !s.ok()) return s.error();
    if (auto s = write_data(aw.get(), mname, manifest_body); !s.ok()) return s.error();
    std::vector<char> buf(1 << 16);
    for (const auto& m : manifest) {
      const std::string name = w.top + "/" + m.path;
      if (auto s = write_member(aw.get(), name, sizes[m.path]); !s.ok()) return s.error();
      auto in = InputFile::open(run_dir / m.path);
      if (!in.ok()) return make_error(ErrorKind::kCannotRead, in.error().message);
      Sha256 h;
      uint64_t left = sizes[m.path];
      while (true) {
        auto n = in->read(buf.data(), buf.size());
        if (!n.ok()) return make_error(ErrorKind::kCannotRead, n.error().message);
        if (*n == 0) break;
        if (*n > left) {
          return make_error(ErrorKind::kCannotRead,
                            fmt::format("{}: grew while it was bundled", m.path));
        }
        left -= *n;
        h.update(std::string_view(buf.data(), *n));
        if (auto s = write_data(aw.get(), name, std::string_view(buf.data(), *n)); !s.ok())
          return s.error();
      }
      if (left != 0 || h.hex_digest() != m.sha256) {
        return make_error(ErrorKind::kCannotRead,
                          fmt::format("{}: changed while it was bundled", m.path));
      }
    }
    if (archive_write_close(aw.get()) != ARCHIVE_OK)
      return make_error(ErrorKind::kCannotWrite,
                        fmt::format("{}: {}", tmp.string(), archive_message(aw.get())));
  }
  std::error_code ec;
  fs::rename(tmp, out, ec);
  if (ec)
    return make_error(ErrorKind::kCannotWrite, fmt::format("{}: {}", out.string(), ec.message()));
  cleanup.path.clear();
  return w;
}

// ---- reading --------------------------------------------------------------------

bool looks_like_bundle(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::array<char, 512> head{};
  in.read(head.data(), head.size());
  const auto got = static_cast<size_t>(in.gcount());
  static constexpr unsigned char kZstd[4] = {0x28, 0xb5, 0x2f, 0xfd};
  if (got >= 4 && std::memcmp(head.data(), kZstd, 4) == 0) return true;
  return got >= 262 && std::memcmp(head.data() + 257, "ustar", 5) == 0;
}

const char* to_string(Refusal r) {
  static const char* const kNames[] = {"?", "disagrees", "tampered", "not_in_manifest", "missing"};
  return kNames[static_cast<int>(r)];
}

Extracted::~Extracted() {
  if (temp_.empty()) return;
  std::error_code ec;
  fs::remove_all(temp_, ec);
}

namespace {

// What is wrong with a member's header (empty: nothing); `name` gets its
// path, a directory's without its trailing slash.
std::string header_problem(archive_entry* e, size_t entries, std::string& name) {
  const char* raw_name = archive_entry_pathname(e);
  if (!raw_name) return fmt::format("member {}: a name that cannot be read", entries);
  name = raw_name;
  const auto type = archive_entry_filetype(e);
  if (type == AE_IFDIR && !name.empty() && name.back() == '/') name.pop_back();
  if (auto p = member_path_problem(name); !p.empty())
    return fmt::format("member \"{}\": {}", name, p);
  if (archive_entry_hardlink(e))
    return fmt::format("member {}: a hard link (to {})", name, archive_entry_hardlink(e));
  if (type == AE_IFLNK) {
    const char* to = archive_entry_symlink(e);
    return fmt::format("member {}: a symbolic link (to {})", name, to ? to : "?");
  }
  if (type != AE_IFREG && type != AE_IFDIR)
    return fmt::format("member {}: a device, FIFO or other special file", name);
  return {};
}

// The current member's data into `text`, reading at most one byte past
// `limit`; the archive's message when it cannot be read.
std::string read_small(archive* a, std::vector<char>& buf, uint64_t limit, std::string& text) {
  while (text.size() <= limit) {
    const la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
    if (n < 0) return archive_message(a);
    if (n == 0) break;
    text.append(buf.data(), static_cast<size_t>(n));
  }
  return {};
}

// A member copied to a file: the bytes read (at most one buffer past its
// declared size), their SHA-256, and what went wrong.
struct Copied {
  uint64_t got = 0;
  std::string sha256, read_error;
  bool write_failed = false;
};

Copied copy_member(archive* a, int fd, uint64_t size, std::vector<char>& buf) {
  Copied c;
  Sha256 h;
  while (true) {
    const la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
    if (n < 0) {
      c.read_error = archive_message(a);
      break;
    }
    if (n == 0) break;
    c.got += static_cast<uint64_t>(n);
    if (c.got > size) break;
    h.update(std::string_view(buf.data(), static_cast<size_t>(n)));
    size_t off = 0;
    while (off < static_cast<size_t>(n) && !c.write_failed) {
      const ssize_t w = ::write(fd, buf.data() + off, static_cast<size_t>(n) - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        c.write_failed = true;
      else
        off += static_cast<size_t>(w);
    }
    if (c.write_failed) break;
  }
  c.sha256 = h.hex_digest();
  return c;
}

// The bundle file: there, a regular file, readable.
Status readable_file(const fs::path& bundle) {
  const std::string where = bundle.string();
  std::error_code ec;
  if (!fs::exists(bundle, ec))
    return make_error(ErrorKind::kCannotRead, fmt::format("{}: no such file", where));
  if (!fs::is_regular_file(bundle, ec))
    return make_error(ErrorKind::kCannotRead, fmt::format("{}: not a regular file", where));
  if (!std::ifstream(bundle, std::ios::binary))
    return make_error(ErrorKind::kCannotRead, fmt::format("{}: cannot be opened", where));
  return {};
}

// The current member, MANIFEST, read and parsed into `out`; what is wrong
// with it otherwise.
std::string read_manifest(archive* a, std::vector<char>& buf, uint64_t size,
                          std::vector<ManifestEntry>& out) {
  if (size > kMaxManifestBytes)
    return fmt::format("MANIFEST: {} bytes, more than {}", size, kMaxManifestBytes);
  std::string text;
  if (auto p = read_small(a, buf, kMaxManifestBytes, text); !p.empty()) return "MANIFEST: " + p;
  if (text.size() != size) return "MANIFEST: its size is not the one its header says";
  auto m = parse_manifest(text);
  if (!m.ok()) return m.error().message;
  out = *m;
  return {};
}

// The current member written to a new file `dest`: its SHA-256, else an
// error (kBadInput, `bad` prefixing it; kCannotWrite naming `temp`).
template <class Bad>
Result<std::string> write_member(archive* a, const fs::path& dest, const std::string& rel,
                                 uint64_t size, std::vector<char>& buf, const Bad& bad,
                                 const std::string& where, const fs::path& temp) {
  std::error_code ec;
  fs::create_directories(dest.parent_path(), ec);
  if (ec) return bad(fmt::format("member {}: {}", rel, ec.message()));
  const int fd = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return bad(fmt::format("member {}: {}", rel, std::strerror(errno)));
  const Copied c = copy_member(a, fd, size, buf);
  ::close(fd);
  if (!c.read_error.empty()) return bad(fmt::format("member {}: {}", rel, c.read_error));
  if (c.write_failed)
    return make_error(
        ErrorKind::kCannotWrite,
        fmt::format("{}: cannot write the extracted member {} into {}", where, rel, temp.string()));
  if (c.got != size)
    return bad(fmt::format("member {}: its size is not the one its header says", rel));
  return c.sha256;
}

}  // namespace

Result<std::unique_ptr<Extracted>> extract(const fs::path& bundle) {
  const std::string where = bundle.string();
  auto bad = [&](const std::string& what) {
    return make_error(ErrorKind::kBadInput, fmt::format("{}: {}", where, what));
  };
  if (auto s = readable_file(bundle); !s.ok()) return s.error();
  remove_orphaned_temp_dirs(kTempPrefix);
  auto temp = make_owned_temp_dir(kTempPrefix);
  if (!temp.ok()) return temp.error();
  std::unique_ptr<Extracted> x(new Extracted());
  x->bundle_ = bundle;
  x->temp_ = *temp;

  ArchiveReader ar(archive_read_new(), archive_read_free);
  if (!ar) return make_error(ErrorKind::kInternal, "archive_read_new failed");
  archive_read_support_format_tar(ar.get());
  archive_read_support_filter_zstd(ar.get());
  if (archive_read_open_filename(ar.get(), bundle.c_str(), 1 << 16) != ARCHIVE_OK) {
    const std::string m = archive_message(ar.get());
    return bad("not a bundle (a tar archive, compressed with zstd): " + m);
  }

  std::map<std::string, std::string> expected;  // path -> sha256, from MANIFEST
  std::set<std::string> seen;
  bool have_manifest = false;
  size_t entries = 0;
  std::vector<char> buf(1 << 16);
  while (true) {
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(ar.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      return bad(fmt::format("member {}: {}", entries + 1, archive_message(ar.get())));
    if (++entries > kMaxMembers + 1 + kMaxMembers)  // files plus directory entries
      return bad(fmt::format("more than {} members", kMaxMembers));
    std::string name;
    if (auto p = header_problem(e, entries, name); !p.empty()) return bad(p);
    const auto type = archive_entry_filetype(e);
    const size_t slash = name.find('/');
    const std::string top = name.substr(0, slash);
    const std::string rel = slash == std::string::npos ? "" : name.substr(slash + 1);
    if (x->top_.empty()) x->top_ = top;
    if (top != x->top_)
      return bad(fmt::format("member {}: outside the top directory {}/", name, x->top_));
    if (type == AE_IFDIR) continue;  // directories are made for the files they hold
    if (rel.empty()) return bad(fmt::format("member {}: a file as the top directory", name));
    if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0)
      return bad(fmt::format("member {}: no size", name));
    const uint64_t size = static_cast<uint64_t>(archive_entry_size(e));

    if (!have_manifest) {
      if (rel != kManifest)
        return bad(fmt::format("member {}: the first file is not {}/MANIFEST", name, top));
      if (auto p = read_manifest(ar.get(), buf, size, x->manifest_); !p.empty()) return bad(p);
      for (const auto& entry : x->manifest_) expected[entry.path] = entry.sha256;
      have_manifest = true;
      continue;
    }
    if (rel == kManifest) return bad("MANIFEST: a second member of that name");
    if (!seen.insert(rel).second) return bad(fmt::format("member {}: twice in the bundle", rel));
    auto it = expected.find(rel);
    if (it == expected.end()) {
      x->problems_.push_back({Refusal::kNotInManifest, rel,
                              fmt::format("member {} is not in MANIFEST: not extracted", rel)});
      archive_read_data_skip(ar.get());
      continue;
    }
    if (size > kMaxMemberBytes)
      return bad(fmt::format("member {}: {} bytes, more than {}", rel, size, kMaxMemberBytes));
    if (x->bytes_ + size > kMaxTotalBytes)
      return bad(fmt::format("member {}: the members pass {} bytes together", rel, kMaxTotalBytes));

    const fs::path dest = x->root() / rel;
    auto digest = write_member(ar.get(), dest, rel, size, buf, bad, where, x->temp_);
    if (!digest.ok()) return digest.error();
    x->bytes_ += size;
    if (*digest != it->second) {
      std::error_code ec;
      fs::remove(dest, ec);
      x->problems_.push_back(
          {Refusal::kTampered, rel,
           fmt::format("member {} was tampered with: its SHA-256 is {}, MANIFEST says {}", rel,
                       *digest, it->second)});
    }
  }
  if (!have_manifest) return bad("no MANIFEST: an empty archive");
  for (const auto& entry : x->manifest_) {
    if (!seen.count(entry.path)) {
      x->problems_.push_back(
          {Refusal::kMissing, entry.path,
           fmt::format("MANIFEST names {}, which the bundle does not hold", entry.path)});
    }
  }
  return x;
}

Result<std::unique_ptr<Extracted>> open_run(const fs::path& bundle) {
  auto x = extract(bundle);
  if (!x.ok()) return x.error();
  if (!(*x)->problems().empty()) {
    const Problem& p = (*x)->problems().front();
    return make_error(
        ErrorKind::kBadInput,
        fmt::format("{}: refused ({} problem{}; `rtosbench check` lists them): {}", bundle.string(),
                    (*x)->problems().size(), (*x)->problems().size() == 1 ? "" : "s", p.message));
  }
  return x;
}

}  // namespace rb::bundle
