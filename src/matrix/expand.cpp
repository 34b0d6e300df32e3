#include "matrix/expand.h"

#include <fmt/core.h>
#include <fnmatch.h>

#include <algorithm>

namespace rb::matrix {

namespace {

// Every combination of the axes' values, the first axis varying slowest.
std::vector<model::Variant> combinations(const Matrix& m) {
  std::vector<model::Variant> out{model::Variant{}};
  for (const auto& a : model::axes()) {
    const std::string key(a.key);
    auto it = m.variants.find(key);
    std::vector<std::string> values = it == m.variants.end()
                                          ? std::vector<std::string>{std::string(a.default_value)}
                                          : it->second;
    std::vector<model::Variant> next;
    for (const auto& partial : out) {
      for (const auto& v : values) {
        model::Variant x = partial;
        x[key] = v;
        next.push_back(std::move(x));
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::vector<Job> expand_jobs(const Matrix& m) {
  std::vector<Job> jobs;
  const auto variants = combinations(m);
  for (const auto& k : m.kernels) {
    for (const auto& board : m.boards) {
      for (const auto& v : variants) {
        Job j;
        j.kernel = k;
        j.board = board;
        if (const auto* info = m.catalog.board(board)) j.cpu = info->cpu;
        j.variant = v;
        j.tests = m.tests;
        j.samples = m.samples;
        j.warmup = m.warmup;
        j.build_id = model::job_id(k.name, v) + (m.boards.size() > 1 ? "-" + board : "");
        j.id = j.build_id;
        j.port_exists = k.port_exists;
        if (!k.port_exists) {
          j.port_missing_reason =
              fmt::format("no firmware port '{}' yet (firmware/ports/{}/port.cmake does not exist)",
                          k.port, k.port);
        }
        jobs.push_back(std::move(j));
      }
    }
  }
  return select_jobs(std::move(jobs), m.only, m.exclude);
}

std::map<std::string, std::string> declared_pins(const Matrix& m, const KernelSpec& kernel,
                                                 const std::string& board,
                                                 const std::map<std::string, std::string>& fixed) {
  std::map<std::string, std::string> pins;
  if (const auto* b = m.catalog.board(board)) {
    pins = b->expect;
    // The kernel CPU port its recipe compiles for the board's core.
    if (auto it = kernel.cpu_ports.find(b->cpu);
        it != kernel.cpu_ports.end() && !it->second.empty())
      pins["port_variant"] = it->second;
  }
  for (const auto& [k, v] : m.expect) pins[k] = v;
  for (const auto& [k, v] : fixed) pins[k] = v;
  for (const auto& [k, v] : kernel.expect) {
    // `checks: partial` says what an `off` build of the kernel really is
    // (some checks cannot be compiled out); a job built with checks on
    // still pins `on`.
    if (k == "checks" && v && *v == "partial" && pins.count(k) && pins[k] == "on") continue;
    if (v)
      pins[k] = *v;
    else
      pins.erase(k);
  }
  return pins;
}

std::vector<Job> select_jobs(std::vector<Job> jobs, const std::vector<std::string>& only,
                             const std::vector<std::string>& exclude) {
  auto matches = [](const std::vector<std::string>& globs, const std::string& id) {
    return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
      return ::fnmatch(g.c_str(), id.c_str(), 0) == 0;
    });
  };
  std::erase_if(jobs, [&](const Job& j) {
    return (!only.empty() && !matches(only, j.id)) || matches(exclude, j.id);
  });
  return jobs;
}

}  // namespace rb::matrix
