#pragma once
// Child processes behind a small interface so tests can fake failures: the
// real runner (posix_spawn) is used by every stage; unit tests substitute a
// fake that returns scripted exit codes and output.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace rb {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH
  std::filesystem::path cwd;               // empty: inherit
  std::filesystem::path log;               // empty: no log; else stdout+stderr appended
  std::map<std::string, std::string> env;  // added to / replacing the inherited environment
  std::chrono::milliseconds timeout{0};    // 0: none
  // The signal the child gets when rtosbench dies, however it dies: SIGKILL,
  // or SIGTERM for a tool that stops its own children on it (ninja).
  int parent_death_signal = SIGKILL;
};

struct ProcessResult {
  bool started = false;      // false: could not spawn (see error)
  int exit_code = -1;        // valid when exited
  int signal = 0;            // non-zero when killed by a signal
  bool timed_out = false;    // killed because the timeout elapsed
  bool interrupted = false;  // killed because the run was interrupted
  std::string output;        // stdout+stderr, at most the last 1 MiB
  std::string error;         // why it did not start
  bool ok() const { return started && exit_code == 0 && signal == 0 && !timed_out && !interrupted; }
  // One line saying how it ended: "exit status 1", "killed by signal 9",
  // "timed out after 5 s", "could not start: ...".
  std::string describe() const;
  // The last `max_lines` non-empty lines of the output, for error messages.
  std::string tail(size_t max_lines = 8) const;
};

// A process running in the background (QEMU). Destroying it kills it.
class ChildProcess {
 public:
  virtual ~ChildProcess() = default;
  virtual int pid() const = 0;
  // True while the process has not exited (reaps it when it has).
  virtual bool running() = 0;
  // Waits up to `timeout` for exit; returns true when it exited.
  virtual bool wait_for(std::chrono::milliseconds timeout) = 0;
  // SIGTERM, then SIGKILL after `grace`; returns once it is reaped.
  virtual void stop(std::chrono::milliseconds grace) = 0;
  // How it ended; meaningful once running() is false.
  virtual ProcessResult result() const = 0;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Runs to completion (or timeout / interruption). Never throws.
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
  // Starts in the background with stdout+stderr going to spec.log.
  virtual Result<std::unique_ptr<ChildProcess>> spawn(const ProcessSpec& spec) = 0;
};

// The real runner: fork + exec, each child in its own process group (so a
// timeout or Ctrl-C kills cmake's whole tree) and killed by the kernel when
// the thread that started it dies (PR_SET_PDEATHSIG: a kill -9 of
// rtosbench takes QEMU, OpenOCD, pyOCD and cmake with it); output read
// through a pipe. A child must be started and waited for by one thread.
std::unique_ptr<ProcessRunner> make_posix_runner();

// Full path of `name` found in PATH, or empty.
std::filesystem::path find_in_path(const std::string& name);

// SIGKILL to the process group of every child alive now. Async-signal-safe:
// for a signal handler that leaves at once (a second Ctrl-C).
void kill_all_children();

// Set from a signal handler: running processes are killed and waits return.
void request_interrupt();
bool interrupt_requested();
void clear_interrupt();  // tests only

}  // namespace rb
