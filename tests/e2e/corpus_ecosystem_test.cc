// The ecosystem corpus, libraries above the frameworks (tests/corpus/): Hugging Face's Trainer
// on a tiny GPT-2, a torchvision model fed by DataLoader workers, PyTorch Lightning, FSDP on
// gloo under torch.multiprocessing.spawn, a tf.data pipeline calling Python through
// tf.py_function, and tf.summary written inside a tf.function. Each is recorded unchanged and
// what a user reads is checked against an outside reference: the steps against the program's own
// timing (one step per program step, the medians after the first within 15%); the op view's top
// ops against the framework's own profiler of the same run (PyTorch: torch.profiler's Kineto
// JSON that the run wrote, folded as key_averages folds it, tests/corpus/kineto_self_times.py;
// TensorFlow: xprof's framework_op_stats of the run's XSpace); no runtime, wait or dispatch range
// among the ops; the code view's first line of code in the program's own file and its total no
// more than the run; ranks where the job has them; the report renders.
#include <gtest/gtest.h>

#include <algorithm>
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
  std::vector<json> said;  // the program's JSON lines (one per rank)
};

// Records tests/corpus/`program` with `args`; in a network namespace where `isolated` (ranks
// talking over 127.0.0.1). Its JSON lines parsed.
Recorded Record(const TempDir& d, const std::string& program, std::vector<std::string> args,
                bool isolated = false) {
  Recorded r;
  r.trace = d / "t";
  std::vector<std::string> argv = {TT_CLI, "record", "-o",           r.trace,
                                   "--",   Python(), Corpus(program)};
  argv.insert(argv.end(), args.begin(), args.end());
  test::RunResult run;
  if (isolated) {
    if (!test::RunInNetworkNamespace(argv, {}, 300, &run)) return r;
  } else {
    run = RunCmd(argv, {}, 300);
  }
  EXPECT_EQ(run.status, 0) << run.err.substr(0, 4000);
  for (const std::string& object : test::ProgramObjects(run.out))
    r.said.push_back(json::parse(object));
  EXPECT_FALSE(r.said.empty()) << "no JSON line from " << program << ": " << run.out;
  return r;
}

// Two ranks printing with PYTHONUNBUFFERED=1 (an object, then its newline, in two writes) into
// one pipe: each object is found whole, braces inside strings and lists included.
TEST(CorpusEcosystem, ProgramObjectsOfRanksThatMetOnOneLine) {
  std::string out =
      "noise {\"x\": 1}\n{\"program\": \"p\", \"rank\": 0, \"s\": \"}{\\\"\", \"step_ms\": [1.5, "
      "2]}{\"program\": \"p\", \"rank\": 1, \"step_ms\": [[3]]}\n\n";
  auto objects = test::ProgramObjects(out);
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(json::parse(objects[0])["s"], "}{\"");
  EXPECT_EQ(json::parse(objects[1])["rank"], 1);
}

double MedianAfterFirst(std::vector<double> v) {
  if (v.size() < 2) return 0;
  v.erase(v.begin());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One process's steps against the program's own: as many, the first warm-up where
// `first_warmup`, and the medians after the first within 15%.
void ExpectSteps(const json& rows, const json& said, bool first_warmup, const std::string& who) {
  std::vector<double> own = said["step_ms"].get<std::vector<double>>(), ours;
  ASSERT_EQ(rows.size(), own.size()) << who;
  if (first_warmup) {
    EXPECT_TRUE(rows[0]["warmup"].get<bool>()) << who;
  }
  for (const auto& row : rows) ours.push_back(row["duration_micros"].get<double>() / 1000);
  double want = MedianAfterFirst(own), got = MedianAfterFirst(ours);
  std::cout << who << ": " << rows.size() << " steps, median " << got << " ms, the program's "
            << want << " ms\n";
  EXPECT_NEAR(got, want, 0.15 * want) << who;
}

// Every process with steps (a rank each, matched to the program's line by its rank).
void ExpectProgramsSteps(const Recorded& r, bool first_warmup) {
  json j = RunJson({TT_CLI, "stats", r.trace, "--view", "step", "--json"});
  std::map<int64_t, json> by_pid;
  for (const auto& row : j["rows"]) by_pid[row["pid"].get<int64_t>()].push_back(row);
  ASSERT_EQ(by_pid.size(), r.said.size()) << j["notes"].dump();
  if (r.said.size() == 1) return ExpectSteps(by_pid.begin()->second, r.said[0], first_warmup, "");
  json info = RunJson({TT_CLI, "info", r.trace, "--json"});
  for (const auto& p : info["processes"]) {
    if (!p["rank"].is_object() || !by_pid.count(p["pid"].get<int64_t>())) continue;
    int64_t rank = p["rank"]["rank"].get<int64_t>();
    for (const auto& said : r.said)
      if (said["rank"] == rank)
        ExpectSteps(by_pid[p["pid"].get<int64_t>()], said, first_warmup,
                    "rank " + std::to_string(rank));
  }
}

// No op of the op view is a runtime, wait or dispatch range.
void ExpectNoRuntimeAmongOps(const json& ops) {
  static const std::regex kRuntime(
      R"((^Wait|Await|Dispatch|Execute|PjRt|PjitFunction|EagerLocalExecute|^PythonSubclass|)"
      R"(np\.asarray|^\[[0-9]+\] |^$))");
  ASSERT_FALSE(ops["rows"].empty());
  for (const auto& row : ops["rows"]) {
    std::string name = row["name"];
    EXPECT_FALSE(std::regex_search(name, kRuntime)) << "runtime among ops: '" << name << "'";
  }
}

std::map<std::string, json> ByName(const json& ops) {
  std::map<std::string, json> out;
  for (const auto& row : ops["rows"]) out[row["name"]] = row;
  return out;
}

// The aten ops against torch.profiler's own profile of the same run: the five with the most
// self time there, each in the op view with the same self time (1%) and its calls as
// key_averages counts them (an op redispatching to its own overload as its only child is one
// call), and the same five first among the op view's aten rows.
void ExpectTopAtenOpsAsTorchProfiler(const std::string& trace, const json& ops) {
  auto k = RunCmd({Python(), Corpus("kineto_self_times.py"), trace}, {}, 120);
  ASSERT_EQ(k.status, 0) << k.err;
  json ref = json::parse(k.out);
  std::vector<std::pair<double, std::string>> top;
  for (const auto& [name, v] : ref.items())
    if (name.starts_with("aten::")) top.push_back({v[1].get<double>(), name});
  std::sort(top.rbegin(), top.rend());
  ASSERT_GE(top.size(), 5u);
  top.resize(5);
  auto rows = ByName(ops);
  std::set<std::string> want, got;
  for (const auto& [self, name] : top) {
    want.insert(name);
    ASSERT_TRUE(rows.count(name)) << name << " is not in the op view";
    std::cout << "torch.profiler " << name << ": self " << self / 1000 << " ms, op view "
              << rows[name]["self_micros"].get<double>() / 1000 << " ms; calls " << ref[name][0]
              << " events (key_averages " << ref[name][2] << "), op view "
              << rows[name]["occurrence"] << "\n";
    EXPECT_NEAR(rows[name]["self_micros"].get<double>(), self, 0.01 * self) << name;
    EXPECT_EQ(rows[name]["occurrence"], ref[name][2]) << name;
  }
  for (const auto& row : ops["rows"]) {  // ordered by self time
    std::string name = row["name"];
    if (name.starts_with("aten::") && got.size() < 5) got.insert(name);
  }
  EXPECT_EQ(got, want);
}

// The op types against xprof's framework_op_stats of the run's XSpace: the five with the most
// self time there (tf.data's Dataset rows aside: the input pipeline, not ops), each in the op
// view with the same self time (1%).
void ExpectTopOpsAsXprof(const std::string& trace, const json& ops) {
  std::vector<std::string> cmd = {Python(),
                                  std::string(TT_SOURCE_DIR) + "/tests/util/xprof_op_stats.py"};
  for (const auto& pid : ListDirectory(trace + "/xspace")) {
    std::string runs = trace + "/xspace/" + pid + "/plugins/profile";
    if (!IsDirectory(runs)) continue;
    for (const auto& run : ListDirectory(runs))
      for (const auto& f : ListDirectory(runs + "/" + run))
        if (f.ends_with(".xplane.pb")) cmd.push_back(runs + "/" + run + "/" + f);
  }
  ASSERT_GT(cmd.size(), 2u) << "no XSpace in the trace";
  auto x = RunCmd(cmd, {}, 120);
  if (x.status == 3) GTEST_SKIP() << "xprof is not importable";
  ASSERT_EQ(x.status, 0) << x.err.substr(0, 2000);
  json xprof = json::parse(x.out);
  std::vector<std::pair<double, std::string>> top;
  for (const auto& [type, v] : xprof.items())
    if (!type.ends_with("Dataset")) top.push_back({v[1].get<double>(), type});
  std::sort(top.rbegin(), top.rend());
  ASSERT_GE(top.size(), 5u);
  top.resize(5);
  auto rows = ByName(ops);
  for (const auto& [self, type] : top) {
    ASSERT_TRUE(rows.count(type)) << type << " is not in the op view";
    std::cout << "xprof " << type << ": self " << self / 1000 << " ms, op view "
              << rows[type]["self_micros"].get<double>() / 1000 << " ms\n";
    EXPECT_NEAR(rows[type]["self_micros"].get<double>(), self, 0.01 * self) << type;
  }
}

// The code view: its first line of code (under folded library or `python -c` frames) is in the
// program's own file, and its total is no more than the longest process ran.
void ExpectCodeViewInTheProgram(const std::string& trace, const std::string& file) {
  json code = RunJson({TT_CLI, "stats", trace, "--view", "code", "--json"});
  ASSERT_FALSE(code["rows"].empty());
  const json* row = &code["rows"][0];
  while (row->at("name").get<std::string>().starts_with("[") && row->contains("children") &&
         !row->at("children").empty())
    row = &row->at("children")[0];
  EXPECT_NE(row->at("name").get<std::string>().find(file), std::string::npos) << row->dump();
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  int64_t run_ns = 0;
  for (const auto& p : info["processes"])
    run_ns = std::max(run_ns, p["last_ns"].get<int64_t>() - p["first_ns"].get<int64_t>());
  EXPECT_LE(code["total_micros"].get<double>() * 1000, static_cast<double>(run_ns));
}

void ExpectReportRenders(const TempDir& d, const std::string& trace) {
  auto rep = RunCmd({TT_CLI, "report", trace, "-o", d / "r.html"}, {}, 240);
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(ReadFile(d / "r.html").find("</html>"), std::string::npos);
}

// A PyTorch program end to end: steps, ops against torch.profiler, the code view, the report.
void ExpectTorchProgram(const TempDir& d, const Recorded& r, const std::string& file,
                        bool first_warmup = false) {
  ExpectProgramsSteps(r, first_warmup);
  json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
  ExpectNoRuntimeAmongOps(ops);
  ExpectTopAtenOpsAsTorchProfiler(r.trace, ops);
  ExpectCodeViewInTheProgram(r.trace, file);
  ExpectReportRenders(d, r.trace);
}

// Trainer's steps are its optimizer steps (one per TrainerCallback step), the model a GPT-2 of
// two blocks built from its config.
TEST(CorpusEcosystem, HfTrainerGpt2StepsAndOpsAsTorchProfiler) {
  REQUIRE_MODULE("transformers");
  TempDir d;
  Recorded r = Record(d, "hf_trainer_gpt2.py", {"10"});
  ExpectTorchProgram(d, r, "hf_trainer_gpt2.py");
  // The loop runs in the library (trainer.train()): the code view shows the model's forward
  // methods under that line (was one [transformers] node with all of it), each block's.
  json code = RunJson({TT_CLI, "stats", r.trace, "--view", "code", "--json"});
  for (const char* layer :
       {":GPT2LMHeadModel.forward", ":GPT2Block.forward", ":GPT2Attention.forward"})
    EXPECT_NE(code.dump().find(layer), std::string::npos) << layer;
}

// resnet18 fed by a DataLoader with two worker processes: the steps are the main process's (the
// wait for a batch in the step that waited), the workers are processes of the job without steps.
TEST(CorpusEcosystem, TorchvisionResnetWithDataLoaderWorkers) {
  REQUIRE_MODULE("torchvision");
  TempDir d;
  Recorded r = Record(d, "torchvision_dataloader.py", {"10"});
  ExpectTorchProgram(d, r, "torchvision_dataloader.py");
  json info = RunJson({TT_CLI, "info", r.trace, "--json"});
  ASSERT_EQ(info["processes"].size(), 3u) << "the program and its two DataLoader workers";
  // Each worker's fetching goes to the Dataset's __getitem__, the program's own line.
  for (size_t i = 1; i < 3; ++i) {
    std::string pid = std::to_string(info["processes"][i]["pid"].get<int64_t>());
    json code = RunJson({TT_CLI, "stats", r.trace, "--view", "code", "--pid", pid, "--json"});
    EXPECT_NE(code.dump().find("torchvision_dataloader.py:"), std::string::npos) << pid;
    EXPECT_NE(code.dump().find(":Images.__getitem__"), std::string::npos) << pid;
  }
}

TEST(CorpusEcosystem, LightningTrainerFitSteps) {
  REQUIRE_MODULE("lightning");
  TempDir d;
  Recorded r = Record(d, "lightning_fit.py", {"30"});
  ExpectTorchProgram(d, r, "lightning_fit.py");
}

// FSDP2 (fully_shard) on gloo, two ranks from torch.multiprocessing.spawn: each rank's steps,
// its rank from init_process_group, and every all-gather and reduce-scatter matched across them.
TEST(CorpusEcosystem, FsdpOnGlooSpawnedRanks) {
  REQUIRE_MODULE("torch");
  TempDir d;
  Recorded r = Record(d, "torch_fsdp_gloo.py", {"10"}, true);
  if (r.said.empty() && !IsDirectory(r.trace))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.said.size(), 2u);
  ExpectTorchProgram(d, r, "torch_fsdp_gloo.py");
  // FSDP's "FSDP::all_gather" ranges wait for gloo's all-gather on its worker thread: that time
  // is communication, not an op's, nor the self time of the "FSDP::pre_forward" around it.
  json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
  for (const auto& row : ops["rows"]) {
    std::string name = row["name"];
    EXPECT_FALSE(name.starts_with("FSDP::all_gather")) << name;
    EXPECT_LT(row["self_micros"].get<double>(), 0.5 * ops["total_micros"].get<double>()) << name;
  }
  json info = RunJson({TT_CLI, "info", r.trace, "--json"});
  std::set<int64_t> ranks;
  for (const auto& p : info["processes"])
    if (p["rank"].is_object()) ranks.insert(p["rank"]["rank"].get<int64_t>());
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1}));
  json comm = RunJson({TT_CLI, "comm", r.trace, "--json"});
  ASSERT_EQ(comm["ranks"].size(), 2u);
  EXPECT_EQ(comm["unmatched"], 0);
  EXPECT_EQ(comm["matched"], comm["ranks"][0]["calls"]);
  EXPECT_GE(comm["matched"].get<int64_t>(), 10 * 2);  // an all-gather and a reduce-scatter a step
}

// A TensorFlow program end to end: steps (the first traces: warm-up), ops against xprof, the
// code view, the report.
void ExpectTfProgram(const TempDir& d, const Recorded& r, const std::string& file) {
  ExpectProgramsSteps(r, true);
  json ops = RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"});
  ExpectNoRuntimeAmongOps(ops);
  ExpectTopOpsAsXprof(r.trace, ops);
  ExpectCodeViewInTheProgram(r.trace, file);
  ExpectReportRenders(d, r.trace);
}

// The Python function behind tf.py_function runs as the EagerPyFunc op, in tf.data's threads:
// its time is the pipeline's, and the steps are Keras's batches.
TEST(CorpusEcosystem, TfDataPyFunctionFeedingFit) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recorded r = Record(d, "tf_data_py_function.py", {"24"});
  ExpectTfProgram(d, r, "tf_data_py_function.py");
  json code = RunJson({TT_CLI, "stats", r.trace, "--view", "code", "--json"});
  EXPECT_NE(code.dump().find(":tf_augment"), std::string::npos)
      << "the py_function's line, under the map that calls it";
}

// tf.summary inside the tf.function: WriteSummary is an op of each step.
TEST(CorpusEcosystem, TfSummaryInsideTfFunction) {
  REQUIRE_MODULE("tensorflow");
  REQUIRE_MODULE("tensorboard");
  TempDir d;
  Recorded r = Record(d, "tf_summary_function.py", {"30"});
  ExpectTfProgram(d, r, "tf_summary_function.py");
  auto rows = ByName(RunJson({TT_CLI, "stats", r.trace, "--view", "op", "--json"}));
  ASSERT_TRUE(rows.count("WriteSummary"));
  EXPECT_EQ(rows["WriteSummary"]["occurrence"], 2 * 30) << "a scalar and a histogram a step";
}

}  // namespace
}  // namespace tt
