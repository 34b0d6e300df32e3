#pragma once
// A run as one publishable file (docs/results.md, "Bundles"): a tar archive
// compressed with zstd (libarchive), every member under one top directory
// named after the run, its first member `<top>/MANIFEST` holding the SHA-256
// of every other member (`sha256sum` format). A bundle comes from elsewhere:
// reading one writes only into a private temporary directory, extracts only
// the regular files MANIFEST names, and refuses absolute paths, `..`,
// symbolic and hard links, devices and oversized members (docs/security.md).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rb::bundle {

// Limits on what is read: a member, all members together, and their number.
inline constexpr uint64_t kMaxMemberBytes = uint64_t{1} << 30;     // 1 GiB
inline constexpr uint64_t kMaxTotalBytes = uint64_t{4} << 30;      // 4 GiB
inline constexpr uint64_t kMaxManifestBytes = uint64_t{16} << 20;  // 16 MiB
inline constexpr size_t kMaxMembers = 100000;

// ---- MANIFEST -------------------------------------------------------------------

struct ManifestEntry {
  std::string path;    // relative to the top directory
  std::string sha256;  // 64 lowercase hex digits
};

// "<sha256>  <path>\n" per entry, sorted by path: `sha256sum -c MANIFEST`
// checks an unpacked bundle.
std::string manifest_text(std::vector<ManifestEntry> entries);

// Reads MANIFEST. Error kBadInput naming the line: not "<64 hex>  <path>",
// a path that is not safe (member_path_problem), a path twice.
Result<std::vector<ManifestEntry>> parse_manifest(std::string_view text);

// Why `path` cannot name a member (relative to the top directory): "" when
// it can. Refused: empty, absolute, a `.` or `..` part, an empty part, a
// backslash or control character, longer than 1024 bytes.
std::string member_path_problem(std::string_view path);

// ---- writing --------------------------------------------------------------------

struct Written {
  std::filesystem::path file;
  std::string top;     // the top directory: the run directory's name
  size_t members = 0;  // MANIFEST not counted
  uint64_t bytes = 0;  // of the members, uncompressed
};

// Bundles every regular file of the run directory `run_dir` but its lock
// (`run.lock`): run.json, the matrix and bench snapshots, every job's
// result.json, captures, verify reports, attempt and load records, logs and
// the flashed images. The archive's bytes depend only on the files (names
// sorted, times and owners zeroed). Written atomically. Error kCannotRead
// when run_dir is no run directory (no readable run.json), kBadInput when it
// holds a symbolic link or a special file (named), kCannotWrite for `out`.
Result<Written> write_bundle(const std::filesystem::path& run_dir,
                             const std::filesystem::path& out);

// ---- reading --------------------------------------------------------------------

// Whether `path` is a regular file that starts like a bundle (zstd's magic
// number, or a tar header): what `report`, `diff` and `regress` take for a
// bundle rather than a run directory or a baseline file.
bool looks_like_bundle(const std::filesystem::path& path);

// A refusal of one member, by name; the kinds are ordered by `check`'s exit
// code (docs/cli.md).
enum class Refusal {
  kDisagrees = 1,      // a result disagrees with its re-derived capture (check only)
  kTampered = 2,       // a member's bytes do not match its MANIFEST entry
  kNotInManifest = 3,  // a member MANIFEST does not name
  kMissing = 4,        // a MANIFEST entry with no member
};
const char* to_string(Refusal r);  // disagrees, tampered, not_in_manifest, missing

struct Problem {
  Refusal kind;
  std::string member;  // path relative to the top directory
  std::string message;
};

// An extracted bundle: its members in a private temporary directory, which
// is removed with this object.
class Extracted {
 public:
  ~Extracted();
  Extracted(const Extracted&) = delete;
  Extracted& operator=(const Extracted&) = delete;

  const std::filesystem::path& bundle() const { return bundle_; }
  const std::string& top() const { return top_; }
  // The run directory: <temp>/<top>.
  std::filesystem::path root() const { return temp_ / top_; }
  const std::vector<ManifestEntry>& manifest() const { return manifest_; }
  // Members refused by name; a refused member is not in root().
  const std::vector<Problem>& problems() const { return problems_; }
  uint64_t bytes() const { return bytes_; }

 private:
  friend Result<std::unique_ptr<Extracted>> extract(const std::filesystem::path&);
  Extracted() = default;
  std::filesystem::path bundle_, temp_;
  std::string top_;
  std::vector<ManifestEntry> manifest_;
  std::vector<Problem> problems_;
  uint64_t bytes_ = 0;
};

// Extracts the members MANIFEST names whose bytes match it; the others are
// Problems. Error kCannotRead when the file cannot be read; kBadInput (the
// member named) when it is no bundle or hostile: not a zstd-compressed or
// plain tar, no MANIFEST first, a member outside the top directory, an
// unsafe path, a link, a device, FIFO or other special file, a member twice,
// a member or the whole beyond the limits above.
Result<std::unique_ptr<Extracted>> extract(const std::filesystem::path& bundle);

// extract(), then refuses (kBadInput, naming the first refused member and
// why) a bundle with any Problem: what `report`, `diff` and `regress` read.
Result<std::unique_ptr<Extracted>> open_run(const std::filesystem::path& bundle);

// ---- checking -------------------------------------------------------------------

struct CheckReport {
  std::vector<Problem> problems;  // every refusal, the members' first
  size_t members = 0;             // extracted and matching MANIFEST
  size_t results = 0;             // result.json files checked
  size_t captures = 0;            // captures re-verified
  size_t series = 0;              // series whose statistics were re-derived and compared
};

// `rtosbench check BUNDLE`: extract(), then for every job of run.json its
// result.json: readable, figures consistent (store::check_figures), every
// capture its raw_sha256 names and re-verified (src/verify, against the
// result's pins): each attempt's outcome the recorded one; of the final
// attempt (of every load) the conditions, series with every statistic,
// NA lines and headline the recorded ones. Errors as extract().
Result<CheckReport> check(const std::filesystem::path& bundle);

// 0 when the report has no problem, else the largest Refusal among them.
int exit_code(const CheckReport& report);

}  // namespace rb::bundle
