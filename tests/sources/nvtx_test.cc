// The NVTX collector (src/sources/nvtx): its entry against a hand-made client, then NVIDIA's
// real header-only NVTX v3 client (tests/programs/nvtx_job.cc and its second DSO) recorded
// through `tensortrace record`, which loads our library through NVTX_INJECTION64_PATH.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sources/nvtx/nvtx_abi.h"
#include "test_util.h"
#include "trace_view.h"

extern "C" int InitializeInjectionNvtx2(tt::nvtx::GetExportTableFn get_export_table);

namespace tt {
namespace {

using layout::ArgType;
using layout::Category;
using test::RunCmd;
using test::TempDir;

// ---- the entry, against a hand-made client ----

int g_tables_asked = 0;
void Untouched() {}
tt::nvtx::FunctionPointer g_slot = &Untouched;
tt::nvtx::FunctionPointer* g_table[16] = {};

int GetModuleFunctionTable(int, tt::nvtx::FunctionTable* out, unsigned* size) {
  ++g_tables_asked;
  for (auto*& p : g_table) p = &g_slot;
  *out = g_table;
  *size = 15;
  return 1;
}
const tt::nvtx::ExportTableCallbacks kCallbacks = {sizeof(tt::nvtx::ExportTableCallbacks),
                                                   &GetModuleFunctionTable};
const void* GetExportTable(uint32_t id) { return id == 1 ? &kCallbacks : nullptr; }

TEST(NvtxProtocol, DeclinesWhenTracingIsOffAndLeavesTheClientsSlots) {
  // This test process is not recorded: the client must make its calls no-ops (return 0).
  EXPECT_EQ(InitializeInjectionNvtx2(&GetExportTable), 0);
  EXPECT_EQ(InitializeInjectionNvtx2(nullptr), 0);
  EXPECT_EQ(g_tables_asked, 0);
  EXPECT_EQ(g_slot, &Untouched);
}

// ---- recorded traces ----

struct SliceRec {
  std::string name, parent;
  Category category;
  uint64_t tid;
  std::vector<Arg> args;
};

// Every begin/end slice with its innermost enclosing slice on the same thread; fails the test
// when a thread's begins and ends do not pair up.
std::vector<SliceRec> Slices(const test::ProcView& p) {
  std::vector<SliceRec> out;
  std::map<uint64_t, std::vector<size_t>> open;
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

// The arguments as text ("key=value" sorted by key), so a whole set compares at once.
std::string ArgsText(const test::ProcView& p, const std::vector<Arg>& args) {
  std::map<std::string, std::string> kv;
  for (const auto& a : args) {
    std::string v;
    switch (a.type) {
      case ArgType::kInt:
        v = std::to_string(a.v.i);
        break;
      case ArgType::kUint:
        v = "u" + std::to_string(a.v.u);
        break;
      case ArgType::kFloat:
        v = "f" + std::to_string(a.v.f);
        break;
      case ArgType::kString:
        v = "'" + p.names.at(a.v.str) + "'";
        break;
    }
    kv[p.names.at(a.key)] = v;
  }
  std::string out;
  for (const auto& [k, v] : kv) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

const test::Ev* Find(const test::ProcView& p, uint8_t id, const std::string& name) {
  for (const auto& e : p.events)
    if (e.id == id && e.name == name) return &e;
  return nullptr;
}

class NvtxJob : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::string(TT_NVTX_JOB).empty()) return;
    dir_ = new TempDir();
    auto r = RunCmd({TT_CLI, "record", "-o", *dir_ / "t", "--", TT_NVTX_JOB}, {}, 120);
    ASSERT_EQ(r.status, 0) << r.err;
    out_ = new std::string(r.out);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete out_;
  }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "NVTX v3 headers (CUDA toolkit) not found at build time";
  }
  static const test::ProcView& Proc() {
    static test::TraceView* v = new test::TraceView(test::LoadTrace(*dir_ / "t"));
    EXPECT_EQ(v->procs.size(), 1u);
    EXPECT_TRUE(v->problems.empty());
    return v->procs.at(0);
  }
  static TempDir* dir_;
  static std::string* out_;
};
TempDir* NvtxJob::dir_ = nullptr;
std::string* NvtxJob::out_ = nullptr;

TEST_F(NvtxJob, PushPopReturnsTheLevelsAndTheClientSawOurLibrary) {
  // push 0, nested push 1, pops return the ended level, a pop with nothing open -1; the
  // second DSO's push is tracked too (not NVTX's "no tool" -2).
  EXPECT_NE(out_->find("levels: 0 1 1 0 -1\n"), std::string::npos) << *out_;
  EXPECT_NE(out_->find(std::string("injection: ") + TT_LIB + "\n"), std::string::npos) << *out_;
}

TEST_F(NvtxJob, RangesBecomeNestedSlicesWithTheirDomainsCategoriesAndPayloads) {
  const auto& p = Proc();
  std::vector<SliceRec> slices = Slices(p);
  uint64_t main_tid = p.meta.pid;
  struct Want {
    std::string name, parent;
    Category category;
    std::string args;
    bool on_main;
  };
  const std::vector<Want> want = {
      {"aten::linear", "", Category::kFrameworkOp, "detail='op_id = 1' seq=u7", true},
      {"aten::addmm", "aten::linear", Category::kFrameworkOp, "seq=u8", true},
      {"step", "", Category::kFrameworkOp, "category='Forward' payload=u42", true},
      {"dense/MatMul:MatMul", "", Category::kFrameworkOp, "", true},
      {"dense/BiasAdd:BiasAdd", "dense/MatMul:MatMul", Category::kFrameworkOp, "payload=-5", true},
      {"lib/Conv2D:Conv2D", "", Category::kFrameworkOp, "", true},
      {"ncclAllReduce", "", Category::kCommunication, "collective='AllReduce' payload=u1048576",
       true},
      {"ncclReduceScatter", "", Category::kCommunication,
       "bytes=u4096 collective='ReduceScatter' communicator=u11259375 reduction='Max'", true},
      {"worker-task", "", Category::kFrameworkOp, "", false},
  };
  ASSERT_EQ(slices.size(), want.size());
  for (const Want& w : want) {
    SCOPED_TRACE(w.name);
    auto it = std::find_if(slices.begin(), slices.end(),
                           [&](const SliceRec& s) { return s.name == w.name; });
    ASSERT_NE(it, slices.end());
    EXPECT_EQ(it->parent, w.parent);
    EXPECT_EQ(it->category, w.category);
    EXPECT_EQ(ArgsText(p, it->args), w.args);
    EXPECT_EQ(it->tid == main_tid, w.on_main);
  }
}

TEST_F(NvtxJob, StartEndRangesAreCompleteSlicesOnTheEndingThread) {
  const auto& p = Proc();
  uint64_t main_tid = p.meta.pid;
  size_t completes = 0;
  for (const auto& e : p.events) completes += e.id == layout::kComplete;
  EXPECT_EQ(completes, 2u);
  const test::Ev* same = Find(p, layout::kComplete, "same-thread");
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(same->tid, main_tid);
  EXPECT_EQ(same->category, Category::kFrameworkOp);
  EXPECT_EQ(ArgsText(p, same->args), "");
  const test::Ev* load = Find(p, layout::kComplete, "load");
  ASSERT_NE(load, nullptr);
  EXPECT_NE(load->tid, main_tid);  // ended by the worker
  EXPECT_EQ(load->category, Category::kUser);
  EXPECT_EQ(ArgsText(p, load->args),
            "domain='my.app' payload=7 start_tid=u" + std::to_string(main_tid));
  // It began on the main thread before the worker's own slice, which it outlives.
  const test::Ev* task = Find(p, layout::kSliceBegin, "worker-task");
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->tid, load->tid);
  EXPECT_GT(load->duration, 0u);
  EXPECT_LT(load->ts - load->duration, task->ts);
  EXPECT_GT(load->ts, task->ts);
}

TEST_F(NvtxJob, MarksAreInstantsAndThreadsGetTheirNames) {
  const auto& p = Proc();
  uint64_t main_tid = p.meta.pid;
  size_t instants = 0;
  for (const auto& e : p.events) instants += e.id == layout::kInstant;
  EXPECT_EQ(instants, 4u);
  const test::Ev* group = Find(p, layout::kInstant, "ncclGroupEnd");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->category, Category::kCommunication);
  // No schema registered for it: what it was, at least (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 9).
  EXPECT_EQ(ArgsText(p, group->args), "collective='GroupEnd' payload_bytes=u24 payload_schema=u" +
                                          std::to_string((1 << 24) + 9));
  const test::Ev* cp = Find(p, layout::kInstant, "checkpoint");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->category, Category::kFrameworkOp);
  const test::Ev* loaded = Find(p, layout::kInstant, "loaded");
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->category, Category::kUser);
  EXPECT_EQ(ArgsText(p, loaded->args), "category='IO' domain='my.app' payload=f2.500000");
  EXPECT_NE(Find(p, layout::kInstant, "wide-\xc3\xbc"), nullptr);  // L"wide-\u00fc" as UTF-8

  EXPECT_EQ(p.thread_names.at(main_tid), "nvtx-main");
  const test::Ev* load = Find(p, layout::kComplete, "load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(p.thread_names.at(load->tid), "nvtx-worker");  // named by the main thread

  // Each domain is listed once as an nvtx source, though two DSOs created "TSL".
  size_t sources = 0;
  for (const auto& e : p.events) sources += e.id == layout::kSource && e.name == "nvtx";
  EXPECT_EQ(sources, 3u);
}

TEST_F(NvtxJob, CsvExportAndBabeltraceReadTheTrace) {
  auto r = RunCmd({TT_CLI, "export", *dir_ / "t", "--format", "csv", "-o", *dir_ / "t.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto csv = RunCmd({"cat", *dir_ / "t.csv"});
  EXPECT_NE(csv.out.find(",slice,communication,ncclAllReduce,"), std::string::npos);
  EXPECT_NE(csv.out.find(",slice,framework_op,dense/BiasAdd:BiasAdd,"), std::string::npos);
  EXPECT_NE(csv.out.find(",slice,user,load,"), std::string::npos);
  if (!test::HaveBabeltrace()) return;
  auto bt = RunCmd({"babeltrace2", *dir_ / "t"}, {}, 120);
  EXPECT_EQ(bt.status, 0) << bt.err;
  EXPECT_EQ(bt.err, "");
  EXPECT_NE(bt.out.find("ncclAllReduce"), std::string::npos);
}

TEST_F(NvtxJob, WithoutRecordTheCallsAreNoOps) {
  // Our library named, but no recording: the entry declines and NVTX makes every call a no-op.
  auto r = RunCmd({TT_NVTX_JOB}, {{"NVTX_INJECTION64_PATH", TT_LIB}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("levels: -2 -2 -2 -2 -2 lib-untracked\n"), std::string::npos) << r.out;
}

TEST_F(NvtxJob, AUserSetInjectionIsRespected) {
  TempDir d;
  std::string other = d / "libother-tool.so";  // not there: NVTX then runs without a tool
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_NVTX_JOB},
                  {{"NVTX_INJECTION64_PATH", other}}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("NVTX_INJECTION64_PATH is set, our NVTX collector stays off"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("injection: " + other + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lib-untracked"), std::string::npos) << r.out;
  auto v = test::LoadTrace(d / "t");
  ASSERT_EQ(v.procs.size(), 1u);
  EXPECT_EQ(v.procs[0].Count(layout::kSliceBegin) + v.procs[0].Count(layout::kSliceBeginArgs) +
                v.procs[0].Count(layout::kInstant) + v.procs[0].Count(layout::kComplete),
            0u);
}

}  // namespace
}  // namespace tt
