// A JAX step's FLOPs (issue 36): tests/programs/jax_flops.py (a jitted MLP training step)
// recorded unchanged; each step's float_ops in the step view, the sum of its XLA ops' FLOPs
// from the HLO the profile holds (format/import/xspace/hlo_cost.h), against XLA's own
// cost_analysis()['flops'] of the same compiled step (within 1%) and the MLP's textbook count
// (within 2%), with an mfu and the peak's source.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::Program;
using test::Python;
using test::RunCmd;
using test::RunJson;
using test::Said;
using test::TempDir;

TEST(JaxFlops, StepFloatOpsEqualXlasCostAnalysis) {
  REQUIRE_MODULE("jax");
  TempDir d;
  auto r =
      RunCmd({TT_CLI, "record", "-o", d / "t", "--", Python(), Program("jax_flops.py")}, {}, 240);
  ASSERT_EQ(r.status, 0) << r.err;
  auto said = Said(r.out);
  double xla = static_cast<double>(said["cost_analysis_flops"]);
  ASSERT_GT(xla, 0) << r.out;
  double b = said["batch"], i = said["inputs"], h = said["hidden"], o = said["outputs"];
  // The products: forward x.W1 and h.W2; backward dW2, dh and dW1 (x needs no gradient).
  double textbook = 2 * b * (2 * i * h + 3 * h * o);
  json steps = RunJson({TT_CLI, "stats", d / "t", "--view", "step", "--json", "--select",
                        "step,warmup,float_ops,flops_method,mfu"});
  ASSERT_EQ(steps["rows"].size(), 5u) << steps.dump();
  for (const json& row : steps["rows"]) {
    SCOPED_TRACE(row.dump());
    ASSERT_TRUE(row["float_ops"].is_number());
    double ours = row["float_ops"].get<double>();
    EXPECT_LT(std::abs(ours - xla) / xla, 0.01) << "XLA's cost analysis: " << xla;
    EXPECT_LT(std::abs(ours - textbook) / textbook, 0.02) << "textbook: " << textbook;
    EXPECT_EQ(row["flops_method"], "shape formula");
    EXPECT_GT(row["mfu"].get<double>(), 0);
  }
  EXPECT_NE(steps.dump().find("mfu against CPU"), std::string::npos) << steps.dump();
  // The op view: the products have their FLOPs; a while loop's (the PRNG's) are unknown.
  json ops =
      RunJson({TT_CLI, "stats", d / "t", "--view", "op", "--json", "--select",
               "name,float_ops,flops_method,arithmetic_intensity", "--order-by", "float_ops"});
  ASSERT_FALSE(ops["rows"].empty());
  EXPECT_GT(ops["rows"][0]["float_ops"].get<double>(), 0) << ops.dump();
  EXPECT_GT(ops["rows"][0]["arithmetic_intensity"].get<double>(), 1) << ops.dump();
  for (const json& row : ops["rows"]) {
    if (row["float_ops"].is_null()) {
      EXPECT_EQ(row["flops_method"], "unknown") << row.dump();
    }
  }
}

}  // namespace
}  // namespace tt
