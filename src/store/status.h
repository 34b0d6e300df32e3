#pragma once
// Job and attempt statuses (docs/run.md). A job's status is its last
// attempt's; every attempt keeps its own.
#include <optional>
#include <string>

namespace rb::store {

enum class JobStatus {
  kOk,             // captured, verified against the pins, every check passed
  kInvalid,        // the measurement is invalid (bad counters, pin mismatch, ...)
  kUnverified,     // the numbers cannot be checked (e.g. RESULT without RAW)
  kProtocolError,  // the capture breaks the protocol (crc, lost lines, truncated)
  kTimeout,        // no END within the capture or inactivity timeout
  kFlashError,     // programming / verifying / releasing the target failed
  kPortError,      // the serial port could not be opened or vanished mid-run
  kBuildError,     // the firmware did not build
  kSourceMissing,  // the kernel source is missing or not at the pinned tag
  kPortMissing,    // the firmware has no port for this kernel yet (N/A, never a number)
  kInterrupted,    // attempts only: the run was interrupted during this attempt
  // Jobs only: every load of a repeated job was OK, but their statistics
  // differ by more than the reproducibility tolerance (docs/run.md).
  kNotReproducible,
  // A file the result or a resume relies on (the capture, an attempt,
  // result.json, run.json) could not be written: the run did not keep it.
  kStoreError,
  // The bench names a logic analyzer (its `analyzer:`) and the second ruler
  // is missing; the DWT verdict (OK) and its files are kept, figures too.
  // sigrok-cli is not installed, or it found no device for the driver.
  kAnalyzerMissing,
  // The analyzer's capture overflowed, ended before the stop or was aborted.
  kAnalyzerOverflow,
};

const char* to_string(JobStatus s);  // "OK", "INVALID", ..., "PORT_MISSING", "INTERRUPTED",
                                     // "NOT_REPRODUCIBLE", "STORE_ERROR",
                                     // "ANALYZER_MISSING", "ANALYZER_OVERFLOW"
std::optional<JobStatus> status_from_string(const std::string& s);

// OK and PORT_MISSING (a known absence, reported with its reason) do not
// make a run fail.
bool counts_as_success(JobStatus s);
// BUILD_ERROR, SOURCE_MISSING, FLASH_ERROR, PORT_ERROR, STORE_ERROR,
// ANALYZER_MISSING, ANALYZER_OVERFLOW: the bench or the setup failed, not the
// measurement.
bool is_infrastructure_failure(JobStatus s);
// ANALYZER_MISSING, ANALYZER_OVERFLOW: the DWT capture verified OK, the
// second ruler is what failed.
bool is_analyzer_failure(JobStatus s);

}  // namespace rb::store
