#include "matrix/expand.h"

#include <fmt/core.h>
#include <fnmatch.h>

#include <algorithm>
#include <sstream>

namespace rb::matrix {

std::string opt_id(const std::string& opt) {
  std::istringstream in(opt);
  std::string tok;
  while (in >> tok) {
    if (tok.size() >= 2 && tok[0] == '-' && tok[1] == 'O') {
      // Only [A-Za-z0-9] of it: an id never holds a path separator or a dot.
      std::string id;
      for (char c : tok.substr(1)) {
        if (std::isalnum(static_cast<unsigned char>(c))) id += c;
      }
      if (!id.empty()) return id;
    }
  }
  std::string id;
  for (char c : opt) {
    if (std::isalnum(static_cast<unsigned char>(c))) id += c;
  }
  return id.empty() ? "opt" : id;
}

std::string job_id(const std::string& kernel, const std::string& opt_id, int tick_hz,
                   int fpu_context, const std::string& checks, int ramfunc, int tickless) {
  return fmt::format("{}-{}-tick{}-fpu{}{}{}{}", kernel, opt_id, tick_hz, fpu_context,
                     checks == "off" ? "" : "-checks", ramfunc ? "-ram" : "",
                     tickless ? "-tickless" : "");
}

std::vector<Job> expand_jobs(const Matrix& m) {
  std::vector<Job> jobs;
  for (const auto& k : m.kernels) {
    std::filesystem::path port_file = m.firmware / "ports" / k.port / "port.cmake";
    bool exists = std::filesystem::exists(port_file);
    for (const auto& opt : m.opts) {
      for (int tick : m.tick_hz) {
        for (int fpu : m.fpu_context) {
          for (const auto& checks : m.checks) {
            for (int ram : m.ramfunc) {
              for (int tl : m.tickless) {
                Job j;
                j.kernel = k;
                j.board = m.board;
                j.opt = opt;
                j.opt_id = opt_id(opt);
                j.tick_hz = tick;
                j.fpu_context = fpu;
                j.checks = checks;
                j.ramfunc = ram;
                j.tickless = tl;
                j.tests = m.tests;
                j.samples = m.samples;
                j.warmup = m.warmup;
                j.build_id = job_id(k.name, j.opt_id, tick, fpu, checks, ram, tl);
                j.id = j.build_id;
                j.port_exists = exists;
                if (!exists) {
                  j.port_missing_reason =
                      fmt::format("no firmware port '{}' yet ({} does not exist)", k.port,
                                  port_file.lexically_relative(m.firmware.parent_path()).string());
                }
                jobs.push_back(std::move(j));
              }
            }
          }
        }
      }
    }
  }
  return select_jobs(std::move(jobs), m.only, m.exclude);
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
