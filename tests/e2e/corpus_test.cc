// The ecosystem corpus (tests/corpus/): programs written as the libraries' own documentation
// writes them (Flax NNX with optax, Keras 3 on each backend, jax.shard_map with psum, eager
// TensorFlow), recorded unchanged. Each program prints its own timing (one JSON line), and what
// a user reads is checked against it: the steps are the program's steps (count, and median
// within 15% of the program's own median, the first marked warm-up where it compiles), the op
// view holds no runtime, wait or dispatch range, the code view names the program's functions in
// the ratio the program measured and counts no more time than the run took.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::Python;
using test::RunCmd;
using test::RunJson;
using test::TempDir;

std::string Corpus(const std::string& name) {
  return std::string(TT_SOURCE_DIR) + "/tests/corpus/" + name;
}

struct Recorded {
  std::string trace;
  json said;  // the program's own JSON line
};

// Records tests/corpus/`program` with `args` (and env); the program's JSON line parsed.
Recorded Record(const TempDir& d, const std::string& program, std::vector<std::string> args,
                const std::map<std::string, std::string>& env = {}) {
  Recorded r;
  r.trace = d / "t";
  std::vector<std::string> argv = {TT_CLI, "record", "-o",           r.trace,
                                   "--",   Python(), Corpus(program)};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = RunCmd(argv, env, 400);
  EXPECT_EQ(run.status, 0) << run.err;
  for (const std::string& object : test::ProgramObjects(run.out)) r.said = json::parse(object);
  EXPECT_FALSE(r.said.is_null()) << "no JSON line from " << program << ": " << run.out;
  return r;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The step view's steps, and the program's own step times, compared: one step per program
// step, the first (compilation) marked warm-up where `first_warmup`, and each later step's
// duration against the program's time for that same step: their median ratio within 15% of 1
// (step by step, so that a burst of load from the rest of the machine lengthens both).
void ExpectProgramsSteps(const Recorded& r, bool first_warmup) {
  json j = RunJson({TT_CLI, "stats", r.trace, "--view", "step", "--json"});
  const json& rows = j["rows"];
  std::vector<double> own;
  for (const auto& ms : r.said["step_ms"]) own.push_back(ms.get<double>());
  ASSERT_EQ(rows.size(), own.size()) << j["notes"].dump();
  if (first_warmup) {
    EXPECT_TRUE(rows[0]["warmup"].get<bool>());
  }
  std::vector<double> ratios, ours;
  for (size_t k = 1; k < rows.size(); ++k) {
    if (rows[k]["warmup"].get<bool>()) continue;
    ours.push_back(rows[k]["duration_micros"].get<double>() / 1000);
    ratios.push_back(ours.back() / own[k]);
  }
  ASSERT_FALSE(ratios.empty()) << j.dump(1);
  double ratio = Median(ratios);
  std::printf("%zu steps: the step view's over the program's, median %.3f\n", ratios.size(), ratio);
  EXPECT_NEAR(ratio, 1, 0.15) << "step view median " << Median(ours) << " ms, program's "
                              << Median(std::vector<double>(own.begin() + 1, own.end())) << " ms; "
                              << j["notes"].dump();
}

// No op of the op view is a runtime, wait or dispatch range of the framework.
void ExpectNoRuntimeAmongOps(const std::string& trace) {
  static const std::regex kRuntime(
      R"((^Wait|Await|Dispatch|Execute|PjRt|PjitFunction|np\.asarray|^\[[0-9]+\] |^$))");
  json j = RunJson({TT_CLI, "stats", trace, "--view", "op", "--json"});
  ASSERT_FALSE(j["rows"].empty());
  for (const auto& row : j["rows"]) {
    std::string name = row["name"];
    EXPECT_FALSE(std::regex_search(name, kRuntime)) << "runtime among ops: '" << name << "'";
  }
}

// The code view: its first row is a line of the program's own file, and its total is no more
// than the process ran (a compilation that XLA's threads did for the caller counted once).
void ExpectCodeViewWithinTheRun(const std::string& trace, const std::string& file) {
  json code = RunJson({TT_CLI, "stats", trace, "--view", "code", "--json"});
  ASSERT_FALSE(code["rows"].empty());
  EXPECT_NE(code["rows"][0]["name"].get<std::string>().find(file), std::string::npos)
      << code["rows"][0]["name"];
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  int64_t run_ns = 0;
  for (const auto& p : info["processes"])
    run_ns = std::max(run_ns, p["last_ns"].get<int64_t>() - p["first_ns"].get<int64_t>());
  EXPECT_LE(code["total_micros"].get<double>() * 1000, static_cast<double>(run_ns));
}

// The scope view's params: the model's row ("MLP", a row of its own: XLA's op names carry no
// NNX module path) and each top-level submodule's equal Flax's own nnx.Param count.
void ExpectParamsAsFlaxCounts(const Recorded& r) {
  json j = RunJson({TT_CLI, "stats", r.trace, "--view", "scope", "--select", "params", "--json"});
  std::map<std::string, double> got;
  std::function<void(const json&, const std::string&)> walk = [&](const json& rows,
                                                                  const std::string& prefix) {
    for (const auto& row : rows) {
      std::string path = prefix + row["name"].get<std::string>();
      if (row.contains("params") && row["params"].is_number()) got[path] = row["params"];
      if (row.contains("children")) walk(row["children"], path + "/");
    }
  };
  walk(j["rows"], "");
  ASSERT_GE(r.said["params"].size(), 4u) << r.said.dump();
  for (const auto& [path, n] : r.said["params"].items())
    EXPECT_EQ(got[path], n.get<double>()) << path;
}

TEST(CorpusJax, FlaxNnxStepsAreItsTrainStep) {
  REQUIRE_MODULE("flax");
  REQUIRE_MODULE("optax");
  TempDir d;
  Recorded r = Record(d, "flax_nnx_mlp.py", {"40"});
  ExpectProgramsSteps(r, true);
  json info = RunJson({TT_CLI, "info", r.trace, "--json"});
  EXPECT_NE(info["processes"][0]["steps"]["how"].get<std::string>().find(
                "PjitFunction(train_step), each from the call through the XLA execution"),
            std::string::npos)
      << info["processes"][0]["steps"]["how"];
  ExpectNoRuntimeAmongOps(r.trace);
  ExpectCodeViewWithinTheRun(r.trace, "flax_nnx_mlp.py");
  ExpectParamsAsFlaxCounts(r);
  // TensorBoard's profile gets the same steps (each jitted call with its step number).
  auto e = RunCmd({TT_CLI, "export", r.trace, "--format", "xspace", "-o", d / "tb"});
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NE((e.out + e.err).find(", 40 steps,"), std::string::npos) << e.out << e.err;
}

// Keras 3's trainer on each backend: JAX's jitted train step (the repeated call), TensorFlow's
// train function (its marker), torch's train function (ProfilerStep#N from the bootstrap).
void KerasOn(const std::string& backend, const char* module) {
  if (!test::HaveModule(module)) GTEST_SKIP() << module << " is not importable";
  REQUIRE_MODULE("keras");
  TempDir d;
  Recorded r = Record(d, "keras3_fit.py", {"24"}, {{"KERAS_BACKEND", backend}});
  EXPECT_EQ(r.said["backend"], backend);
  ExpectProgramsSteps(r, backend != "torch");
  ExpectNoRuntimeAmongOps(r.trace);
  if (backend == "torch") {
    // aten ops nest (aten::conv2d holds aten::convolution...): ordered by self time, said so.
    json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
    EXPECT_NE(ops["notes"].dump().find("ordered by self time"), std::string::npos);
    for (size_t i = 1; i < ops["rows"].size(); ++i)
      EXPECT_GE(ops["rows"][i - 1]["self_micros"].get<double>(),
                ops["rows"][i]["self_micros"].get<double>());
  }
  if (backend != "tensorflow") return;
  // The report's hottest lines are op time: fit's tf.function tracing (most of the run's
  // time under fit's line) is named and left out, not 90% of the table.
  auto rep = RunCmd({TT_CLI, "report", r.trace, "-o", d / "r.html"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::string html = ReadFile(d / "r.html");
  EXPECT_NE(html.find("are not op time and left out"), std::string::npos);
  json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
  double op_us = ops["total_micros"].get<double>(), line_us = 0;
  for (const auto& row : test::HtmlTable(html, "hot-lines")) line_us += std::stod(row.at(3));
  EXPECT_LT(line_us, 1.5 * op_us) << "hottest lines " << line_us << " us, ops " << op_us;
}
TEST(CorpusKeras, JaxBackendStepsAreTheTrainersSteps) { KerasOn("jax", "jax"); }
TEST(CorpusKeras, TensorFlowBackendStepsAreTheTrainersSteps) {
  KerasOn("tensorflow", "tensorflow");
}
TEST(CorpusKeras, TorchBackendStepsAreTheTrainersSteps) { KerasOn("torch", "torch"); }

// psum across two host devices: the collective is communication (comm's all-reduce), not a
// compute op; the waits and the devices' launches are runtime; the steps are numbered 0..N-1
// although the first execution's run id is of another series.
TEST(CorpusJax, ShardMapPsumIsCommunicationNotAnOp) {
  REQUIRE_MODULE("jax");
  TempDir d;
  Recorded r = Record(d, "jax_shard_map_psum.py", {"30"});
  ExpectProgramsSteps(r, true);
  ExpectNoRuntimeAmongOps(r.trace);
  json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
  for (const auto& row : ops["rows"])
    EXPECT_EQ(row["name"].get<std::string>().find("psum"), std::string::npos) << row["name"];
  json steps = RunJson({TT_CLI, "stats", r.trace, "--view", "step", "--json"});
  EXPECT_EQ(steps["rows"].back()["step"].get<int64_t>(), 29);
  // The two devices of the one process are the collectives' participants: every psum matched
  // across them, each device named, a bus bandwidth (none with one participant).
  json comm = RunJson({TT_CLI, "comm", r.trace, "--json"});
  ASSERT_EQ(comm["ranks"].size(), 2u) << comm["ranks"].dump();
  EXPECT_EQ(comm["ranks"][0]["device"], 0);
  EXPECT_EQ(comm["ranks"][1]["device"], 1);
  EXPECT_EQ(comm["unmatched"], 0);
  EXPECT_EQ(comm["matched"].get<int64_t>(), 3 * 30);  // three psums a step (w1, b, w2 grads)
  ASSERT_FALSE(comm["collectives"].empty());
  EXPECT_GT(comm["collectives"][0]["busbw_gbs"].get<double>(), 0);
  auto text = RunCmd({TT_CLI, "comm", r.trace});
  EXPECT_EQ(text.out.find("one rank only"), std::string::npos) << text.out;
}

// Eager TensorFlow writes no op event (each op is its dispatch, EagerLocalExecute): the code
// view still gives each function its ops' time, in about the ratio the program measured.
TEST(CorpusTf, EagerCodeViewNamesBothFunctionsInTheirRatio) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recorded r = Record(d, "tf_eager_two_functions.py", {"150"});
  json code = RunJson({TT_CLI, "stats", r.trace, "--view", "code", "--json"});
  double small = 0, big = 0;
  std::function<void(const json&)> walk = [&](const json& rows) {
    for (const auto& row : rows) {
      std::string name = row["name"];
      if (name.ends_with(":small_part")) small += row["micros"].get<double>();
      if (name.ends_with(":big_part")) big += row["micros"].get<double>();
      if (row.contains("children")) walk(row["children"]);
    }
  };
  walk(code["rows"]);
  ASSERT_GT(small, 0) << code.dump().substr(0, 2000);
  ASSERT_GT(big, 0);
  double own = r.said["function_ms"]["big_part"].get<double>() /
               r.said["function_ms"]["small_part"].get<double>();
  // Sampled stacks place each op by the stack seen around it: the ratio is near, not exact.
  EXPECT_NEAR(big / small, own, 0.5 * own) << "code view " << big << "/" << small;
  ExpectCodeViewWithinTheRun(r.trace, "tf_eager_two_functions.py");
  // The sampler's thread is ours, not the program's: listed as such, not counted.
  json info = RunJson({TT_CLI, "info", r.trace, "--json"});
  const json& p = info["processes"][0];
  int64_t ours = 0, theirs = 0;
  for (const auto& t : p["threads"]) {
    bool named = t["name"].get<std::string>().starts_with("tensortrace-");
    EXPECT_EQ(t["tensortrace"].get<bool>(), named && !t["imported"].get<bool>()) << t.dump();
    (t["tensortrace"].get<bool>() ? ours : theirs)++;
  }
  EXPECT_GE(ours, 1);
  EXPECT_EQ(p["tensortrace_threads"].get<int64_t>(), ours);
  EXPECT_LE(p["thread_count"].get<int64_t>(), theirs);
}

// A tf.function program's trace holds the graphs the bootstrap saved (xspace/PID/
// tf_graph.tsv): `record --force` replaces it as its own.
TEST(CorpusTf, RecordForceReplacesItsOwnTfFunctionTrace) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  std::string trace = d / "t";
  for (int i = 0; i < 2; ++i) {
    auto run = RunCmd({TT_CLI, "record", "--force", "-o", trace, "--", Python(),
                       test::Program("code_tf_loop.py")},
                      {}, 300);
    ASSERT_EQ(run.status, 0) << "run " << i << ": " << run.err;
  }
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  EXPECT_GE(info["processes"].size(), 1u);
}

// torch.compile: the first step compiles (Dynamo, AOTAutograd, Inductor, and the backward
// compiled on its first call inside CompiledFunctionBackward); every compile range is compile,
// not an op, the compiled graphs are named, and the steps are the program's.
TEST(CorpusTorch, CompiledLoopCountsCompileAsCompile) {
  REQUIRE_MODULE("torch");
  TempDir d;
  Recorded r = Record(d, "torch_compile_loop.py", {"25"});
  ExpectProgramsSteps(r, true);
  ExpectNoRuntimeAmongOps(r.trace);
  static const std::regex kCompile(
      R"((compile|Compile|CodeCache|codegen|bytecode_tracing|build_guards|triton_key|torch_key))");
  json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
  double total = ops["total_micros"].get<double>(), graphs = 0;
  for (const auto& row : ops["rows"]) {
    std::string name = row["name"];
    // CompiledFunction(Backward) is the compiled code's autograd node, and the Torch-Compiled
    // Region the compiled code's run: each step's.
    if (name.find("CompiledF") == std::string::npos && !name.starts_with("Torch-Compiled Region")) {
      EXPECT_FALSE(std::regex_search(name, kCompile)) << "compile among ops: " << name;
    }
    if (name.starts_with("CompiledFxGraph ")) graphs += 1;
    // No op holds the compilation that ran inside it (the backward's, on its first call).
    EXPECT_LT(row["self_micros"].get<double>(), 0.5 * total) << name;
  }
  EXPECT_EQ(graphs, 2) << "the forward and the backward graph";
}

// DDP started by torch.multiprocessing.spawn, no launcher: each worker's rank comes from
// init_process_group (the bootstrap reads it back), and comm matches their all-reduces.
TEST(CorpusTorch, SpawnedDdpWorkersCarryTheirRanks) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  test::RunResult r;
  if (!test::RunInNetworkNamespace(
          {TT_CLI, "record", "-o", trace, "--", Python(), Corpus("torch_spawn_ddp.py"), "12"}, {},
          300, &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  std::set<int64_t> ranks;
  for (const auto& p : info["processes"]) {
    if (!p["rank"].is_object()) continue;
    EXPECT_EQ(p["rank"]["world_size"], 2);
    EXPECT_EQ(p["rank"]["source"], "torch.distributed");
    ranks.insert(p["rank"]["rank"].get<int64_t>());
  }
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1})) << info.dump().substr(0, 2000);
  json comm = RunJson({TT_CLI, "comm", trace, "--json"});
  EXPECT_GE(comm["matched"].get<int64_t>(), 12);
  EXPECT_EQ(comm["unmatched"], 0);
}

}  // namespace
}  // namespace tt
