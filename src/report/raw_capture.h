#pragma once
// The raw samples of a finished job, re-read from its capture with the
// protocol parser, for the distribution plots and the samples CSV. The
// capture was judged by verify when the job ran; here a line that does not
// parse is skipped, never trusted.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace rb::report {

struct RawSeries {
  std::string phase;  // "" outside a phase
  std::string name;
  std::vector<uint64_t> values;  // in capture order (index 0 first)
};

struct RawCapture {
  std::vector<RawSeries> series;  // in capture order
  const RawSeries* find(const std::string& phase, const std::string& name) const;
};

// The samples a report keeps of all its captures together (4 Mi, 32 MiB):
// its memory does not grow with the captures' size.
inline constexpr uint64_t kMaxReportSamples = uint64_t{1} << 22;

// Error when the file cannot be read (missing, unreadable), or kBadInput
// when it holds more than `max_samples` RAW samples (none are kept then).
Result<RawCapture> read_raw_capture(const std::filesystem::path& file,
                                    uint64_t max_samples = kMaxReportSamples);

}  // namespace rb::report
