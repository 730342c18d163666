// precision= and op-fusion= against the roofline (issue 36, item 5): replay's nodes carry their
// ops' FLOPs and bytes, and each of the two what-ifs says the FLOPs its changed nodes keep and
// the least time the roofline allows them on the recording host (its hardware.json peaks, the
// step view's and the report's), and predicts no less. On hand-built graphs (a fused chain's
// FLOPs, a bound that binds), and on a real PyTorch MLP (tests/programs/torch_mlp_precision.py)
// recorded in FP32 and again run in BF16 (torch.autocast): the FLOPs kept equal the step view's
// and the textbook count, and the BF16 run's matrix products take no less than the roofline
// allows.
#include <gtest/gtest.h>
#include <time.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/replay/predict.h"
#include "analysis/replay/simulate.h"
#include "analysis/replay/whatif_kind.h"
#include "core/files.h"
#include "format/import/kineto/import.h"
#include "hand_kineto.h"
#include "test_util.h"
#include "whatif_real.h"

namespace tt {
namespace {

using analysis::replay::Graph;
using analysis::replay::NodeKind;
using analysis::replay::StepGraph;
using nlohmann::json;

double Parse(const std::string&, const std::string& x) { return std::stod(x); }

// Add(10) and Mul(30) with FLOPs 1000 and 3000 and bytes 800 and 400, then MatMul(50) with 1e6
// FLOPs, on one thread, under a CPU of 1e12 FLOP/s FP32 and 2e12 BF16 (1000 and 2000 FLOPs a ns).
StepGraph Hand() {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 0);
  uint32_t t = g.AddResource("thread", 0);
  auto op = [&](const std::string& name, uint64_t ns, int64_t flops, int64_t bytes) {
    uint32_t v = g.AddNode(t, g.AddLabel(name), NodeKind::kOp, ns);
    g.nodes[v].float_ops = flops, g.nodes[v].moved_bytes = bytes;
    return v;
  };
  uint32_t add = op("a/Add:Add", 10, 1000, 800), mul = op("a/Mul:Mul", 30, 3000, 400),
           mm = op("a/MatMul:MatMul", 50, 1'000'000, -1);
  g.AddEdge(g.ranks[r].source, add, 0);
  g.AddEdge(add, mul, 5);
  g.AddEdge(mul, mm, 5);
  g.AddEdge(mm, g.ranks[r].sink, 0);
  g.cpu_roof = {1e12, 2e12, 0};
  return StepGraph{g, {0}};
}

TEST(ReplayRoofline, FusedChainKeepsItsMembersFlopsAndPrecisionIsBoundByTheHalfPeak) {
  StepGraph sg = Hand();
  auto fused =
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("op-fusion=auto", Parse)});
  const Graph& f = fused[0].graph;
  ASSERT_EQ(f.bounded.size(), 1u);
  EXPECT_EQ(f.bounded[0].float_ops, 4000);  // both members'
  EXPECT_EQ(f.bounded[0].before, 40u);      // 10 + 30
  EXPECT_EQ(f.bounded[0].roof, 4u);         // 4000 FLOPs at 1000 a ns (FP32)
  EXPECT_FALSE(f.bounded[0].raised);
  EXPECT_EQ(f.nodes[f.bounded[0].node].duration, 30u);  // the longest member's
  auto p = analysis::replay::Predict(fused);
  EXPECT_EQ(p.roofline.float_ops, 4000);
  EXPECT_EQ(p.roofline.roof_ns, 4);
  EXPECT_EQ(p.roofline.peak, 1e12);

  // MatMul x 0.1 would be 5 ns; its 1e6 FLOPs at the BF16 peak take 500: raised to 500.
  auto half =
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("precision=bf16:0.1", Parse)});
  const Graph& h = half[0].graph;
  ASSERT_EQ(h.bounded.size(), 1u);
  EXPECT_EQ(h.bounded[0].float_ops, 1'000'000);
  EXPECT_EQ(h.bounded[0].roof, 500u);
  EXPECT_TRUE(h.bounded[0].raised);
  EXPECT_EQ(h.nodes[h.bounded[0].node].duration, 500u);
  EXPECT_EQ(analysis::replay::Simulate(h).predicted[0], 10u + 5 + 30 + 5 + 500);
  // With a memory roof of 1e9 bytes/s, the fused chain's bytes (one member's, 800) take 800 ns.
  sg.graph.cpu_roof.bandwidth = 1e9;
  auto slow =
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("op-fusion=auto", Parse)});
  EXPECT_EQ(slow[0].graph.bounded[0].roof, 800u);
  EXPECT_TRUE(slow[0].graph.bounded[0].raised);
}

// A GPU kernel takes the FLOPs of the op that launched it (PyTorch counts them on the host op),
// through the Kineto importer: a recorded process given a Kineto file of three steps (2 ms each),
// each an aten::linear around an aten::addmm of 64x512 by 512x1024 (2*64*512*1024 FLOPs, by the
// importer's shape formula) whose cudaLaunchKernel ran a 400 us gemm kernel, and a hardware.json
// naming a GPU of 1e13 FLOP/s FP32 and 1e15 BF16. precision=bf16 (GPU kernels x 0.5) keeps the
// product's FLOPs on the kernel; the roofline allows them 67.1 ns at the BF16 peak.
TEST(ReplayRoofline, GpuKernelsTakeTheFlopsOfTheOpThatLaunchedThem) {
  test::TempDir d;
  test::HandKineto k(d.path());
  ASSERT_GT(k.pid, 0);
  std::string trace = k.trace;
  for (int i = 0; i < 3; ++i) {
    double t = 2000.0 * i;
    k.Event(100, "user_annotation", "ProfilerStep#" + std::to_string(i + 1), t, 2000);
    k.Event(100, "cpu_op", "aten::linear", t + 10, 100);
    k.Event(100, "cpu_op", "aten::addmm", t + 12, 90,
            {{"Input Dims", {{1024}, {64, 512}, {512, 1024}}},
             {"Input type", {"float", "float", "float"}}});
    k.Event(100, "cuda_runtime", "cudaLaunchKernel", t + 20, 5, {{"correlation", 100 + i}});
    k.Event(7, "kernel", "ampere_sgemm_128x64_tn", t + 30, 400,
            {{"device", 0}, {"stream", 7}, {"correlation", 100 + i}});
  }
  k.Import();
  // The GPU's peaks, and its memory bandwidth where `memory` (bytes/s) is given; the replay's
  // JSON with precision=bf16.
  auto replay = [&](const std::string& memory) {
    WriteFileAtomic(
        trace + "/hardware.json",
        "{\n  \"gpu_fp32_flops_per_second\": 10000000000000,\n"
        "  \"gpu_bf16_flops_per_second\": 1000000000000000,\n" +
            (memory.empty() ? "" : "  \"gpu_memory_bytes_per_second\": " + memory + ",\n") +
            "  \"gpu_peak_source\": \"a test GPU\"\n}\n");
    auto r = test::RunCmd(
        {TT_CLI, "replay", trace, "--json", "--skip-warmup", "0", "--what-if", "precision=bf16"});
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json();
  };
  json j = replay("");
  ASSERT_EQ(j["steps_replayed"].get<int>(), 3) << j.dump(1);
  json roof = j["what_ifs"][0]["roofline"];
  ASSERT_TRUE(roof.is_object()) << j["what_ifs"][0].dump(1);
  const int64_t flops = 2 * 64 * 512 * 1024;
  EXPECT_EQ(roof["nodes"], 1) << roof.dump();  // the kernel (GPU work only, by default)
  EXPECT_EQ(roof["float_ops"], flops) << roof.dump();
  EXPECT_EQ(roof["peak_flops_per_second"], 1e15);
  EXPECT_TRUE(roof["bandwidth_bytes_per_second"].is_null());
  EXPECT_EQ(roof["roofline_ns"], static_cast<int64_t>(std::ceil(flops / 1e6)));
  EXPECT_EQ(roof["before_ns"], 400000);
  EXPECT_EQ(roof["predicted_ns"], 200000);
  // With a memory roof of 1e12 bytes/s: the product's bytes (bias, input, weight read, output
  // written: 623,616 floats), half of them in BF16, take 1,247 ns, more than its FLOPs.
  json m = replay("1000000000000")["what_ifs"][0]["roofline"];
  EXPECT_EQ(m["bandwidth_bytes_per_second"], 1e12) << m.dump();
  EXPECT_EQ(m["roofline_ns"], static_cast<int64_t>(std::ceil(623616 * 4 / 2 / 1e3))) << m.dump();
  EXPECT_EQ(j["peaks"]["gpu"]["source"], "a test GPU");
}

// rank=R:precision=: the roofline's record holds rank R's changed nodes only.
TEST(ReplayRoofline, OnOneRankItsNodesOnly) {
  Graph g;
  for (int rank = 0; rank < 2; ++rank) {
    size_t r = g.AddRank("rank " + std::to_string(rank), 0, 0);
    uint32_t t = g.AddResource("thread " + std::to_string(rank), static_cast<int32_t>(r));
    uint32_t v = g.AddNode(t, g.AddLabel("MatMul"), NodeKind::kOp, 1000);
    g.nodes[v].float_ops = 1000 * (rank + 1);
    g.AddEdge(g.ranks[r].source, v, 0);
    g.AddEdge(v, g.ranks[r].sink, 0);
  }
  g.cpu_roof = {1e12, 2e12, 0};
  auto one = analysis::replay::Changed(
      {StepGraph{g, {0, 0}}}, {analysis::replay::ParseWhatIf("rank=1:precision=bf16:0.5", Parse)});
  auto p = analysis::replay::Predict(one);
  EXPECT_EQ(p.roofline.nodes, 1);
  EXPECT_EQ(p.roofline.float_ops, 2000);
  EXPECT_EQ(p.roofline.after_ns, 500);
}

// The MLP's FLOPs a step: Linear(512, 1024), Linear(1024, 1024), Linear(1024, 10) on 64 rows,
// forward, the weights' gradients, and the inputs' gradients of the last two.
constexpr int64_t kForward = 2 * 64 * (512 * 1024 + 1024 * 1024 + 1024 * 10);
constexpr int64_t kStepFlops = 2 * kForward + 2 * 64 * (1024 * 1024 + 1024 * 10);

TEST(WhatIfRoofline, PrecisionKeepsTheStepsFlopsAndTheBf16RunTakesNoLessThanTheRoofline) {
  REQUIRE_MODULE("torch");
  test::TempDir d;
  std::string f32 = d / "f32", b16 = d / "b16";
  whatif_test::Record(f32, "torch_mlp_precision.py", {"fp32", "8"}, {});
  whatif_test::Record(b16, "torch_mlp_precision.py", {"bf16", "8"}, {});
  // The op view's (the step view's) FLOPs of each step: the textbook count, in both runs.
  for (const std::string& dir : {f32, b16}) {
    auto r = test::RunCmd(
        {TT_CLI, "stats", dir, "--view", "step", "--json", "--select", "step,float_ops"});
    ASSERT_EQ(r.status, 0) << r.err;
    json view = json::parse(r.out);
    ASSERT_FALSE(view["rows"].empty());
    for (const json& row : view["rows"]) EXPECT_EQ(row["float_ops"], kStepFlops);
  }
  json base = whatif_test::Replay(f32, {"--what-if", "precision=bf16:0.5"});
  ASSERT_FALSE(base.is_null());
  const json& roof = base["what_ifs"][0]["roofline"];
  ASSERT_TRUE(roof.is_object()) << base["what_ifs"][0].dump();
  // Every FLOP of the step is in a matrix product: the what-if keeps them all.
  EXPECT_EQ(roof["float_ops"], kStepFlops) << roof.dump();
  EXPECT_EQ(roof["nodes"], roof["nodes_with_flops"]);
  // Measured against the recording host's BF16 peak (its FP32 one without AVX-512 BF16 or AMX),
  // as hardware.json gives it.
  const json& cpu = base["peaks"]["cpu"];
  ASSERT_TRUE(cpu.is_object()) << base["peaks"].dump();
  double peak = cpu["bf16_flops_per_second"].is_null()
                    ? cpu["fp32_flops_per_second"].get<double>()
                    : std::max(cpu["bf16_flops_per_second"].get<double>(),
                               cpu["fp32_flops_per_second"].get<double>());
  EXPECT_DOUBLE_EQ(roof["peak_flops_per_second"].get<double>(), peak);
  double allowed = static_cast<double>(kStepFlops) / peak * 1e9;
  EXPECT_NEAR(roof["roofline_ns"].get<double>(), allowed, roof["nodes"].get<double>() + 1);
  // Each product x 0.5, above its bound (to a nanosecond a node: each is rounded on its own).
  EXPECT_NEAR(roof["predicted_ns"].get<double>(), roof["before_ns"].get<double>() * 0.5,
              roof["nodes"].get<double>() + 1);
  EXPECT_EQ(roof["raised"], 0);
  // The same program run in BF16 (torch.autocast): its matrix products (the same nodes, the
  // same FLOPs; factor 1 changes nothing) took no less than the roofline allows.
  json real = whatif_test::Replay(b16, {"--what-if", "precision=bf16:1"});
  ASSERT_FALSE(real.is_null());
  const json& r16 = real["what_ifs"][0]["roofline"];
  EXPECT_EQ(r16["float_ops"], kStepFlops) << r16.dump();
  EXPECT_GE(r16["flops_before_ns"].get<double>(), roof["roofline_ns"].get<double>());
  EXPECT_EQ(r16["raised"], 0);
  std::printf(
      "FP32 step %.0f ns, its matrix products %.0f ns; precision=bf16:0.5 predicts "
      "%.0f ns (them: %.0f); the BF16 run's step %.0f ns, its matrix products %.0f ns; "
      "the roofline allows them %.0f ns\n",
      base["measured_median_ns"].get<double>(), roof["before_ns"].get<double>(),
      base["what_ifs"][0]["predicted_median_ns"].get<double>(), roof["predicted_ns"].get<double>(),
      real["measured_median_ns"].get<double>(), r16["flops_before_ns"].get<double>(),
      roof["roofline_ns"].get<double>());
  // A factor beyond the roofline: each product raised to its FLOPs at the peak.
  json fast = whatif_test::Replay(f32, {"--what-if", "precision=bf16:0.0001"});
  ASSERT_FALSE(fast.is_null());
  const json& bound = fast["what_ifs"][0]["roofline"];
  EXPECT_EQ(bound["raised"], bound["nodes"]) << bound.dump();
  EXPECT_EQ(bound["predicted_ns"], bound["roofline_ns"]);
  // The text says it too.
  auto text = test::RunCmd({TT_CLI, "replay", f32, "--what-if", "precision=bf16:0.5"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("FLOPs kept: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("roofline allows: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("peaks: CPU "), std::string::npos) << text.out;
  // And the CSV: the roofline's fields, empty for a what-if without one.
  auto csv = test::RunCmd({TT_CLI, "replay", f32, "--csv", "--section", "what_ifs", "--what-if",
                           "aten::relu=0", "--what-if", "precision=bf16:0.5"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_NE(csv.out.find(",roofline.float_ops,"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find(",roofline,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("," + std::to_string(kStepFlops) + ","), std::string::npos) << csv.out;
  // The report's "what would help most": precision's suggestion (made where the CPU has BF16
  // instructions) says what it keeps and what the roofline allows.
  if (cpu["bf16_flops_per_second"].is_number() &&
      cpu["bf16_flops_per_second"].get<double>() > cpu["fp32_flops_per_second"].get<double>()) {
    auto report = test::RunCmd({TT_CLI, "report", f32, "-o", d / "r.html"}, {}, 120);
    ASSERT_EQ(report.status, 0) << report.err;
    std::string html = ReadFile(d / "r.html");
    EXPECT_NE(html.find("with FLOPs keep 0.5408 GFLOP a step"), std::string::npos);
    EXPECT_NE(html.find("the roofline allows them"), std::string::npos);
  }
}

// A jitted JAX step (tests/programs/jax_flops.py: XLA's ops with XLA's own cost analysis of
// each): precision= keeps the FLOPs of its dots, the op view's; op-fusion= of XLA's fusions keeps
// the fused chains' FLOPs (each a member's, the op view's), at most those of every fusion, and
// the roofline allows them their FLOPs at the FP32 peak.
TEST(WhatIfRoofline, XlaDotsAndFusedChainsKeepTheOpViewsFlops) {
  REQUIRE_MODULE("jax");
  test::TempDir d;
  std::string dir = d / "t";
  whatif_test::Record(dir, "jax_flops.py", {}, {});
  auto r = test::RunCmd(
      {TT_CLI, "stats", dir, "--view", "op", "--json", "--select", "name,occurrence,float_ops"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto steps = test::RunCmd({TT_CLI, "stats", dir, "--view", "step", "--json"});
  ASSERT_EQ(steps.status, 0) << steps.err;
  double n = static_cast<double>(json::parse(steps.out)["rows"].size());
  ASSERT_GT(n, 1);
  double dots = 0, fusions = 0;  // a step's, as the op view counts them
  json ops = json::parse(r.out);
  for (const json& row : ops["rows"]) {
    std::string name = row["name"];
    if (row["float_ops"].is_null()) continue;
    if (name == "dot") dots = row["float_ops"].get<double>() / n;
    if (name.find("_fusion") != std::string::npos) fusions += row["float_ops"].get<double>() / n;
  }
  ASSERT_GT(dots, 0) << r.out;
  json p = whatif_test::Replay(dir, {"--what-if", "precision=bf16:0.5"});
  ASSERT_FALSE(p.is_null());
  EXPECT_DOUBLE_EQ(p["what_ifs"][0]["roofline"]["float_ops"].get<double>(), dots)
      << p["what_ifs"][0]["roofline"].dump();
  json f = whatif_test::Replay(dir, {"--what-if", "op-fusion=_fusion"});
  ASSERT_FALSE(f.is_null());
  const json& roof = f["what_ifs"][0]["roofline"];
  ASSERT_TRUE(roof.is_object()) << f["what_ifs"][0].dump();
  EXPECT_GT(roof["float_ops"].get<double>(), 0) << roof.dump();
  EXPECT_LE(roof["float_ops"].get<double>(), fusions + 1) << roof.dump();
  double fp32 = f["peaks"]["cpu"]["fp32_flops_per_second"].get<double>();
  EXPECT_DOUBLE_EQ(roof["peak_flops_per_second"].get<double>(), fp32);
  EXPECT_NEAR(roof["roofline_ns"].get<double>(), roof["float_ops"].get<double>() / fp32 * 1e9,
              roof["nodes"].get<double>() + 1);
  std::printf(
      "JAX step: dots %.0f FLOPs, fusions %.0f; op-fusion=_fusion keeps %.0f in %.3g "
      "chains, %.0f ns before, %.0f predicted, the roofline %.0f\n",
      dots, fusions, roof["float_ops"].get<double>(), roof["nodes"].get<double>(),
      roof["before_ns"].get<double>(), roof["predicted_ns"].get<double>(),
      roof["roofline_ns"].get<double>());
}

}  // namespace
}  // namespace tt
