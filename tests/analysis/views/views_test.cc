// Each statistics view on a small trace with known numbers (tests/programs/views_job.cc), read
// in-process through the view table; and a view that only this test binary registers, added the
// way a new view is (one definition and one line: RegisterView here, the table in
// src/analysis/views/registry.cc for the real ones).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/memory/memory_view.h"
#include "analysis/views/stats.h"
#include "analysis/views/view.h"
#include "core/error.h"
#include "model/model.h"
#include "test_util.h"

namespace tt {
namespace {

using analysis::Result;
using analysis::Row;
using nlohmann::json;
using test::RunCmd;
using test::TempDir;

constexpr uint64_t kUs = 1000;

class Views : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_VIEWS_JOB}, {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
    model_ = new model::TraceModel(model::LoadModel(dir_->path()));
  }
  static void TearDownTestSuite() {
    delete model_;
    delete dir_;
  }
  static Result View(const std::string& name, analysis::Options o = {}) {
    o.view = name;
    std::vector<Problem> problems;
    Result r = analysis::Compute(*model_, o, &problems);
    EXPECT_TRUE(problems.empty()) << problems[0].ToString();
    EXPECT_EQ(r.view, name);
    return r;
  }
  static Row& Find(Result& r, const std::string& name) {
    for (auto& row : r.rows)
      if (row.name == name) return row;
    ADD_FAILURE() << "no row " << name << " in the " << r.view << " view";
    static Row none;
    return none;
  }
  static TempDir* dir_;
  static model::TraceModel* model_;
};
TempDir* Views::dir_ = nullptr;
model::TraceModel* Views::model_ = nullptr;

TEST_F(Views, OpGroupsByTypeWithExactTimesDeviceTimeAndMemory) {
  Result r = View("op");
  ASSERT_EQ(r.rows.size(), 5u);
  Row& mm = Find(r, "MatMul");
  EXPECT_EQ(mm.incl.count(), 4u);
  EXPECT_EQ(mm.incl.total(), 2 * (100 + 50) * kUs);
  EXPECT_EQ(mm.self_ns, mm.incl.total());
  EXPECT_EQ(mm.accel_ns, 2 * 40 * kUs);  // k_mm, linked by external id
  Row& relu = Find(r, "Relu");
  EXPECT_EQ(relu.incl.total(), 2 * 30 * kUs);
  Row& conv = Find(r, "Conv2D");
  EXPECT_EQ(conv.incl.count(), 2u);
  // Its primitive (10 us) and two launches (5 us each) are its own time: only ops nested in an
  // op are not (xprof's self time).
  EXPECT_EQ(conv.self_ns, conv.incl.total());
  EXPECT_EQ(conv.accel_ns, 2 * (20 + 10) * kUs);  // k_conv and the copy, by their launches
  EXPECT_EQ(conv.bytes, 4000);
  EXPECT_EQ(conv.peak_bytes, 4000);  // step 1 allocates before it frees step 0's
  EXPECT_EQ(conv.residual_bytes, 3000);
  Row& loop = Find(r, "While");
  Row& body = Find(r, "AddV2");
  EXPECT_EQ(body.incl.total(), 2 * 30 * kUs);
  // The inner op ran inside ParallelFor inside the loop: the region is the loop's own time.
  EXPECT_EQ(loop.self_ns, loop.incl.total() - 2 * 30 * kUs);
  EXPECT_EQ(r.total_ns, mm.self_ns + relu.self_ns + conv.self_ns + loop.self_ns + body.self_ns);
  // ParallelFor is no op: the runtime view has it, with its own children subtracted.
  Result rt = View("runtime");
  ASSERT_EQ(rt.rows.size(), 1u);
  EXPECT_EQ(rt.rows[0].name, "ParallelFor");
  EXPECT_EQ(rt.rows[0].self_ns, rt.rows[0].incl.total() - 2 * 30 * kUs);
  analysis::Cell kind;
  ASSERT_TRUE(analysis::RowField(rt.rows[0], "kind", &kind));
  EXPECT_EQ(kind.text, "runtime");
  EXPECT_DOUBLE_EQ(mm.share, static_cast<double>(mm.self_ns) / r.total_ns);
  EXPECT_EQ(r.links.at(analysis::kLinkByCorrelation), 4u);
  EXPECT_EQ(r.links.at(analysis::kLinkByExternal), 2u);
  EXPECT_EQ(r.links.at(analysis::kLinkByNesting), 4u);
  EXPECT_EQ(r.device_activities, 6u);
  EXPECT_EQ(r.unlinked, 0u);
}

TEST_F(Views, NameAndScopeKeepFullNamesAndSumSubtrees) {
  Result n = View("name");
  EXPECT_EQ(n.rows.size(), 6u);
  EXPECT_EQ(Find(n, "a/b/x:MatMul").incl.total(), 2 * 100 * kUs);
  EXPECT_EQ(Find(n, "a/y:MatMul").incl.total(), 2 * 50 * kUs);
  Result s = View("scope");
  ASSERT_EQ(s.rows.size(), 1u);
  const Row& a = s.rows[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.incl.count(), 12u);
  EXPECT_EQ(a.self_ns, s.total_ns);
  EXPECT_DOUBLE_EQ(a.share, 1.0);
  const Row* b = nullptr;
  for (const auto& c : a.children)
    if (c.name == "b") b = &c;
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->incl.total(), 2 * (100 + 30) * kUs);
  EXPECT_EQ(b->children.size(), 2u);
}

TEST_F(Views, KernelApiMemcpyAndPrimitive) {
  Result k = View("kernel");
  ASSERT_EQ(k.rows.size(), 2u);
  Row& conv = Find(k, "k_conv");
  EXPECT_EQ(conv.incl.total(), 2 * 20 * kUs);
  EXPECT_DOUBLE_EQ(conv.incl.Median(), 20.0 * kUs);
  analysis::Cell c;
  ASSERT_TRUE(analysis::RowField(conv, "launched_by", &c));
  EXPECT_EQ(c.text, "Conv2D");
  ASSERT_TRUE(analysis::RowField(conv, "grid", &c));
  EXPECT_EQ(c.text, "8x1x1");
  Row& mm = Find(k, "k_mm");
  ASSERT_TRUE(analysis::RowField(mm, "registers", &c));
  EXPECT_EQ(c.num, 32);
  ASSERT_TRUE(analysis::RowField(mm, "launched_by", &c));
  EXPECT_EQ(c.text, "MatMul");
  EXPECT_EQ(k.total_ns, 2 * (20 + 40) * kUs);

  Result api = View("api");
  EXPECT_EQ(Find(api, "cudaLaunchKernel").incl.total(), 2 * 5 * kUs);
  EXPECT_EQ(Find(api, "cudaMemcpyAsync").incl.count(), 2u);

  Result cp = View("memcpy");
  ASSERT_EQ(cp.rows.size(), 1u);
  Row& h2d = Find(cp, "HtoD");
  EXPECT_EQ(h2d.bytes, 2 * 8192);
  ASSERT_TRUE(analysis::RowField(h2d, "bandwidth_gbps", &c));
  EXPECT_NEAR(c.num, 16384.0 / 20e-6 / 1e9, 1e-9);

  Result p = View("primitive");
  Row& ip = Find(p, "inner_product");
  EXPECT_EQ(ip.incl.total(), 2 * 10 * kUs);
  ASSERT_TRUE(analysis::RowField(ip, "ops", &c));
  EXPECT_EQ(c.text, "Conv2D");
  EXPECT_EQ(p.links.at(analysis::kLinkPrimitiveNesting), 2u);
}

TEST_F(Views, StepAndThread) {
  Result s = View("step");
  ASSERT_EQ(s.steps.size(), 2u);
  ASSERT_EQ(s.rows.size(), 2u);
  for (const auto& b : s.steps) {
    EXPECT_EQ(b.device_compute, 60 * kUs);
    EXPECT_EQ(b.copies, 10 * kUs);
    EXPECT_TRUE(b.has_device);
    EXPECT_EQ(b.device_idle_host_bound + b.device_idle_waiting + 70 * kUs, b.end - b.start);
  }
  analysis::Options second;
  second.steps = analysis::StepRange{1, 1};
  Result one = View("step", second);
  ASSERT_EQ(one.steps.size(), 1u);
  EXPECT_EQ(one.steps[0].number, 1);
  // The selection also limits what the op view counts.
  Result op1 = View("op", second);
  EXPECT_EQ(Find(op1, "MatMul").incl.count(), 2u);

  Result t = View("thread");
  ASSERT_EQ(t.rows.size(), 3u);  // the thread, the kernel queue, the copy queue
  analysis::Cell c;
  ASSERT_TRUE(analysis::RowField(t.rows[0], "events", &c));
  EXPECT_GT(c.num, 10);
  // The thread is busy with the ops inside its step markers (each step: 100 + 50 + 30 us of
  // ops, a Conv2D holding 20 us of calls and a loop holding a 30 us op): a marker around them is
  // not busy time of its own, and its ops are (Kineto's ProfilerStep#N gave 0.37% busy).
  Result all = View("step");
  uint64_t steps_ns = 0;
  for (const auto& s : all.steps) steps_ns += s.end - s.start;
  EXPECT_GE(t.rows[0].self_ns, 2 * 230 * kUs);
  EXPECT_LE(t.rows[0].self_ns, steps_ns);
}

TEST_F(Views, TableDrivesColumnsFieldsAndFormatting) {
  const analysis::ViewDef* op = analysis::FindView("op");
  ASSERT_NE(op, nullptr);
  auto cols = analysis::DefaultColumns(*op, true);
  EXPECT_EQ(cols[6], "bytes");
  EXPECT_EQ(analysis::DefaultColumns(*op, false).size() + 3, cols.size());
  EXPECT_EQ(analysis::KindOf(*op, "occurrence"), analysis::ColumnKind::kCount);
  const analysis::ViewDef* th = analysis::FindView("thread");
  auto valid = analysis::ValidFields(*th, false);
  EXPECT_EQ(std::count(valid.begin(), valid.end(), "self_micros"), 0);
  analysis::Cell c{false, 0.1234, ""};
  EXPECT_EQ(analysis::FormatCell(c, analysis::KindOf(*th, "busy_share")), "12.34%");
  c.num = -1;
  EXPECT_EQ(analysis::FormatCell(c, analysis::ColumnKind::kCount), "-");
  EXPECT_EQ(analysis::FindView("nope"), nullptr);
}

// A view of this test only: the ops with device time, by how much of their time the device
// adds. Registered at run time; nothing else changes.
void FinishDeviceHeavy(analysis::Aggregates& a, Result* r) {
  for (size_t p = 0; p < a.ops.size(); ++p)
    for (auto& [id, g] : a.ops[p])
      if (g.accel > 0) {
        Row row = analysis::MakeRow(std::string(a.m->processes[p].Name(id)), g);
        row.numbers = {{"device_ratio", static_cast<double>(g.accel) / g.incl.total()}};
        r->rows.push_back(std::move(row));
      }
}
const analysis::ViewDef kDeviceHeavy = {
    .name = "device_heavy",
    .help = "ops with device time, by the device time per host time",
    .fields = {{"device_ratio", analysis::ColumnKind::kNumber}},
    .columns = {"name", "occurrence", "accelerator_micros", "device_ratio"},
    .order_by = "device_ratio",
    .needs = {},
    .finish = FinishDeviceHeavy,
};

TEST_F(Views, ANewViewIsOneDefinitionAndOneRegistration) {
  EXPECT_THROW(View("device_heavy"), tt::Error);
  analysis::RegisterView(&kDeviceHeavy);
  EXPECT_NE(analysis::ViewList().find("device_heavy"), std::string::npos);
  Result r = View("device_heavy");
  ASSERT_EQ(r.rows.size(), 2u);
  Row& mm = Find(r, "a/b/x:MatMul");
  analysis::Cell c;
  ASSERT_TRUE(analysis::RowField(mm, "device_ratio", &c));
  EXPECT_DOUBLE_EQ(c.num, 40.0 / 100.0);
  EXPECT_EQ(analysis::FormatCell(c, analysis::KindOf(kDeviceHeavy, "device_ratio")), "0.400");
  // Several views, one pass: the new one beside a built-in one.
  std::vector<Problem> problems;
  auto both = analysis::ComputeViews(*model_, {"device_heavy", "kernel"}, {}, nullptr, &problems);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].rows.size(), 2u);
  EXPECT_EQ(both[1].rows.size(), 2u);
}

// `tensortrace memory` on the same trace, with exact numbers: step 0 allocates 1000 bytes at
// 0x1000 inside a/w:Conv2D; step 1 allocates 3000 at 0x1001 there, then frees 0x1000. So the
// peak is 4000, both allocations live at it, 3000 never freed; 1000 is in BFC bin 1 (512 B),
// 3000 in bin 3 (2 KiB). A pid the trace does not hold is one line and exit 2.
TEST_F(Views, MemoryCommandPeakLiveAtItResidualAndBins) {
  auto r = RunCmd({TT_CLI, "memory", dir_->path(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_TRUE(j["note"].is_null());
  ASSERT_EQ(j["allocators"].size(), 1u) << r.out;
  const json& a = j["allocators"][0];
  EXPECT_EQ(a["allocator"], "default");
  EXPECT_EQ(a["allocations"], 2);
  EXPECT_EQ(a["frees"], 1);
  EXPECT_EQ(a["peak_bytes"], 4000);
  EXPECT_EQ(a["peak_op"], "a/w:Conv2D");
  EXPECT_EQ(a["final_bytes"], 3000);
  EXPECT_EQ(a["residual_bytes"], 3000);
  EXPECT_EQ(a["residual_allocations"], 1);
  ASSERT_EQ(a["live_at_peak"].size(), 1u);
  EXPECT_EQ(a["live_at_peak"][0]["op"], "a/w:Conv2D");
  EXPECT_EQ(a["live_at_peak"][0]["allocations"], 2);
  EXPECT_EQ(a["live_at_peak"][0]["bytes"], 4000);
  ASSERT_EQ(a["ops"].size(), 1u);
  EXPECT_EQ(a["ops"][0]["bytes"], 4000);
  EXPECT_EQ(a["ops"][0]["peak_bytes"], 4000);
  EXPECT_EQ(a["ops"][0]["residual_bytes"], 3000);
  ASSERT_EQ(a["bins"].size(), 2u);
  EXPECT_EQ(a["bins"][0]["bin"], 1);
  EXPECT_EQ(a["bins"][0]["min_bytes"], 512);
  EXPECT_EQ(a["bins"][0]["bytes"], 1000);
  EXPECT_EQ(a["bins"][0]["live_at_peak"], 1);
  EXPECT_EQ(a["bins"][1]["bin"], 3);
  EXPECT_EQ(a["bins"][1]["live_bytes_at_peak"], 3000);
  EXPECT_TRUE(a["allocator_report"].is_null());  // the runtime's events carry no BFC stats
  std::vector<int64_t> bytes;
  for (const auto& s : a["series"]) bytes.push_back(s[1]);
  EXPECT_EQ(bytes, (std::vector<int64_t>{1000, 4000, 3000}));
  auto bad = RunCmd({TT_CLI, "memory", dir_->path(), "--pid", "999999999"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(test::CountLines(bad.err), 1u) << bad.err;
  auto help = RunCmd({TT_CLI, "memory", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("docs/memory-json.md"), std::string::npos);
  auto none = RunCmd({TT_CLI, "memory"});
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(test::CountLines(none.err), 1u) << none.err;
}

// PyTorch's recorded inputs as the memory command shows them: the inputs that have a shape, with
// their type; scalars, lists and missing types as Kineto writes them.
TEST(MemoryView, OpInputsTextKeepsTheInputsThatHaveAShape) {
  EXPECT_EQ(analysis::OpInputsText(R"([[64, 256], [256, 1024]])", R"(["float", "float"])"),
            "float[64,256], float[256,1024]");
  EXPECT_EQ(analysis::OpInputsText(R"([[2, 3], [], [], [4]])", R"(["c10::Half", "Scalar", "", "long int"])"),
            "c10::Half[2,3], long int[4]");
  EXPECT_EQ(analysis::OpInputsText(R"([[5]])", ""), "[5]");
  EXPECT_EQ(analysis::OpInputsText("[]", "[]"), "");
  EXPECT_EQ(analysis::OpInputsText(R"([[], []])", R"(["a\"b", "x"])"), "");
  EXPECT_EQ(analysis::OpInputsText("[[1, 2", "[\"float"), "");  // cut short: nothing made up
}

}  // namespace
}  // namespace tt
