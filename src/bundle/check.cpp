// `rtosbench check`: a bundle's results re-derived from its captures (bundle.h).
#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "bundle/bundle.h"
#include "store/result.h"
#include "util/posix_file.h"
#include "verify/verify.h"

namespace rb::bundle {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The matrix's stack_margin_words as run (its snapshot in the bundle); the
// default when it cannot be read (then a stack margin verdict may differ,
// and says so).
uint64_t stack_margin_of(const fs::path& root) {
  uint64_t margin = 64;
  auto file = regular_file_inside(root, "matrix.yaml");
  if (!file.ok()) return margin;
  try {
    YAML::Node m = YAML::LoadFile(file->string());
    if (m.IsMap() && m["stack_margin_words"]) margin = m["stack_margin_words"].as<uint64_t>();
  } catch (const std::exception&) {
  }
  return margin;
}

// A series as result.json holds it, without its unit (the catalog's word
// for it, not a figure of the capture).
json comparable(const store::SeriesRecord& s) {
  json j = s;
  j.erase("unit");
  return j;
}

std::string differing_keys(const json& recorded, const json& derived) {
  std::string out;
  std::set<std::string> keys;
  for (const auto& [k, v] : recorded.items()) keys.insert(k);
  for (const auto& [k, v] : derived.items()) keys.insert(k);
  for (const auto& k : keys) {
    const json a = recorded.contains(k) ? recorded[k] : json();
    const json b = derived.contains(k) ? derived[k] : json();
    if (a == b) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} recorded, {} re-derived", k, a.is_null() ? "absent" : a.dump(),
                       b.is_null() ? "absent" : b.dump());
    if (out.size() > 400) return out + ", ...";
  }
  return out;
}

struct JobChecker {
  const fs::path& root;
  uint64_t stack_margin;
  CheckReport& report;
  std::string member;  // jobs/<id>/result.json

  void disagree(const std::string& what) {
    report.problems.push_back({Refusal::kDisagrees, member, member + ": " + what});
  }

  // Re-verifies one capture; nullopt when the bundle does not hold it.
  std::optional<verify::Report> reverify(const store::JobResult& r, const store::AttemptRecord& a,
                                         const std::vector<store::SeriesRecord>& series) {
    if (a.raw_file.empty()) return std::nullopt;
    auto file = regular_file_inside(root, fs::path("jobs") / r.job_id / a.raw_file);
    if (!file.ok()) return std::nullopt;  // refused as a member already, or never captured
    verify::Options vo;
    vo.expect = r.expect;
    vo.stack_margin_words = stack_margin;
    for (const auto& s : series)
      if (!s.base.empty()) vo.baselines[s.name] = s.base;
    auto rep = verify::verify_file(*file, vo);
    if (!rep.ok()) {
      disagree(fmt::format("{} cannot be re-verified: {}", a.raw_file, rep.error().message));
      return std::nullopt;
    }
    ++report.captures;
    const std::string outcome = verify::to_string(rep->outcome);
    if (!a.verify_outcome.empty() && a.verify_outcome != outcome) {
      disagree(fmt::format("attempt {}{}: verify outcome {} recorded, {} re-derived from {}",
                           a.number, a.load ? fmt::format(" of load {}", a.load) : "",
                           a.verify_outcome, outcome, a.raw_file));
    }
    return std::move(*rep);
  }

  // The figures of a final attempt against the ones recorded for it.
  void compare(const std::string& whose, const verify::Report& rep, const std::string& raw_file,
               const std::vector<store::SeriesRecord>& series,
               const std::map<std::string, std::string>& conditions,
               const std::vector<store::NotApplicable>& na,
               const std::vector<store::Headline>& headline, bool ok) {
    const std::string from = fmt::format("re-derived from {}", raw_file);
    if (conditions != rep.config)
      disagree(fmt::format("{}conditions differ from the CONFIG {}", whose, from));
    std::map<std::string, json> derived;
    for (const auto& s : rep.series) {
      const store::SeriesRecord rec = store::series_record(s);
      derived[rec.key()] = comparable(rec);
    }
    std::set<std::string> recorded_keys;
    for (const auto& s : series) {
      recorded_keys.insert(s.key());
      auto it = derived.find(s.key());
      if (it == derived.end()) {
        disagree(fmt::format("{}series {} is not in the capture ({})", whose, s.key(), from));
        continue;
      }
      ++report.series;
      const json rec = comparable(s);
      if (rec != it->second)
        disagree(fmt::format("{}series {}: {} ({})", whose, s.key(),
                             differing_keys(rec, it->second), from));
    }
    for (const auto& [key, j] : derived) {
      if (!recorded_keys.count(key))
        disagree(fmt::format("{}series {} of the capture is missing ({})", whose, key, from));
    }
    std::vector<std::pair<std::string, std::string>> na_recorded;
    for (const auto& n : na) na_recorded.emplace_back(n.name, n.reason);
    if (na_recorded != rep.not_applicable)
      disagree(fmt::format("{}not_applicable differs from the NA lines {}", whose, from));
    if (ok) {
      std::vector<json> a, b;
      for (const auto& h : headline) a.push_back(h);
      for (const auto& h : store::headline_of(rep)) b.push_back(h);
      if (a != b) disagree(fmt::format("{}headline differs from the medians {}", whose, from));
    }
  }

  void run(const store::JobResult& r) {
    if (auto s = store::check_figures(r, member); !s.ok()) disagree(s.error().message);
    if (auto s = store::check_captures(r, root); !s.ok()) {
      disagree(s.error().message);
      return;  // a capture that is not the one recorded: its figures prove nothing
    }
    auto final_of = [&](const std::vector<store::AttemptRecord>& attempts,
                        const std::vector<store::SeriesRecord>& series)
        -> std::optional<std::pair<verify::Report, std::string>> {
      std::optional<std::pair<verify::Report, std::string>> last;
      for (size_t i = 0; i < attempts.size(); ++i) {
        auto rep = reverify(r, attempts[i], series);
        if (i + 1 == attempts.size() && rep) last.emplace(std::move(*rep), attempts[i].raw_file);
      }
      return last;
    };
    if (r.loads) {
      for (const auto& l : *r.loads) {
        auto last = final_of(l.attempts, l.series);
        if (last && !l.series.empty())
          compare(fmt::format("load {}: ", l.load), last->first, last->second, l.series,
                  l.conditions, l.not_applicable, l.headline, l.status == store::JobStatus::kOk);
      }
      if (!r.loads->empty()) {
        // The job's own figures are load 1's.
        const auto& first = r.loads->front();
        std::vector<json> a, b;
        for (const auto& s : r.series) a.push_back(comparable(s));
        for (const auto& s : first.series) b.push_back(comparable(s));
        if (a != b) disagree("series differ from load 1's");
      }
      return;
    }
    auto last = final_of(r.attempts, r.series);
    if (last && (!r.series.empty() || !r.conditions.empty()))
      compare("", last->first, last->second, r.series, r.conditions, r.not_applicable, r.headline,
              r.status == store::JobStatus::kOk);
  }
};

}  // namespace

Result<CheckReport> check(const fs::path& bundle) {
  auto x = extract(bundle);
  if (!x.ok()) return x.error();
  CheckReport report;
  report.problems = (*x)->problems();
  report.members = (*x)->manifest().size();
  for (const auto& p : report.problems)
    if (p.kind != Refusal::kNotInManifest && report.members > 0) --report.members;
  const fs::path root = (*x)->root();

  auto run_json = regular_file_inside(root, "run.json");
  if (!run_json.ok()) return report;  // refused (or never there): named among the problems
  auto summary = store::read_run_summary(*run_json);
  if (!summary.ok()) {
    report.problems.push_back({Refusal::kDisagrees, "run.json", summary.error().message});
    return report;
  }
  const uint64_t margin = stack_margin_of(root);
  // Every result the bundle holds (jobs/<id>/result.json) and every one
  // run.json names, by its member name.
  std::map<std::string, const store::RunJobEntry*> results;
  for (const auto& e : (*x)->manifest()) {
    const fs::path p(e.path);
    auto it = p.begin();
    if (std::distance(p.begin(), p.end()) == 3 && *it == "jobs" && p.filename() == "result.json")
      results.emplace(e.path, nullptr);
  }
  for (const auto& job : summary->jobs) {
    const std::string member =
        job.result.empty() ? fmt::format("jobs/{}/result.json", job.id) : job.result;
    if (job.result.empty() && !results.count(member)) continue;  // not finished
    results[member] = &job;
  }
  for (const auto& [member, job] : results) {
    JobChecker jc{root, margin, report, member};
    if (auto p = member_path_problem(member); !p.empty()) {
      jc.disagree(fmt::format("run.json names a result as {}: {}", member, p));
      continue;
    }
    auto file = regular_file_inside(root, member);
    if (!file.ok()) {
      bool refused = false;
      for (const auto& p : report.problems) refused = refused || p.member == member;
      if (!refused) jc.disagree("run.json names it, the bundle lacks it");
      continue;
    }
    auto r = store::read_job_result(*file);
    if (!r.ok()) {
      jc.disagree(r.error().message);
      continue;
    }
    ++report.results;
    if (member != fmt::format("jobs/{}/result.json", r->job_id)) {
      jc.disagree(fmt::format("job_id {} is not its directory's", r->job_id));
      continue;
    }
    if (job && store::to_string(r->status) != job->status)
      jc.disagree(fmt::format("status {} where run.json says {}", store::to_string(r->status),
                              job->status));
    jc.run(*r);
  }
  return report;
}

int exit_code(const CheckReport& report) {
  int code = 0;
  for (const auto& p : report.problems) code = std::max(code, static_cast<int>(p.kind));
  return code;
}

}  // namespace rb::bundle
