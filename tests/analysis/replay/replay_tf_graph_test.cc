// TensorFlow graphs in replay, by hand: the saved graphs' file (tf_graph.tsv) parsed, and an XSpace
// made here imported with a graph, whose ops then get producer-to-consumer edges in `replay --json`
// (the real program is tests/analysis/replay/replay_fidelity_test.cc's ReplayTfGraph).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/files.h"
#include "format/import/xspace/import.h"
#include "format/import/xspace/tf_graph.h"
#include "format/proto/xplane.pb.h"
#include "format/reader.h"
#include "test_util.h"

namespace tt {
namespace {

namespace xp = tensorflow::profiler;
using nlohmann::json;

TEST(TfGraphEdges, FileGivesEachNodeTheUnionOfItsProducersInlinedOrNot) {
  size_t bad = 0;
  TfGraphInputs g = ParseTfGraph(
      "# function f\n"
      "x\tAddV2\ty\tz\n"
      "y\tPlaceholder\n"
      "# function g\n"
      "x\tAddV2\tw\ty\tx\n"  // a second definition: w added, y kept once, x itself left out
      "no tab here\n"
      "\tMatMul\ta\n",
      &bad);
  EXPECT_EQ(bad, 2u);
  ASSERT_EQ(g.count("x"), 1u);
  EXPECT_EQ(g["x"], "y,z,w");
  EXPECT_EQ(g["y"], "");
  EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(TfProducersOf(g, "x"), "y,z,w");
  EXPECT_EQ(TfProducersOf(g, "q"), "");
  // Inlined into a caller (one level, then two): the producers carry the same call prefix.
  EXPECT_EQ(TfProducersOf(g, "StatefulPartitionedCall/x"),
            "StatefulPartitionedCall/y,StatefulPartitionedCall/z,StatefulPartitionedCall/w");
  EXPECT_EQ(TfProducersOf(g, "a/b/x"), "a/b/y,a/b/z,a/b/w");
  EXPECT_EQ(TfProducersOf(g, "a/b/q"), "");
}

// TensorFlow's rewrites fuse MatMul, BiasAdd and Relu into one op named Relu: the saved graph's
// producers of Relu (BiasAdd, then MatMul) never ran, so Relu's producers are what fed them and
// ran (the weights' read); inputs that are no node (x) and nodes that did not run and have no
// producers are left out; a cycle of nodes that did not run ends. Inlined calls keep their prefix.
TEST(TfGraphEdges, ProducersThatDidNotRunAreLookedThrough) {
  size_t bad = 0;
  TfGraphInputs g = ParseTfGraph(
      "# session graph 1\n"
      "w/read\tReadVariableOp\tw\n"
      "MatMul\tMatMul\tx\tw/read\n"
      "BiasAdd\tBiasAdd\tMatMul\tb\n"
      "b\tConst\n"
      "Relu\tRelu\tBiasAdd\n"
      "loop_a\tIdentity\tloop_b\n"
      "loop_b\tIdentity\tloop_a\n"
      "Out\tAddV2\tRelu\tloop_a\n",
      &bad);
  ASSERT_EQ(bad, 0u);
  std::unordered_set<std::string> ran = {"w/read", "Relu", "Out", "call/w/read", "call/Relu"};
  EXPECT_EQ(TfProducersOf(g, "Relu", &ran), "w/read");
  EXPECT_EQ(TfProducersOf(g, "Relu"), "BiasAdd") << "without the ops that ran: as saved";
  EXPECT_EQ(TfProducersOf(g, "Out", &ran), "Relu");
  EXPECT_EQ(TfProducersOf(g, "call/Relu", &ran), "call/w/read");
}

void AddEvent(xp::XPlane* p, xp::XLine* l, int64_t id, const char* name, int64_t off_us,
              int64_t dur_us) {
  (*p->mutable_event_metadata())[id].set_name(name);
  auto* e = l->add_events();
  e->set_metadata_id(id);
  e->set_offset_ps(off_us * 1'000'000);
  e->set_duration_ps(dur_us * 1'000'000);
}

// Three steps of 2 ms ("train", step_num i) on thread 100: op a (100 us) then op c (from
// 150 us); on thread 200, op b from 1000 us, 900 us after a ended: too late for an inferred
// wake-up, so only the graph (b's producer is a) links them. c's producer is b, which runs
// after c: no edge (a producer links only where it ended before its consumer started).
// Unchanged, each step replays as measured (2 ms); with a 15x as long (1500 us), b waits for it
// and then its measured 900 us: the step ends 1400 us later.
TEST(TfGraphEdges, ProducersLinkToTheirConsumersAcrossThreads) {
  test::TempDir d;
  std::string trace = d / "t";
  auto r = test::RunCmd({TT_CLI, "record", "--quiet", "-o", trace, "--", "sleep", "0.6"});
  ASSERT_EQ(r.status, 0) << r.err;
  TraceDir t = OpenTrace(trace);
  ASSERT_EQ(t.processes.size(), 1u);
  int64_t pid = t.processes[0].meta.pid;
  int64_t t0 = static_cast<int64_t>(t.processes[0].meta.start_realtime_ns) + 100'000'000;

  xp::XSpace s;
  xp::XPlane* host = s.add_planes();
  host->set_name("/host:CPU");
  xp::XLine* one = host->add_lines();
  one->set_id(100);
  one->set_name("tf_Compute");
  one->set_timestamp_ns(t0);
  xp::XLine* two = host->add_lines();
  two->set_id(200);
  two->set_name("tf_Compute");
  two->set_timestamp_ns(t0);
  for (int i = 0; i < 3; ++i) {
    int64_t at = 2000 * i;
    std::string train = "train#step_num=" + std::to_string(i) + "#";
    AddEvent(host, one, 10 + i, train.c_str(), at, 2000);
    AddEvent(host, one, 1, "a:MatMul", at, 100);
    AddEvent(host, one, 3, "c:MatMul", at + 150, 100);
    AddEvent(host, two, 2, "b:MatMul", at + 1000, 100);
  }
  WriteFileAtomic(d / "made.xplane.pb", s.SerializeAsString());
  size_t bad = 0;
  TfGraphInputs g = ParseTfGraph("b\tMatMul\ta\nc\tMatMul\tb\na\tMatMul\tx\n", &bad);
  XSpaceImport imp =
      ImportXSpace(trace, pid, {d / "made.xplane.pb"}, std::nullopt, kImportMaxBytes, &g);
  ASSERT_TRUE(imp.errors.empty()) << imp.errors.front();
  EXPECT_EQ(imp.steps, 3u);

  r = test::RunCmd(
      {TT_CLI, "replay", trace, "--json", "--skip-warmup", "0", "--what-if", "a:MatMul=15"});
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["steps_replayed"].get<int>(), 3) << j.dump(1);
  EXPECT_EQ(j["graph_edges"].get<int>(), 3);
  EXPECT_EQ(j["graph_links"], json::parse(R"([["a:MatMul", "b:MatMul"]])"));
  EXPECT_NEAR(j["predicted_ns"].get<double>(), 2e6, 1e3);
  EXPECT_NEAR(j["what_ifs"][0]["predicted_ns"].get<double>(), 3.4e6, 1e3) << j.dump(1);

  // Without the graph, nothing links b to a: the same what-if leaves the step as it was.
  std::string plain = d / "plain";
  r = test::RunCmd({TT_CLI, "record", "--quiet", "-o", plain, "--", "sleep", "0.6"});
  ASSERT_EQ(r.status, 0) << r.err;
  TraceDir tp = OpenTrace(plain);
  int64_t shift = static_cast<int64_t>(tp.processes[0].meta.start_realtime_ns) + 100'000'000 - t0;
  for (auto* line : {one, two}) line->set_timestamp_ns(t0 + shift);
  WriteFileAtomic(d / "plain.xplane.pb", s.SerializeAsString());
  imp = ImportXSpace(plain, tp.processes[0].meta.pid, {d / "plain.xplane.pb"}, std::nullopt);
  ASSERT_TRUE(imp.errors.empty()) << imp.errors.front();
  r = test::RunCmd(
      {TT_CLI, "replay", plain, "--json", "--skip-warmup", "0", "--what-if", "a:MatMul=15"});
  ASSERT_EQ(r.status, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["graph_edges"].get<int>(), 0);
  EXPECT_NEAR(j["what_ifs"][0]["predicted_ns"].get<double>(), 2e6, 1e3) << j.dump(1);
}

}  // namespace
}  // namespace tt
