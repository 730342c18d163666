// Suggestions that name a change (issue 35, item 4) on a recorded input-bound Keras fit
// (tests/programs/tf_input_bound.py: each batch waits about 4 ms for a tf.data map's
// py_function, no prefetch): `replay --suggest` lists the input pipeline first (input=0), with
// its gain (the unchanged prediction less the suggestion's), an uncertainty, and how to make it
// in tf.data's terms; `optimize --json` and the report's "What would help most" list the same
// change first. The map's own line comes with it (the steps waited while its work ran), told as
// the input pipeline's work, not as side work to run every N steps.
#include <cmath>

#include "core/files.h"
#include "whatif_real.h"

namespace tt {
namespace {

using nlohmann::json;
using whatif_test::Replay;

TEST(WhatIfSuggest, InputBoundFitGetsTheInputPipelineFirst) {
  REQUIRE_MODULE("tensorflow");
  test::TempDir d;
  whatif_test::Record(d / "t", "tf_input_bound.py", {}, {{"TF_ENABLE_ONEDNN_OPTS", "1"}});
  json j = Replay(d / "t", {"--suggest", "3"});
  ASSERT_FALSE(j["suggestions"].empty()) << j.dump(1);
  const json& s = j["suggestions"][0];
  EXPECT_EQ(s["kind"], "input") << j["suggestions"].dump(1);
  EXPECT_EQ(s["what_if"], "input=0");
  double base = j["predicted_ns"].get<double>(), gain = s["gain_ns"].get<double>();
  EXPECT_NEAR(gain, base - s["predicted_ns"].get<double>(), 2);
  EXPECT_GT(gain, 0.2 * base) << "the steps wait for their input most of their time";
  EXPECT_GE(s["uncertainty_ns"].get<double>(), 0);
  EXPECT_NE(s["how"].get<std::string>().find("prefetch"), std::string::npos) << s["how"];
  bool map_line = false;
  for (size_t i = 1; i < j["suggestions"].size(); ++i) {  // the largest gain first
    const json& x = j["suggestions"][i];
    EXPECT_LE(x["gain_ns"].get<double>(), gain);
    EXPECT_NE(x["kind"], "op") << "an op x0.5 only where nothing else helps";
    if (x["kind"] == "line" &&
        x["how"].get<std::string>().find("EagerPyFunc") != std::string::npos) {
      map_line = true;
      EXPECT_GT(x["gain_ns"].get<double>(), 0.2 * base) << x.dump();
      EXPECT_NE(x["how"].get<std::string>().find("is the input pipeline's"), std::string::npos)
          << x["how"];
    }
  }
  EXPECT_TRUE(map_line) << j["suggestions"].dump(1);
  auto o = test::RunCmd({TT_CLI, "optimize", d / "t", "--json"}, {}, 120);
  ASSERT_EQ(o.status, 0) << o.err;
  json plan = json::parse(o.out);
  ASSERT_FALSE(plan["suggestions"].empty()) << plan.dump(1);
  EXPECT_EQ(plan["suggestions"][0]["what_if"], "input=0");
  EXPECT_EQ(plan["suggestions"][0]["how"], s["how"]);
  auto r = test::RunCmd({TT_CLI, "report", d / "t", "-o", d / "r.html"}, {}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(d / "r.html");
  size_t at = html.find("<table id=\"suggestions\">");
  ASSERT_NE(at, std::string::npos);
  size_t row = html.find("<tbody>", at);
  EXPECT_EQ(html.find("input=0", row), html.find("<td class=\"name\">input=0</td>", row) + 17)
      << html.substr(at, 2000);
  EXPECT_LT(html.find("input=0", row), html.find("</tr>", row)) << "the first row";
}

}  // namespace
}  // namespace tt
