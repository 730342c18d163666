// A PyTorch loop's FLOPs (issue 36): tests/programs/torch_flops.py recorded unchanged, its
// op view's float_ops per aten op against torch.profiler(with_flops=True)'s key_averages on the
// same loop run again on its own; rows whose FLOPs no formula gives say unknown (null in JSON,
// "unknown" in CSV), never 0; --order-by float_ops puts the counted ops first; the scope view
// sums them per nn.Module and gives each module's trainable parameters.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::Program;
using test::Python;
using test::RunCmd;
using test::RunJson;
using test::TempDir;

std::map<std::string, json> RowsByName(const json& j) {
  std::map<std::string, json> rows;
  for (const auto& r : j.value("rows", json::array())) rows[r["name"].get<std::string>()] = r;
  return rows;
}

TEST(TorchFlops, FloatOpsPerAtenOpEqualTorchProfilersWithFlops) {
  REQUIRE_MODULE("torch");
  TempDir d;
  auto r =
      RunCmd({TT_CLI, "record", "-o", d / "t", "--", Python(), Program("torch_flops.py")}, {}, 240);
  ASSERT_EQ(r.status, 0) << r.err;
  auto ref = RunCmd({Python(), Program("torch_flops.py")},
                    {{"TT_TORCH_FLOPS_REFERENCE", d / "reference.json"}}, 240);
  ASSERT_EQ(ref.status, 0) << ref.err;
  json torch_counts = json::parse(ReadFile(d / "reference.json"));
  ASSERT_GE(torch_counts.size(), 5u) << torch_counts.dump();  // conv2d, addmm, mm, bmm, baddbmm
  auto rows = RowsByName(RunJson({TT_CLI, "stats", d / "t", "--view", "op", "--json", "--select",
                                  "name,occurrence,float_ops,flops_method,output_bytes"}));
  for (const auto& [op, want] : torch_counts.items()) {
    SCOPED_TRACE(op);
    ASSERT_TRUE(rows.count(op));
    EXPECT_EQ(rows[op]["occurrence"], want["count"]);
    EXPECT_EQ(rows[op]["float_ops"], want["flops"]);
    EXPECT_EQ(rows[op]["flops_method"], "shape formula");
    EXPECT_GT(rows[op]["output_bytes"].get<int64_t>(), 0);
  }
  // Linear(512, 32) on 16 rows: 2*16*512*32 a call, three steps.
  EXPECT_EQ(torch_counts["aten::addmm"]["flops"].get<int64_t>(),
            3 * (2 * 16 * 512 * 32 + 2 * 16 * 32 * 10));
  // The backward convolution, which torch does not count: the weight's gradient (the input
  // needs none: output_mask [False, True, True]) and the bias's, one add per grad_output element.
  EXPECT_EQ(rows["aten::convolution_backward"]["float_ops"].get<int64_t>(),
            3 * (1327104 / 3 + 16 * 8 * 8 * 8));
  // Its arithmetic intensity: FLOPs over the bytes read (bias, input, weight) and written.
  auto rows_ai = RowsByName(RunJson({TT_CLI, "stats", d / "t", "--view", "op", "--json", "--select",
                                     "name,arithmetic_intensity"}));
  double addmm_bytes =
      4.0 * ((32 + 16 * 512 + 512 * 32 + 16 * 32) + (10 + 16 * 32 + 32 * 10 + 16 * 10));
  EXPECT_NEAR(rows_ai["aten::addmm"]["arithmetic_intensity"].get<double>(),
              (2 * 16 * 512 * 32 + 2 * 16 * 32 * 10) / addmm_bytes, 1e-9);
  EXPECT_TRUE(rows_ai["aten::relu"]["arithmetic_intensity"].is_null());
  ASSERT_TRUE(rows.count("aten::relu"));
  EXPECT_TRUE(rows["aten::relu"]["float_ops"].is_null());
  EXPECT_EQ(rows["aten::relu"]["flops_method"], "unknown");

  auto csv = RunCmd({TT_CLI, "stats", d / "t", "--view", "op", "--csv", "--select",
                     "name,float_ops", "--order-by", "float_ops"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n', 16) + 1),
            "name,float_ops\naten::mm," +
                std::to_string(torch_counts["aten::mm"]["flops"].get<int64_t>()) + "\n");
  EXPECT_NE(csv.out.find("aten::relu,unknown\n"), std::string::npos) << csv.out;

  // The scope view: each nn.Module's FLOPs, its ops' sum, and its trainable parameters, as
  // sum(p.numel()) counts them in the program.
  auto said = test::Said(r.out);
  json scope = RunJson(
      {TT_CLI, "stats", d / "t", "--view", "scope", "--json", "--select", "name,params,float_ops"});
  bool seen = false;
  for (const auto& top : scope["rows"]) {
    if (top["name"] == "Sequential") {
      EXPECT_EQ(top["params"], said["params"]) << top.dump();
    }
    for (const auto& m : top.value("children", json::array()))
      if (m["name"] == "Linear_3") {
        seen = true;
        EXPECT_EQ(m["float_ops"], 3 * 2 * 16 * 512 * 32);
        EXPECT_EQ(m["params"], said["params_linear_3"]);
        EXPECT_EQ(m["params"], 512 * 32 + 32);
      }
  }
  EXPECT_TRUE(seen) << scope.dump();

  // The step view: each step's FLOPs, the textbook count of its ops, and its utilisation of
  // the recording host's peak (hardware.json), the peak's source in a note.
  json steps = RunJson({TT_CLI, "stats", d / "t", "--view", "step", "--json", "--select",
                        "step,float_ops,flops_per_second,mfu,peak_flops_per_second"});
  const int64_t conv = 2 * 16 * 8 * 8 * 8 * 3 * 3 * 3, fc1 = 2 * 16 * 512 * 32,
                fc2 = 2 * 16 * 32 * 10;
  const int64_t per_step = conv + fc1 + fc2            // forward
                           + (conv + 16 * 8 * 8 * 8)   // the weight's and bias's gradients
                           + 2 * fc1 + 2 * fc2         // the Linears' two gradients
                           + 2 * (2 * 4 * 6 * 5 * 7);  // bmm, baddbmm
  ASSERT_EQ(steps["rows"].size(), 3u) << steps.dump();
  for (size_t i = 1; i < 3; ++i) {  // the first step holds no bmm before its marker
    const json& row = steps["rows"][i];
    EXPECT_EQ(row["float_ops"], per_step) << row.dump();
    EXPECT_GT(row["mfu"].get<double>(), 0) << row.dump();
    EXPECT_LT(row["mfu"].get<double>(), 1) << row.dump();
    EXPECT_NEAR(row["flops_per_second"].get<double>() / row["peak_flops_per_second"].get<double>(),
                row["mfu"].get<double>(), 1e-3);
  }
  EXPECT_NE(steps.dump().find("mfu against CPU"), std::string::npos) << steps.dump();
}

}  // namespace
}  // namespace tt
