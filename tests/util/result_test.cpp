// rb::ErrorKind and its exit codes (src/util/result.h) against the table of
// docs/cli.md: every kind's code has a row, and every row at 64 or above is
// some kind's code.
#include "util/result.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace {

const rb::ErrorKind kAllKinds[] = {
    rb::ErrorKind::kInternal,   rb::ErrorKind::kUsage,       rb::ErrorKind::kBadInput,
    rb::ErrorKind::kCannotRead, rb::ErrorKind::kUnavailable, rb::ErrorKind::kCannotWrite,
    rb::ErrorKind::kStore,      rb::ErrorKind::kInterrupted,
};

// The first column of docs/cli.md's exit-code table ("| code | verify | ...").
std::set<int> documented_codes() {
  const auto doc = std::filesystem::path(RTOSBENCH_TEST_DATA) / ".." / ".." / "docs" / "cli.md";
  std::ifstream in(doc);
  EXPECT_TRUE(in) << doc;
  std::set<int> codes;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| code |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;  // the table ends
    const size_t end = line.find('|', 1);
    const std::string cell = line.substr(1, end - 1);
    if (cell.find_first_of("0123456789") == std::string::npos) continue;  // |---|
    codes.insert(std::stoi(cell));
  }
  return codes;
}

TEST(ExitCodes, EveryKindHasItsRowInCliMd) {
  const std::set<int> rows = documented_codes();
  ASSERT_FALSE(rows.empty()) << "docs/cli.md: no exit-code table";
  for (rb::ErrorKind k : kAllKinds) {
    EXPECT_TRUE(rows.count(rb::exit_code_for(k)))
        << "exit code " << rb::exit_code_for(k) << " has no row in docs/cli.md";
  }
}

TEST(ExitCodes, EveryCliMdRowFrom64IsAKindsCode) {
  std::set<int> kinds;
  for (rb::ErrorKind k : kAllKinds) kinds.insert(rb::exit_code_for(k));
  for (int code : documented_codes()) {
    if (code < 64) continue;  // outcomes (0-4), not errors
    EXPECT_TRUE(kinds.count(code))
        << "docs/cli.md lists exit code " << code << ", which no ErrorKind has (src/util/result.h)";
  }
}

TEST(ExitCodes, KindsHaveDistinctCodes) {
  std::set<int> seen;
  for (rb::ErrorKind k : kAllKinds) {
    EXPECT_TRUE(seen.insert(rb::exit_code_for(k)).second) << rb::exit_code_for(k);
  }
}

}  // namespace
