// Real PyTorch programs (tests/programs/torch_*.py), recorded unchanged with `tensortrace
// record -- python3 prog.py`: the bootstrap starts Kineto in the process and record imports its
// profile. Each program also runs on its own under torch.profiler with the same activities
// (TT_TORCH_REFERENCE), and the trace is compared with torch's own answers: the same aten ops,
// the same calls per op and step, the same memory peak, one step per iteration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/memory/memory.h"
#include "core/files.h"
#include "model/model.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::HaveModule;
using test::Program;
using test::Python;
using test::RunCmd;
using test::RunJson;
using test::Said;
using test::TempDir;

// Calls per op name (aten ops and autograd nodes) in the op view of steps A:B.
std::map<std::string, int64_t> OpCalls(const std::string& trace, int64_t steps) {
  json j = RunJson({TT_CLI, "stats", trace, "--view", "name", "--json", "--steps",
                    "0:" + std::to_string(steps - 1)});
  std::map<std::string, int64_t> calls;
  for (const auto& row : j.value("rows", json::array()))
    calls[row["name"].get<std::string>()] += row["occurrence"].get<int64_t>();
  return calls;
}

struct TorchRun {
  std::string trace;
  std::map<std::string, int64_t> said;
  json reference;  // torch.profiler's own answers for the same loop
};

// The program recorded, and run again on its own under torch.profiler (torch_reference.py).
// With the default Python sampling: the memory peak is compared byte for byte, which holds
// because the native sampler creates no Python object (a sampler in Python moved the
// interpreter's cyclic garbage collections, so a tensor held in a reference cycle was freed at
// another moment: the Transformer's peak 984,052 B against 823,748 B; docs/stats-json.md, "The
// code view"). Where there is no native sampler, sampling is off by default.
TorchRun RecordWithReference(const TempDir& d, const std::string& program) {
  TorchRun run;
  run.trace = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", run.trace, "--", Python(), Program(program)}, {}, 280);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("tensortrace: warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PyTorch profile of process"), std::string::npos) << r.err;
  run.said = Said(r.out);
  auto ref =
      RunCmd({Python(), Program(program)}, {{"TT_TORCH_REFERENCE", d / "reference.json"}}, 280);
  EXPECT_EQ(ref.status, 0) << ref.err;
  run.reference = json::parse(ReadFile(d / "reference.json"));
  return run;
}

// Every forward op that torch's own trace links to its autograd node is one flow of the export:
// it starts at an op and ends at a node with the op's sequence number, in the op's process.
void ExpectForwardBackwardFlows(const TorchRun& run) {
  TempDir d;
  auto e = RunCmd({TT_CLI, "export", run.trace, "--format", "chrome", "-o", d / "t.json"}, {}, 120);
  ASSERT_EQ(e.status, 0) << e.err;
  json doc = json::parse(ReadFile(d / "t.json"));
  using Where = std::pair<int64_t, std::string>;             // pid, ts as written
  std::map<Where, std::set<int64_t>> seqs;                   // of the slices that start there
  std::map<std::string, std::map<std::string, Where>> ends;  // flow id -> "s"/"f" -> where
  for (const auto& ev : doc["traceEvents"]) {
    std::string ph = ev.value("ph", "");
    Where w{ev.value("pid", int64_t{0}), ev.value("ts", json()).dump()};
    if (ph == "X" && ev.contains("args") && ev["args"].contains("seq"))
      seqs[w].insert(ev["args"]["seq"].get<int64_t>());
    if ((ph == "s" || ph == "f") && ev.value("cat", "") == "flow") ends[ev["id"]][ph] = w;
  }
  int64_t whole = 0, linked = 0;
  for (const auto& [id, both] : ends) {
    if (both.size() != 2) continue;
    whole++;
    const auto &from = seqs[both.at("s")], &to = seqs[both.at("f")];
    linked += std::any_of(from.begin(), from.end(), [&](int64_t q) { return to.count(q) > 0; });
  }
  EXPECT_EQ(ends.size(), static_cast<size_t>(whole)) << "flows with one end";
  EXPECT_GT(run.reference["fwdbwd"].get<int64_t>(), 0);
  EXPECT_EQ(whole, run.reference["fwdbwd"].get<int64_t>());
  EXPECT_EQ(linked, whole);
}

// What was live at the memory peak names, for PyTorch's allocations (no tensor of their own in
// the events), the input shapes of the op that made them: for every op, shapes that
// torch.profiler's key_averages(group_by_input_shape=True) lists for that op.
void ExpectLiveOpInputsAsTorchGroupsThem(const TorchRun& run) {
  json mem = RunJson({TT_CLI, "memory", run.trace, "--json", "--top", "50"});
  static const std::regex kType(R"(([A-Za-z_][A-Za-z0-9_: ]*)\[)");
  size_t with_inputs = 0;
  for (const auto& a : mem["allocators"])
    for (const auto& live : a["live_at_peak"])
      for (const auto& t : live["tensors"]) {
        std::string inputs = t["op_inputs"];
        if (inputs.empty()) continue;
        ++with_inputs;
        std::string shapes = std::regex_replace(inputs, kType, "[");  // "float[2,3]" -> "[2,3]"
        const json& theirs = run.reference["shapes"].value(live["op"].get<std::string>(), json());
        EXPECT_NE(std::find(theirs.begin(), theirs.end(), shapes), theirs.end())
            << live["op"] << ": " << shapes << " not among " << theirs.dump();
      }
  EXPECT_GT(with_inputs, 0u) << mem.dump().substr(0, 2000);
}

// The trace against torch.profiler's own answers: one step per iteration found with no help,
// the same aten ops with the same calls (both profiles cover the program from `import torch`
// on), `training_ops` once per step inside the steps, and the same memory peak.
void ExpectMatchesTorchProfiler(const TorchRun& run, const std::vector<std::string>& training_ops) {
  int64_t steps = run.said.at("steps");
  ASSERT_GT(steps, 2);
  EXPECT_EQ(run.reference["steps"].get<int64_t>(), steps);
  json step_view = RunJson({TT_CLI, "stats", run.trace, "--view", "step", "--json"});
  ASSERT_EQ(static_cast<int64_t>(step_view["rows"].size()), steps) << step_view.dump();
  for (int64_t k = 0; k < steps; ++k) EXPECT_EQ(step_view["rows"][k]["step"].get<int64_t>(), k);

  json names = RunJson({TT_CLI, "stats", run.trace, "--view", "name", "--json"});
  std::map<std::string, int64_t> ours, theirs;
  for (const auto& row : names["rows"])
    if (row["name"].get<std::string>().starts_with("aten::"))
      ours[row["name"]] += row["occurrence"].get<int64_t>();
  for (const auto& [name, n] : run.reference["ops"].items())
    if (name.starts_with("aten::")) theirs[name] = n.get<int64_t>();
  EXPECT_GT(theirs.size(), 20u);
  EXPECT_EQ(ours, theirs);

  std::map<std::string, int64_t> in_steps = OpCalls(run.trace, steps);
  for (const auto& op : training_ops) EXPECT_EQ(in_steps[op], steps) << op;

  model::TraceModel m = model::LoadModel(run.trace);
  std::vector<Problem> problems;
  analysis::MemoryResult mem = analysis::ComputeMemory(m, 1000, 1, &problems);
  int64_t peak = -1;
  for (const auto& a : mem.allocators)
    if (a.name == "cpu") peak = a.peak;
  EXPECT_GE(peak, run.said.at("weight_bytes"));
  EXPECT_EQ(peak, run.reference["peak"].get<int64_t>());
  ExpectLiveOpInputsAsTorchGroupsThem(run);
  ExpectForwardBackwardFlows(run);
}

TEST(TorchWorkloads, CnnLoopWithDataLoaderMatchesTorchProfiler) {
  REQUIRE_MODULE("torch");
  TempDir d;
  TorchRun run = RecordWithReference(d, "torch_cnn.py");
  ExpectMatchesTorchProfiler(run, {"aten::mkldnn_convolution", "aten::convolution_backward",
                                   "aten::addmm", "aten::nll_loss_backward"});
  // oneDNN's convolutions (ITT) are linked to the aten ops that ran them.
  json prims = RunJson({TT_CLI, "stats", run.trace, "--view", "primitive", "--json"});
  std::string conv_ops;
  for (const auto& row : prims["rows"])
    if (row["name"] == "convolution") conv_ops = row.value("ops", "");
  EXPECT_NE(conv_ops.find("aten::mkldnn_convolution"), std::string::npos) << prims.dump();
  EXPECT_NE(conv_ops.find("aten::convolution_backward"), std::string::npos) << prims.dump();
  // The batches its two worker processes fetched are the input pipeline's work, one each.
  json rt = RunJson({TT_CLI, "stats", run.trace, "--view", "runtime", "--json"});
  int64_t fetches = 0;
  for (const auto& row : rt["rows"])
    if (row["name"] == "DataLoader fetch" && row["kind"] == "input") fetches = row["occurrence"];
  EXPECT_EQ(fetches, run.said.at("steps")) << rt.dump().substr(0, 2000);
  EXPECT_EQ(RunJson({TT_CLI, "info", run.trace, "--json"})["processes"].size(), 3u);
  // The scope view is the module hierarchy, each module's ops under it (the backward's outside).
  json scope = RunJson({TT_CLI, "stats", run.trace, "--view", "scope", "--json"});
  std::map<std::string, int64_t> calls;  // "module/op" -> calls, for the paths asked below
  std::function<void(const json&, const std::string&)> walk = [&](const json& rows,
                                                                  const std::string& path) {
    for (const auto& row : rows) {
      std::string p = path.empty() ? row["name"].get<std::string>()
                                   : path + "/" + row["name"].get<std::string>();
      calls[p] += row["occurrence"].get<int64_t>();
      if (row.contains("children")) walk(row["children"], p);
    }
  };
  walk(scope["rows"], "");
  int64_t n = run.said.at("steps");
  EXPECT_EQ(calls["Sequential/Conv2d_0/aten::mkldnn_convolution"], n)
      << scope.dump().substr(0, 3000);
  EXPECT_EQ(calls["Sequential/ReLU_1/aten::relu"], n);
  EXPECT_EQ(calls["Sequential/MaxPool2d_2/aten::max_pool2d"], n);
  EXPECT_EQ(calls["Sequential/Linear_4/aten::addmm"], n);
  EXPECT_EQ(calls["aten::convolution_backward"], n);
  EXPECT_EQ(calls["Sequential/Conv2d_0/aten::convolution_backward"], 0);
  // The DataLoader's fetches are the step's input.
  json steps = RunJson({TT_CLI, "stats", run.trace, "--view", "step", "--json"});
  double input = 0;
  for (const auto& row : steps["rows"]) input += row["input_micros"].get<double>();
  EXPECT_GT(input, 0) << steps.dump().substr(0, 1000);
}

TEST(TorchWorkloads, TransformerEncoderLoopMatchesTorchProfiler) {
  REQUIRE_MODULE("torch");
  TempDir d;
  TorchRun run = RecordWithReference(d, "torch_transformer.py");
  ExpectMatchesTorchProfiler(run, {"aten::embedding", "aten::embedding_dense_backward",
                                   "aten::cross_entropy_loss", "aten::nll_loss_backward"});
}

// Runs `argv` inside a new network namespace with only its loopback up (the ranks' rendezvous
// and gloo's sockets then reach nothing else); false where namespaces cannot be made.
bool InNetworkNamespace(std::vector<std::string> argv, test::RunResult* r) {
  if (RunCmd({"unshare", "-n", "true"}).status != 0) return false;
  std::string cmd = "ip link set lo up && exec \"$@\"";
  argv.insert(argv.begin(), {"unshare", "-n", "sh", "-c", cmd, "sh"});
  *r = RunCmd(argv, {}, 280);
  return true;
}

TEST(TorchWorkloads, DdpWithGlooOnTwoRanksHasItsAllReducesWithBytes) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  test::RunResult r;
  if (!InNetworkNamespace({TT_CLI, "record", "-o", trace, "--", Python(), Program("torch_ddp.py")},
                          &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_GT(said["grad_bytes"], 0) << r.out;

  // Every rank's gloo all-reduces, each carrying the bytes of DDP's gradient bucket.
  auto e = RunCmd({TT_CLI, "export", trace, "--format", "chrome", "-o", d / "t.json"}, {}, 120);
  ASSERT_EQ(e.status, 0) << e.err;
  json doc = json::parse(ReadFile(d / "t.json"));
  // The program's calls (c10d::allreduce_) carry them too, with the element type of the range
  // that ran each; both name the process's one group, its rank and the world size.
  std::map<int64_t, int64_t> allreduces, calls;  // pid -> all-reduces of the whole bucket
  std::map<int64_t, std::set<int64_t>> rank_of;  // pid -> ranks its collectives name
  for (const auto& ev : doc["traceEvents"]) {
    std::string name = ev.value("name", "");
    if (name != "gloo:all_reduce" && name != "c10d::allreduce_") continue;
    const json& a = ev["args"];
    bool call = name == "c10d::allreduce_";
    EXPECT_EQ(ev["cat"], call ? "framework_op" : "communication");
    EXPECT_EQ(a["collective"], call ? "allreduce" : "all_reduce");
    EXPECT_EQ(a.value("dtype", ""), "float") << ev.dump();
    EXPECT_EQ(a.value("process_group", ""), "0") << ev.dump();
    EXPECT_EQ(a.value("nranks", int64_t{0}), 2) << ev.dump();
    rank_of[ev["pid"]].insert(a.value("rank", int64_t{-1}));
    if (a.value("bytes", int64_t{0}) == said["grad_bytes"])
      (call ? calls : allreduces)[ev["pid"]]++;
  }
  ASSERT_EQ(allreduces.size(), 2u) << "ranks with all-reduces";
  for (const auto& [pid, n] : allreduces) EXPECT_EQ(n, said["steps"]) << "process " << pid;
  EXPECT_EQ(calls, allreduces);

  // Each rank's process carries the rank torchrun-style variables gave it.
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  std::set<int64_t> ranks;
  for (const auto& p : info["processes"])
    if (p["rank"].is_object()) {
      EXPECT_EQ(p["rank"]["world_size"], 2);
      EXPECT_EQ(p["rank"]["source"], "RANK");
      ranks.insert(p["rank"]["rank"].get<int64_t>());
      EXPECT_EQ(allreduces.count(p["pid"].get<int64_t>()), 1u) << "rank without all-reduces";
      EXPECT_EQ(rank_of[p["pid"].get<int64_t>()],
                std::set<int64_t>{p["rank"]["rank"].get<int64_t>()});
    }
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1}));

  // The runtime view shows the collectives as communication.
  json rt = RunJson({TT_CLI, "stats", trace, "--view", "runtime", "--json"});
  bool found = false;
  for (const auto& row : rt["rows"])
    found |= row["name"] == "gloo:all_reduce" && row["kind"] == "communication";
  EXPECT_TRUE(found) << rt.dump().substr(0, 2000);
}

// The same job started by torch's own launcher, as users start it (torchrun, here as
// `python -m torch.distributed.run`): the elastic agent's two workers carry ranks 0 and 1 from
// the variables it gives them, the agent none, and `comm` matches each step's all-reduce of
// DDP's gradient bucket across the two.
TEST(TorchWorkloads, TorchrunWorkersCarryTheirRanksAndMatchTheirAllReduces) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  test::RunResult r;
  if (!InNetworkNamespace({TT_CLI, "record", "-o", trace, "--", Python(), "-m",
                           "torch.distributed.run", "--nproc_per_node", "2", "--master_addr",
                           "127.0.0.1", "--master_port", "29500", Program("torch_ddp.py")},
                          &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_GT(said["grad_bytes"], 0) << r.out;

  json info = RunJson({TT_CLI, "info", trace, "--json"});
  ASSERT_EQ(info["processes"].size(), 3u) << "the agent and its two workers";
  std::map<int64_t, int64_t> rank_of_pid;
  for (const auto& p : info["processes"]) {
    if (!p["rank"].is_object()) continue;
    EXPECT_EQ(p["rank"]["world_size"], 2);
    EXPECT_EQ(p["rank"]["local_rank"], p["rank"]["rank"]);
    EXPECT_EQ(p["rank"]["source"], "RANK");
    rank_of_pid[p["pid"].get<int64_t>()] = p["rank"]["rank"].get<int64_t>();
  }
  ASSERT_EQ(rank_of_pid.size(), 2u) << info.dump().substr(0, 2000);

  json comm = RunJson({TT_CLI, "comm", trace, "--json"});
  ASSERT_EQ(comm["ranks"].size(), 2u) << comm.dump().substr(0, 2000);
  for (const auto& rk : comm["ranks"]) EXPECT_EQ(rk["rank"], rank_of_pid[rk["pid"].get<int64_t>()]);
  int64_t allreduces = 0;
  for (const auto& in : comm["instances"]) {
    if (in["collective"] != "allreduce") continue;
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    allreduces += in["bytes"] == said["grad_bytes"];
  }
  EXPECT_EQ(allreduces, said["steps"]);
  EXPECT_EQ(comm["unmatched"], 0);
}

// The capture of the one traced process that imported torch, from `info --json`.
json TorchCapture(const std::string& trace) {
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  for (const auto& p : info.value("processes", json::array()))
    for (const auto& f : p.value("frameworks", json::array()))
      if (f.value("framework", "") == "torch") return f;
  return json::object();
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) n++;
  return n;
}

TEST(TorchWorkloads, ProgramsOwnProfilerWorksAndOursStepsAsideOnce) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", trace, "--", Python(), Program("torch_cnn.py")},
                  {{"TT_TORCH_REFERENCE", d / "own.json"}}, 280);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Count(r.err, "tensortrace: warning"), 1u) << r.err;
  EXPECT_NE(r.err.find("the program called torch.profiler"), std::string::npos) << r.err;
  // The program's own profile is whole: every step's ops are in it.
  json own = json::parse(ReadFile(d / "own.json"));
  EXPECT_EQ(own["steps"].get<int64_t>(), Said(r.out)["steps"]);
  EXPECT_EQ(own["ops"].value("aten::convolution_backward", int64_t{0}), own["steps"]);
  EXPECT_EQ(TorchCapture(trace).value("status", ""), "stepped_aside");
}

TEST(TorchWorkloads, CrashMidStepKeepsTheExitStatusAndATraceThatReads) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", trace, "--", Python(), Program("torch_cnn.py")},
                  {{"TT_TORCH_CRASH_AT", "2"}}, 280);
  EXPECT_EQ(r.status, 1) << r.err;  // Python's status for an uncaught exception
  EXPECT_NE(r.err.find("crash in step 2, as asked"), std::string::npos) << r.err;
  json cap = TorchCapture(trace);
  EXPECT_EQ(cap.value("status", ""), "captured") << cap.dump();
  EXPECT_NE(cap.value("message", "").find("uncaught RuntimeError"), std::string::npos);
  // The two whole steps before the crash were imported.
  json steps = RunJson({TT_CLI, "stats", trace, "--view", "step", "--json"});
  EXPECT_EQ(steps["rows"].size(), 2u) << steps.dump().substr(0, 1000);
  if (test::HaveBabeltrace()) {
    auto bt = RunCmd({"babeltrace2", trace, "-o", "dummy"}, {}, 240);
    EXPECT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  }
  // --force knows a PyTorch import's files (k*, kineto, xspace/<pid>/torch/) as the trace's own.
  auto again = RunCmd({TT_CLI, "record", "--force", "-o", trace, "--", "true"}, {}, 60);
  EXPECT_EQ(again.status, 0) << again.err;
}

TEST(TorchWorkloads, ATorchWhoseProfilerCannotStartGivesOneWarningAndTheRest) {
  if (Python().empty()) GTEST_SKIP() << "no python3";
  TempDir d;
  std::string trace = d / "t";
  std::string fake = std::string(TT_SOURCE_DIR) + "/tests/data/fake_torch";
  auto r = RunCmd({TT_CLI, "record", "-o", trace, "--", Python(), "-c",
                   "import torch; print('ran', torch.__version__)"},
                  {{"PYTHONPATH", fake}}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ran 0.0-fake"), std::string::npos) << r.out;
  EXPECT_EQ(Count(r.err, "tensortrace: warning"), 1u) << r.err;
  EXPECT_NE(r.err.find("this torch was built without Kineto"), std::string::npos) << r.err;
  json cap = TorchCapture(trace);
  EXPECT_EQ(cap.value("status", ""), "error") << cap.dump();
  // The rest of the trace: the process and its own events.
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  EXPECT_EQ(info["processes"].size(), 1u);
}

// Files under `dir` (recursively) whose names end with `suffix`.
size_t FilesUnder(const std::string& dir, const std::string& suffix) {
  size_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    n += e.is_regular_file() && e.path().filename().string().ends_with(suffix);
  return n;
}

// The directory of the trace's one process.
std::string ProcessDir(const std::string& trace) {
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  return info["processes"][0]["dir"].get<std::string>();
}

// The step numbers of the step view, in order.
std::vector<int64_t> StepNumbers(const std::string& trace) {
  json j = RunJson({TT_CLI, "stats", trace, "--view", "step", "--json"});
  std::vector<int64_t> out;
  for (const auto& row : j.value("rows", json::array())) out.push_back(row["step"]);
  return out;
}

TEST(TorchWorkloads, StepsAToBCaptureOnlyThoseSteps) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  auto r = RunCmd(
      {TT_CLI, "record", "--steps", "2:4", "-o", trace, "--", Python(), Program("torch_cnn.py")},
      {{"TT_TORCH_STEPS", "7"}}, 280);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(StepNumbers(trace), (std::vector<int64_t>{2, 3, 4}));
  // Kineto ran only over those steps: three steps' convolutions, not seven.
  json names = RunJson({TT_CLI, "stats", trace, "--view", "name", "--json"});
  int64_t convs = 0;
  for (const auto& row : names["rows"])
    if (row["name"] == "aten::mkldnn_convolution") convs = row["occurrence"];
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(TorchCapture(trace).value("message", ""), "stopped after step 4");
}

TEST(TorchWorkloads, WindowsSwitchAtStepBoundariesAndKeepEveryStep) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  auto r = RunCmd(
      {TT_CLI, "record", "--window-s", "1", "-o", trace, "--", Python(), Program("torch_cnn.py")},
      {{"TT_TORCH_STEPS", "12"}}, 280);
  ASSERT_EQ(r.status, 0) << r.err;
  json cap = TorchCapture(trace);
  int64_t windows = cap["capture"].value("windows", int64_t{0});
  // Windows close at the first step boundary after a second: 12 steps of at least 0.25 s make
  // several (2 at the least, on a loaded machine); every step is kept, numbered as the loop
  // counted it.
  EXPECT_GE(windows, 2) << r.err;
  EXPECT_EQ(static_cast<int64_t>(FilesUnder(trace + "/xspace", ".pt.trace.json")), windows);
  std::vector<int64_t> want(12);
  for (int64_t k = 0; k < 12; ++k) want[k] = k;
  EXPECT_EQ(StepNumbers(trace), want);
  // One imported track per thread across all windows: k<tid>, never a second k<tid>.N.
  size_t tracks = 0, repeated = 0;
  for (const auto& f : ListDirectory(ProcessDir(trace))) {
    bool k = f.size() > 1 && f[0] == 'k' && std::isdigit(static_cast<unsigned char>(f[1]));
    tracks += k;
    repeated += k && f.find('.') != std::string::npos;
  }
  EXPECT_GE(tracks, 1u);
  EXPECT_EQ(repeated, 0u);
}

TEST(TorchWorkloads, PythonTracerAddsPythonFunctions) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::map<std::string, int64_t> python;
  for (bool tracer : {false, true}) {
    std::string trace = d / (tracer ? "with" : "without");
    std::vector<std::string> argv{TT_CLI, "record", "-o", trace};
    if (tracer) argv.push_back("--python-tracer");
    argv.insert(argv.end(), {"--", Python(), Program("torch_transformer.py")});
    auto r = RunCmd(argv, {}, 280);
    ASSERT_EQ(r.status, 0) << r.err;
    json info = RunJson({TT_CLI, "info", trace, "--json"});
    for (const auto& p : info["processes"])
      python[trace] += p["events_by_category"].value("python", int64_t{0});
  }
  // Without it: the Python sampler's events and the nn.Module ranges only.
  EXPECT_GT(python[d / "with"], python[d / "without"] + 1000);
}

// Who holds CUPTI (torch_adapter.cuda_activity): Kineto records CUDA only where a GPU is
// present and record's own CUDA source is not armed (a process has one CUPTI subscriber).
TEST(TorchWorkloads, KinetoTakesCuptiOnlyWhereOurCudaSourceIsOff) {
  if (Python().empty()) GTEST_SKIP() << "no python3";
  std::string code =
      "import sys; sys.path.insert(0, sys.argv[1]); import torch_adapter as a\n"
      "ours = {'CUDA_INJECTION64_PATH': '/x/libtensortrace.so'}\n"
      "print(a.cuda_activity(ours, True), a.cuda_activity({}, True),"
      " a.cuda_activity({'CUDA_INJECTION64_PATH': '/x/libother.so'}, True),"
      " a.cuda_activity({}, False))";
  auto r = RunCmd({Python(), "-c", code, std::string(TT_SOURCE_DIR) + "/python/tensortrace"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "False True True False\n");
}

TEST(TorchWorkloads, TorchCompileStepIsWarmUp) {
  REQUIRE_MODULE("torch");
  TempDir d;
  std::string trace = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", trace, "--", Python(), Program("torch_compiled.py")}, {},
                  400);
  ASSERT_EQ(r.status, 0) << r.err;
  json steps = RunJson({TT_CLI, "stats", trace, "--view", "step", "--json"});
  ASSERT_EQ(static_cast<int64_t>(steps["rows"].size()), Said(r.out)["steps"]) << steps.dump();
  // The first step compiles (Dynamo, Inductor): most of it is compilation, and it is warm-up;
  // the others run the compiled code.
  const json& first = steps["rows"][0];
  EXPECT_TRUE(first["warmup"].get<bool>());
  EXPECT_GT(first["compile_micros"].get<double>(), 0.5 * first["duration_micros"].get<double>());
  for (size_t k = 1; k < steps["rows"].size(); ++k) {
    EXPECT_FALSE(steps["rows"][k]["warmup"].get<bool>()) << k;
    EXPECT_EQ(steps["rows"][k]["compile_micros"].get<double>(), 0.0) << k;
  }
}

}  // namespace
}  // namespace tt
