#pragma once
// A scripted ProcessRunner for unit tests: each call is recorded, and the
// first rule whose program (argv[0]) and argument substring match decides
// the result. The real runner is exercised by process_test.cpp and the
// end-to-end tests.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "util/process.h"

namespace rb::testing {

class FakeProcessRunner final : public ProcessRunner {
 public:
  struct Rule {
    std::string program;   // argv[0]
    std::string contains;  // substring of the joined arguments ("" matches all)
    ProcessResult result;
  };

  void on(std::string program, std::string contains, int exit_code, std::string output) {
    ProcessResult r;
    r.started = true;
    r.exit_code = exit_code;
    r.output = std::move(output);
    rules.push_back(Rule{std::move(program), std::move(contains), r});
  }
  void on_missing(std::string program) {
    ProcessResult r;
    r.started = false;
    r.error = "cannot start '" + program + "': No such file or directory";
    rules.push_back(Rule{std::move(program), "", r});
  }

  ProcessResult run(const ProcessSpec& spec) override {
    calls.push_back(spec.argv);
    cwds.push_back(spec.cwd);
    std::string joined;
    for (size_t i = 1; i < spec.argv.size(); ++i) joined += spec.argv[i] + " ";
    for (const auto& rule : rules) {
      if (rule.program == spec.argv[0] && joined.find(rule.contains) != std::string::npos)
        return rule.result;
    }
    ProcessResult r;
    r.started = false;
    r.error = "no rule for " + spec.argv[0];
    return r;
  }

  Result<std::unique_ptr<ChildProcess>> spawn(const ProcessSpec& spec) override {
    calls.push_back(spec.argv);
    return Error{"FakeProcessRunner does not spawn"};
  }

  std::vector<Rule> rules;
  std::vector<std::vector<std::string>> calls;
  std::vector<std::filesystem::path> cwds;  // each run()'s working directory ("" inherited)
};

}  // namespace rb::testing
