// The schema check every matrix, bench, kernel.yaml and result file passes.
#include "util/yaml_doc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

namespace rb {
namespace {

// valijson compares integers as int64_t: a number of 2^63 or more would wrap
// negative and pass a maximum, so the check refuses it first, by its path.
TEST(SchemaViolation, ANumberBeyondInt64IsRefusedByItsPath) {
  const nlohmann::json schema = {{"type", "object"}, {"properties", {{"a", {{"type", "array"}}}}}};
  nlohmann::json doc = {{"a", {1, uint64_t{9223372036854775808u}}}};
  EXPECT_EQ(schema_violation(doc, schema),
            "a[1]: 9223372036854775808 is out of range (at most 9223372036854775807)");
  doc["a"][1] = int64_t{9223372036854775807};
  EXPECT_EQ(schema_violation(doc, schema), "");
}

}  // namespace
}  // namespace rb
