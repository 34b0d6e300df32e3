// The table of tests/data/verify/cases.tsv through the library
// (verify_log, what the command calls): every log gets exactly the exit
// code and the set of verdict names written there.
// tests.cmake runs the same table through the real binary.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "verify/verify.h"

namespace {

struct Case {
  std::string file;
  std::vector<std::string> options;
  int exit = -1;
  std::set<std::string> verdicts;
  int line = 0;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) {
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

std::vector<Case> load_cases() {
  std::ifstream f(std::string(RTOSBENCH_TEST_DATA) + "/verify/cases.tsv");
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  while (std::getline(f, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    auto cols = split(line, '\t');
    if (cols.size() != 4) {
      ADD_FAILURE() << "cases.tsv:" << number << ": want 4 TAB-separated columns";
      continue;
    }
    Case c;
    c.file = cols[0];
    if (cols[1] != "-") c.options = split(cols[1], ' ');
    c.exit = std::stoi(cols[2]);
    if (cols[3] != "-") {
      for (auto& v : split(cols[3], ',')) c.verdicts.insert(v);
    }
    c.line = number;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out.empty() ? "-" : out;
}

TEST(VerifyCases, EveryLogGetsItsExitCodeAndVerdicts) {
  const auto cases = load_cases();
  ASSERT_GE(cases.size(), 40u);
  for (const Case& c : cases) {
    SCOPED_TRACE("cases.tsv:" + std::to_string(c.line) + " " + c.file);
    rb::verify::Options opt;
    for (size_t i = 0; i < c.options.size(); ++i) {
      ASSERT_EQ(c.options[i], "--expect");
      ASSERT_LT(i + 1, c.options.size());
      const std::string& kv = c.options[++i];
      opt.expect[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    // As `rtosbench verify` reads it: an input it refuses (an empty one) has
    // its error's exit code and no verdicts.
    auto r = rb::verify::verify_log(std::string(RTOSBENCH_TEST_DATA) + "/verify/" + c.file, opt);
    if (!r) {
      EXPECT_EQ(rb::exit_code_for(r.error().kind), c.exit) << r.error().message;
      EXPECT_TRUE(c.verdicts.empty());
      continue;
    }
    std::set<std::string> got;
    for (const auto& v : r->verdicts) got.insert(v.check);
    for (const auto& [check, n] : r->suppressed) got.insert(check);
    EXPECT_EQ(rb::verify::exit_code(r->outcome), c.exit);
    EXPECT_EQ(join(got), join(c.verdicts));
    // Every verdict that is a problem names a line, except whole-log ones.
    for (const auto& v : r->verdicts) {
      if (v.check != "begin_missing" && v.check != "end_missing" && v.check != "expect") {
        EXPECT_GT(v.line, 0u) << v.check << ": " << v.message;
      }
      EXPECT_FALSE(v.message.empty()) << v.check;
    }
  }
}

}  // namespace
