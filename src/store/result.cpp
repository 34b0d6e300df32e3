#include "store/result.h"

#include "util/atomic_write.h"

#include <fmt/core.h>

#include <ctime>
#include <fstream>

namespace rb::store {

using nlohmann::json;

uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz) {
  if (hz == 0) return 0;
  unsigned __int128 v = static_cast<unsigned __int128>(ticks) * 1000000000u / hz;
  return static_cast<uint64_t>(v);
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json series_json(const verify::SeriesStats& s) {
  json j{
      {"phase", s.phase},
      {"name", s.name},
      {"n", s.n},
      {"hz", s.hz},
      {"has_raw", s.has_raw},
      {"sum_ticks", s.sum},
      {"mean_ticks", s.mean},
      {"stddev_ticks", s.stddev},
      {"jitter", s.jitter},
      {"avg_ticks", s.avg_ticks},
      {"avg_ns", s.avg_ns},
  };
  auto put = [&](const char* name, uint64_t v) {
    j[std::string(name) + "_ticks"] = v;
    j[std::string(name) + "_ns"] = ticks_to_ns(v, s.hz);
  };
  put("min", s.min);
  put("median", s.median);
  put("p90", s.p90);
  put("p99", s.p99);
  put("p999", s.p999);
  put("max", s.max);
  if (s.base_ticks) {
    j["base_ticks"] = *s.base_ticks;
    uint64_t b = *s.base_ticks;
    j["median_minus_base_ticks"] = s.median > b ? s.median - b : 0;
  } else {
    j["base_ticks"] = nullptr;
  }
  return j;
}

std::vector<Headline> headline_of(const verify::Report& report) {
  static const std::pair<const char*, const char*> kHeadline[] = {
      {"wake_latency", ""}, {"api_overhead", ""}, {"round_trip", ""}, {"event_to_task", "idle"}};
  std::string unit = report.config.count("unit") ? report.config.at("unit") : "ticks";
  std::vector<Headline> out;
  for (const auto& [name, phase] : kHeadline) {
    for (const auto& s : report.series) {
      if (s.name == name && s.phase == phase && s.n > 0) {
        out.push_back(Headline{name, phase, s.median, ticks_to_ns(s.median, s.hz), unit});
        break;
      }
    }
  }
  return out;
}

json verdicts_json(const verify::Report& report) {
  json a = json::array();
  for (const auto& v : report.verdicts) {
    a.push_back(json{{"check", v.check}, {"severity", verify::to_string(v.severity)}, {"line", v.line},
                     {"message", v.message}});
  }
  return a;
}

json attempt_json(const AttemptRecord& a) {
  json j{
      {"number", a.number},
      {"status", to_string(a.status)},
      {"reason", a.reason},
      {"board", a.board},
      {"started_at", a.started_at},
      {"seconds", a.seconds},
      {"flash_seconds", a.flash_seconds},
      {"flash_commands", a.flash_commands},
      {"serial_port", a.serial_port},
      {"capture",
       {{"stop", a.capture_stop},
        {"bytes", a.capture_bytes},
        {"lines", a.capture_lines},
        {"target_run_seconds", a.target_run_seconds},
        {"raw_file", a.raw_file},
        {"raw_sha256", a.raw_sha256}}},
      {"verify", {{"outcome", a.verify_outcome}, {"verdicts", a.verdicts}}},
  };
  if (a.load > 0) j["load"] = a.load;
  return j;
}

AttemptRecord attempt_from_json(const json& j) {
  AttemptRecord a;
  a.number = j.at("number").get<int>();
  a.load = j.value("load", 0);
  auto st = status_from_string(j.at("status").get<std::string>());
  if (!st) throw std::runtime_error("attempt status '" + j.at("status").get<std::string>() + "' unknown");
  a.status = *st;
  a.reason = j.value("reason", "");
  a.board = j.value("board", "");
  a.started_at = j.value("started_at", "");
  a.seconds = j.value("seconds", 0.0);
  a.flash_seconds = j.value("flash_seconds", 0.0);
  a.flash_commands = j.value("flash_commands", std::vector<std::string>{});
  a.serial_port = j.value("serial_port", "");
  const json& c = j.at("capture");
  a.capture_stop = c.value("stop", "");
  a.capture_bytes = c.value("bytes", uint64_t{0});
  a.capture_lines = c.value("lines", uint64_t{0});
  a.target_run_seconds = c.value("target_run_seconds", 0.0);
  a.raw_file = c.value("raw_file", "");
  a.raw_sha256 = c.value("raw_sha256", "");
  const json& v = j.at("verify");
  a.verify_outcome = v.value("outcome", "");
  a.verdicts = v.value("verdicts", json::array());
  return a;
}

json to_json(const JobResult& r) {
  json attempts = json::array();
  for (const auto& a : r.attempts) attempts.push_back(attempt_json(a));
  json build_attempts = json::array();
  for (const auto& b : r.build_attempts) {
    build_attempts.push_back(
        json{{"number", b.number}, {"ok", b.ok}, {"reason", b.reason}, {"seconds", b.seconds}, {"log", b.log}});
  }
  json headline = json::array();
  for (const auto& h : r.headline) {
    headline.push_back(json{{"name", h.name},
                            {"phase", h.phase},
                            {"median_ticks", h.median_ticks},
                            {"median_ns", h.median_ns},
                            {"unit", h.unit}});
  }
  json j{
      {"schema", kJobResultSchema},
      {"schema_version", kSchemaVersion},
      {"run_id", r.run_id},
      {"job_id", r.job_id},
      {"build_id", r.build_id},
      {"status", to_string(r.status)},
      {"reason", r.reason},
      {"job", r.job},
      {"kernel_source", r.kernel_source},
      {"toolchain", r.toolchain},
      {"build", r.build},
      {"build_attempts", build_attempts},
      {"expect", r.expect},
      {"attempts", attempts},
      {"conditions", r.conditions},
      {"unit", r.unit},
      {"series", r.series},
      {"not_applicable", r.not_applicable},
      {"headline", headline},
      {"verify", r.verify},
      {"finished_at", r.finished_at},
  };
  // Only repeated jobs carry these: a single-load result stays as it was.
  if (!r.loads.is_null()) j["loads"] = r.loads;
  if (!r.spread.is_null()) j["spread"] = r.spread;
  if (!r.reproducibility.is_null()) j["reproducibility"] = r.reproducibility;
  return j;
}

Result<JobResult> job_result_from_json(const json& j) {
  try {
    if (j.at("schema").get<std::string>() != kJobResultSchema) {
      return Error{fmt::format("schema is '{}', not {}", j.at("schema").get<std::string>(), kJobResultSchema)};
    }
    if (j.at("schema_version").get<int>() > kSchemaVersion) {
      return Error{fmt::format("schema_version {} is newer than this rtosbench ({})",
                               j.at("schema_version").get<int>(), kSchemaVersion)};
    }
    JobResult r;
    r.run_id = j.at("run_id").get<std::string>();
    r.job_id = j.at("job_id").get<std::string>();
    r.build_id = j.value("build_id", r.job_id);
    auto st = status_from_string(j.at("status").get<std::string>());
    if (!st) return Error{fmt::format("status '{}' unknown", j.at("status").get<std::string>())};
    r.status = *st;
    r.reason = j.value("reason", "");
    r.job = j.value("job", json::object());
    r.kernel_source = j.value("kernel_source", json());
    r.toolchain = j.value("toolchain", json());
    r.build = j.value("build", json());
    for (const auto& b : j.value("build_attempts", json::array())) {
      r.build_attempts.push_back(BuildAttemptRecord{b.at("number").get<int>(), b.at("ok").get<bool>(),
                                                    b.value("reason", ""), b.value("seconds", 0.0),
                                                    b.value("log", "")});
    }
    r.expect = j.value("expect", std::map<std::string, std::string>{});
    for (const auto& a : j.at("attempts")) r.attempts.push_back(attempt_from_json(a));
    r.conditions = j.value("conditions", std::map<std::string, std::string>{});
    r.unit = j.value("unit", "");
    r.series = j.value("series", json::array());
    r.not_applicable = j.value("not_applicable", json::array());
    r.verify = j.value("verify", json());
    for (const auto& h : j.value("headline", json::array())) {
      r.headline.push_back(Headline{h.at("name").get<std::string>(), h.value("phase", ""),
                                    h.at("median_ticks").get<uint64_t>(), h.value("median_ns", uint64_t{0}),
                                    h.value("unit", "")});
    }
    r.finished_at = j.value("finished_at", "");
    r.loads = j.value("loads", json());
    r.spread = j.value("spread", json());
    r.reproducibility = j.value("reproducibility", json());
    return r;
  } catch (const std::exception& e) {
    return Error{e.what()};
  }
}

Status write_job_result(const std::filesystem::path& file, const JobResult& r) {
  return write_file_atomic(file, to_json(r).dump(2) + "\n");
}

Result<JobResult> read_job_result(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return Error{fmt::format("cannot read {}", file.string())};
  try {
    auto r = job_result_from_json(json::parse(in));
    if (!r.ok()) return Error{fmt::format("{}: {}", file.string(), r.error().message)};
    return r;
  } catch (const std::exception& e) {
    return Error{fmt::format("{}: not JSON: {}", file.string(), e.what())};
  }
}

}  // namespace rb::store
