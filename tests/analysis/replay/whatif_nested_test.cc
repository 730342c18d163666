// Op what-ifs at any depth against a real PyTorch run (issue 35, item 2): in a plain training
// loop over an MLP whose blocks end in dropout (tests/programs/torch_dropout_loop.py), aten::mm
// runs only nested (in autograd's backward ops) and used to match nothing; now `aten::mm=0.5`
// moves the step, and `aten::dropout=0` predicts the loop with its dropout layers gone
// (TT_NO_DROPOUT=1), median of 3 recorded runs against the median prediction of 3 recordings
// of the unchanged loop, within 20%; removing aten::dropout removes its backward op
// (MulBackward0) too. scope: matches nn.Module paths, and `scope:Sequential_0/=0.5` (the first
// block's work halved, its backward ops with it) predicts the loop whose first block is half as
// wide inside (TT_HALF_BLOCK=1), within 20% (issue 35, item 3: a layer halved).
#include <cmath>

#include "whatif_real.h"

namespace tt {
namespace {

using whatif_test::Record;
using whatif_test::Replay;

TEST(WhatIfNestedOps, NestedOpsMatchAndDropoutZeroPredictsTheLoopWithout) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  // Three recordings of the unchanged loop, as of the real change: a burst of load from the
  // rest of the machine made one run's steps 1.45x the others'.
  std::vector<double> with, mm, predicted, halved;
  for (int i = 0; i < 3; ++i) {
    std::string dir = d / ("t" + std::to_string(i));
    Record(dir, "torch_dropout_loop.py", {"30"}, {});
    nlohmann::json j =
        Replay(dir, {"--what-if", "aten::mm=0.5", "--what-if", "aten::dropout=0", "--what-if",
                     "scope:Linear=0.5", "--what-if", "scope:Sequential_0/=0.5"});
    ASSERT_EQ(j["what_ifs"].size(), 5u) << j.dump(1);
    with.push_back(j["measured_median_ns"].get<double>());
    mm.push_back(j["what_ifs"][0]["predicted_median_ns"].get<double>());
    predicted.push_back(j["what_ifs"][1]["predicted_median_ns"].get<double>());
    EXPECT_LT(mm.back(), with.back() * 0.95);  // the backward ops around aten::mm moved
    EXPECT_LT(j["what_ifs"][2]["predicted_median_ns"].get<double>(), with.back());
    EXPECT_LT(predicted.back(), with.back());
    halved.push_back(j["what_ifs"][3]["predicted_median_ns"].get<double>());
  }
  double real =
      whatif_test::RealMedianNs(d, "torch_dropout_loop.py", {"30"}, {{"TT_NO_DROPOUT", "1"}});
  ASSERT_GT(real, 0);
  double w = whatif_test::Median(with), p = whatif_test::Median(predicted);
  double error = (p - real) / real;
  std::cout << "aten::mm=0.5: " << w / 1e6 << " -> " << whatif_test::Median(mm) / 1e6
            << " ms; aten::dropout=0: predicted " << p / 1e6 << " ms, real without " << real / 1e6
            << " ms, error " << 100 * error << "%\n";
  EXPECT_LT(std::fabs(error), 0.20);
  // A layer halved: the real loop's first block half as wide, against its scope's what-if.
  test::TempDir half;
  double real_half =
      whatif_test::RealMedianNs(half, "torch_dropout_loop.py", {"30"}, {{"TT_HALF_BLOCK", "1"}});
  double h = whatif_test::Median(halved), half_error = (h - real_half) / real_half;
  std::cout << "scope:Sequential_0/=0.5: predicted " << h / 1e6 << " ms, real with the block "
            << "half as wide " << real_half / 1e6 << " ms, error " << 100 * half_error << "%\n";
  EXPECT_LT(std::fabs(half_error), 0.20);

  auto none = test::RunCmd({TT_CLI, "replay", d / "t0", "--what-if", "scope:NoSuchModule=0"});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_NE(none.err.find("no op in a name scope or nn.Module path matching"), std::string::npos)
      << none.err;
}

}  // namespace
}  // namespace tt
