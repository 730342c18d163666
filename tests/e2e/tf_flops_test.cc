// A Keras model.fit's FLOPs (issue 36): tests/programs/tf_keras_flops.py (Conv2D, Flatten,
// two Dense) recorded unchanged; its matrix products' and convolutions' float_ops per node
// (forward, fused by TensorFlow with their bias and activation, and gradients) against the
// textbook formula for their shapes and against TensorFlow's own count
// (ops.get_stats_for_node_def "flops") of the same layers; three steps, the last of 4 rows,
// which Keras traces with its batch unknown (the rows of its input element then count). The
// scope view's params: each Keras layer's count_params().
#include <gtest/gtest.h>

#include <functional>
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

bool Has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

TEST(TfFlops, KerasMatMulAndConvFloatOpsEqualTheFormulaAndTensorFlowsCount) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", Python(), Program("tf_keras_flops.py")},
                  {{"TT_TF_FLOPS_REFERENCE", d / "reference.json"}}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  json ref = json::parse(ReadFile(d / "reference.json"));
  // TensorFlow's own count for a batch of 8 is the textbook one.
  EXPECT_EQ(ref["flops"]["conv"], 2 * 8 * 8 * 8 * 8 * 3 * 3 * 3);
  EXPECT_EQ(ref["flops"]["hidden"], 2 * 8 * 512 * 16);
  EXPECT_EQ(ref["flops"]["logits"], 2 * 8 * 16 * 5);

  json names = RunJson({TT_CLI, "stats", d / "t", "--view", "name", "--json", "--select",
                        "name,occurrence,float_ops,flops_method"});
  const int64_t rows = 8 + 8 + 4;  // three steps
  std::map<std::string, int64_t> forward, gradient;
  int64_t total = 0, unknown = 0;
  for (const json& row : names["rows"]) {
    std::string n = row["name"];
    if (row["float_ops"].is_null()) {
      EXPECT_EQ(row["flops_method"], "unknown") << row.dump();
      unknown++;
      continue;
    }
    int64_t f = row["float_ops"].get<int64_t>();
    total += f;
    for (const char* layer : {"conv", "hidden", "logits"})
      if (Has(n, (std::string("/") + layer).c_str()))
        (Has(n, "gradient_tape") ? gradient : forward)[layer] += f;
  }
  EXPECT_GT(unknown, 0);  // the other ops: unknown, not 0
  // Forward: TensorFlow's count for 8 rows, per row, times the rows of the three steps.
  for (const char* layer : {"conv", "hidden", "logits"})
    EXPECT_EQ(forward[layer], ref["flops"][layer].get<int64_t>() / 8 * rows) << layer << "\n"
                                                                             << names.dump();
  // Gradients: the kernel's of each layer (2*M*N*K, the filter's 2*out*Kh*Kw*Cin) and the
  // inputs' of both Dense layers (the images need none).
  EXPECT_EQ(gradient["conv"], 2 * rows * 8 * 8 * 8 * 3 * 3 * 3) << names.dump();
  EXPECT_EQ(gradient["hidden"], 2 * (2 * rows * 512 * 16)) << names.dump();
  EXPECT_EQ(gradient["logits"], 2 * (2 * rows * 16 * 5)) << names.dump();
  EXPECT_EQ(total, rows * (2 * 27648 + 3 * 16384 + 3 * 160)) << names.dump();

  // The scope view's params: each Keras layer's count_params() on its name scope's row (Keras
  // made them unique: "sequential_1/conv_1"), the model's count_params() on the model's.
  json scope =
      RunJson({TT_CLI, "stats", d / "t", "--view", "scope", "--json", "--select", "name,params"});
  std::map<std::string, int64_t> params;
  std::function<void(const json&, const std::string&)> walk = [&](const json& rows,
                                                                  const std::string& at) {
    for (const json& row : rows) {
      std::string path =
          at.empty() ? row["name"].get<std::string>() : at + "/" + row["name"].get<std::string>();
      if (row.contains("params") && row["params"].is_number() && !Has(path, "gradient_tape"))
        params[path] = row["params"].get<int64_t>();
      walk(row.value("children", json::array()), path);
    }
  };
  walk(scope["rows"], "");
  const std::string model = "StatefulPartitionedCall/sequential_1";
  EXPECT_EQ(params[model], ref["total"]) << scope.dump();
  EXPECT_EQ(params[model + "/conv_1"], ref["params"]["conv"]);
  EXPECT_EQ(params[model + "/hidden_1"], ref["params"]["hidden"]);
  EXPECT_EQ(params[model + "/logits_1"], ref["params"]["logits"]);
  EXPECT_EQ(params[model + "/conv_1"], 3 * 3 * 3 * 8 + 8);
  EXPECT_EQ(params.size(), 4u) << scope.dump();  // the layers with weights and the model

  // The report: the top ops' float_ops and FLOP/s columns, and the roofline, a point per op
  // type whose FLOPs and bytes are known (MatMul, fused MatMul, fused Conv2D, the filter's
  // gradient), under the host's FP32 peak.
  auto rep = RunCmd({TT_CLI, "report", d / "t", "-o", d / "r.html"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::string html = ReadFile(d / "r.html");
  size_t ops = html.find("<table id=\"top-ops\">");
  ASSERT_NE(ops, std::string::npos);
  std::string head = html.substr(ops, html.find("</thead>", ops) - ops);
  EXPECT_TRUE(Has(head, ">float_ops<") && Has(head, ">flops_per_second<")) << head;
  size_t roof = html.find("<section id=\"roofline\">");
  ASSERT_NE(roof, std::string::npos);
  std::string section = html.substr(roof, html.find("</section>", roof) - roof);
  size_t points = 0;
  for (size_t at = 0; (at = section.find("class=\"roofline-op\"", at)) != std::string::npos; ++at)
    ++points;
  EXPECT_EQ(points, 4u) << section;
  EXPECT_TRUE(Has(section, "FP32 peak")) << section;
  // The fused convolution: _MklNativeFusedConv2D with oneDNN's ops (TensorFlow's default on
  // CPUs with AVX-512 and the like), _FusedConv2D without (TF_ENABLE_ONEDNN_OPTS=0, or older CPUs).
  EXPECT_TRUE(Has(section, "FusedConv2D<")) << section;
}

}  // namespace
}  // namespace tt
