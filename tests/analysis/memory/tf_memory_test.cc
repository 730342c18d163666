// Memory of a real Keras CNN fit (tests/programs/tf_keras_cnn.py) on the CPU, with oneDNN on
// and off: `tensortrace memory` finds allocations, a peak no smaller than the model's weights
// and what was live at it attributed to the model's ops; with oneDNN off TensorFlow's default
// allocator reports nothing, and info, memory and the report say why and name the option of
// record that captures them (--tf-cpu-allocator bfc), which then does. The same recordings
// check --pid, the thread counts of imported tracks, and (oneDNN on) each oneDNN primitive
// execution counted once and linked to its op. TensorFlow takes seconds to import: one
// recording per test, several assertions on it.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::HaveModule;
using test::Python;
using test::RunCmd;
using test::RunJson;
using test::TempDir;

bool HaveTensorflow() {
  return !Python().empty() &&
         RunCmd({Python(), "-c",
                 "import importlib.util, sys; sys.exit(importlib.util.find_spec('tensorflow') "
                 "is None)"})
                 .status == 0;
}

struct Recording {
  std::string trace;
  int64_t weight_bytes = -1;
};

// The CNN recorded with oneDNN pinned on or off (TensorFlow's default depends on the CPU).
Recording RecordCnn(const TempDir& d, const std::string& onednn,
                    const std::vector<std::string>& options) {
  Recording rec;
  rec.trace = d / "t";
  std::vector<std::string> argv = {TT_CLI, "record", "-o", rec.trace};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(),
              {"--", Python(), std::string(TT_SOURCE_DIR) + "/tests/programs/tf_keras_cnn.py"});
  auto r = RunCmd(argv, {{"TF_ENABLE_ONEDNN_OPTS", onednn}}, 400);
  EXPECT_EQ(r.status, 0) << r.err;
  std::istringstream out(r.out);
  std::string key;
  int64_t v;
  while (out >> key >> v)
    if (key == "weight_bytes") rec.weight_bytes = v;
  EXPECT_GT(rec.weight_bytes, 0) << r.out;
  return rec;
}

// The memory command on a trace with allocations: the biggest allocator's peak is at least the
// weights, falls inside the trace, and is the most of its series; most of what was live at the
// peak belongs to ops of the model (a gradient, a convolution, an optimizer's update...).
void ExpectMemory(const Recording& rec, const std::string& allocator) {
  json j = RunJson({TT_CLI, "memory", rec.trace, "--json"});
  ASSERT_EQ(j["schema"], "tensortrace.memory/1");
  EXPECT_TRUE(j["note"].is_null()) << j["note"];
  ASSERT_FALSE(j["allocators"].empty()) << j.dump().substr(0, 2000);
  const json& a = j["allocators"][0];
  EXPECT_EQ(a["allocator"], allocator);
  EXPECT_GT(a["allocations"].get<int64_t>(), 0);
  int64_t peak = a["peak_bytes"];
  EXPECT_GE(peak, rec.weight_bytes);
  EXPECT_GE(a["peak_ns"].get<uint64_t>(), j["first_ns"].get<uint64_t>());
  EXPECT_LE(a["peak_ns"].get<uint64_t>(), j["last_ns"].get<uint64_t>());
  int64_t most = 0;
  ASSERT_LE(a["series"].size(), 200u);
  for (const auto& s : a["series"]) most = std::max(most, s[1].get<int64_t>());
  EXPECT_EQ(most, peak);
  // What was live at the peak adds up to the peak, and is attributed to ops: at least half of
  // its bytes, in allocations whose op is a "node:Type" op of the model.
  int64_t live = 0, by_op = 0;
  bool shaped = false;
  for (const auto& l : a["live_at_peak"]) {
    live += l["bytes"].get<int64_t>();
    std::string op = l["op"];
    if (op != "(no op)" && op.find(':') != std::string::npos) by_op += l["bytes"].get<int64_t>();
    for (const auto& t : l["tensors"])
      shaped |= t["dtype"] == "float32" && t["shape"].get<std::string>().starts_with("[");
  }
  EXPECT_EQ(live, peak);
  EXPECT_GE(2 * by_op, peak) << a["live_at_peak"].dump().substr(0, 2000);
  EXPECT_TRUE(shaped) << "no float32 tensor with a shape live at the peak";
  // Bytes by op add up to every allocation's bytes, and the bins to the same.
  int64_t op_bytes = 0, bin_bytes = 0;
  for (const auto& o : a["ops"]) op_bytes += o["bytes"].get<int64_t>();
  for (const auto& b : a["bins"]) bin_bytes += b["bytes"].get<int64_t>();
  EXPECT_EQ(op_bytes, bin_bytes);
  EXPECT_GE(op_bytes, peak);
  // TensorFlow's BFC allocator reports its own peak, which is the one we computed.
  ASSERT_TRUE(a["allocator_report"].is_object());
  EXPECT_EQ(a["allocator_report"]["peak_bytes"].get<int64_t>(), peak);
  // The table says the same.
  auto t = RunCmd({TT_CLI, "memory", rec.trace}, {}, 240);
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("allocator " + allocator), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("live at the peak"), std::string::npos) << t.out;
}

// --pid: the process's own pid keeps its allocations; an unknown pid is one line, exit 2, on
// every command that takes it.
void ExpectPids(const Recording& rec) {
  json info = RunJson({TT_CLI, "info", rec.trace, "--json"});
  int64_t pid = -1;
  for (const auto& p : info["processes"])
    if (p["command"].get<std::string>().find("tf_keras_cnn.py") != std::string::npos)
      pid = p["pid"];
  ASSERT_GT(pid, 0);
  // Thread counts include the threads TensorFlow's profiler saw (imported host lines).
  for (const auto& p : info["processes"]) {
    if (p["pid"] != pid) continue;
    EXPECT_GE(p["thread_count"].get<int64_t>(), 2) << p["threads"].dump();
    bool imported = false;
    for (const auto& t : p["threads"]) imported |= t["imported"].get<bool>();
    EXPECT_TRUE(imported);
  }
  EXPECT_GE(info["totals"]["threads"].get<int64_t>(), 2);
  json mem = RunJson({TT_CLI, "memory", rec.trace, "--json", "--pid", std::to_string(pid)});
  EXPECT_FALSE(mem["allocators"].empty());
  for (const auto& a : mem["allocators"]) EXPECT_EQ(a["pid"], pid);
  std::string unknown = "999999999";
  for (std::vector<std::string> cmd : {std::vector<std::string>{"memory"},
                                       {"stats"},
                                       {"report", "-o", rec.trace + ".html"},
                                       {"export", "--format", "csv", "-o", rec.trace + ".csv"}}) {
    std::vector<std::string> argv = {TT_CLI, cmd[0], rec.trace, "--pid", unknown};
    argv.insert(argv.end(), cmd.begin() + 1, cmd.end());
    auto r = RunCmd(argv, {}, 120);
    EXPECT_EQ(r.status, 2) << cmd[0] << ": " << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("holds no process " + unknown), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::to_string(pid)), std::string::npos) << r.err;
    EXPECT_FALSE(PathExists(rec.trace + ".html"));
  }
  // stats with the pid gives the same op view as without (one TensorFlow process).
  json all = RunJson({TT_CLI, "stats", rec.trace, "--view", "op", "--json"});
  json one =
      RunJson({TT_CLI, "stats", rec.trace, "--view", "op", "--json", "--pid", std::to_string(pid)});
  EXPECT_EQ(all["rows"], one["rows"]);
}

TEST(TfMemory, OneDnnOffBfcAllocatorOptionCapturesAllocations) {
  if (!HaveTensorflow()) GTEST_SKIP() << "tensorflow is not importable by python3";
  TempDir d;
  Recording rec = RecordCnn(d, "0", {"--tf-cpu-allocator", "bfc"});
  ExpectMemory(rec, "bfc_cpu_allocator_for_gpu");
  json info = RunJson({TT_CLI, "info", rec.trace, "--json"});
  EXPECT_TRUE(info["memory_note"].is_null()) << info["memory_note"];
  // The capture says what chose the allocator.
  bool said = false;
  for (const auto& p : info["processes"])
    for (const auto& f : p["frameworks"])
      said |= f["capture"].is_object() &&
              f["capture"]["env"]["TF_CPU_ALLOCATOR_USE_BFC"] == "true" &&
              f["capture"]["env"]["TF_ENABLE_ONEDNN_OPTS"] == "0";
  EXPECT_TRUE(said) << info["processes"].dump().substr(0, 3000);
  ExpectPids(rec);
}

// What each TensorFlow capture says chose its CPU allocator (capture.json's tf_cpu_allocator).
std::vector<std::string> AllocatorChoices(const Recording& rec) {
  json info = RunJson({TT_CLI, "info", rec.trace, "--json"});
  std::vector<std::string> said;
  for (const auto& p : info["processes"])
    for (const auto& f : p["frameworks"])
      if (f["capture"].is_object() && f["capture"]["tf_cpu_allocator"].is_string())
        said.push_back(f["capture"]["tf_cpu_allocator"]);
  return said;
}

// record's default (--tf-cpu-allocator auto) with oneDNN off: the bootstrap makes TensorFlow's
// CPU allocator a BFC allocator once TensorFlow is imported (its default one costs about 45% a
// step under the profiler, bench/RESULTS.md), so allocations are captured with no option.
TEST(TfMemory, OneDnnOffAutoAllocatorIsBfcAndSaysSo) {
  if (!HaveTensorflow()) GTEST_SKIP() << "tensorflow is not importable by python3";
  TempDir d;
  Recording rec = RecordCnn(d, "0", {});
  ExpectMemory(rec, "bfc_cpu_allocator_for_gpu");
  EXPECT_EQ(AllocatorChoices(rec), std::vector<std::string>{"bfc (oneDNN off)"});
}

TEST(TfMemory, OneDnnOffDefaultAllocatorSaysWhyAndWhichOption) {
  if (!HaveTensorflow()) GTEST_SKIP() << "tensorflow is not importable by python3";
  TempDir d;
  Recording rec = RecordCnn(d, "0", {"--tf-cpu-allocator", "default"});
  const std::string why = "--tf-cpu-allocator bfc";
  json info = RunJson({TT_CLI, "info", rec.trace, "--json"});
  ASSERT_TRUE(info["memory_note"].is_string()) << info.dump().substr(0, 2000);
  EXPECT_NE(info["memory_note"].get<std::string>().find(why), std::string::npos);
  EXPECT_NE(info["memory_note"].get<std::string>().find("TF_ENABLE_ONEDNN_OPTS=0"),
            std::string::npos);
  auto text = RunCmd({TT_CLI, "info", rec.trace}, {}, 120);
  EXPECT_NE(text.out.find("memory     no allocation events"), std::string::npos) << text.out;
  auto mem = RunCmd({TT_CLI, "memory", rec.trace}, {}, 120);
  EXPECT_EQ(mem.status, 0) << mem.err;
  EXPECT_NE(mem.out.find("note: no allocation events"), std::string::npos) << mem.out;
  EXPECT_NE(mem.out.find(why), std::string::npos) << mem.out;
  json mj = RunJson({TT_CLI, "memory", rec.trace, "--json"});
  EXPECT_TRUE(mj["allocators"].empty());
  EXPECT_EQ(mj["note"], info["memory_note"]);
  auto rep = RunCmd({TT_CLI, "report", rec.trace, "-o", d / "r.html"}, {}, 240);
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(ReadFile(d / "r.html").find(why), std::string::npos);
}

// oneDNN on: TensorFlow's oneDNN allocator (mklcpu, a BFC allocator for its big tensors)
// reports by default. Each primitive execution is counted once, however many pool threads took
// part, and linked to its op: about one execution per oneDNN op.
TEST(TfMemory, OneDnnOnAllocationsAndPrimitivesCountedOnce) {
  if (!HaveTensorflow()) GTEST_SKIP() << "tensorflow is not importable by python3";
  TempDir d;
  Recording rec = RecordCnn(d, "1", {});
  ExpectMemory(rec, "mklcpu");
  // auto leaves TensorFlow's own (oneDNN's allocator reports by itself).
  EXPECT_EQ(AllocatorChoices(rec), std::vector<std::string>{"TensorFlow's (oneDNN on)"});
  json prim = RunJson({TT_CLI, "stats", rec.trace, "--view", "primitive", "--json"});
  json ops = RunJson({TT_CLI, "stats", rec.trace, "--view", "op", "--json"});
  std::map<std::string, int64_t> op_count;
  for (const auto& r : ops["rows"]) op_count[r["name"]] = r["occurrence"];
  // A convolution primitive runs once per oneDNN convolution op (forward, and the backward
  // ones), a pooling once per max-pool op; pool threads' shares of them are not executions
  // (with each share counted, as before, convolutions were 114 for 30 ops).
  int64_t conv_ops = 0, conv_prims = 0, pool_ops = 0, pool_prims = 0, participants = 0, prims = 0;
  for (const auto& [type, n] : op_count) {
    if (type.find("Conv2D") != std::string::npos && type.starts_with("_Mkl")) conv_ops += n;
    if (type.find("MaxPool") != std::string::npos && type.starts_with("_Mkl")) pool_ops += n;
  }
  std::string rows;
  for (const auto& r : prim["rows"]) {
    rows += r["name"].get<std::string>() + " x" + std::to_string(r["occurrence"].get<int64_t>()) +
            " <- " + r["ops"].get<std::string>() + "; ";
    prims += r["occurrence"].get<int64_t>();
    participants += r["pool_tasks"].get<int64_t>();
    if (r["name"] == "convolution") conv_prims = r["occurrence"];
    if (r["name"] == "pooling") pool_prims = r["occurrence"];
    EXPECT_EQ(r["phase"], "execute") << r.dump();
  }
  ASSERT_GT(conv_ops, 0) << ops.dump().substr(0, 2000);
  EXPECT_EQ(conv_prims, conv_ops) << rows;  // one convolution per oneDNN convolution op
  EXPECT_EQ(pool_prims, pool_ops) << rows;  // one pooling per oneDNN max-pool op (and grad)
  EXPECT_GT(participants, 0) << rows;       // pool threads took part, and were not counted
  // Every execution is linked to an op, and the methods say how.
  const json& links = prim["links"];
  int64_t linked = 0;
  for (const auto& [method, n] : links.items())
    if (method.starts_with("primitive->op")) linked += n.get<int64_t>();
  EXPECT_GE(linked, prims) << links.dump();
  EXPECT_GT(links.value("primitive->op: nesting on its thread", 0), 0) << links.dump();
  EXPECT_GT(links.value("primitive->op: pool thread of an execution", 0), 0) << links.dump();

  // babeltrace2 shows every event's name as text, the imported ops' included (the metadata
  // declares the process's names): no name field holds a bare number. (String arguments of
  // event classes, `display_name = 3648`, may: past babeltrace2's copy budget they stay ids.)
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto bt = RunCmd({"babeltrace2", rec.trace}, {}, 240);
  ASSERT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  EXPECT_EQ(bt.err, "");
  std::istringstream lines(bt.out);
  size_t numeric = 0, named_ops = 0;
  std::string first;
  for (std::string l; std::getline(lines, l);) {
    // An event of a class has its name in its class's ("slice_begin_args:NAME"); its fields
    // are arguments, one of which may be called "name".
    // "[time] (+delta) HOST EVENT: { ...": EVENT starts after the host's name.
    size_t host = l.find(") "), fields = l.find(": {");
    if (host == std::string::npos || fields == std::string::npos) continue;
    size_t event = l.find(' ', host + 2) + 1;
    if (event == 0 || event > fields ||
        l.substr(event, fields - event).find(':') != std::string::npos)
      continue;
    size_t at = l.find(" name = ");
    if (at == std::string::npos) continue;
    at += 1;
    char c = l[at + 7];
    if (c >= '0' && c <= '9' && numeric++ == 0) first = l.substr(0, 300);
    named_ops += l.find("name = ( \"StatefulPartitionedCall/") != std::string::npos &&
                 l.find("Conv2D") != std::string::npos;
  }
  EXPECT_EQ(numeric, 0u) << first;
  EXPECT_GT(named_ops, 0u) << "no convolution op named as text";
}

}  // namespace
}  // namespace tt
