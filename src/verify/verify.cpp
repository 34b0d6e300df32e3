#include "verify/verify.h"

#include <fcntl.h>
#include <unistd.h>

#include <iostream>

#include "util/line_reader.h"
#include "util/posix_file.h"

namespace rb::verify {
namespace {

Report run(ByteSource& source, const Options& options, Status* read_status) {
  LogChecker checker(options);
  LineReader::Options reader_options;
  reader_options.buffer = options.read_buffer;
  LineReader reader(source, reader_options);
  Line line;
  while (reader.next(line)) {
    checker.add_line(line.text, line.number, line.overlong, line.control, line.terminated);
  }
  if (!reader.status()) checker.add_read_error(reader.status().error().message);
  if (read_status != nullptr) *read_status = reader.status();
  Report r = checker.finish();
  r.bytes = reader.bytes_consumed();
  return r;
}

}  // namespace

std::string series_unit(const std::string& series, const std::string& counter_unit) {
  if (series == "heap_free_bytes" || series == "heap_largest_free") return "bytes";
  if (series == "heap_frag_permille" || series == "heap_alloc_ok_permille") return "per-mille";
  return counter_unit;
}

// Indexed by Outcome: its exit code (docs/verify.md), its name, its precedence.
constexpr int kExitCodes[] = {0, 1, 2, 3};
constexpr const char* kNames[] = {"valid", "invalid", "protocol_error", "unverified"};
constexpr int kRanks[] = {0, 2, 3, 1};

int exit_code(Outcome o) {
  return kExitCodes[static_cast<size_t>(o)];
}

const char* to_string(Outcome o) {
  return kNames[static_cast<size_t>(o)];
}

Outcome worst(Outcome a, Outcome b) {
  return kRanks[static_cast<size_t>(a)] >= kRanks[static_cast<size_t>(b)] ? a : b;
}

Report verify_stream(std::istream& in, const Options& options) {
  StreamSource source(in);
  Report r = run(source, options, nullptr);
  r.source = "<stream>";
  return r;
}

Result<Report> verify_file(const std::filesystem::path& path, const Options& options) {
  auto file = InputFile::open(path);
  if (!file) return make_error(ErrorKind::kCannotRead, file.error().message);
  FileSource source(std::move(*file));
  Status status;
  Report r = run(source, options, &status);
  if (!status) return make_error(ErrorKind::kCannotRead, status.error().message);
  r.source = path.string();
  return r;
}

Result<Report> verify_log(const std::string& log, const Options& options) {
  Report r;
  if (log == "-") {
    if (::fcntl(STDIN_FILENO, F_GETFD) == -1)
      return make_error(ErrorKind::kCannotRead, "cannot read standard input: it is closed");
    r = verify_stream(std::cin, options);
    r.source = "<stdin>";
  } else {
    auto f = verify_file(log, options);
    if (!f) return f.error();
    r = std::move(*f);
  }
  if (r.bytes == 0) {
    return make_error(
        ErrorKind::kBadInput,
        (log == "-" ? std::string("standard input") : log) +
            " is empty (0 bytes): nothing was captured, so there is no log to verify");
  }
  return r;
}

}  // namespace rb::verify
