#include "run/plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "matrix/expand.h"

namespace rb::run {

namespace {

// The loads of a job: one per repeat, each kept when it reached its final
// status in an earlier session.
std::vector<LoadNode> loads_of(const matrix::Job& job, int planned, const RunDirectory& dir) {
  if (planned <= 1) return {LoadNode{0, dir.job_dir(job.id), std::nullopt}};
  std::vector<LoadNode> out;
  for (int k = 1; k <= planned; ++k) {
    LoadNode l{k, dir.load_dir(job.id, k), std::nullopt};
    if (auto kept = store::read_load(l.dir / "load.json"); kept.ok()) l.kept = std::move(*kept);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

Plan make_plan(const matrix::Matrix& m, const RunDirectory& dir) {
  Plan p;
  p.loads_per_job = std::max(1, m.repeats);
  const std::set<std::string> finished = dir.finished_jobs();
  std::map<std::string, size_t> build_of;
  for (auto& job : matrix::expand_jobs(m)) {
    JobNode n;
    n.job = std::move(job);
    if (finished.count(n.job.id)) {
      auto r = store::read_job_result(dir.result_file(n.job.id));
      // A job whose files were not all kept is done again.
      if (r.ok() && r->status != store::JobStatus::kStoreError) n.finished = std::move(*r);
    }
    if (!n.finished && n.job.port_exists) {
      auto [it, inserted] = build_of.emplace(n.job.build_id, p.builds.size());
      if (inserted) p.builds.push_back(BuildNode{n.job.build_id, {}, !n.job.kernel.reference});
      n.build = it->second;
      p.builds[n.build].jobs.push_back(p.jobs.size());
      n.loads = loads_of(n.job, p.loads_per_job, dir);
    }
    p.jobs.push_back(std::move(n));
  }
  return p;
}

}  // namespace rb::run
