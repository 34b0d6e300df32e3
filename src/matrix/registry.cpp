#include "matrix/registry.h"

#include <algorithm>
#include <set>
#include <sstream>

// The firmware's table of harness tests (an X-macro): the host reads names
// and series; the capability argument is never expanded here.
#include "../../firmware/harness/rb_tests.h"

namespace rb::matrix {

const std::vector<BoardInfo>& known_boards() {
  static const std::vector<BoardInfo> kBoards{
#include "matrix/boards.inc"
  };
  return kBoards;
}

const BoardInfo* find_board(const std::string& name) {
  for (const auto& b : known_boards()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::vector<std::string> board_names() {
  std::vector<std::string> names;
  for (const auto& b : known_boards()) names.push_back(b.name);
  return names;
}

std::vector<std::string> board_flashers() {
  std::set<std::string> all;
  for (const auto& b : known_boards()) all.insert(b.flashers.begin(), b.flashers.end());
  return {all.begin(), all.end()};
}

std::string not_measured_reason(const std::string& board, const std::string& series) {
  const BoardInfo* b = find_board(board);
  if (!b) return "";
  auto it = b->not_measured.find(series);
  return it == b->not_measured.end() ? "" : it->second;
}

std::string unjudged_reason(const std::string& board, const std::string& series) {
  if (auto r = not_measured_reason(board, series); !r.empty()) return r;
  const BoardInfo* b = find_board(board);
  if (!b) return "";
  auto it = b->unstable.find(series);
  return it == b->unstable.end() ? "" : it->second;
}

const std::vector<HarnessTest>& harness_tests() {
  static const std::vector<HarnessTest> kTests = [] {
    struct Row {
      const char* name;
      const char* series;
    };
#define RB_HOST_TEST_ROW(name, caps, series) {#name, series},
    static const Row kRows[] = {RB_TEST_TABLE(RB_HOST_TEST_ROW)};
#undef RB_HOST_TEST_ROW
    std::vector<HarnessTest> tests;
    for (const auto& r : kRows) {
      HarnessTest t{r.name, {}};
      std::istringstream in(r.series);
      for (std::string s; in >> s;) t.series.push_back(s);
      tests.push_back(std::move(t));
    }
    return tests;
  }();
  return kTests;
}

}  // namespace rb::matrix
