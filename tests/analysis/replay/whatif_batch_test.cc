// batch=FACTOR against real runs (issue 35, items 2 and 3): a PyTorch training loop over an MLP
// with Adam (tests/programs/torch_batch_loop.py). Adam's updates of the parameters (about half
// the step at batch 32) do not grow with the batch, and the matrix products grow less than
// twice (their weights' traffic stays): every op x2 (`^aten::=2`, printed beside) misses by far
// more. Two checks:
// - one recording whose steps alternate between batch 32 and 64 (both see the same load on the
//   machine): `batch=2` on the batch-32 steps against the measured batch-64 steps, medians;
// - recordings at batch 32 against the program run at batch 64, in 3 pairs (each recording
//   followed by the run at 64): the median of the pairs' errors (a burst of load from the rest
//   of the machine moves one run's steps by 30% or more, hence the wider bound).
#include <cmath>

#include "whatif_real.h"

namespace tt {
namespace {

using whatif_test::Median;
using whatif_test::Record;
using whatif_test::Replay;

TEST(WhatIfBatch, BatchTwicePredictsTheStepsAtTwiceTheBatchInOneRun) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  Record(d / "t", "torch_batch_loop.py", {"32", "40", "alternate"}, {});
  nlohmann::json j = Replay(d / "t", {"--what-if", "batch=2", "--what-if", "^aten::=2"});
  ASSERT_EQ(j["what_ifs"].size(), 3u) << j.dump(1);
  std::vector<double> small, big, predicted, naive;
  for (size_t i = 0; i < j["steps"].size(); ++i) {
    bool even = j["steps"][i]["numbers"][0].get<int64_t>() % 2 == 0;
    (even ? small : big).push_back(j["steps"][i]["measured_ns"].get<double>());
    if (!even) continue;
    predicted.push_back(j["what_ifs"][0]["steps"][i]["predicted_ns"].get<double>());
    naive.push_back(j["what_ifs"][1]["steps"][i]["predicted_ns"].get<double>());
  }
  ASSERT_GE(small.size(), 15u);
  ASSERT_GE(big.size(), 15u);
  double s = Median(small), b = Median(big), p = Median(predicted), n = Median(naive);
  double error = (p - b) / b;
  std::cout << "alternating: batch 32 " << s / 1e6 << " ms, batch=2 predicted " << p / 1e6
            << " ms, batch 64 measured " << b / 1e6 << " ms, error " << 100 * error
            << "%; every op x2 " << n / 1e6 << " ms, error " << 100 * (n - b) / b << "%\n";
  EXPECT_GT(p, s);  // the batch's ops grew
  EXPECT_LT(p, n);  // the optimizer's did not
  EXPECT_LT(std::fabs(error), 0.15);
}

TEST(WhatIfBatch, BatchTwicePredictsTheLoopRunAtTwiceTheBatch) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  // Each recording at batch 32 is followed by the run at 64, and each pair gives an error: the
  // load from the rest of the machine changes less within a pair than over the test.
  std::vector<double> with, predicted, naive, real, errors;
  for (int i = 0; i < 3; ++i) {
    std::string dir = d / ("t" + std::to_string(i)), at64 = d / ("real" + std::to_string(i));
    Record(dir, "torch_batch_loop.py", {"32", "30"}, {});
    Record(at64, "torch_batch_loop.py", {"64", "30"}, {});
    nlohmann::json j = Replay(dir, {"--what-if", "batch=2", "--what-if", "^aten::=2"});
    nlohmann::json r = Replay(at64, {});
    ASSERT_EQ(j["what_ifs"].size(), 3u) << j.dump(1);
    ASSERT_FALSE(r.is_null());
    with.push_back(j["measured_median_ns"].get<double>());
    predicted.push_back(j["what_ifs"][0]["predicted_median_ns"].get<double>());
    naive.push_back(j["what_ifs"][1]["predicted_median_ns"].get<double>());
    real.push_back(r["measured_median_ns"].get<double>());
    errors.push_back(predicted.back() / real.back() - 1);
    EXPECT_GT(predicted.back(), with.back());
    EXPECT_LT(predicted.back(), naive.back());
  }
  double w = Median(with), p = Median(predicted), n = Median(naive), at = Median(real);
  double error = Median(errors);
  std::cout << "batch 32: " << w / 1e6 << " ms a step; batch=2 predicted " << p / 1e6
            << " ms, real at batch 64 " << at / 1e6 << " ms (" << at / 64e3
            << " us a sample); error per pair " << 100 * errors[0] << "%, " << 100 * errors[1]
            << "%, " << 100 * errors[2] << "%, median " << 100 * error
            << "%; every op x2: " << n / 1e6 << " ms\n";
  EXPECT_LT(std::fabs(error), 0.25);

  auto bad = test::RunCmd({TT_CLI, "replay", d / "t0", "--what-if", "batch=0"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("batch=FACTOR needs a factor above 0"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tt
