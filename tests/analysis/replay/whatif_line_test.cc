// line: and scope: against a real run (issue 35, item 2): a TensorFlow custom loop that writes
// a scalar and a histogram summary every step (tests/programs/tf_summary_loop.py), recorded
// unchanged; `replay --what-if line:tf_summary_loop.py:FIRST-LAST=0` on its two summary lines
// predicts the loop without them, which the same program runs for real (TT_NO_SUMMARY=1): its
// median step, median of 3 recorded runs, within 20%. One TensorFlow thread (TT_TF_THREADS=1):
// with two, the ops beside the histogram's on the other thread ran up to 3x slower on this
// 2-core machine (docs/replay.md), which no trace of the unchanged loop shows. Also: a line with
// no op says which lines are known, and scope: moves the step.
#include <cmath>
#include <regex>

#include "whatif_real.h"

namespace tt {
namespace {

using whatif_test::Record;
using whatif_test::Replay;

const std::map<std::string, std::string> kEnv = {{"TT_TF_THREADS", "1"},
                                                 {"TF_ENABLE_ONEDNN_OPTS", "1"}};

TEST(WhatIfLine, SummaryLinesRemovedPredictTheLoopWithoutThem) {
  REQUIRE_MODULE("tensorflow");
  test::TempDir d;
  auto r = Record(d / "t", "tf_summary_loop.py", {"40"}, kEnv);
  std::smatch m;
  std::string said = r.out + r.err;
  ASSERT_TRUE(std::regex_search(said, m, std::regex("summary_lines (\\d+)-(\\d+)"))) << said;
  std::string lines = m[1].str() + "-" + m[2].str();
  nlohmann::json j = Replay(d / "t", {"--what-if", "line:tf_summary_loop.py:" + lines + "=0",
                                      "--what-if", "scope:^gradient_tape$=0.5"});
  ASSERT_EQ(j["what_ifs"].size(), 3u) << j.dump(1);
  double with = j["measured_median_ns"].get<double>();
  double predicted = j["what_ifs"][0]["predicted_median_ns"].get<double>();
  EXPECT_LT(j["what_ifs"][1]["predicted_median_ns"].get<double>(), with);  // scope: moved it

  auto env = kEnv;
  env["TT_NO_SUMMARY"] = "1";
  double real = whatif_test::RealMedianNs(d, "tf_summary_loop.py", {"40"}, env);
  ASSERT_GT(real, 0);
  double error = (predicted - real) / real;
  std::cout << "summary lines " << lines << ": with them " << with / 1e6
            << " ms, predicted without " << predicted / 1e6 << " ms, real without " << real / 1e6
            << " ms, error " << 100 * error << "%\n";
  EXPECT_LT(predicted, with * 0.8);  // the summaries are a good part of the step
  EXPECT_LT(std::fabs(error), 0.20);

  auto none =
      test::RunCmd({TT_CLI, "replay", d / "t", "--what-if", "line:tf_summary_loop.py:1-2=0"});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_NE(none.err.find("the lines known in that file: "), std::string::npos) << none.err;
}

}  // namespace
}  // namespace tt
