// Real TensorFlow and JAX training programs (tests/programs/tf_*.py, jax_train_loop.py),
// recorded unchanged with `tensortrace record -- python3 prog.py`: every step with its number,
// the model's ops inside each step, allocations up to the model's weights, a trace babeltrace2
// reads, oneDNN primitives linked to the TensorFlow op that ran them, and the HTML report of a
// CNN in headless Chromium. TensorFlow takes seconds to import: one recording per program
// (one test each), several assertions on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/memory.h"
#include "analysis/steps.h"
#include "core/files.h"
#include "model/scan.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

const std::string& Python() {
  static const std::string exe = [] {
    auto r = RunCmd({"python3", "-c", "import sys; print(sys.executable)"});
    std::string s = r.status == 0 ? r.out : "";
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }();
  return exe;
}

// find_spec, not an import: importing TensorFlow only to decide costs as much as a test.
bool HaveModule(const std::string& module) {
  if (Python().empty()) return false;
  return RunCmd({Python(), "-c",
                 "import importlib.util, sys; sys.exit(importlib.util.find_spec('" + module +
                     "') is None)"})
             .status == 0;
}

#define REQUIRE_MODULE(m)                                \
  do {                                                   \
    if (!HaveModule(m)) {                                \
      GTEST_SKIP() << m " is not importable by python3"; \
    }                                                    \
  } while (0)

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
  auto r = RunCmd({TT_CLI, "record", "-o", rec.trace, "--", Python(),
                   std::string(TT_SOURCE_DIR) + "/tests/programs/" + program},
                  {}, 280);
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
// inside = false (JAX): dispatch is asynchronous, the XLA ops run after the jitted call that
// marks the step has returned; then each group needs a non-zero op per step, after the first.
void ExpectOpsInEveryStep(const Recording& rec,
                          const std::vector<std::vector<std::string>>& required,
                          bool inside = true) {
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
  if (!inside) {
    for (const auto& group : required) {
      size_t n = 0;
      for (const auto& o : ops)
        n += o.start >= steps[0].start && o.end > o.start && matches(o, group);
      EXPECT_GE(n, steps.size()) << group[0] << "; op types: " << all;
    }
    return;
  }
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

TEST(TfWorkloads, KerasCnnFitWithPrimitivesInItsOpsAndAReport) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  Recording rec = RecordProgram(d, "tf_keras_cnn.py");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"Conv2D"}, {"MatMul"}, {"Relu"}, {"MaxPool"}, {"BiasAdd"}});
  ExpectAllocations(rec);
  ExpectBabeltraceReads(rec);

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

  // The report of the same trace in headless Chromium. --top 40: the table ranks TraceMe ranges
  // (EagerExecute, tf.function-graph_building, tf.data iterators) with the ops, and the
  // convolutions come about 22nd.
  auto r = RunCmd({TT_CLI, "report", rec.trace, "-o", d / "r.html", "--top", "40"}, {}, 120);
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
  // A plain tf.function call carries no step annotation: the loop's function is named.
  Recording rec = RecordProgram(d, "tf_custom_loop.py", "train_step");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"MatMul"}, {"BiasAdd"}, {"Relu"}});
  ExpectAllocations(rec);
  ExpectBabeltraceReads(rec);
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

TEST(TfWorkloads, JaxJitTrainingLoop) {
  REQUIRE_MODULE("jax");
  TempDir d;
  // No step annotation either: the jitted function's call is the step.
  Recording rec = RecordProgram(d, "jax_train_loop.py", "PjitFunction(update)");
  ExpectSteps(rec);
  ExpectOpsInEveryStep(rec, {{"dot"}, {"fusion"}}, false);
  // JAX's CPU client reports no MemoryAllocation events: nothing to check for memory here.
  ExpectBabeltraceReads(rec);
}

}  // namespace
}  // namespace tt
