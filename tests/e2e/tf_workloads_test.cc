// Real TensorFlow and JAX training programs (tests/programs/tf_*.py, jax_train_loop.py),
// recorded unchanged with `tensortrace record -- python3 prog.py`: every step with its number,
// the model's ops inside each step, allocations up to the model's weights, a trace babeltrace2
// reads, oneDNN primitives linked to the TensorFlow op that ran them, and the HTML report of a
// CNN in headless Chromium. TensorFlow takes seconds to import: one recording per program
// (one test each), several assertions on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/memory/memory.h"
#include "analysis/job/steps.h"
#include "core/files.h"
#include "model/scan.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

using test::HaveModule;
using test::Python;

// One program recorded: the trace, and what the program says it ran.
struct Recording {
  std::string trace;
  int64_t steps = -1, weight_bytes = -1;
  int64_t setup_steps = 0;  // leading steps that run no training op (v1's initializer)
  std::string step_name;    // the step annotation when the framework marks none
};

Recording RecordProgram(const TempDir& d, const std::string& program,
                        const std::string& step_name = "") {
  Recording rec;
  rec.step_name = step_name;
  rec.trace = d / "t";
  // What TensorFlow does by default depends on the CPU (oneDNN is on by default only with
  // AVX-512, and without it TensorFlow's CPU allocator reports no allocation): pinned on, so
  // that every machine records the same kinds of events.
  auto r = RunCmd({TT_CLI, "record", "-o", rec.trace, "--", Python(),
                   std::string(TT_SOURCE_DIR) + "/tests/programs/" + program},
                  {{"TF_ENABLE_ONEDNN_OPTS", "1"}}, 280);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("tensortrace: warning"), std::string::npos) << r.err;
  std::istringstream out(r.out);
  std::string key;
  int64_t v;
  while (out >> key >> v) {
    if (key == "steps") rec.steps = v;
    if (key == "weight_bytes") rec.weight_bytes = v;
    if (key == "setup_steps") rec.setup_steps = v;
  }
  EXPECT_GT(rec.steps, 0) << r.out;
  EXPECT_GT(rec.weight_bytes, 0) << r.out;
  return rec;
}

json Stats(const std::string& trace, const std::string& view, const std::string& step_name = "") {
  std::vector<std::string> a{TT_CLI, "stats", trace, "--view", view, "--json"};
  if (!step_name.empty()) a.insert(a.end(), {"--step-name", step_name});
  auto r = RunCmd(a, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object();
}

// The step view: one row per step the program ran, numbered without gaps or repeats.
void ExpectSteps(const Recording& rec) {
  json j = Stats(rec.trace, "step", rec.step_name);
  ASSERT_TRUE(j.contains("rows")) << j.dump();
  EXPECT_EQ(static_cast<int64_t>(j["rows"].size()), rec.steps) << j.dump().substr(0, 2000);
  std::set<int64_t> numbers;
  for (const auto& row : j["rows"]) {
    numbers.insert(row["step"].get<int64_t>());
    EXPECT_GT(row["duration_micros"].get<double>(), 0) << row.dump();
  }
  EXPECT_EQ(numbers.size(), j["rows"].size()) << "step numbers repeat: " << j.dump();
}

// Framework-op slices of the whole trace: (start, end, "name:type").
struct OpSlice {
  uint64_t start, end;
  std::string name;
};

class OpCollector {
 public:
  OpCollector(const model::TraceModel& m, size_t process, std::vector<OpSlice>* out)
      : proc_(m.processes[process]), out_(out) {
    for (uint32_t i = 0; i < proc_.names.size(); ++i)
      if (proc_.names[i] == "op_type") op_type_ = i;
  }
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s) {
    if (s.category != layout::Category::kFrameworkOp) return;
    std::string name(proc_.Name(s.name));
    Arg a;  // XLA ops: their HLO category as the type
    if (op_type_ && s.args.Find(op_type_, &a) && a.type == layout::ArgType::kString &&
        name.find(':') == std::string::npos)
      name += ":" + std::string(proc_.Name(a.v.str));
    out_->push_back({s.start, s.end, name});
  }

 private:
  const model::Process& proc_;
  std::vector<OpSlice>* out_;
  uint32_t op_type_ = 0;
};

// Each step (past the setup ones) holds, for every group of `required`, an op whose
// "name:type" contains one of the group's words, with a non-zero duration inside the step.
// Names count too: oneDNN builds fuse BiasAdd and Relu into _MklNativeFusedMatMul, whose name
// is still the model's "dense/Relu".
// (A JAX step runs from its call through the XLA execution it caused, so its ops are inside.)
void ExpectOpsInEveryStep(const Recording& rec,
                          const std::vector<std::vector<std::string>>& required) {
  model::TraceModel m = model::LoadModel(rec.trace);
  std::vector<std::string> names;
  if (!rec.step_name.empty()) names.push_back(rec.step_name);
  std::vector<analysis::Step> steps = analysis::FindSteps(m, names, 1);
  ASSERT_GT(static_cast<int64_t>(steps.size()), rec.setup_steps);
  steps.erase(steps.begin(), steps.begin() + rec.setup_steps);
  std::vector<OpSlice> ops;
  std::set<std::string> types;  // for the message
  for (const auto& t : m.tracks) {
    if (t.kind == layout::TrackKind::kDevice) continue;
    OpCollector c(m, t.process, &ops);
    model::ScanTrack(m, t, nullptr, c);
  }
  for (const auto& o : ops) types.insert(o.name.substr(o.name.rfind(':') + 1));
  std::string all;
  for (const auto& t : types) all += t + " ";
  auto matches = [](const OpSlice& o, const std::vector<std::string>& group) {
    for (const auto& want : group)
      if (o.name.find(want) != std::string::npos) return true;
    return false;
  };
  for (const auto& step : steps) {
    for (const auto& group : required) {
      bool found = false;
      for (const auto& o : ops) {
        if (o.start < step.start || o.end > step.end || o.end <= o.start) continue;
        if ((found = matches(o, group))) break;
      }
      EXPECT_TRUE(found) << "step " << step.number << " has no op of " << group[0]
                         << " with a non-zero duration inside it; op types: " << all;
    }
  }
}

// Allocation instants with bytes, and a peak in use no smaller than the model's weights.
void ExpectAllocations(const Recording& rec) {
  model::TraceModel m = model::LoadModel(rec.trace);
  std::vector<Problem> problems;
  analysis::MemoryResult mem = analysis::ComputeMemory(m, 1000, 1, &problems);
  uint64_t allocations = 0;
  int64_t peak = 0;
  for (const auto& a : mem.allocators) {
    allocations += a.allocations;
    peak = std::max(peak, a.peak);
  }
  EXPECT_GT(allocations, 0u);
  EXPECT_GE(peak, rec.weight_bytes) << allocations << " allocations";
}

void ExpectBabeltraceReads(const Recording& rec) {
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto bt = RunCmd({"babeltrace2", rec.trace, "-o", "dummy"}, {}, 240);
  EXPECT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  EXPECT_EQ(bt.err, "");
}

// The op view against xprof's own framework op stats of the same capture: for the 10 op types
// with the most self time in xprof (its input pipeline's "Dataset" rows aside: tensortrace shows
// them in the runtime view), the same occurrences, self time within 1% and share within 1
// percentage point; and no runtime, eager, compile or input range among the op view's rows
// (`not_ops`: more names, of the program's framework, that must not be op types). Prints each
// compared type's numbers. xprof has no rows for JAX's XLA ops on the CPU: then only the rows
// are checked (the test's output says so).
void ExpectOpViewEqualsXprof(const Recording& rec, const std::vector<std::string>& not_ops = {}) {
  std::vector<std::string> files;
  for (const auto& pid : ListDirectory(rec.trace + "/xspace"))
    for (const auto& run : ListDirectory(rec.trace + "/xspace/" + pid + "/plugins/profile"))
      for (const auto& f : ListDirectory(rec.trace + "/xspace/" + pid + "/plugins/profile/" + run))
        if (f.ends_with(".xplane.pb"))
          files.push_back(rec.trace + "/xspace/" + pid + "/plugins/profile/" + run + "/" + f);
  ASSERT_FALSE(files.empty());
  std::vector<std::string> cmd = {Python(),
                                  std::string(TT_SOURCE_DIR) + "/tests/util/xprof_op_stats.py"};
  cmd.insert(cmd.end(), files.begin(), files.end());
  auto x = RunCmd(cmd, {}, 240);
  if (x.status == 3) GTEST_SKIP() << "xprof is not importable";
  ASSERT_EQ(x.status, 0) << x.err.substr(0, 2000);
  json xprof = json::parse(x.out);
  // tf.data's dataset ops (Dataset, MapDataset, ...: xprof's op types for the pipeline's
  // iterators, in its top rows when the pipeline is slow enough) are the input pipeline to
  // tensortrace, in the runtime view, not op types.
  for (auto it = xprof.begin(); it != xprof.end();)
    it = it.key().ends_with("Dataset") ? xprof.erase(it) : std::next(it);
  double xprof_total = 0;
  std::vector<std::pair<double, std::string>> top;
  for (const auto& [type, v] : xprof.items()) {
    xprof_total += v[1].get<double>();
    top.push_back({v[1].get<double>(), type});
  }
  std::sort(top.rbegin(), top.rend());
  top.resize(std::min<size_t>(top.size(), 10));
  json ops = Stats(rec.trace, "op"), runtime = Stats(rec.trace, "runtime");
  std::map<std::string, json> by_type;
  for (const auto& row : ops["rows"]) by_type[row["name"]] = row;
  // xprof also counts each allocation event that names the op (its tf_op stat, the op's node
  // name) as an instance of it; tensortrace counts the op's executions. Those events, from the
  // trace's CSV export, by the type of the op they name:
  std::map<std::string, std::string> type_of;  // node name -> op type
  json names = Stats(rec.trace, "name");
  for (const auto& op : names["rows"]) {
    std::string n = op["name"];
    if (size_t c = n.rfind(':'); c != std::string::npos) type_of[n.substr(0, c)] = n.substr(c + 1);
  }
  std::map<std::string, int64_t> allocations_naming;
  ASSERT_EQ(
      RunCmd({TT_CLI, "export", rec.trace, "--format", "csv", "-o", rec.trace + ".csv"}, {}, 240)
          .status,
      0);
  std::istringstream csv(ReadFile(rec.trace + ".csv"));
  for (std::string line; std::getline(csv, line);) {
    size_t at = line.find(";tf_op=");
    if (line.find(",allocation,") == std::string::npos || at == std::string::npos) continue;
    std::string node = line.substr(at + 7, line.find_first_of(";\"", at + 7) - at - 7);
    if (type_of.count(node)) allocations_naming[type_of[node]]++;
  }
  if (top.empty()) std::cout << "xprof: no framework op rows; op view rows checked only\n";
  for (const auto& [self, type] : top) {
    ASSERT_TRUE(by_type.count(type)) << type << " is not in the op view";
    const json& row = by_type[type];
    int64_t occurrence = row["occurrence"].get<int64_t>() + allocations_naming[type];
    double share = row["share"].get<double>(), xprof_share = 100 * self / xprof_total;
    std::cout << "xprof " << type << ": occurrence " << occurrence << "/" << xprof[type][0]
              << ", self time ratio " << row["self_micros"].get<double>() / self
              << ", share difference " << share - xprof_share << " points\n";
    EXPECT_EQ(occurrence, xprof[type][0]) << type;
    EXPECT_NEAR(row["self_micros"].get<double>(), self, 0.01 * self) << type;
    EXPECT_NEAR(share, xprof_share, 1.0) << type;
  }
  std::vector<std::string> forbidden = {
      "EagerExecute",     "Process", "Run", "TFE_DeleteTensorHandle", "tf.function-graph_building",
      "convert_to_tensor"};
  forbidden.insert(forbidden.end(), not_ops.begin(), not_ops.end());
  for (const auto& row : ops["rows"]) {
    std::string n = row["name"];
    for (const auto& runtime_name : forbidden) EXPECT_NE(n, runtime_name);
    EXPECT_EQ(n.find("::"), std::string::npos) << n;
    EXPECT_FALSE(n.starts_with(" ")) << n;
    EXPECT_FALSE(n.starts_with("EagerLocalExecute")) << n;
  }
}

TEST(TfWorkloads, KerasCnnFitWithPrimitivesInItsOpsAndAReport) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recording rec = RecordProgram(d, "tf_keras_cnn.py");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"Conv2D"}, {"MatMul"}, {"Relu"}, {"MaxPool"}, {"BiasAdd"}});
  ExpectAllocations(rec);
  ExpectBabeltraceReads(rec);
  ExpectOpViewEqualsXprof(rec);

  // oneDNN's convolutions (ITT, in the thread's own stream) linked to the TF op that ran them
  // (imported stream of the same thread) by nesting.
  json prim = Stats(rec.trace, "primitive");
  bool conv_in_conv2d = false;
  std::string rows;
  for (const auto& row : prim["rows"]) {
    std::string name = row["name"], ops = row["ops"];
    rows += name + " <- " + ops + "; ";
    if (name.find("convolution") != std::string::npos && ops.find("Conv2D") != std::string::npos)
      conv_in_conv2d = true;
  }
  EXPECT_TRUE(conv_in_conv2d) << rows;
  EXPECT_GT(prim["links"].value("primitive->op: nesting on its thread", 0), 0) << prim.dump();

  // The report of the same trace in headless Chromium: its top ops are compute ops, the
  // convolutions and matrix products among the first 10.
  auto r = RunCmd({TT_CLI, "report", rec.trace, "-o", d / "r.html", "--top", "10"}, {}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  if (RunCmd({"chromium", "--version"}, {}, 60).status != 0)
    GTEST_SKIP() << "chromium is not installed";
  auto dom = RunCmd({"chromium", "--headless", "--no-sandbox", "--disable-gpu",
                     "--user-data-dir=" + d / "profile", "--enable-logging=stderr", "--v=0",
                     "--dump-dom", "file://" + d / "r.html"},
                    {}, 90);
  ASSERT_EQ(dom.status, 0) << dom.err;
  EXPECT_EQ(dom.err.find("CONSOLE"), std::string::npos) << dom.err;
  EXPECT_EQ(dom.err.find("Uncaught"), std::string::npos) << dom.err;
  EXPECT_NE(dom.out.find("</footer>"), std::string::npos);  // the whole page was parsed
  size_t table = dom.out.find("<table id=\"top-ops\">");
  ASSERT_NE(table, std::string::npos);
  std::string top = dom.out.substr(table, dom.out.find("</table>", table) - table);
  EXPECT_NE(top.find("Conv2D"), std::string::npos) << top.substr(0, 3000);
  EXPECT_NE(top.find("MatMul"), std::string::npos) << top.substr(0, 3000);
}

TEST(TfWorkloads, CustomTfFunctionLoopWithGradientTape) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  // A plain tf.function call carries no step annotation: the loop's repeated call is the step.
  Recording rec = RecordProgram(d, "tf_custom_loop.py");
  ExpectSteps(rec);
  json steps = Stats(rec.trace, "step");
  for (const auto& row : steps["rows"]) EXPECT_EQ(row["source"], "repeated-call") << row.dump();
  ASSERT_FALSE(steps["notes"].empty());
  EXPECT_NE(steps["notes"].back().get<std::string>().find("repeated call train_step"),
            std::string::npos)
      << steps["notes"].dump();
  // The bootstrap numbers the function's calls: the steps are the program's own.
  EXPECT_NE(steps["notes"].back().get<std::string>().find("numbered by the program: none missing"),
            std::string::npos)
      << steps["notes"].dump();
  ExpectOpsInEveryStep(rec, {{"MatMul"}, {"BiasAdd"}, {"Relu"}});
  ExpectAllocations(rec);
  ExpectBabeltraceReads(rec);
  ExpectOpViewEqualsXprof(rec, {"train_step"});
}

// A small Transformer (attention, layer norms, feed-forward) trained by a custom tf.function
// loop with GradientTape: its steps, its attention's batched matrix products in each, and the
// op view equal to xprof's (the tf.function's call, "train_step", is runtime, not an op).
TEST(TfWorkloads, TransformerCustomLoopOpsAsXprofSays) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recording rec = RecordProgram(d, "tf_transformer_loop.py");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"BatchMatMul"}, {"Softmax"}, {"MatMul"}});
  ExpectOpViewEqualsXprof(rec, {"train_step"});
}

TEST(TfWorkloads, CompatV1GraphThroughSessionRun) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recording rec = RecordProgram(d, "tf_v1_session.py");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"MatMul"}, {"BiasAdd"}, {"Relu"}});
  ExpectAllocations(rec);
  ExpectBabeltraceReads(rec);
}

TEST(TfWorkloads, TfDataPipelineFeedingFit) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recording rec = RecordProgram(d, "tf_data_pipeline.py");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"MatMul"}, {"BiasAdd"}, {"Relu"}});
  ExpectAllocations(rec);
  ExpectBabeltraceReads(rec);
}

// An input-bound fit (each element costs the tf.data map ~4 ms of Python): the step view's
// input share (warm-up steps aside) within 5 points of what xprof's overview says of our XSpace
// export of the same trace, step 0 (tf.function tracing) marked warm-up, and the report's
// finding names it input-bound.
TEST(TfWorkloads, InputBoundJobWaitsForInputAsXprofSays) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recording rec = RecordProgram(d, "tf_input_bound.py");
  ExpectSteps(rec);
  json steps = Stats(rec.trace, "step");
  ASSERT_FALSE(steps["rows"].empty());
  EXPECT_TRUE(steps["rows"][0]["warmup"].get<bool>()) << steps["rows"][0].dump();
  // The share over the steps xprof's overview samples: the warm-up left out, as the report
  // does, and the last step, which xprof leaves out (on a run where the last step waited
  // little, 46.8% without it, as xprof said, against 41.7% with it).
  double input = 0, total = 0;
  for (size_t k = 0; k + 1 < steps["rows"].size(); ++k) {
    const json& row = steps["rows"][k];
    if (row["warmup"].get<bool>()) continue;
    input += row["input_micros"].get<double>();
    total += row["duration_micros"].get<double>();
  }
  ASSERT_GT(total, 0);
  double ours = 100 * input / total;
  EXPECT_GE(ours, 20) << "an input-bound job (the report's finding needs 20%)";
  ExpectOpViewEqualsXprof(rec);

  ASSERT_EQ(
      RunCmd({TT_CLI, "export", rec.trace, "--format", "xspace", "-o", d / "logs"}, {}, 240).status,
      0);
  auto x = RunCmd(
      {Python(), std::string(TT_SOURCE_DIR) + "/tests/util/xprof_input_percent.py", d / "logs"}, {},
      240);
  if (x.status == 3) GTEST_SKIP() << "xprof is not importable";
  ASSERT_EQ(x.status, 0) << x.err.substr(0, 2000);
  EXPECT_NEAR(ours, std::stod(x.out), 5.0) << "xprof: " << x.out;

  auto r = RunCmd({TT_CLI, "report", rec.trace, "-o", d / "r.html"}, {}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(d / "r.html");
  EXPECT_NE(html.find("input-bound: "), std::string::npos);
  EXPECT_NE(html.find("id=\"warmup-note\""), std::string::npos);
}

TEST(TfWorkloads, JaxJitTrainingLoop) {
  REQUIRE_MODULE("jax");
  TempDir d;
  // No step annotation either: the jitted function's repeated call is the step, and it runs
  // through the XLA execution it caused (on another thread, after the call returned).
  Recording rec = RecordProgram(d, "jax_train_loop.py");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"dot"}, {"fusion"}});
  json steps = Stats(rec.trace, "step");
  ASSERT_FALSE(steps["notes"].empty());
  EXPECT_NE(steps["notes"].back().get<std::string>().find(
                "repeated call PjitFunction(update), each from the call through the XLA "
                "execution it caused (" +
                std::to_string(rec.steps) + " linked"),
            std::string::npos)
      << steps["notes"].dump();
  EXPECT_NE(steps["notes"].back().get<std::string>().find("numbered by the program's run ids"),
            std::string::npos)
      << steps["notes"].dump();
  // Ops are XLA's; JAX's dispatch and the thunk executor's "end: OP" are runtime.
  ExpectOpViewEqualsXprof(rec, {"ParseArguments", "Handle inputs", "Wait for usage holds",
                                "Wait for donation holds", "AllocateOutputBuffersWithInputReuse",
                                "PythonRefManager::CollectGarbage", "end: dot.2"});
  // Step-limited stats hold the XLA ops of exactly the steps asked for: each execution runs
  // each op once, so steps 2..4 hold 3/N of the ops of all N steps, which hold all of them.
  auto occurrences = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> a{TT_CLI, "stats", rec.trace, "--view", "op", "--json"};
    a.insert(a.end(), extra.begin(), extra.end());
    auto r = RunCmd(a, {}, 120);
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, int64_t> n;  // by kind of XLA op: "dot", "fusion" (ynn_fusion, ...)
    json j = r.status == 0 ? json::parse(r.out) : json::object();
    if (j.contains("rows"))
      for (const auto& row : j["rows"])
        for (const char* kind : {"dot", "fusion"})
          if (row["name"].get<std::string>().find(kind) != std::string::npos)
            n[kind] += row["occurrence"].get<int64_t>();
    return n;
  };
  auto whole = occurrences({}), all_steps = occurrences({"--steps", "0:"}),
       three = occurrences({"--steps", "2:4"});
  ASSERT_GT(whole["dot"], 0);
  ASSERT_GT(whole["fusion"], 0);
  EXPECT_EQ(whole["dot"] % rec.steps, 0) << whole["dot"];
  for (const char* type : {"dot", "fusion"}) {
    EXPECT_EQ(all_steps[type], whole[type]) << type;
    EXPECT_EQ(three[type] * rec.steps, whole[type] * 3) << type;
  }
  // JAX's CPU client reports no MemoryAllocation events: info and memory say so, as a note.
  auto info = RunCmd({TT_CLI, "info", rec.trace, "--json"}, {}, 120);
  ASSERT_EQ(info.status, 0) << info.err;
  json note = json::parse(info.out)["memory_note"];
  ASSERT_TRUE(note.is_string()) << info.out.substr(0, 2000);
  EXPECT_NE(note.get<std::string>().find("JAX's CPU client"), std::string::npos) << note;
  auto mem = RunCmd({TT_CLI, "memory", rec.trace}, {}, 120);
  EXPECT_EQ(mem.status, 0) << mem.err;
  EXPECT_EQ(mem.out, "note: " + note.get<std::string>() + "\n");
  ExpectBabeltraceReads(rec);
}

}  // namespace
}  // namespace tt
