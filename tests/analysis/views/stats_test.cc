// `tensortrace stats` on traces with known content, written through the real runtime.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

// A trace of the synthetic job (tests/programs/synthetic_job.cc), written once per suite.
class Stats : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_SYNTHETIC, "6", "100", "2"}, {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
    // Steps are process-wide time windows: the selection tests use one stepping thread.
    one_ = new TempDir();
    r = RunCmd({TT_SYNTHETIC, "6", "100", "1"}, {{"TENSORTRACE_DIR", one_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete one_;
  }
  static json StatsJson(std::vector<std::string> args, TempDir* d = nullptr) {
    std::vector<std::string> a{TT_CLI, "stats", (d ? d : dir_)->path(), "--json"};
    a.insert(a.end(), args.begin(), args.end());
    auto r = RunCmd(a);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return json::parse(r.out);
  }
  static json Row(const json& j, const std::string& name) {
    for (const auto& r : j["rows"])
      if (r["name"] == name) return r;
    ADD_FAILURE() << "no row " << name << " in " << j.dump();
    return json::object();
  }
  static TempDir* dir_;
  static TempDir* one_;
};
TempDir* Stats::dir_ = nullptr;
TempDir* Stats::one_ = nullptr;

// 2 workers x 6 steps.
constexpr int kSteps = 12;

TEST_F(Stats, OpViewCountsEveryInstanceAndLinksDeviceTime) {
  json j = StatsJson({"--view", "op"});
  EXPECT_EQ(j["schema"], "tensortrace.stats/1");
  ASSERT_EQ(j["rows"].size(), 3u);
  for (const char* op : {"MatMul", "BiasAdd", "Relu"}) {
    json r = Row(j, op);
    EXPECT_EQ(r["occurrence"], kSteps) << op;
    EXPECT_GE(r["micros"].get<double>(), r["self_micros"].get<double>()) << op;
    EXPECT_GT(r["self_micros"].get<double>(), 0) << op;
    EXPECT_LE(r["min_micros"].get<double>(), r["median_micros"].get<double>());
    EXPECT_LE(r["median_micros"].get<double>(), r["max_micros"].get<double>());
    EXPECT_DOUBLE_EQ(r["cpu_micros"].get<double>(), r["micros"].get<double>());
  }
  // Device time, exactly: sgemm 30 us by external id; bias 10 us and copy 10 us by launch.
  EXPECT_DOUBLE_EQ(Row(j, "MatMul")["accelerator_micros"].get<double>(), 30.0 * kSteps);
  EXPECT_DOUBLE_EQ(Row(j, "BiasAdd")["accelerator_micros"].get<double>(), 10.0 * kSteps);
  EXPECT_DOUBLE_EQ(Row(j, "Relu")["accelerator_micros"].get<double>(), 10.0 * kSteps);
  // Memory: 1 KiB per MatMul, freed by the next step's BiasAdd; the last one stays.
  EXPECT_EQ(Row(j, "MatMul")["bytes"], 1024 * kSteps);
  EXPECT_EQ(Row(j, "MatMul")["residual_bytes"], 2 * 1024);  // one per worker
  // Each worker holds at most two at once; the two workers' can overlap.
  EXPECT_GE(Row(j, "MatMul")["peak_bytes"].get<int>(), 2 * 1024);
  EXPECT_LE(Row(j, "MatMul")["peak_bytes"].get<int>(), 4 * 1024);
  // Each link carries its method.
  EXPECT_EQ(j["links"]["launch->device: correlation_id"], 3 * kSteps);
  EXPECT_EQ(j["links"]["op->device: external_id"], kSteps);
  EXPECT_EQ(j["links"]["op->device: launch inside op on its thread"], 2 * kSteps);
  EXPECT_EQ(j["unlinked_device_activities"], 0);
  EXPECT_EQ(j["device_activities"], 3 * kSteps);
  double share = 0;
  for (const auto& r : j["rows"]) share += r["share"].get<double>();
  EXPECT_NEAR(share, 100.0, 1e-6);
}

TEST_F(Stats, NameAndScopeViews) {
  json n = StatsJson({"--view", "name"});
  EXPECT_EQ(Row(n, "model/dense/MatMul:MatMul")["occurrence"], kSteps);
  json s = StatsJson({"--view", "scope"});
  ASSERT_EQ(s["rows"].size(), 1u);
  json model = s["rows"][0];
  EXPECT_EQ(model["name"], "model");
  EXPECT_EQ(model["occurrence"], 3 * kSteps);
  ASSERT_EQ(model["children"].size(), 2u);
  json dense = model["children"][0]["name"] == "dense" ? model["children"][0] : model["children"][1];
  EXPECT_EQ(dense["occurrence"], 2 * kSteps);
  EXPECT_EQ(dense["children"].size(), 2u);
  EXPECT_DOUBLE_EQ(model["accelerator_micros"].get<double>(), 50.0 * kSteps);
  json cut = StatsJson({"--view", "scope", "--max-depth", "1"});
  EXPECT_FALSE(cut["rows"][0].contains("children"));
}

TEST_F(Stats, KernelView) {
  json j = StatsJson({"--view", "kernel"});
  ASSERT_EQ(j["rows"].size(), 2u);
  json k = Row(j, "volta_sgemm_128x64_nn");
  EXPECT_EQ(k["occurrence"], kSteps);
  EXPECT_DOUBLE_EQ(k["micros"].get<double>(), 30.0 * kSteps);
  EXPECT_DOUBLE_EQ(k["avg_micros"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(k["median_micros"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(k["stddev_micros"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(k["share"].get<double>(), 75.0);
  EXPECT_EQ(k["grid"], "128x1x1");
  EXPECT_EQ(k["block"], "256x1x1");
  EXPECT_EQ(k["registers"], 64);
  EXPECT_EQ(k["static_shared"], 1024);
  EXPECT_EQ(k["launched_by"], "MatMul");
  EXPECT_EQ(Row(j, "bias_add_kernel")["launched_by"], "BiasAdd");
}

TEST_F(Stats, ApiMemcpyPrimitiveThreadViews) {
  json api = StatsJson({"--view", "api"});
  EXPECT_EQ(Row(api, "cudaLaunchKernel")["occurrence"], 2 * kSteps);
  EXPECT_EQ(Row(api, "cudaMemcpyAsync")["occurrence"], kSteps);
  json mc = StatsJson({"--view", "memcpy"});
  json h = Row(mc, "HtoD");
  EXPECT_EQ(h["occurrence"], kSteps);
  EXPECT_EQ(h["bytes"], 4096 * kSteps);
  EXPECT_NEAR(h["bandwidth_gbps"].get<double>(), 4096.0 / 10e-6 / 1e9, 1e-9);
  json pr = StatsJson({"--view", "primitive"});
  EXPECT_EQ(Row(pr, "inner_product")["occurrence"], kSteps);
  EXPECT_EQ(Row(pr, "inner_product")["ops"], "MatMul");
  json th = StatsJson({"--view", "thread"});
  EXPECT_EQ(th["rows"].size(), 2u + 4u);  // 2 worker threads, 2 x (kernel queue + copy queue)
  for (const auto& r : th["rows"]) EXPECT_LE(r["busy_share"].get<double>(), 1.0);
}

TEST(StatsPlain, StepBreakdown) {
  // One worker, so that no other thread's device work falls inside its steps.
  TempDir d;
  ASSERT_EQ(RunCmd({TT_SYNTHETIC, "8", "100", "1"}, {{"TENSORTRACE_DIR", d.path()}}).status, 0);
  auto out = RunCmd({TT_CLI, "stats", d.path(), "--view", "step", "--json"});
  ASSERT_EQ(out.status, 0) << out.err;
  json j = json::parse(out.out);
  ASSERT_EQ(j["rows"].size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(j["rows"][i]["step"], i);
  for (const auto& r : j["rows"]) {
    double dur = r["duration_micros"].get<double>();
    EXPECT_GE(dur, 100.0);
    // Device work inside each step: 30 + 10 us of kernels, 10 us of copy.
    EXPECT_NEAR(r["device_compute_micros"].get<double>(), 40.0, 1e-9);
    EXPECT_NEAR(r["copies_micros"].get<double>(), 10.0, 1e-9);
    EXPECT_GT(r["host_compute_micros"].get<double>(), 0);
    double idle = r["device_idle_host_bound_micros"].get<double>() +
                  r["device_idle_waiting_micros"].get<double>();
    EXPECT_NEAR(idle, dur - 50.0, 1e-6);
  }
}

TEST_F(Stats, StepSelection) {
  EXPECT_EQ(Row(StatsJson({"--steps", "1:2"}, one_), "MatMul")["occurrence"], 2);
  EXPECT_EQ(Row(StatsJson({"--steps", "3"}, one_), "MatMul")["occurrence"], 1);
  EXPECT_EQ(Row(StatsJson({"--steps", "4:"}, one_), "MatMul")["occurrence"], 2);
  EXPECT_EQ(Row(StatsJson({"--steps", ":1"}, one_), "MatMul")["occurrence"], 2);
  EXPECT_EQ(Row(StatsJson({"--skip-warmup", "2"}, one_), "MatMul")["occurrence"], 4);
  EXPECT_EQ(Row(StatsJson({"--skip-warmup", "2", "--steps", "1:3"}, one_), "MatMul")["occurrence"], 2);
  json k = StatsJson({"--view", "kernel", "--steps", "0:1"}, one_);
  EXPECT_EQ(Row(k, "volta_sgemm_128x64_nn")["occurrence"], 2);
  EXPECT_EQ(StatsJson({"--view", "step", "--skip-warmup", "4"}, one_)["rows"].size(), 2u);
}

TEST_F(Stats, SelectOrderTopFilter) {
  json j = StatsJson({"--select", "occurrence,accelerator_micros", "--order-by",
                      "accelerator_micros", "--top", "2"});
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["name"], "MatMul");
  EXPECT_EQ(j["rows"][0].size(), 3u);  // name + the two selected fields
  EXPECT_EQ(StatsJson({"--filter", "^Bias"})["rows"].size(), 1u);
  EXPECT_EQ(StatsJson({"--exclude", "Relu|Bias"})["rows"].size(), 1u);
  EXPECT_EQ(StatsJson({"--view", "kernel", "--min-micros", "200"})["rows"].size(), 1u);
  auto name_order = StatsJson({"--order-by", "name"});
  EXPECT_EQ(name_order["rows"][0]["name"], "BiasAdd");
}

TEST_F(Stats, TableAndCsv) {
  auto t = RunCmd({TT_CLI, "stats", dir_->path(), "--view", "kernel"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(t.out.rfind("name ", 0), 0u) << t.out;
  EXPECT_NE(t.out.find("volta_sgemm_128x64_nn"), std::string::npos);
  EXPECT_NE(t.out.find("75.00%"), std::string::npos);
  auto c = RunCmd({TT_CLI, "stats", dir_->path(), "--csv", "--select", "occurrence,bytes"});
  ASSERT_EQ(c.status, 0);
  EXPECT_EQ(c.out.substr(0, c.out.find('\n')), "name,occurrence,bytes");
  EXPECT_NE(c.out.find("MatMul,12,12288"), std::string::npos) << c.out;
  EXPECT_EQ(test::CountLines(c.out), 4u);
}

TEST(StatsPlain, ViewsWithNoDataSaySo) {
  TempDir d;
  ASSERT_EQ(RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "10"}).status, 0);
  for (const char* v : {"kernel", "api", "memcpy", "primitive"}) {
    auto r = RunCmd({TT_CLI, "stats", d / "t", "--view", v});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("note: no "), std::string::npos) << v << ": " << r.out;
  }
  auto op = RunCmd({TT_CLI, "stats", d / "t", "--json"});
  auto j = json::parse(op.out);
  EXPECT_EQ(j["rows"][0]["name"], "leaf");
  EXPECT_EQ(j["rows"][0]["occurrence"], 10);
}

TEST(StatsPlain, BadInput) {
  TempDir d;
  ASSERT_EQ(RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "10"}).status, 0);
  auto one_line = [&](std::vector<std::string> args, const std::string& what) {
    std::vector<std::string> a{TT_CLI, "stats"};
    a.insert(a.end(), args.begin(), args.end());
    auto r = RunCmd(a);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  };
  std::string t = d / "t";
  one_line({t, "--view", "nope"}, "unknown view 'nope'");
  one_line({t, "--select", "occurrence,bogus"}, "unknown field 'bogus'");
  one_line({t, "--order-by", "bogus"}, "unknown field 'bogus'");
  one_line({t, "--steps", "x:y"}, "'x' is not a non-negative whole number");
  one_line({t, "--steps", "5:2"}, "A is after B");
  one_line({t, "--steps", "0:1"}, "no steps found");
  one_line({t, "--top", "-3"}, "--top");
  one_line({t, "--filter", "("}, "bad regular expression");
  one_line({t, "--json", "--csv"}, "exclude each other");
  one_line({"/no/such"}, "does not exist");
  one_line({}, "no trace directory given");
  auto named = RunCmd({TT_CLI, "stats", t, "--step-name", "leaf", "--steps", "2:4", "--json"});
  EXPECT_EQ(named.status, 0) << named.err;
  EXPECT_NE(named.out.find("no framework ops"), std::string::npos);
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

// A pattern that makes a backtracking matcher take exponential time ("(a+)+b" against a name of
// 40 a's: about 2^40 steps) filters at once: stats matches in linear time (RE2). With
// std::regex this test ran into its ctest timeout.
TEST(FilterRegex, BacktrackingPatternsMatchInLinearTime) {
  test::TempDir d;
  std::string prog = "import ctypes\nlib = ctypes.CDLL('" + std::string(TT_LIB) +
                     "')\nlib.tt_range_push(b'" + std::string(40, 'a') +
                     "')\nlib.tt_range_pop()\nlib.tt_range_push(b'aab')\nlib.tt_range_pop()\n";
  // Python's own leaks at exit are not ours (the ASan build preloads LeakSanitizer into it).
  auto r = test::RunCmd({TT_CLI, "record", "-o", d / "t", "--quiet", "--sources", "itt", "--",
                         "python3", "-c", prog},
                        {{"ASAN_OPTIONS", "detect_leaks=0"}});
  ASSERT_EQ(r.status, 0) << r.err;
  auto s = test::RunCmd({TT_CLI, "stats", d / "t", "--view", "name", "--filter", "(a+)+b",
                         "--select", "occurrence", "--csv"},
                        {}, 60);
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(s.out, "name,occurrence\naab,1\n");
}

}  // namespace
}  // namespace tt
