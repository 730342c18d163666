// Per-rank what-ifs against a real run (issue 39, item 6): DDP with gloo on 4 ranks
// (tests/programs/torch_ddp_straggler.py, in a network namespace of its own), rank 3 sleeping
// 20 ms inside a "straggler_sleep" range in the even steps only (alternate: the steps with the
// straggler and the same job's steps without it run side by side, under the same load of the
// machine; separate runs of the job moved by 50% from one to the next while the machine
// compiled). `replay --what-if rank=3:like=0` (rank 3's step as the median rank's) and
// `rank=3:straggler_sleep=0` predict the even steps as the odd ones measured: the median
// prediction against the odd steps' median, within 25%: four busy ranks on two cores; in nine
// runs on an idle machine (2026-11-29) the predictions came out 6 to 22% short, mostly 14 to 19%
// (the odd steps' ranks arrived at their all-reduce up to 4 ms apart, and their transfers after
// the last arrival took a median 6.8 ms against 4.3 ms in the even steps: the OS's time slices
// among the 8 busy threads, which processor sharing does not model; docs/replay.md (f)). Replay's suggestions name the straggler
// first. Also counted: the steps whose prediction keeps the others' measured wait for rank 3
// (issue 39: "straggler_sleep=0 keeps the measured wait in 11 of 29 steps"): at most half.
#include <cmath>
#include <cstdio>

#include "whatif_real.h"

namespace tt {
namespace {

using nlohmann::json;
using whatif_test::Replay;

constexpr int kSteps = 40;
constexpr double kSleepMs = 20;

double Median(std::vector<double> v) { return whatif_test::Median(std::move(v)); }

TEST(WhatIfStraggler, LikeTheOtherRanksPredictsTheStepsWithoutTheSleep) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  if (test::RunCmd({"unshare", "-n", "true"}).status != 0)
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  auto r = test::RunCmd({"unshare", "-n", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh",
                         TT_CLI, "record", "-o", d / "t", "--", test::Python(),
                         std::string(TT_SOURCE_DIR) + "/tests/programs/torch_ddp_straggler.py",
                         std::to_string(kSteps), std::to_string(kSleepMs), "4", "alternate"},
                        {}, 280);
  ASSERT_EQ(r.status, 0) << r.err;
  json j = Replay(d / "t", {"--what-if", "rank=3:like=0", "--what-if", "rank=3:straggler_sleep=0",
                            "--suggest", "3"});
  ASSERT_EQ(j["what_ifs"].size(), 3u) << j.dump(1);  // and both together
  ASSERT_EQ(j["ranks"].size(), 4u);
  const json& steps = j["steps"];
  std::vector<size_t> even;
  std::vector<double> with, without;
  for (size_t i = 0; i < steps.size(); ++i) {
    bool slept = steps[i]["numbers"][0].get<int64_t>() % 2 == 0;
    (slept ? with : without).push_back(steps[i]["measured_ns"].get<double>());
    if (slept) even.push_back(i);
  }
  ASSERT_GE(even.size(), 10u);
  double real = Median(without);
  EXPECT_GT(Median(with), real + 0.5 * kSleepMs * 1e6) << "the sleep shows in the even steps";
  for (size_t w = 0; w < 2; ++w) {
    const json& wi = j["what_ifs"][w];
    std::vector<double> predicted;
    size_t kept = 0;
    for (size_t i : even) {
      double p = wi["steps"][i]["predicted_ns"].get<double>();
      predicted.push_back(p);
      kept += p > steps[i]["measured_ns"].get<double>() - kSleepMs * 1e6 / 2;
    }
    double p = Median(predicted);
    std::printf(
        "%s: with the sleep %.2f ms, predicted without %.2f ms, measured without %.2f ms, "
        "error %+.1f%%; %zu of %zu steps keep the wait\n",
        wi["spec"].get<std::string>().c_str(), Median(with) / 1e6, p / 1e6, real / 1e6,
        100 * (p - real) / real, kept, even.size());
    EXPECT_LT(std::fabs(p - real) / real, 0.25) << wi["spec"];
    EXPECT_LE(2 * kept, even.size()) << wi["spec"];
  }
  // What would help most: the straggler, made like the others, first.
  ASSERT_FALSE(j["suggestions"].empty()) << j.dump(1);
  const json& s = j["suggestions"][0];
  EXPECT_EQ(s["kind"], "straggler") << j["suggestions"].dump(1);
  EXPECT_EQ(s["what_if"], "rank=3:like=0");
  EXPECT_GT(s["gain_ns"].get<double>(), 0.25 * kSleepMs * 1e6);  // half the steps sleep
  EXPECT_NE(s["how"].get<std::string>().find("straggler_sleep"), std::string::npos) << s["how"];
}

}  // namespace
}  // namespace tt
