// The ITT collector (src/sources/itt): its protocol with a static part, then real clients
// recorded through `tensortrace record`: Debian's libdnnl (tests/programs/dnnl_job.cc), pip
// ittapi (tests/programs/itt_ittapi.py) and TensorFlow's bundled oneDNN.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sources/itt/itt_abi.h"
#include "test_util.h"
#include "trace_view.h"

extern "C" void __itt_api_init(tt::itt::Global* g, int groups);

namespace tt {
namespace {

using layout::Category;
using nlohmann::json;
using test::Python;
using test::RunCmd;
using test::TempDir;

// ---- the protocol, against a hand-made static part ----

int StubResult() { return 42; }

TEST(IttProtocol, FillsKnownEntriesLeavesOthersAndEnablesEarlyDomains) {
  void* domain_create = nullptr;
  void* task_begin = nullptr;
  void* unknown = reinterpret_cast<void*>(&StubResult);
  itt::ApiInfo list[] = {{"__itt_domain_create", &domain_create, nullptr, nullptr, 0},
                         {"__itt_task_begin", &task_begin, nullptr, nullptr, 0},
                         {"__itt_no_such_entry", &unknown, nullptr, nullptr, 0},
                         {nullptr, nullptr, nullptr, nullptr, 0}};
  // A domain the static part made before it loaded us: older versions make it disabled.
  itt::Domain early{};
  early.nameA = "dnnl::primitive::execute";
  itt::Global g{};
  g.api_list_ptr = list;
  g.domain_list = &early;
  __itt_api_init(&g, 0);
  ASSERT_NE(domain_create, nullptr);
  EXPECT_NE(task_begin, nullptr);
  EXPECT_EQ(unknown, reinterpret_cast<void*>(&StubResult));  // untouched
  EXPECT_EQ(early.flags, 1);
  EXPECT_EQ(early.extra1, static_cast<int>(Category::kPrimitive) + 1);

  auto create = reinterpret_cast<itt::Domain* (*)(const char*)>(domain_create);
  itt::Domain* a = create("my.domain");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->flags, 1);  // callers skip every call on a disabled domain
  EXPECT_STREQ(a->nameA, "my.domain");
  EXPECT_EQ(create("my.domain"), a);  // one handle per name
  EXPECT_NE(create("other.domain"), a);
  EXPECT_EQ(create(nullptr), nullptr);
  __itt_api_init(nullptr, 0);  // harmless
}

// ---- recorded traces ----

struct SliceRec {
  std::string name, parent;
  Category category;
  uint64_t tid;
  std::vector<Arg> args;
};

// Every slice opened with begin/end, with its innermost enclosing slice on the same thread;
// fails the test when a thread's begins and ends do not pair up.
std::vector<SliceRec> Slices(const test::ProcView& p) {
  std::vector<SliceRec> out;
  std::map<uint64_t, std::vector<size_t>> open;  // tid -> indexes into out
  for (const auto& e : p.events) {
    auto& stack = open[e.tid];
    if (e.id == layout::kSliceBegin || e.id == layout::kSliceBeginArgs) {
      std::string parent = stack.empty() ? "" : out[stack.back()].name;
      out.push_back({e.name, parent, e.category, e.tid, e.args});
      stack.push_back(out.size() - 1);
    } else if (e.id == layout::kSliceEnd) {
      EXPECT_FALSE(stack.empty()) << "end without begin on thread " << e.tid;
      if (!stack.empty()) stack.pop_back();
    }
  }
  for (auto& [tid, stack] : open) EXPECT_TRUE(stack.empty()) << "unclosed slices on " << tid;
  return out;
}

std::string ArgStr(const test::ProcView& p, const std::vector<Arg>& args, const std::string& key) {
  for (const auto& a : args) {
    auto k = p.names.find(a.key);
    if (k != p.names.end() && k->second == key && a.type == layout::ArgType::kString) {
      auto v = p.names.find(a.v.str);
      return v == p.names.end() ? "" : v->second;
    }
  }
  return "";
}

void ExpectBabeltraceReads(const std::string& dir) {
  if (!test::HaveBabeltrace()) return;
  auto bt = RunCmd({"babeltrace2", dir}, {}, 120);
  EXPECT_EQ(bt.status, 0) << bt.err;
  EXPECT_EQ(bt.err, "");
  EXPECT_NE(bt.out.find("slice_begin"), std::string::npos);
}

// dnnl_job with N = 3: ranges and the primitive each one runs, and how many times.
constexpr int kN = 3;
const std::map<std::string, std::pair<std::string, int>> kDnnlOps = {
    {"conv_op", {"convolution", kN}},
    {"dense_op", {"inner_product", kN + 1}},
    {"relu_op", {"eltwise", kN + 2}},
    {"reorder_op", {"reorder", kN + 3}}};

class Dnnl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::string(TT_DNNL_JOB).empty()) return;
    dir_ = new TempDir();
    auto r = RunCmd({TT_CLI, "record", "-o", *dir_ / "t", "--", TT_DNNL_JOB, std::to_string(kN)},
                    {}, 120);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "libdnnl (Debian libdnnl-dev) not found at build time";
  }
  static TempDir* dir_;
};
TempDir* Dnnl::dir_ = nullptr;

TEST_F(Dnnl, PrimitiveSlicesHaveTheirNamesExactCountsAndNestInTheOps) {
  auto v = test::LoadTrace(*dir_ / "t");
  EXPECT_TRUE(v.problems.empty());
  const test::ProcView* p = v.FindByCmdline("tt_dnnl_job");
  ASSERT_NE(p, nullptr);
  uint64_t main_tid = p->meta.pid;
  std::map<std::string, int> on_main;  // primitive -> count on the calling thread
  std::set<std::string> kinds;
  for (const auto& s : Slices(*p)) {
    if (s.category != Category::kPrimitive) continue;
    kinds.insert(s.name);
    if (s.tid != main_tid) continue;  // oneDNN's worker threads report their share too
    auto op = kDnnlOps.find(s.parent);
    ASSERT_NE(op, kDnnlOps.end()) << s.name << " not inside an op range (parent '" << s.parent
                                  << "')";
    EXPECT_EQ(s.name, op->second.first) << "inside " << s.parent;
    ++on_main[s.name];
  }
  for (const auto& [op, want] : kDnnlOps) EXPECT_EQ(on_main[want.first], want.second) << op;
  EXPECT_EQ(kinds, (std::set<std::string>{"convolution", "inner_product", "eltwise", "reorder"}));
}

TEST_F(Dnnl, StatsPrimitiveViewShowsTheOpsThatRanThem) {
  auto r = RunCmd({TT_CLI, "stats", *dir_ / "t", "--view", "primitive", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  std::map<std::string, json> rows;
  for (const auto& row : j["rows"]) rows[row["name"]] = row;
  ASSERT_EQ(rows.size(), 4u) << j.dump();
  // Each execution once, however many OpenMP threads opened its task (their tasks are its
  // pool_tasks), each linked to the range it ran in, and each an execution by its ITT domain.
  for (const auto& [op, want] : kDnnlOps) {
    const json& row = rows[want.first];
    EXPECT_EQ(row["occurrence"].get<int64_t>(), want.second) << want.first;
    EXPECT_EQ(row["ops"].get<std::string>(), op) << row.dump();
    EXPECT_EQ(row["phase"], "execute") << row.dump();
  }
  int64_t executions = 0, tasks = 0, slices = 0;
  for (const auto& [op, want] : kDnnlOps) executions += want.second;
  for (const auto& row : j["rows"]) tasks += row["pool_tasks"].get<int64_t>();
  // Every primitive slice of the trace is an execution or one of its pool threads' tasks.
  auto v = test::LoadTrace(*dir_ / "t");
  const test::ProcView* p = v.FindByCmdline("tt_dnnl_job");
  ASSERT_NE(p, nullptr);
  for (const auto& s : Slices(*p)) slices += s.category == Category::kPrimitive;
  EXPECT_EQ(executions + tasks, slices);
  EXPECT_EQ(j["links"].value("primitive->op: nesting on its thread", 0), executions) << j.dump();
}

TEST_F(Dnnl, BabeltraceReadsTheTrace) { ExpectBabeltraceReads(*dir_ / "t"); }

// The ITT domains each process used, by `info`.
std::set<std::string> IttDomains(const std::string& dir, const std::string& cmdline) {
  auto r = RunCmd({TT_CLI, "info", dir, "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  for (const auto& p : j["processes"]) {
    if (p["command"].get<std::string>().find(cmdline) == std::string::npos) continue;
    if (!p["source_details"].contains("itt")) return {};
    return p["source_details"]["itt"].get<std::set<std::string>>();
  }
  ADD_FAILURE() << "no process " << cmdline << " in " << r.out;
  return {};
}

TEST_F(Dnnl, InfoListsTheIttDomains) {
  EXPECT_EQ(IttDomains(*dir_ / "t", "tt_dnnl_job"),
            std::set<std::string>{"dnnl::primitive::execute"});
  auto r = RunCmd({TT_CLI, "info", *dir_ / "t"});
  EXPECT_NE(r.out.find("itt domains dnnl::primitive::execute"), std::string::npos) << r.out;
}

TEST_F(Dnnl, AUserCollectorKeepsOursOff) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_DNNL_JOB, "1"},
                  {{"INTEL_LIBITTNOTIFY64", "/nonexistent/libittnotify_collector.so"}}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("INTEL_LIBITTNOTIFY64 is set"), std::string::npos) << r.err;
  auto v = test::LoadTrace(d / "t");
  const test::ProcView* p = v.FindByCmdline("tt_dnnl_job");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->Count(layout::kSliceBegin, "convolution"), 0u);
  EXPECT_EQ(p->Count(layout::kSliceBegin, "conv_op"), 1u);  // our own ranges still come
}

TEST(IttApi, DomainsTasksFramesCountersThreadNamesFromTheRealClient) {
  std::string py = Python();
  if (py.empty()) GTEST_SKIP() << "no python3";
  TempDir d;
  constexpr int kFrames = 4;
  auto r = RunCmd(
      {TT_CLI, "record", "-o", d / "t", "--", py,
       std::string(TT_SOURCE_DIR) + "/tests/programs/itt_ittapi.py", std::to_string(kFrames)},
      {}, 120);
  if (r.status == 3) GTEST_SKIP() << "pip ittapi cannot be imported";
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  auto v = test::LoadTrace(d / "t");
  EXPECT_TRUE(v.problems.empty());
  const test::ProcView* p = v.FindByCmdline("itt_ittapi.py");
  ASSERT_NE(p, nullptr);

  std::map<std::string, int> count;
  std::map<std::string, std::set<std::string>> parents;
  std::map<std::string, std::set<uint64_t>> threads;
  for (const auto& s : Slices(*p)) {
    ++count[s.name];
    parents[s.name].insert(s.parent);
    threads[s.name].insert(s.tid);
    if (s.category == Category::kUser && s.name != "an_event") {  // events have no domain
      EXPECT_EQ(ArgStr(*p, s.args, "domain"), "tt.test") << s.name;
    }
  }
  EXPECT_EQ(count["outer"], 2);
  EXPECT_EQ(count["inner"], 2);
  EXPECT_EQ(parents["inner"], std::set<std::string>{"outer"});
  EXPECT_EQ(count["work"], 1);
  EXPECT_EQ(count["tt.frames"], kFrames);
  EXPECT_EQ(parents["in_frame"], std::set<std::string>{"tt.frames"});
  EXPECT_EQ(count["with_meta"], 1);
  EXPECT_EQ(count["an_event"], 1);
  EXPECT_EQ(count["overlapped"], 0);  // not supported: the client's stub records nothing
  // Thread names, and the worker's task on the worker's thread.
  ASSERT_EQ(threads["work"].size(), 1u);
  uint64_t worker = *threads["work"].begin();
  EXPECT_EQ(p->thread_names.at(worker), "itt-worker");
  EXPECT_EQ(p->thread_names.at(p->meta.pid), "itt-main");

  std::vector<double> depth;
  bool sizes = false, note = false, checkpoint = false;
  for (const auto& e : p->events) {
    if (e.id == layout::kSliceBegin || e.id == layout::kSliceBeginArgs) {
      EXPECT_EQ(e.category, e.name == "tt.frames" ? Category::kStep : Category::kUser);
    }
    if (e.id == layout::kCounter && e.name == "queue_depth") depth.push_back(e.value);
    if (e.id != layout::kInstant) continue;
    if (e.name == "checkpoint") checkpoint = true;
    if (e.name == "sizes") {
      sizes = true;
      ASSERT_EQ(e.args.size(), 2u);
      EXPECT_EQ(e.args[0].v.u, 64u);
      EXPECT_EQ(e.args[1].v.u, 128u);
    }
    if (e.name == "note") {
      note = true;
      EXPECT_EQ(ArgStr(*p, e.args, "value"), "hello");
    }
  }
  EXPECT_EQ(depth, (std::vector<double>{5, 8, 7}));  // set 5, +3, -1
  EXPECT_TRUE(checkpoint && sizes && note);

  EXPECT_EQ(IttDomains(d / "t", "itt_ittapi.py"), (std::set<std::string>{"tt.frames", "tt.test"}));
  // Frames are steps for the analyses.
  auto st = RunCmd({TT_CLI, "stats", d / "t", "--view", "step", "--json"});
  ASSERT_EQ(st.status, 0) << st.err;
  EXPECT_EQ(json::parse(st.out)["rows"].size(), static_cast<size_t>(kFrames));
  ExpectBabeltraceReads(d / "t");
}

TEST(IttApi, AForkedChildListsTheDomainsItUses) {
  std::string py = Python();
  if (py.empty()) GTEST_SKIP() << "no python3";
  const char* script =
      "import os, sys\n"
      "try:\n"
      "    import ittapi\n"
      "except ImportError:\n"
      "    sys.exit(3)\n"
      "parent = ittapi.domain('tt.parent')  # one handle, used in both processes\n"
      "with ittapi.task('in_parent', domain=parent):\n"
      "    pass\n"
      "pid = os.fork()\n"
      "if pid == 0:\n"
      "    with ittapi.task('in_child', domain=parent):\n"
      "        with ittapi.task('nested', domain='tt.child'):\n"
      "            pass\n"
      "    os._exit(0)\n"
      "os.waitpid(pid, 0)\n";
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", py, "-c", script}, {}, 120);
  if (r.status == 3) GTEST_SKIP() << "pip ittapi cannot be imported";
  ASSERT_EQ(r.status, 0) << r.err;
  auto info = RunCmd({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  json j = json::parse(info.out);
  ASSERT_EQ(j["processes"].size(), 2u);
  const json& a = j["processes"][0];
  const json& b = j["processes"][1];
  const json& child = a["ppid"] == b["pid"] ? a : b;
  const json& parent = a["ppid"] == b["pid"] ? b : a;
  ASSERT_EQ(child["ppid"], parent["pid"]);
  auto domains = [](const json& p) {
    return p["source_details"]["itt"].get<std::set<std::string>>();
  };
  EXPECT_EQ(domains(parent), std::set<std::string>{"tt.parent"});
  // The domain the parent created, used again in the child, is listed for the child too.
  EXPECT_EQ(domains(child), (std::set<std::string>{"tt.child", "tt.parent"}));
}

TEST(IttTensorFlow, BundledOneDnnReportsPrimitives) {
  std::string py = Python();
  // find_spec: importing TensorFlow only to check would take as long as the test.
  const char* have_tf =
      "import importlib.util, sys; sys.exit(importlib.util.find_spec('tensorflow') is None)";
  if (py.empty() || RunCmd({py, "-c", have_tf}).status != 0)
    GTEST_SKIP() << "tensorflow cannot be imported";
  TempDir d;
  // tf.nn (no Keras import, which would double the run time); eager ops, no fusion.
  const char* script =
      "import tensorflow as tf\n"
      "x = tf.random.normal([4, 16, 16, 3])\n"
      "w = tf.random.normal([3, 3, 3, 8])\n"
      "for _ in range(3):\n"
      "    y = tf.nn.relu(tf.nn.conv2d(x, w, 1, 'VALID'))\n"
      "print(y.shape)\n";
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", py, "-c", script},
                  {{"TF_ENABLE_ONEDNN_OPTS", "1"}, {"TF_CPP_MIN_LOG_LEVEL", "2"}}, 110);
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = test::LoadTrace(d / "t");
  const test::ProcView* p = v.FindByCmdline("import tensorflow");
  ASSERT_NE(p, nullptr);
  std::map<std::string, int> prims;
  for (const auto& s : Slices(*p))
    if (s.category == Category::kPrimitive) ++prims[s.name];
  // One convolution per call at least (oneDNN's worker threads report theirs too).
  EXPECT_GE(prims["convolution"], 3) << r.err;
  EXPECT_EQ(IttDomains(d / "t", "import tensorflow").count("dnnl::primitive::execute"), 1u);
  ExpectBabeltraceReads(d / "t");
}

}  // namespace
}  // namespace tt
