#pragma once
// Errors as values (after ccache's tl::expected + TRY): an expected failure is
// returned as an Error with a kind and a message that names its cause and
// location; only src/cli/ turns it into text, and the exit code comes from the
// kind (exit_code_for), never from the message.
#include <string>
#include <utility>
#include <variant>

namespace rb {

// What went wrong, as a caller acts on it. The exit codes follow sysexits.h.
enum class ErrorKind {
  kInternal,     // a bug or an unexpected state (70, EX_SOFTWARE); the default
  kUsage,        // a command line, matrix or bench file that is not valid (64, EX_USAGE)
  kBadInput,     // an input that was read but is malformed: a capture, a run directory, a database
                 // (65, EX_DATAERR)
  kCannotRead,   // an input that is missing or cannot be read (66, EX_NOINPUT)
  kUnavailable,  // a tool, board or pin the work needs is missing or differs (69, EX_UNAVAILABLE)
  kCannotWrite,  // an output that cannot be created or written (73, EX_CANTCREAT)
  kStore,        // a file a result or resume relies on was not written (74, EX_IOERR)
  kInterrupted,  // SIGINT/SIGTERM (130)
};

// The process exit code of a command that stopped on an error of this kind.
constexpr int exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUsage:
      return 64;
    case ErrorKind::kBadInput:
      return 65;
    case ErrorKind::kCannotRead:
      return 66;
    case ErrorKind::kUnavailable:
      return 69;
    case ErrorKind::kCannotWrite:
      return 73;
    case ErrorKind::kStore:
      return 74;
    case ErrorKind::kInterrupted:
      return 130;
    case ErrorKind::kInternal:
      break;
  }
  return 70;
}

struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::kInternal;
};

// An error of a given kind: make_error(ErrorKind::kCannotRead, "cannot read x").
inline Error make_error(ErrorKind kind, std::string message) {
  return Error{std::move(message), kind};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace rb
