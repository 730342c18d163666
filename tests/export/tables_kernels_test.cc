// The kernels table of `export --format parquet` (issue 37): every GPU kernel, copy and set with
// its launch, its op and that op's step. On the synthetic job (tests/programs/synthetic_job.cc:
// per step, MatMul launches volta_sgemm by cudaLaunchKernel and names it by external id, BiasAdd
// launches bias_add_kernel, Relu a memcpy by cudaMemcpyAsync; correlation id 3*step+k on each
// worker), two workers: the counts and time per kernel equal `stats --view kernel`, per copy
// kind `stats --view memcpy`, each row's launch, op and step are the ones the program made, and
// the Python package's `kernels` has the same rows. Skipped without Apache Arrow, duckdb or
// pyarrow.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tables_skip.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

json JsonOf(std::vector<std::string> argv) {
  argv.push_back("--json");
  auto r = RunCmd(argv, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object({{"rows", json::array()}});
}

// The same kernel view totals from the table as from `stats`.
void KernelsEqualTheKernelView(const std::string& out, const std::string& trace) {
  json view = JsonOf({TT_CLI, "stats", trace, "--view", "kernel"});
  json q =
      JsonOf({TT_CLI, "sql", out,
              "SELECT name, count(*) AS n, sum(dur_ns) AS ns FROM kernels WHERE kind = 'kernel' "
              "GROUP BY name"});
  std::map<std::string, json> got;
  for (const auto& r : q["rows"]) got[r["name"]] = r;
  ASSERT_EQ(view["rows"].size(), 2u);
  EXPECT_EQ(got.size(), view["rows"].size());
  for (const auto& r : view["rows"]) {
    std::string name = r["name"];
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_EQ(got[name]["n"], r["occurrence"]) << name;
    EXPECT_NEAR(r["micros"].get<double>(), got[name]["ns"].get<double>() / 1000, 0.0015) << name;
  }
  json copies = JsonOf({TT_CLI, "stats", trace, "--view", "memcpy"});
  json c = JsonOf({TT_CLI, "sql", out,
                   "SELECT copy_kind, count(*) AS n, sum(dur_ns) AS ns, sum(bytes) AS bytes "
                   "FROM kernels WHERE kind = 'memcpy' GROUP BY copy_kind"});
  ASSERT_EQ(copies["rows"].size(), 1u);
  ASSERT_EQ(c["rows"].size(), 1u);
  EXPECT_EQ(c["rows"][0]["copy_kind"], copies["rows"][0]["name"]);
  EXPECT_EQ(c["rows"][0]["n"], copies["rows"][0]["occurrence"]);
  EXPECT_EQ(c["rows"][0]["bytes"], copies["rows"][0]["bytes"]);
  EXPECT_NEAR(copies["rows"][0]["micros"].get<double>(), c["rows"][0]["ns"].get<double>() / 1000,
              0.0015);
}

TEST(TablesKernels, KernelsEqualTheKernelViewWithTheirLaunchOpAndStep) {
  REQUIRE_TABLES();
  TempDir d, o;
  const int kSteps = 6;
  auto r =
      RunCmd({TT_SYNTHETIC, std::to_string(kSteps), "100", "2"}, {{"TENSORTRACE_DIR", d.path()}});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string out = o / "out";
  auto e = RunCmd({TT_CLI, "export", d.path(), "--format", "parquet", "-o", out});
  ASSERT_EQ(e.status, 0) << e.err;
  KernelsEqualTheKernelView(out, d.path());
  // Each row's launch, op and step, as the program made them.
  const std::map<std::string, std::pair<std::string, std::string>> made = {
      {"volta_sgemm_128x64_nn", {"cudaLaunchKernel", "model/dense/MatMul:MatMul"}},
      {"bias_add_kernel", {"cudaLaunchKernel", "model/dense/BiasAdd:BiasAdd"}},
      {"memcpy", {"cudaMemcpyAsync", "model/relu:Relu"}}};
  json rows = JsonOf({TT_CLI, "sql", out,
                      "SELECT name, launch, op, step, correlation_id % 1099511627776 AS corr, "
                      "launch_start_ns < start_ns AS before FROM kernels"})["rows"];
  ASSERT_EQ(rows.size(), 2u * 3 * kSteps);
  for (const auto& k : rows) {
    ASSERT_TRUE(made.count(k["name"])) << k.dump();
    EXPECT_EQ(k["launch"], made.at(k["name"]).first) << k.dump();
    EXPECT_EQ(k["op"], made.at(k["name"]).second) << k.dump();
    EXPECT_EQ(k["step"], (k["corr"].get<int64_t>() - 1) / 3) << k.dump();
    EXPECT_EQ(k["before"], true) << k.dump();
  }
  // The Python package's kernels: the same rows.
  auto py =
      RunCmd({test::Python(), "-c",
              "import sys, tensortrace\n"
              "t = tensortrace.open(sys.argv[1])\n"
              "print(len(t.kernels), int(t.kernels.dur_ns.sum()))",
              out},
             {{"PYTHONPATH", std::string(TT_SOURCE_DIR) + "/python"}, {"TENSORTRACE", TT_CLI}});
  ASSERT_EQ(py.status, 0) << py.err;
  json sum = JsonOf({TT_CLI, "sql", out, "SELECT count(*) AS n, sum(dur_ns) AS ns FROM kernels"});
  EXPECT_EQ(py.out, std::to_string(sum["rows"][0]["n"].get<int64_t>()) + " " +
                        std::to_string(sum["rows"][0]["ns"].get<int64_t>()) + "\n");
}

}  // namespace
}  // namespace tt
