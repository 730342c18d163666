// `tensortrace diff A B`: on a job whose ops have exact durations (tests/programs/diff_job.cc)
// each op type's contribution is its known change per step and the contributions add up to the
// step-time difference; a real PyTorch CNN at batch 8 against batch 64 with a GELU added; bad
// input gives one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

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

std::string RecordDiffJob(const TempDir& d, const std::string& name,
                          const std::vector<std::string>& args) {
  std::vector<std::string> argv{TT_CLI, "record", "-o", d / name, "--", TT_DIFF_JOB};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = RunCmd(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  return d / name;
}

std::map<std::string, json> RowsByName(const json& j) {
  std::map<std::string, json> rows;
  for (const auto& r : j["rows"]) rows[r["name"]] = r;
  return rows;
}

// The contributions add up to the step-time difference (within 1%).
void ExpectContributionsAddUp(const json& j) {
  double sum = 0;
  for (const auto& r : j["rows"]) sum += r["contribution_ns"].get<double>();
  double diff = j["step_difference_ns"];
  EXPECT_NEAR(sum, diff, 0.01 * std::fabs(diff)) << j.dump();
  EXPECT_NEAR(j["explained_ns"].get<double>(), sum, 1.0);
}

TEST(Diff, KnownOpsContributeTheirChange) {
  TempDir d;
  std::string a = RecordDiffJob(d, "a", {"1"}), b = RecordDiffJob(d, "b", {"2", "extra"});
  json j = RunJson({TT_CLI, "diff", a, b, "--json"});
  ASSERT_EQ(j["schema"], "tensortrace.diff/1");
  EXPECT_EQ(j["a"]["steps"], 6);
  EXPECT_EQ(j["b"]["steps"], 6);
  ExpectContributionsAddUp(j);
  auto rows = RowsByName(j);
  // MatMul doubles (+200 us a step), Softmax is new (+80 us), Relu does not change.
  EXPECT_NEAR(rows["MatMul"]["contribution_ns"].get<double>(), 200e3, 20e3) << j.dump();
  EXPECT_NEAR(rows["Softmax"]["contribution_ns"].get<double>(), 80e3, 8e3) << j.dump();
  EXPECT_NEAR(rows["Relu"]["contribution_ns"].get<double>(), 0, 5e3) << j.dump();
  std::vector<std::string> order;
  for (const auto& r : j["rows"]) order.push_back(r["name"]);
  auto at = [&](const char* n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  EXPECT_LT(at("MatMul"), at("Softmax")) << "the largest contribution first";
  EXPECT_LT(at("Softmax"), at("Relu"));
  EXPECT_EQ(j["only_in_b"]["ops"], json::array({"Softmax"}));
  EXPECT_TRUE(j["only_in_a"]["ops"].empty());
  // The allocation held through each step: 1 MiB against 2 MiB.
  const json& pa = j["a"]["memory_peak_bytes"];
  const json& pb = j["b"]["memory_peak_bytes"];
  ASSERT_EQ(pa.size(), 1u) << j.dump();
  EXPECT_EQ(pa.begin().value(), 1 << 20);
  EXPECT_EQ(pb.begin().value(), 2 << 20);
  // The text form names the same ranking.
  auto r = RunCmd({TT_CLI, "diff", a, b});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("op types only in B: Softmax"), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("MatMul"), r.out.find("Relu")) << r.out;
}

TEST(Diff, BadInputIsOneLine) {
  TempDir d;
  std::string a = RecordDiffJob(d, "a", {"1"});
  auto no_steps = RunCmd({TT_CLI, "record", "-o", d / "n", "--", "true"});
  ASSERT_EQ(no_steps.status, 0) << no_steps.err;
  for (const std::vector<std::string>& argv : {std::vector<std::string>{TT_CLI, "diff", a},
                                               {TT_CLI, "diff", a, d / "missing"},
                                               {TT_CLI, "diff", a, d / "n"},
                                               {TT_CLI, "diff", a, a, "--json", "--csv"},
                                               {TT_CLI, "diff", a, a, "--top", "0"}}) {
    auto r = RunCmd(argv);
    EXPECT_NE(r.status, 0) << argv.back();
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  auto help = RunCmd({TT_CLI, "diff", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: tensortrace diff A B"), std::string::npos);
}

// A real PyTorch loop at two batch sizes, B with a GELU added: the contributions add up, the
// memory peak grows, and aten::gelu is new in B.
TEST(DiffTorch, BatchSizesAndANewOp) {
  REQUIRE_MODULE("torch");
  TempDir d;
  for (const auto& [name, env] : std::map<std::string, std::map<std::string, std::string>>{
           {"a", {{"TT_TORCH_BATCH", "8"}}},
           {"b", {{"TT_TORCH_BATCH", "64"}, {"TT_TORCH_GELU", "1"}}}}) {
    auto r = RunCmd({TT_CLI, "record", "-o", d / name, "--", Python(), Program("torch_cnn.py")},
                    env, 280);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  // Step times on a loaded machine may go either way for so small a model: what is checked is
  // that the rows account for the difference, and what grows with the batch for sure, memory.
  json j = RunJson({TT_CLI, "diff", d / "a", d / "b", "--json", "--skip-warmup", "1"});
  EXPECT_EQ(j["a"]["steps"], 5);
  ExpectContributionsAddUp(j);
  EXPECT_GT(j["b"]["memory_peak_bytes"]["cpu"].get<int64_t>(),
            4 * j["a"]["memory_peak_bytes"]["cpu"].get<int64_t>())
      << "8 times the images";
  bool gelu = false;
  for (const auto& op : j["only_in_b"]["ops"]) gelu |= op == "aten::gelu";
  EXPECT_TRUE(gelu) << j["only_in_b"].dump();
}

}  // namespace
}  // namespace tt
