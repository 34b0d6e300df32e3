#include "report/raw_capture.h"

#include <fmt/core.h>

#include <map>

#include "protocol/line.h"
#include "protocol/records.h"
#include "util/line_reader.h"
#include "util/posix_file.h"

namespace rb::report {

const RawSeries* RawCapture::find(const std::string& phase, const std::string& name) const {
  for (const auto& s : series) {
    if (s.phase == phase && s.name == name) return &s;
  }
  return nullptr;
}

Result<RawCapture> read_raw_capture(const std::filesystem::path& file, uint64_t max_samples) {
  auto in = InputFile::open(file);
  if (!in.ok()) return in.error();
  FileSource source(std::move(*in));
  LineReader reader(source);
  protocol::LineParser parser;
  RawCapture out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::string phase;
  uint64_t kept = 0;
  Line line;
  while (reader.next(line)) {
    if (line.overlong || line.control) continue;
    const protocol::ParsedLine& p = parser.parse(line.text);
    if (p.kind == protocol::RecordKind::kOther) continue;
    if (p.suffix == protocol::Suffix::kBadCrc || p.suffix == protocol::Suffix::kMalformed ||
        p.error)
      continue;
    switch (p.kind) {
      case protocol::RecordKind::kBegin:
      case protocol::RecordKind::kTest:
        phase.clear();
        break;
      case protocol::RecordKind::kPhase:
        if (auto ph = protocol::decode_phase(p); ph.ok()) phase = std::string(ph->name);
        break;
      case protocol::RecordKind::kRaw: {
        auto key = std::make_pair(phase, std::string(p.raw_name));
        auto it = index.find(key);
        if (it == index.end()) {
          it = index.emplace(key, out.series.size()).first;
          out.series.push_back(RawSeries{phase, std::string(p.raw_name), {}});
        }
        auto& values = out.series[it->second].values;
        kept += p.raw_values.size();
        if (kept > max_samples) {
          return make_error(ErrorKind::kBadInput,
                            fmt::format("{} holds more than {} RAW samples, more than the "
                                        "report keeps",
                                        file.string(), max_samples));
        }
        values.insert(values.end(), p.raw_values.begin(), p.raw_values.end());
        break;
      }
      default:
        break;
    }
  }
  if (!reader.status().ok()) return reader.status().error();
  return out;
}

}  // namespace rb::report
