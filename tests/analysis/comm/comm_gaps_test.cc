// A straggler's gaps named by the Python line the sampler saw in them (issue 39, item 6), on a
// real job: DDP with gloo on 3 ranks (tests/programs/torch_ddp_straggler.py, in a network
// namespace of its own), the last rank sleeping 20 ms a step in a bare time.sleep (no range
// around it: only the Python sampler sees it). The step view's gap_line, comm's per-rank gaps,
// the report's straggler finding and its suggestion (and replay --suggest's) to make the
// straggler like the others name the program's line of that sleep, as the program's source has
// it; the straggler's gaps per step hold the sleep the program made, the other ranks' do not.
// Skipped where python3 cannot import torch.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "comm_test_util.h"
#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;

constexpr int kSteps = 12;
constexpr double kSleepMs = 20;

// "torch_ddp_straggler.py:N (main)": the line of the program's bare sleep, from its source.
std::string SleepLine() {
  std::ifstream in(test::Program("torch_ddp_straggler.py"));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find("# the straggler's bare sleep") != std::string::npos)
      return "torch_ddp_straggler.py:" + std::to_string(n) + " (main)";
  ADD_FAILURE() << "no bare sleep in torch_ddp_straggler.py";
  return "";
}

TEST(CommGapsTorch, AStragglersBareSleepIsTheLineOfItsGaps) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  test::RunResult r;
  if (!test::RunInNetworkNamespace({TT_CLI, "record", "-o", d / "t", "--", test::Python(),
                                    test::Program("torch_ddp_straggler.py"), std::to_string(kSteps),
                                    std::to_string(kSleepMs), "3", "every", "bare"},
                                   {}, 280, &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string sleep = SleepLine();

  // comm: every rank's gaps per step; the straggler's at the sleep's line, holding the sleep.
  json j = test::CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 3u) << j.dump().substr(0, 2000);
  const json& straggler = j["ranks"][2];
  ASSERT_EQ(straggler["rank"], 2);
  ASSERT_FALSE(straggler["gaps_per_step_ns"].is_null()) << straggler.dump().substr(0, 2000);
  EXPECT_EQ(straggler["gap_line"], sleep);
  double gaps = straggler["gaps_per_step_ns"].get<double>();
  EXPECT_GT(gaps, 0.8 * kSleepMs * 1e6);
  EXPECT_GT(straggler["gap_line_ns"].get<double>(), 0.8 * (kSteps - 1) * kSleepMs * 1e6);
  for (int i = 0; i < 2; ++i)
    EXPECT_LT(j["ranks"][i]["gaps_per_step_ns"].get<double>(), gaps - 0.5 * kSleepMs * 1e6)
        << "rank " << i;
  std::printf("rank 2: %.2f ms a step in gaps, %.2f ms at %s; ranks 0, 1: %.2f, %.2f ms\n",
              gaps / 1e6, straggler["gap_line_ns"].get<double>() / 1e6, sleep.c_str(),
              j["ranks"][0]["gaps_per_step_ns"].get<double>() / 1e6,
              j["ranks"][1]["gaps_per_step_ns"].get<double>() / 1e6);

  // The step view: the straggler's steps (the first but one: the sleep comes before the
  // optimizer's zero_grad, where a step starts) each at the sleep's line.
  auto s = test::RunCmd({TT_CLI, "stats", d / "t", "--view", "step", "--rank", "2", "--json"});
  ASSERT_EQ(s.status, 0) << s.err;
  json steps = json::parse(s.out)["rows"];
  ASSERT_GE(steps.size(), static_cast<size_t>(kSteps - 1));
  size_t at_sleep = 0;
  for (const auto& row : steps) at_sleep += row.value("gap_line", "") == sleep;
  EXPECT_GE(at_sleep + 1, steps.size()) << steps.dump(1).substr(0, 3000);

  // The report's straggler finding says where its time went.
  std::string html = test::ReportOf(d / "t", d / "r.html");
  std::string finding = test::FindingText(html, "straggler");
  EXPECT_NE(finding.find("rank 2"), std::string::npos) << finding;
  EXPECT_NE(finding.find(sleep), std::string::npos) << finding;
  // ... and so does replay's suggestion to make the straggler like the others, where made.
  size_t like = html.find("rank=2:like=0");
  std::printf("report's suggestion rank=2:like=0: %s\n",
              like == std::string::npos ? "none" : "made");
  if (like != std::string::npos) {
    size_t its = html.find("Its steps: ", like);
    ASSERT_NE(its, std::string::npos) << html.substr(like, 2000);
    EXPECT_NE(html.substr(its, 400).find(sleep), std::string::npos) << html.substr(its, 400);
  }
  // replay --suggest on the command line says it as the report does.
  auto rs = test::RunCmd({TT_CLI, "replay", d / "t", "--suggest", "5", "--json"});
  ASSERT_EQ(rs.status, 0) << rs.err;
  const json replay = json::parse(rs.out);  // kept: a range-for over a temporary's member dangles
  bool suggested = false;
  for (const auto& sg : replay["suggestions"])
    if (sg.value("what_if", "") == "rank=2:like=0") {
      suggested = true;
      std::string how = sg.value("how", "");
      EXPECT_NE(how.find("Its steps: "), std::string::npos) << how;
      EXPECT_NE(how.find(sleep), std::string::npos) << how;
    }
  if (like != std::string::npos) {
    EXPECT_TRUE(suggested) << replay["suggestions"].dump(1).substr(0, 3000);
  }
}

}  // namespace
}  // namespace tt
