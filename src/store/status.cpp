#include "store/status.h"

#include <array>
#include <utility>

namespace rb::store {

namespace {
constexpr std::array<std::pair<JobStatus, const char*>, 15> kNames{{
    {JobStatus::kOk, "OK"},
    {JobStatus::kInvalid, "INVALID"},
    {JobStatus::kUnverified, "UNVERIFIED"},
    {JobStatus::kProtocolError, "PROTOCOL_ERROR"},
    {JobStatus::kTimeout, "TIMEOUT"},
    {JobStatus::kFlashError, "FLASH_ERROR"},
    {JobStatus::kPortError, "PORT_ERROR"},
    {JobStatus::kBuildError, "BUILD_ERROR"},
    {JobStatus::kSourceMissing, "SOURCE_MISSING"},
    {JobStatus::kPortMissing, "PORT_MISSING"},
    {JobStatus::kInterrupted, "INTERRUPTED"},
    {JobStatus::kNotReproducible, "NOT_REPRODUCIBLE"},
    {JobStatus::kStoreError, "STORE_ERROR"},
    {JobStatus::kAnalyzerMissing, "ANALYZER_MISSING"},
    {JobStatus::kAnalyzerOverflow, "ANALYZER_OVERFLOW"},
}};
}  // namespace

const char* to_string(JobStatus s) {
  for (const auto& [k, n] : kNames) {
    if (k == s) return n;
  }
  return "?";
}

std::optional<JobStatus> status_from_string(const std::string& s) {
  for (const auto& [k, n] : kNames) {
    if (s == n) return k;
  }
  return std::nullopt;
}

bool counts_as_success(JobStatus s) {
  return s == JobStatus::kOk || s == JobStatus::kPortMissing;
}

bool is_infrastructure_failure(JobStatus s) {
  return s == JobStatus::kBuildError || s == JobStatus::kSourceMissing ||
         s == JobStatus::kFlashError || s == JobStatus::kPortError || s == JobStatus::kStoreError ||
         is_analyzer_failure(s);
}

bool is_analyzer_failure(JobStatus s) {
  return s == JobStatus::kAnalyzerMissing || s == JobStatus::kAnalyzerOverflow;
}

}  // namespace rb::store
