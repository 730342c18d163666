// The trainable parameters per PyTorch module path the bootstrap saves (format/module_params.h).
#include "format/module_params.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

TEST(ModuleParams, PathsAndCountsAndNothingElse) {
  auto p = ParseModuleParams(
      "Sequential\t16970\nSequential/Linear_3\t16416\nno tab\n\t5\nSeq/x\t-1\nSeq/y\t12a\n"
      "A name with\ttabs\t7");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p["Sequential"], 16970);
  EXPECT_EQ(p["Sequential/Linear_3"], 16416);
  EXPECT_EQ(p["A name with\ttabs"], 7);
  EXPECT_TRUE(ReadModuleParams("/nonexistent", 1).empty());
}

}  // namespace
}  // namespace tt
