#include "verify/verify.h"

#include "util/line_reader.h"
#include "util/posix_file.h"
#include "verify/parallel.h"

#include <algorithm>

namespace rb::verify {
namespace {

int rank(Outcome o) {
  switch (o) {
    case Outcome::kValid:
      return 0;
    case Outcome::kUnverified:
      return 1;
    case Outcome::kInvalid:
      return 2;
    case Outcome::kProtocolError:
      return 3;
  }
  return 3;
}

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

int exit_code(Outcome o) {
  switch (o) {
    case Outcome::kValid:
      return 0;
    case Outcome::kInvalid:
      return 1;
    case Outcome::kProtocolError:
      return 2;
    case Outcome::kUnverified:
      return 3;
  }
  return 2;
}

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::kValid:
      return "valid";
    case Outcome::kInvalid:
      return "invalid";
    case Outcome::kProtocolError:
      return "protocol_error";
    case Outcome::kUnverified:
      return "unverified";
  }
  return "protocol_error";
}

Outcome worst(Outcome a, Outcome b) {
  return rank(a) >= rank(b) ? a : b;
}

Report verify_stream(std::istream& in, const Options& options) {
  StreamSource source(in);
  Report r = run(source, options, nullptr);
  r.source = "<stream>";
  return r;
}

Result<Report> verify_file(const std::filesystem::path& path, const Options& options) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  const unsigned threads = parsing_threads(options);
  const auto size = file->regular_size();
  if (threads > 1 && size && *size >= 2 * std::max<size_t>(options.chunk, 1)) {
    LogChecker checker(options);
    uint64_t bytes = 0;
    Status status = feed_file_parallel(*file, *size, options, threads, checker, bytes);
    Report r = checker.finish();
    if (!status) return status.error();
    r.bytes = bytes;
    r.source = path.string();
    return r;
  }
  FileSource source(std::move(*file));
  Status status;
  Report r = run(source, options, &status);
  if (!status) return status.error();
  r.source = path.string();
  return r;
}

}  // namespace rb::verify
