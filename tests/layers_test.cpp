// The dependency order of src/ (docs/ARCHITECTURE.md, "Layers"): a folder
// includes only folders below it, so a change low in the stack never has to
// know about the code above it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Lowest first. A folder may include itself and any folder before it.
const std::vector<std::string> kLayers = {"util",   "model",  "catalog", "protocol", "stats",
                                          "verify", "edges",  "matrix",  "kernels",  "build",
                                          "probe",  "serial", "lava",    "store",    "import",
                                          "bundle", "report", "run",     "doctor",   "cli"};

int rank_of(const std::string& folder) {
  auto it = std::find(kLayers.begin(), kLayers.end(), folder);
  return it == kLayers.end() ? -1 : static_cast<int>(it - kLayers.begin());
}

struct Violation {
  std::string file;
  int line;
  std::string include;
};

std::vector<Violation> violations_in(const fs::path& src) {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([a-z_0-9]+)/)re");
  std::vector<Violation> out;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    auto ext = entry.path().extension();
    if (ext != ".h" && ext != ".cpp" && ext != ".in") continue;
    std::string folder = fs::relative(entry.path(), src).begin()->string();
    int own = rank_of(folder);
    std::ifstream in(entry.path());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      int dep = rank_of(m[1].str());
      if (own < 0 || dep < 0 || dep > own) {
        out.push_back({fs::relative(entry.path(), src).string(), n, m[1].str()});
      }
    }
  }
  return out;
}

TEST(Layers, EveryFolderOfSrcHasARank) {
  for (const auto& entry : fs::directory_iterator(fs::path(RTOSBENCH_SOURCE_DIR) / "src")) {
    if (!entry.is_directory()) continue;
    EXPECT_GE(rank_of(entry.path().filename().string()), 0)
        << entry.path().filename() << " is not in the layer list of this test and ARCHITECTURE.md";
  }
}

TEST(Layers, NoFolderIncludesOneAboveIt) {
  auto found = violations_in(fs::path(RTOSBENCH_SOURCE_DIR) / "src");
  for (const auto& v : found) {
    ADD_FAILURE() << "src/" << v.file << ":" << v.line << " includes " << v.include
                  << "/, which is above its folder";
  }
}

TEST(Layers, TheCheckFindsAnUpwardInclude) {
  auto dir = fs::temp_directory_path() /
             ("rb-layers-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir / "util");
  std::ofstream(dir / "util" / "x.h")
      << "#pragma once\n#include \"run/runner.h\"\n#include \"util/y.h\"\n";
  auto found = violations_in(dir);
  fs::remove_all(dir);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].file, "util/x.h");
  EXPECT_EQ(found[0].line, 2);
  EXPECT_EQ(found[0].include, "run");
}

}  // namespace
