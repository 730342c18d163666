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

// Ranks as identity (issue 39, item 4): two ranks recorded each in a pid namespace of its own,
// both running the diff job as pid 3, rank 1 at twice the scale (MatMul 400 us a step, 2 MiB
// held). The step view has a rank column with each step's ranks in order and --rank keeps one
// rank's steps; memory names each allocator by its rank; diff pairs the allocators by rank
// (by pid, the two sides' "pid 3" were one); the report's run summary lists the ranks in rank
// order, its heat map has a row per rank and names the rank with the longest steps.
TEST(Ranks, PidNamespacesApartByRankInStepsMemoryDiffAndReport) {
  TempDir d;
  if (RunCmd({"unshare", "-p", "-f", "true"}).status != 0)
    GTEST_SKIP() << "cannot make a pid namespace (unshare -p)";
  std::vector<std::string> dirs;
  for (int k = 0; k < 2; ++k) {
    dirs.push_back(d / ("r" + std::to_string(k)));
    auto r = RunCmd({"unshare", "-p", "-f", TT_CLI, "record", "--quiet", "-o", dirs.back(), "--",
                     TT_DIFF_JOB, std::to_string(k + 1)},
                    {{"RANK", std::to_string(k)}, {"WORLD_SIZE", "2"}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  json steps = RunJson({TT_CLI, "stats", dirs[0], dirs[1], "--view", "step", "--json"});
  ASSERT_EQ(steps["rows"].size(), 12u) << steps.dump().substr(0, 2000);
  EXPECT_EQ(steps["columns"][1], "rank") << steps["columns"];
  for (size_t i = 0; i < 12; ++i) {
    const json& row = steps["rows"][i];
    EXPECT_EQ(row["step"], static_cast<int>(i / 2)) << row;
    EXPECT_EQ(row["rank"], static_cast<int>(i % 2)) << row;  // rank order within a step
    EXPECT_EQ(row["pid"], steps["rows"][0]["pid"]) << row;   // one pid on both ranks
  }
  json one =
      RunJson({TT_CLI, "stats", dirs[0], dirs[1], "--view", "step", "--rank", "1", "--json"});
  ASSERT_EQ(one["rows"].size(), 6u);
  for (const auto& row : one["rows"]) {
    EXPECT_EQ(row["rank"], 1) << row;
    EXPECT_GT(row["duration_micros"].get<double>(), 400.0) << row;  // its MatMul: 400 us
  }
  auto csv = RunCmd({TT_CLI, "stats", dirs[0], "--view", "step", "--csv", "--rank", "0"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("step,rank,pid,", 0), 0u) << csv.out.substr(0, 200);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"stats", dirs[0], dirs[1], "--rank", "2"},
        {"memory", dirs[0], "--rank", "0,x"},
        {"diff", dirs[0], "--", dirs[1], "--rank", "1"}}) {
    std::vector<std::string> argv{TT_CLI};
    argv.insert(argv.end(), bad.begin(), bad.end());
    auto r = RunCmd(argv);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("--rank"), std::string::npos) << r.err;
  }
  EXPECT_NE(RunCmd({TT_CLI, "stats", dirs[0], dirs[1], "--rank", "2"}).err.find("its ranks: 0, 1"),
            std::string::npos);

  json mem = RunJson({TT_CLI, "memory", dirs[0], dirs[1], "--json"});
  ASSERT_EQ(mem["allocators"].size(), 2u) << mem.dump().substr(0, 2000);
  std::map<int, json> by_rank;
  for (const auto& a : mem["allocators"]) by_rank[a["rank"].get<int>()] = a;
  ASSERT_EQ(by_rank.size(), 2u);
  EXPECT_EQ(by_rank[0]["name"], by_rank[0]["allocator"].get<std::string>() + " (rank 0)");
  EXPECT_EQ(by_rank[1]["name"], by_rank[1]["allocator"].get<std::string>() + " (rank 1)");
  EXPECT_EQ(by_rank[1]["peak_bytes"], 2 << 20);
  auto text = RunCmd({TT_CLI, "memory", dirs[0], dirs[1]});
  EXPECT_NE(text.out.find(" (rank 1, pid " + std::to_string(by_rank[1]["pid"].get<int>()) + ")"),
            std::string::npos)
      << text.out;

  // Rank 1 against itself and rank 0 against itself: the peaks paired by rank on both sides.
  json j = RunJson({TT_CLI, "diff", dirs[0], dirs[1], "--", dirs[1], dirs[0], "--json"});
  const json& pa = j["a"]["memory_peak_bytes"];
  ASSERT_EQ(pa.size(), 2u) << j.dump().substr(0, 2000);
  EXPECT_EQ(pa, j["b"]["memory_peak_bytes"]);
  EXPECT_EQ(pa[by_rank[1]["name"].get<std::string>()], 2 << 20) << pa;
  json r1 =
      RunJson({TT_CLI, "diff", dirs[0], dirs[1], "--", dirs[0], dirs[1], "--rank", "1", "--json"});
  EXPECT_EQ(r1["a"]["steps"], 6);
  EXPECT_GT(r1["a"]["step_ns"].get<double>(), 400e3);

  auto rep = RunCmd({TT_CLI, "report", dirs[0], dirs[1], "-o", d / "r.html"}, {}, 300);
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::string html = ReadFile(d / "r.html");
  // The run summary names the ranks, in rank order (was by events: rank 1's first).
  size_t s0 = html.find("<dd>rank 0 of 2 (pid "), s1 = html.find("<dd>rank 1 of 2 (pid ");
  ASSERT_NE(s1, std::string::npos) << html.substr(0, 3000);
  EXPECT_LT(s0, s1);
  size_t at = html.find("<section id=\"rank-heatmap\">");
  ASSERT_NE(at, std::string::npos);
  std::string map = html.substr(at, html.find("</section>", at) - at);
  for (const char* row : {">rank 0</text>", ">rank 1</text>"})
    EXPECT_NE(map.find(row), std::string::npos) << row;
  EXPECT_EQ(map.find(">rank 2</text>"), std::string::npos);
  size_t cells = 0;
  for (size_t p = map.find("<title>rank "); p != std::string::npos;
       p = map.find("<title>rank ", p + 1))
    ++cells;
  EXPECT_EQ(cells, 12u);  // 2 ranks x 6 steps
  for (int step = 0; step < 6; ++step)
    for (int rank = 0; rank < 2; ++rank)
      EXPECT_NE(map.find("<title>rank " + std::to_string(rank) + ", step " + std::to_string(step) +
                         ": step time "),
                std::string::npos)
          << rank << " " << step;
  // The rank with the longest step most often, as the step view's durations give it (rank 1,
  // unless the machine delayed rank 0's steps).
  int longer = 0;
  for (size_t i = 0; i < 12; i += 2)
    longer += steps["rows"][i + 1]["duration_micros"] > steps["rows"][i]["duration_micros"];
  std::string said = longer > 3 ? "Rank 1 has the longest step in " + std::to_string(longer)
                                : "Rank 0 has the longest step in " + std::to_string(6 - longer);
  EXPECT_NE(map.find(said + " of the 6 steps shown."), std::string::npos)
      << said << "\n"
      << map.substr(map.size() > 1500 ? map.size() - 1500 : 0);
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
