// batch=FACTOR against real runs (issue 35, items 2 and 3): a PyTorch training loop over an MLP
// with Adam (tests/programs/torch_batch_loop.py). Adam's updates of the parameters (about half
// the step at batch 32) do not grow with the batch, and the matrix products grow less than
// twice (their weights' traffic stays): every op x2 (`^aten::=2`, printed beside) misses by far
// more. Two checks:
// - one recording whose steps alternate between batch 32 and 64 (both see the same load on the
//   machine): `batch=2` on the batch-32 steps against the measured batch-64 steps, medians,
//   within 15%;
// - 3 recordings at batch 32 and 3 runs of the program at batch 64, in turn: the quarter (25th
//   percentile) of all predicted steps against that of all steps at 64, within 35% (below).
#include <algorithm>
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

// The quarter of `v` (its 25th percentile).
double Quarter(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 4];
}

// Each step's time of `key` in a replay's JSON: measured ("measured_ns") or a what-if's.
std::vector<double> StepTimes(const nlohmann::json& steps, const char* key) {
  std::vector<double> out;
  for (const auto& s : steps) out.push_back(s[key].get<double>());
  return out;
}

// --suggest's batch=2 (the optimizer's updates, about half the step, shared by twice the
// samples) is the what-if batch=2 of the same replay compared per sample: its step the
// what-if's, its gain the replayed step less half of it.
void ExpectBatchSuggestedPerSample(const nlohmann::json& j) {
  const nlohmann::json* batch = nullptr;
  for (const auto& s : j["suggestions"])
    if (s["what_if"] == "batch=2") batch = &s;
  ASSERT_NE(batch, nullptr) << j["suggestions"].dump(1).substr(0, 3000);
  EXPECT_EQ((*batch)["kind"], "batch");
  EXPECT_EQ((*batch)["samples"], 2.0);
  double step = (*batch)["predicted_ns"].get<double>(), base = j["predicted_ns"].get<double>();
  EXPECT_EQ(step, j["what_ifs"][0]["predicted_ns"].get<double>());
  EXPECT_NEAR((*batch)["gain_ns"].get<double>(), base - step / 2, 2.0);
  EXPECT_NEAR((*batch)["speedup"].get<double>(), base / (step / 2), 1e-6);
  EXPECT_GT((*batch)["speedup"].get<double>(), 1.0);
}

TEST(WhatIfBatch, BatchTwicePredictsTheLoopRunAtTwiceTheBatch) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  // 3 recordings at batch 32, each followed by a run at 64; all steps of each side pooled and
  // compared by their quarter (25th percentile), which keeps the steps that load spared: a
  // burst of load from the rest of the machine lengthened one side's steps by 30 to 100%, and
  // pairs of runs' medians missed by -61% to +114%. The quarters missed by -12% to +31% under a
  // load average of 4 to 5 (docs/replay.md (g)); the alternating run above is the close check.
  std::vector<double> with, predicted, naive, real;
  for (int i = 0; i < 3; ++i) {
    std::string dir = d / ("t" + std::to_string(i)), at64 = d / ("real" + std::to_string(i));
    Record(dir, "torch_batch_loop.py", {"32", "30"}, {});
    Record(at64, "torch_batch_loop.py", {"64", "30"}, {});
    nlohmann::json j =
        Replay(dir, {"--what-if", "batch=2", "--what-if", "^aten::=2", "--suggest", "3"});
    nlohmann::json r = Replay(at64, {});
    ASSERT_EQ(j["what_ifs"].size(), 3u) << j.dump(1);
    ExpectBatchSuggestedPerSample(j);
    ASSERT_FALSE(r.is_null());
    for (double x : StepTimes(j["steps"], "measured_ns")) with.push_back(x);
    for (double x : StepTimes(j["what_ifs"][0]["steps"], "predicted_ns")) predicted.push_back(x);
    for (double x : StepTimes(j["what_ifs"][1]["steps"], "predicted_ns")) naive.push_back(x);
    for (double x : StepTimes(r["steps"], "measured_ns")) real.push_back(x);
  }
  double w = Quarter(with), p = Quarter(predicted), n = Quarter(naive), at = Quarter(real);
  double error = (p - at) / at;
  std::cout << "quarters of 3 runs' steps: batch 32 " << w / 1e6 << " ms; batch=2 predicted "
            << p / 1e6 << " ms, real at batch 64 " << at / 1e6 << " ms (" << at / 64e3
            << " us a sample), error " << 100 * error << "%; every op x2 " << n / 1e6
            << " ms, error " << 100 * (n - at) / at << "%; medians " << Median(predicted) / 1e6
            << " and " << Median(real) / 1e6 << " ms\n";
  EXPECT_GT(p, w);
  EXPECT_LT(p, n);
  EXPECT_LT(std::fabs(error), 0.35);
  std::cout << "per sample: batch 32 " << w / 32e3 << " us, batch=2 predicted " << p / 64e3
            << " us, real at batch 64 " << at / 64e3 << " us\n";

  auto bad = test::RunCmd({TT_CLI, "replay", d / "t0", "--what-if", "batch=0"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("batch=FACTOR needs a factor above 0"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tt
