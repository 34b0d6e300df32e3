#include "report/snapshot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "edges/edges.h"
#include "matrix/load.h"
#include "store/history.h"
#include "util/posix_file.h"
#include "util/yaml_doc.h"

namespace rb::report {

using nlohmann::json;

const std::vector<MetricDef>& metric_defs() {
  // model::statistics(), with how the reports print each: stddev and the
  // jitter ratio with decimals, the others as whole ticks. Its names are
  // string literals, so data() is a C string.
  static const std::vector<MetricDef> kMetrics = [] {
    std::vector<MetricDef> out;
    for (const auto& st : model::statistics()) {
      const bool fraction = st.name == "stddev" || st.name == "jitter";
      out.push_back({st.name.data(), st.key.data(), !fraction, st.worse});
    }
    return out;
  }();
  return kMetrics;
}

const MetricDef* find_metric(const std::string& name) {
  for (const auto& m : metric_defs()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

std::string format_value(const MetricDef& m, double v) {
  if (std::isnan(v)) return "-";
  if (m.integer) return fmt::format("{:.0f}", v);
  if (std::string(m.name) == "jitter") return fmt::format("{:.3f}", v);
  return fmt::format("{:.2f}", v);
}

bool JobSnapshot::figures_verified() const {
  const auto s = store::status_from_string(status);
  return s && (*s == store::JobStatus::kOk || store::is_analyzer_failure(*s));
}

const SeriesValues* JobSnapshot::find(const std::string& phase_, const std::string& name_) const {
  for (const auto& s : series) {
    if (s.phase == phase_ && s.name == name_) return &s;
  }
  return nullptr;
}

const JobSnapshot* RunSnapshot::find(const std::string& job_id) const {
  for (const auto& j : jobs) {
    if (j.id == job_id) return &j;
  }
  return nullptr;
}

Result<Run> load_run(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("{} is not a run directory (not a directory)", dir.string()));
  }
  auto summary = store::read_run_summary(dir / "run.json");
  if (!summary.ok()) {
    return make_error(summary.error().kind, fmt::format("{} is not a run directory: {}",
                                                        dir.string(), summary.error().message));
  }
  Run run;
  run.root = std::filesystem::absolute(dir).lexically_normal();
  if (run.root.filename().empty()) run.root = run.root.parent_path();
  run.summary = std::move(*summary);

  // Job order: run.json's list, then any result.json it does not list
  // (a summary written before the last job finished).
  std::vector<std::string> ids;
  for (const auto& j : run.summary.jobs) ids.push_back(j.id);
  std::vector<std::string> extra;
  for (auto it = std::filesystem::directory_iterator(run.root / "jobs", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string id = it->path().filename().string();
    if (std::find(ids.begin(), ids.end(), id) == ids.end() &&
        std::filesystem::exists(it->path() / "result.json")) {
      extra.push_back(id);
    }
  }
  std::sort(extra.begin(), extra.end());
  ids.insert(ids.end(), extra.begin(), extra.end());

  for (const auto& id : ids) {
    std::filesystem::path file = run.root / "jobs" / id / "result.json";
    // A job id of run.json names a folder of jobs/, never a path out of it.
    auto inside = regular_file_inside(run.root, std::filesystem::path("jobs") / id / "result.json");
    if (!inside.ok() && inside.error().kind == ErrorKind::kBadInput) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("{}/run.json: job {}: {}", run.root.string(), id, inside.error().message));
    }
    if (!std::filesystem::exists(file, ec)) {
      run.unfinished.push_back(id);
      continue;
    }
    auto r = store::read_job_result(file);
    if (!r.ok()) return r.error();
    if (r->job_id != id) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{}: is job {}, not {}", file.string(), r->job_id, id));
    }
    // Checked as `history import` checks them: figures that hang together,
    // captures that are the ones the run hashed.
    if (auto st = store::check_figures(*r, file.string()); !st.ok()) return st.error();
    if (auto st = store::check_captures(*r, run.root); !st.ok()) return st.error();
    run.results.push_back(std::move(*r));
  }
  return run;
}

namespace {

// The statistics of one series by metric name (undefined ones left out).
std::map<std::string, double> metric_values(const store::SeriesRecord& series) {
  std::map<std::string, double> out;
  for (const auto& m : metric_defs()) {
    if (auto v = series.number(m.json_key)) out[m.name] = *v;
  }
  return out;
}

// The board's declarations a result was made under: its record, or for a
// result older than the record, the firmware tree's today (`today`, else
// matrix::default_catalog()); `facts` says which.
store::BoardRecord board_record_of(const store::JobResult& r, const catalog::Catalog* today,
                                   JobSnapshot::BoardFacts& facts) {
  facts = JobSnapshot::BoardFacts::kRecord;
  if (r.board) return *r.board;
  // A result written before runs recorded their board's declarations: the
  // nearest there is, the firmware tree's today (docs/results.md, "board").
  store::BoardRecord b;
  b.name = !r.job.board.empty() ? r.job.board
                                : (r.conditions.count("board") ? r.conditions.at("board") : "");
  facts = JobSnapshot::BoardFacts::kUnknown;
  try {
    const catalog::Catalog& c = today ? *today : matrix::default_catalog();
    if (const auto* info = c.board(b.name)) {
      b.not_measured = info->not_measured;
      b.unstable = info->unstable;
      facts = JobSnapshot::BoardFacts::kToday;
    }
  } catch (const std::exception&) {
  }
  return b;
}

// "not a measurement on this bench: <why>", "unstable on this bench: <why>"
// or "" for a series the board measures.
std::string unjudged_note(const store::BoardRecord& board, const std::string& series) {
  if (auto it = board.not_measured.find(series); it != board.not_measured.end())
    return "not a measurement on this bench: " + it->second;
  if (auto it = board.unstable.find(series); it != board.unstable.end())
    return "unstable on this bench: " + it->second;
  return "";
}

}  // namespace

// The job's edges.json (jobs/ID/edges.json, else beside its last attempt's
// capture.raw), its figures attached to the series it covers. A file that is
// not JSON is a problem of the edges analysis, not of the run: left out.
void attach_edges(const std::filesystem::path& root, JobSnapshot& job) {
  const auto dir = root / "jobs" / job.id;
  std::filesystem::path file = dir / "edges.json";
  if (!std::filesystem::is_regular_file(file)) {
    auto raw = edges::job_capture(dir);
    if (!raw) return;
    file = raw->parent_path() / "edges.json";
  }
  std::ifstream in(file);
  if (!in) return;
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  job.edges_status = j.value("status", "");
  job.edges_refusal = j.value("refusal", "");
  const double tol = j.value("tolerance_ns", 0.0);
  for (const auto& e : j.value("series", nlohmann::json::array())) {
    if (!e.is_object()) continue;
    for (auto& v : job.series) {
      if (v.phase != e.value("phase", "") || v.name != e.value("name", "")) continue;
      EdgeFigures f;
      f.status = e.value("status", "");
      f.tolerance_ns = e.value("tolerance_ns", tol);  // per series since the TK lag
      f.n = e.value("n", uint64_t{0});
      f.paired = e.value("paired", uint64_t{0});
      f.beyond = e.value("beyond_tolerance", uint64_t{0});
      f.period_disagrees = e.value("period_disagrees", false);
      f.grid_period_ns = e.value("grid_period_ns", 0.0);
      f.config_period_ns = e.value("config_period_ns", 0.0);
      auto fig = [&](const char* key, double& med, double& p99, double& max) {
        const auto o = e.value(key, nlohmann::json::object());
        med = o.value("median", 0.0);
        p99 = o.value("p99", 0.0);
        max = o.value("max", 0.0);
      };
      fig("dwt_ns", f.dwt_median, f.dwt_p99, f.dwt_max);
      fig("edge_ns", f.edge_median, f.edge_p99, f.edge_max);
      fig("diff_ns", f.diff_median, f.diff_p99, f.diff_max);
      f.diff_median_cycles = e.value("diff_cycles", nlohmann::json::object()).value("median", 0.0);
      const auto pairs = e.value("pairs", nlohmann::json::object());
      for (const auto& x : pairs.value("dwt_ns", nlohmann::json::array()))
        if (x.is_number()) f.dwt_ns.push_back(x.get<double>());
      for (const auto& x : pairs.value("edge_ns", nlohmann::json::array()))
        if (x.is_number()) f.edge_ns.push_back(x.get<double>());
      v.edges = std::move(f);
    }
  }
}

RunSnapshot snapshot_of(const Run& run, const catalog::Catalog* today) {
  RunSnapshot snap;
  snap.id = run.id();
  snap.source = run.root.string();
  snap.started_at = run.summary.started_at;
  snap.unfinished = run.unfinished;
  for (const store::JobResult& r : run.results) {
    // The record's field, else (older results) its CONFIG echo.
    auto field = [&](const std::string& v, const char* key) {
      auto it = r.conditions.find(key);
      return !v.empty() || it == r.conditions.end() ? v : it->second;
    };
    JobSnapshot job;
    job.id = r.job_id;
    job.kernel = field(r.job.kernel, "kernel");
    job.status = store::to_string(r.status);
    job.reason = r.reason;
    job.unit = field(r.unit, "unit");
    job.conditions = r.conditions;
    job.board = field(r.job.board, "board");
    for (const auto& na : r.not_applicable) job.not_applicable.emplace_back(na.name, na.reason);
    const store::BoardRecord board = board_record_of(r, today, job.board_facts);
    for (const auto& s : r.series) {
      SeriesValues v;
      v.phase = s.phase;
      v.name = s.name;
      v.unjudged = unjudged_note(board, v.name);
      v.hz = s.hz;
      v.has_raw = s.has_raw;
      std::string test = r.verify.test_of(v.phase, v.name);
      v.test = !test.empty() ? test : !s.test.empty() ? s.test : test_of_series(v.name);
      v.source = s.source;
      v.values = metric_values(s);
      v.base = s.base;
      v.calls = s.calls;
      v.refused = s.refused;
      job.series.push_back(std::move(v));
    }
    if (r.loads) {
      const auto& loads = *r.loads;
      job.loads = loads.size();
      for (auto& v : job.series) v.loads.resize(loads.size());
      for (size_t l = 0; l < loads.size(); ++l) {
        for (const auto& s : loads[l].series) {
          for (auto& v : job.series) {
            if (v.phase == s.phase && v.name == s.name) v.loads[l] = metric_values(s);
          }
        }
      }
    }
    attach_edges(run.root, job);
    snap.jobs.push_back(std::move(job));
  }
  return snap;
}

json baseline_json(const RunSnapshot& snapshot, const std::string& exported_at) {
  json jobs = json::array();
  for (const auto& j : snapshot.jobs) {
    json conditions = json::object();
    for (const auto& k : store::pinned_condition_keys()) {
      if (auto it = j.conditions.find(k); it != j.conditions.end()) conditions[k] = it->second;
    }
    if (auto it = j.conditions.find("kernel"); it != j.conditions.end())
      conditions["kernel"] = it->second;
    json series = json::array();
    for (const auto& s : j.series) {
      json values = json::object();
      for (const auto& [k, v] : s.values) values[k] = v;
      json e{
          {"phase", s.phase}, {"name", s.name}, {"test", s.test}, {"hz", s.hz}, {"values", values}};
      if (!s.base.empty()) e["base"] = s.base;
      if (!s.unjudged.empty()) e["unjudged"] = s.unjudged;
      if (!s.loads.empty()) {
        json loads = json::array();
        for (const auto& l : s.loads) loads.push_back(l);
        e["loads"] = loads;
      }
      series.push_back(e);
    }
    json na = json::array();
    for (const auto& [n, r] : j.not_applicable) na.push_back(json{{"name", n}, {"reason", r}});
    jobs.push_back(json{{"job_id", j.id},
                        {"kernel", j.kernel},
                        {"status", j.status},
                        {"reason", j.reason},
                        {"unit", j.unit},
                        {"board", j.board},
                        {"conditions", conditions},
                        {"series", series},
                        {"not_applicable", na}});
  }
  return json{{"schema", kBaselineSchema},  {"schema_version", kBaselineSchemaVersion},
              {"source_run", snapshot.id},  {"started_at", snapshot.started_at},
              {"exported_at", exported_at}, {"jobs", jobs}};
}

namespace {

// A baseline's statistics hang together as a result's do (store::check_figures):
// min <= median <= p90 <= p99 <= p999 <= max and min <= avg <= max, for those
// present. "" when they do, else which two do not.
std::string out_of_order(const std::map<std::string, double>& values) {
  const char* order[] = {"min", "median", "p90", "p99", "p999", "max"};
  const char* below = nullptr;
  for (const char* k : order) {
    auto it = values.find(k);
    if (it == values.end()) continue;
    if (below && it->second < values.at(below))
      return fmt::format("{} {} < {} {}", k, it->second, below, values.at(below));
    below = k;
  }
  auto avg = values.find("avg");
  auto lo = values.find("min"), hi = values.find("max");
  if (avg != values.end() && ((lo != values.end() && avg->second < lo->second) ||
                              (hi != values.end() && avg->second > hi->second)))
    return fmt::format("avg {} outside min..max", avg->second);
  return "";
}

// One series of a baseline's job, its statistics checked.
Result<SeriesValues> baseline_series(const json& s, const std::string& where,
                                     const std::string& job_id) {
  SeriesValues v;
  v.phase = s.value("phase", "");
  v.name = s.at("name").get<std::string>();
  v.test = s.value("test", test_of_series(v.name));
  v.hz = s.value("hz", uint64_t{0});
  v.base = s.value("base", "");
  v.unjudged = s.value("unjudged", "");
  auto bad = [&](const std::string& what) {
    return make_error(ErrorKind::kBadInput,
                      fmt::format("{}: job {} series {}{}", where, job_id, v.key(), what));
  };
  if (v.unjudged.empty() && s.contains("not_measured"))  // baselines before "unjudged"
    v.unjudged = "not a measurement on this bench: " + s.value("not_measured", "");
  const json values = s.value("values", json::object());
  for (const auto& [k, x] : values.items()) {
    if (!find_metric(k)) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{}: job {} series {}: unknown statistic '{}'", where,
                                    printable(job_id), printable(v.key()), printable(k)));
    }
    if (x.is_null()) continue;  // a statistic the run did not have
    if (!x.is_number() || !std::isfinite(x.get<double>()))
      return bad(fmt::format(": statistic '{}' is not a number", k));
    v.values[k] = x.get<double>();
  }
  for (const auto& l : s.value("loads", json::array())) {
    std::map<std::string, double> m;
    for (const auto& [k, x] : l.items()) {
      if (x.is_null()) continue;
      if (!find_metric(k) || !x.is_number() || !std::isfinite(x.get<double>()))
        return bad(fmt::format(": load statistic '{}' is not a known statistic with a number", k));
      m[k] = x.get<double>();
    }
    if (auto why = out_of_order(m); !why.empty()) return bad(" load: " + why);
    v.loads.push_back(std::move(m));
  }
  if (auto why = out_of_order(v.values); !why.empty()) return bad(": " + why);
  return v;
}

}  // namespace

Result<RunSnapshot> load_baseline(const std::filesystem::path& file) {
  auto j = store::read_json_file(file);
  if (!j.ok()) return j.error();
  try {
    if (!j->is_object() || j->value("schema", "") != kBaselineSchema) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("{}: not an rtosbench baseline (schema is not {})",
                                    file.string(), kBaselineSchema));
    }
    if (j->at("schema_version").get<int>() > kBaselineSchemaVersion) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("{}: schema_version {} is newer than this rtosbench ({})", file.string(),
                      j->at("schema_version").get<int>(), kBaselineSchemaVersion));
    }
    RunSnapshot snap;
    snap.is_baseline = true;
    snap.source = file.string();
    snap.id = j->value("source_run", file.filename().string());
    snap.started_at = j->value("started_at", "");
    for (const auto& e : j->at("jobs")) {
      JobSnapshot job;
      job.id = e.at("job_id").get<std::string>();
      job.kernel = e.value("kernel", "");
      job.status = e.value("status", "OK");
      job.reason = e.value("reason", "");
      job.unit = e.value("unit", "");
      job.board = e.value("board", "");
      job.conditions = e.value("conditions", std::map<std::string, std::string>{});
      for (const auto& s : e.value("series", json::array())) {
        auto v = baseline_series(s, file.string(), job.id);
        if (!v.ok()) return v.error();
        job.loads = std::max(job.loads, v->loads.size());
        job.series.push_back(std::move(*v));
      }
      for (const auto& na : e.value("not_applicable", json::array())) {
        job.not_applicable.emplace_back(na.value("name", ""), na.value("reason", ""));
      }
      snap.jobs.push_back(std::move(job));
    }
    return snap;
  } catch (const std::exception& e) {
    return make_error(ErrorKind::kBadInput, fmt::format("{}: {}", file.string(), e.what()));
  }
}

Result<RunSnapshot> load_run_or_baseline(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    auto run = load_run(path);
    if (!run.ok()) return run.error();
    return snapshot_of(*run);
  }
  if (!std::filesystem::exists(path, ec)) {
    return make_error(
        ErrorKind::kCannotRead,
        fmt::format("{} does not exist (give a run directory or a baseline file)", path.string()));
  }
  return load_baseline(path);
}

}  // namespace rb::report
