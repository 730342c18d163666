// Op what-ifs at any depth against a real PyTorch run (issue 35, item 2): in a plain training
// loop over an MLP whose blocks end in dropout (tests/programs/torch_dropout_loop.py), aten::mm
// runs only nested (in autograd's backward ops) and used to match nothing; now `aten::mm=0.5`
// moves the step, and `aten::dropout=0` predicts the loop with its dropout layers gone
// (TT_NO_DROPOUT=1), median of 3 recorded runs, within 20%. scope: matches nn.Module paths.
#include <cmath>

#include "whatif_real.h"

namespace tt {
namespace {

using whatif_test::Record;
using whatif_test::Replay;

TEST(WhatIfNestedOps, NestedOpsMatchAndDropoutZeroPredictsTheLoopWithout) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  Record(d / "t", "torch_dropout_loop.py", {"30"}, {});
  nlohmann::json j = Replay(d / "t", {"--what-if", "aten::mm=0.5", "--what-if", "aten::dropout=0",
                                      "--what-if", "scope:Linear=0.5"});
  ASSERT_EQ(j["what_ifs"].size(), 4u) << j.dump(1);
  double with = j["measured_median_ns"].get<double>();
  double mm = j["what_ifs"][0]["predicted_median_ns"].get<double>();
  double predicted = j["what_ifs"][1]["predicted_median_ns"].get<double>();
  EXPECT_LT(mm, with * 0.95);  // the backward ops around aten::mm moved
  EXPECT_LT(j["what_ifs"][2]["predicted_median_ns"].get<double>(), with);
  EXPECT_LT(predicted, with);

  double real =
      whatif_test::RealMedianNs(d, "torch_dropout_loop.py", {"30"}, {{"TT_NO_DROPOUT", "1"}});
  ASSERT_GT(real, 0);
  double error = (predicted - real) / real;
  std::cout << "aten::mm=0.5: " << with / 1e6 << " -> " << mm / 1e6
            << " ms; aten::dropout=0: predicted " << predicted / 1e6 << " ms, real without "
            << real / 1e6 << " ms, error " << 100 * error << "%\n";
  EXPECT_LT(std::fabs(error), 0.20);

  auto none = test::RunCmd({TT_CLI, "replay", d / "t", "--what-if", "scope:NoSuchModule=0"});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_NE(none.err.find("no op in a name scope or nn.Module path matching"), std::string::npos)
      << none.err;
}

}  // namespace
}  // namespace tt
