// Replay (src/analysis/replay/): the simulation and critical path exact on hand-built graphs
// (a chain, a fork and join, a resource's queue, two ranks joined by a collective, a cycle),
// the what-ifs on them, and the command on a synthetic trace written at known times (its
// unchanged replay, a what-if, and each bad input's one line).
#include <gtest/gtest.h>
#include <time.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/replay/optimize.h"
#include "analysis/replay/predict.h"
#include "analysis/replay/simulate.h"
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"
#include "core/files.h"
#include "format/import/kineto/import.h"
#include "hand_kineto.h"
#include "test_util.h"

namespace tt {
namespace {

using analysis::replay::CriticalPathOf;
using analysis::replay::EdgeKind;
using analysis::replay::Graph;
using analysis::replay::kNone;
using analysis::replay::NodeKind;
using analysis::replay::Simulate;
using analysis::replay::StepGraph;
using analysis::replay::WhatIf;
using nlohmann::json;
using test::RunCmd;
using test::TempDir;

// A rank with its step on its own resources; nodes added by the tests.
struct Hand {
  Graph g;
  uint32_t Op(uint32_t res, const std::string& name, uint64_t dur, NodeKind k = NodeKind::kOp) {
    return g.AddNode(res, g.AddLabel(name), k, dur);
  }
};

// source -(1)-> a(10) -(2)-> b(20) -(3)-> c(5) -(4)-> sink, all on one thread.
TEST(ReplaySim, ChainIsTheSumOfDurationsAndGaps) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 45);
  uint32_t t = h.g.AddResource("thread", 0);
  uint32_t a = h.Op(t, "a", 10), b = h.Op(t, "b", 20), c = h.Op(t, "c", 5);
  h.g.AddEdge(h.g.ranks[r].source, a, 1);
  h.g.AddEdge(a, b, 2);
  h.g.AddEdge(b, c, 3);
  h.g.AddEdge(c, h.g.ranks[r].sink, 4);
  auto s = Simulate(h.g);
  EXPECT_EQ(s.start[a], 1u);
  EXPECT_EQ(s.start[b], 13u);
  EXPECT_EQ(s.end[c], 41u);
  ASSERT_EQ(s.predicted.size(), 1u);
  EXPECT_EQ(s.predicted[0], 45u);
  auto p = CriticalPathOf(h.g, s, 0);
  EXPECT_EQ(p.length, 45u);
  EXPECT_EQ(p.gaps, 10u);
  ASSERT_EQ(p.nodes.size(), 5u);
  EXPECT_EQ(p.nodes[1], a);
  EXPECT_EQ(p.nodes[3], c);
  ASSERT_EQ(p.shares.size(), 3u);
  EXPECT_EQ(h.g.Label(p.shares[0].label), "b");
  EXPECT_EQ(p.shares[0].ns, 20u);
  auto u = analysis::replay::Utilisation(h.g, s);
  EXPECT_DOUBLE_EQ(u[t], 35.0 / 45.0);
}

// source forks into a(10) on thread 1 and b(30) on thread 2; c(5) on thread 1 joins them
// (b's end + 2): the path runs through b, not a.
TEST(ReplaySim, ForkAndJoinFollowTheLaterBranch) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 40);
  uint32_t t1 = h.g.AddResource("t1", 0), t2 = h.g.AddResource("t2", 0);
  uint32_t a = h.Op(t1, "a", 10), b = h.Op(t2, "b", 30), c = h.Op(t1, "c", 5);
  uint32_t src = h.g.ranks[r].source, sink = h.g.ranks[r].sink;
  h.g.AddEdge(src, a, 0);
  h.g.AddEdge(src, b, 0);
  h.g.AddEdge(a, c, 0);
  h.g.AddEdge(b, c, 2, EdgeKind::kInferred);
  h.g.AddEdge(c, sink, 0);
  auto s = Simulate(h.g);
  EXPECT_EQ(s.start[c], 32u);
  EXPECT_EQ(s.predicted[0], 37u);
  EXPECT_EQ(s.binding[c], b);
  auto p = CriticalPathOf(h.g, s, 0);
  EXPECT_EQ(p.nodes, (std::vector<uint32_t>{src, b, c, sink}));
  EXPECT_EQ(p.gaps, 2u);
  // b twice as fast: a's branch still ends first, the join moves by 15.
  StepGraph sg{h.g, {0}};
  auto after =
      analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "^b$=0.5", "^b$", 0.5)});
  EXPECT_EQ(Simulate(after[0].graph).predicted[0], 22u);
  // b gone (and its gap): c waits for a only.
  after = analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "^b$=0", "^b$", 0)});
  EXPECT_EQ(Simulate(after[0].graph).predicted[0], 15u);
}

// Two nodes of one resource, both ready at once, no edge between them: the resource's queue
// runs them one after the other, in order of readiness.
TEST(ReplaySim, OneResourceRunsOneNodeAtATime) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 0);
  uint32_t t = h.g.AddResource("stream", 0);
  uint32_t a = h.Op(t, "k1", 7, NodeKind::kDevice), b = h.Op(t, "k2", 4, NodeKind::kDevice);
  uint32_t src = h.g.ranks[r].source, sink = h.g.ranks[r].sink;
  h.g.AddEdge(src, a, 1);
  h.g.AddEdge(src, b, 1);
  h.g.AddEdge(a, sink, 0);
  h.g.AddEdge(b, sink, 0);
  auto s = Simulate(h.g);
  EXPECT_EQ(s.start[a], 1u);
  EXPECT_EQ(s.start[b], 8u);
  EXPECT_EQ(s.binding[b], a);  // it waited in the queue
  EXPECT_EQ(s.predicted[0], 12u);
}

// Rank 0 computes x(10) and rank 1 y(30), released 5 later; each then arrives at an
// all-reduce whose transfer (8) starts when the last arrived; each rank then finishes its call
// (2). Rank 0 waits for rank 1: its critical path crosses into rank 1.
struct TwoRanks {
  Hand h;
  uint32_t x, y, c, e0, e1;
  TwoRanks() {
    Graph& g = h.g;
    size_t r0 = g.AddRank("rank 0", 0, 0), r1 = g.AddRank("rank 1", 5, 0);
    uint32_t t0 = g.AddResource("rank 0 main", 0), t1 = g.AddResource("rank 1 main", 1);
    uint32_t comm = g.AddResource("communicator 0", -1);
    x = h.Op(t0, "x", 10);
    y = h.Op(t1, "y", 30);
    uint32_t a0 = h.Op(t0, "allreduce", 0, NodeKind::kRuntime);
    uint32_t a1 = h.Op(t1, "allreduce", 0, NodeKind::kRuntime);
    c = h.Op(comm, "allreduce", 8, NodeKind::kComm);
    e0 = h.Op(t0, "allreduce", 2, NodeKind::kRuntime);
    e1 = h.Op(t1, "allreduce", 2, NodeKind::kRuntime);
    g.AddEdge(g.ranks[r0].source, x, 0);
    g.AddEdge(g.ranks[r1].source, y, 0);
    g.AddEdge(x, a0, 0);
    g.AddEdge(y, a1, 0);
    for (uint32_t a : {a0, a1}) g.AddEdge(a, c, 0, EdgeKind::kCollective);
    g.AddEdge(a0, e0, 0);
    g.AddEdge(a1, e1, 0);
    for (uint32_t e : {e0, e1}) g.AddEdge(c, e, 0, EdgeKind::kCollective);
    g.AddEdge(e0, g.ranks[r0].sink, 0);
    g.AddEdge(e1, g.ranks[r1].sink, 0);
  }
};

TEST(ReplaySim, TwoRanksWaitForTheLastArrivalAtACollective) {
  TwoRanks two;
  auto s = Simulate(two.h.g);
  EXPECT_EQ(s.start[two.c], 35u);
  EXPECT_EQ(s.end[two.e0], 45u);
  EXPECT_EQ(s.predicted[0], 45u);  // rank 0 from 0
  EXPECT_EQ(s.predicted[1], 40u);  // rank 1 from its release, 5
  auto p = CriticalPathOf(two.h.g, s, 0);
  std::vector<uint32_t> want_in = {two.y, two.c, two.e0};
  for (uint32_t v : want_in)
    EXPECT_NE(std::find(p.nodes.begin(), p.nodes.end(), v), p.nodes.end()) << v;
  EXPECT_EQ(std::find(p.nodes.begin(), p.nodes.end(), two.x), p.nodes.end());
  // Transfers twice as fast: 4 less for both; y halved: rank 0 waits less.
  StepGraph sg{two.h.g, {0, 0}};
  auto comm = analysis::replay::Changed(
      {sg}, {analysis::replay::MakeWhatIf("comm", "comm=0.5", "comm", 0.5)});
  EXPECT_EQ(Simulate(comm[0].graph).predicted, (std::vector<uint64_t>{41, 36}));
  // Transfers overlapping everything: no rank waits; each step's end waits for the transfer.
  auto overlap = analysis::replay::Changed(
      {sg}, {analysis::replay::MakeWhatIf("overlap", "overlap=comm", "overlap", 1)});
  EXPECT_EQ(Simulate(overlap[0].graph).predicted, (std::vector<uint64_t>{43, 38}));
  auto fast_y =
      analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "y=0.5", "y", 0.5)});
  EXPECT_EQ(Simulate(fast_y[0].graph).predicted, (std::vector<uint64_t>{30, 25}));
}

// An op (100) launches a kernel (200) 20 into it: the kernel starts 20 after the op's start,
// and the path runs from the op's start through the kernel (the op's own time is not on it).
// The op twice as fast launches sooner, and its kernel is twice as fast too.
TEST(ReplaySim, AKernelFollowsItsLaunchFromTheOpsStart) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 0);
  uint32_t t = h.g.AddResource("thread", 0), gpu = h.g.AddResource("GPU 0 stream 7", 0);
  uint32_t op = h.Op(t, "MatMul", 100), k = h.Op(gpu, "sgemm", 200, NodeKind::kDevice);
  uint32_t src = h.g.ranks[r].source, sink = h.g.ranks[r].sink;
  h.g.AddEdge(src, op, 0);
  h.g.AddEdge(src, k, 0);
  h.g.AddEdge(op, k, 20, EdgeKind::kFlow, true);
  h.g.AddEdge(op, sink, 0);
  h.g.AddEdge(k, sink, 0);
  auto s = Simulate(h.g);
  EXPECT_EQ(s.start[k], 20u);
  EXPECT_EQ(s.predicted[0], 220u);
  auto p = CriticalPathOf(h.g, s, 0);
  EXPECT_EQ(p.nodes, (std::vector<uint32_t>{src, op, k, sink}));
  EXPECT_EQ(p.gaps, 20u);
  ASSERT_EQ(p.shares.size(), 1u);  // the kernel only
  EXPECT_EQ(p.shares[0].ns, 200u);
  StepGraph sg{h.g, {0}};
  auto half = analysis::replay::Changed(
      {sg}, {analysis::replay::MakeWhatIf("", "MatMul=0.5", "MatMul", 0.5)});
  EXPECT_EQ(Simulate(half[0].graph).predicted[0], 110u);  // 10 + 100
}

// precision=: matrix work on the GPU at kGpuHalfPrecision by default; with a factor, ops on the
// CPU too; with no GPU work and no factor, an error that says to give one.
TEST(ReplaySim, PrecisionScalesMatrixWork) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 0);
  uint32_t t = h.g.AddResource("thread", 0), gpu = h.g.AddResource("GPU 0 stream 7", 0);
  uint32_t op = h.Op(t, "dense/MatMul:MatMul", 100), relu = h.Op(t, "Relu:Relu", 10);
  uint32_t k = h.Op(gpu, "volta_sgemm_128x64_nn", 200, NodeKind::kDevice);
  uint32_t src = h.g.ranks[r].source, sink = h.g.ranks[r].sink;
  h.g.AddEdge(src, op, 0);
  h.g.AddEdge(op, relu, 0);
  h.g.AddEdge(src, k, 0);
  h.g.AddEdge(relu, sink, 0);
  h.g.AddEdge(k, sink, 0);
  StepGraph sg{h.g, {0}};
  auto parse = [](const std::string&, const std::string& x) { return std::stod(x); };
  auto bf16 =
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("precision=bf16", parse)});
  EXPECT_EQ(bf16[0].graph.nodes[k].duration, 100u);
  EXPECT_EQ(bf16[0].graph.nodes[op].duration, 100u);
  auto given =
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("precision=fp16:0.8", parse)});
  EXPECT_EQ(given[0].graph.nodes[k].duration, 160u);
  EXPECT_EQ(given[0].graph.nodes[op].duration, 80u);
  EXPECT_EQ(given[0].graph.nodes[relu].duration, 10u);
  Hand cpu;
  size_t r2 = cpu.g.AddRank("rank 0", 0, 0);
  uint32_t mm = cpu.Op(cpu.g.AddResource("thread", 0), "MatMul:_MklMatMul", 100);
  cpu.g.AddEdge(cpu.g.ranks[r2].source, mm, 0);
  cpu.g.AddEdge(mm, cpu.g.ranks[r2].sink, 0);
  StepGraph csg{cpu.g, {0}};
  try {
    analysis::replay::Changed({csg}, {analysis::replay::ParseWhatIf("precision=bf16", parse)});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("precision=bf16:FACTOR"), std::string::npos) << e.what();
  }
  EXPECT_THROW(analysis::replay::ParseWhatIf("precision=int8", parse), Error);
}

// Two all-reduces of 100 bytes per step on two ranks (rank 1's compute before the first is 5
// longer). Fused into one bucket of 200: the first returns at once, the bucket's transfer
// (alpha 1 + beta 0.02 x 200 = 5) starts when both ranks reached the second, and each step ends
// after it. Split into pieces of 50: each transfer costs 2 x 1 + 0.02 x 100 = 4.
struct TwoCollectives {
  Hand h;
  uint32_t c1 = 0, c2 = 0;
  TwoCollectives() {
    Graph& g = h.g;
    uint32_t comm = g.AddResource("communicator 0", -1);
    g.AddRank("rank 0", 0, 0);
    g.AddRank("rank 1", 0, 0);
    c1 = h.Op(comm, "allreduce", 5, NodeKind::kComm);
    c2 = h.Op(comm, "allreduce", 5, NodeKind::kComm);
    g.nodes[c1].bytes = g.nodes[c2].bytes = 100;
    g.nodes[c2].measured = 1;
    for (int r = 0; r < 2; ++r) {
      uint32_t t = g.AddResource("main", r);
      uint32_t x = h.Op(t, "x", r ? 15 : 10), a1 = h.Op(t, "ar", 0, NodeKind::kRuntime);
      uint32_t e1 = h.Op(t, "ar", 1, NodeKind::kRuntime), y = h.Op(t, "y", 10);
      uint32_t a2 = h.Op(t, "ar", 0, NodeKind::kRuntime), e2 = h.Op(t, "ar", 1, NodeKind::kRuntime);
      std::vector<uint32_t> chain = {g.ranks[r].source, x, a1, e1, y, a2, e2, g.ranks[r].sink};
      for (size_t i = 0; i + 1 < chain.size(); ++i) g.AddEdge(chain[i], chain[i + 1], 0);
      g.AddEdge(a1, c1, 0, EdgeKind::kCollective);
      g.AddEdge(c1, e1, 0, EdgeKind::kCollective);
      g.AddEdge(a2, c2, 0, EdgeKind::kCollective);
      g.AddEdge(c2, e2, 0, EdgeKind::kCollective);
    }
  }
};

TEST(ReplaySim, TensorFusionGroupsAndSplitsTransfers) {
  TwoCollectives two;
  EXPECT_EQ(Simulate(two.h.g).predicted, (std::vector<uint64_t>{37, 37}));
  WhatIf w = analysis::replay::MakeWhatIf("tensor-fusion", "tensor-fusion=200", "tensor-fusion", 1);
  w.bucket = 200;
  w.alpha = 1;
  w.beta = 0.02;
  Graph fused = two.h.g;
  EXPECT_EQ(analysis::replay::Apply(w, &fused), 2u);
  EXPECT_EQ(Simulate(fused).predicted, (std::vector<uint64_t>{32, 32}));
  w.bucket = 50;
  Graph split = two.h.g;
  analysis::replay::Apply(w, &split);
  EXPECT_EQ(Simulate(split).predicted, (std::vector<uint64_t>{35, 35}));
  // The fit: two sizes on a line 3 + 0.5 x bytes.
  Graph fit = two.h.g;
  fit.nodes[two.c1].duration = 53;
  fit.nodes[two.c2].bytes = 200;
  fit.nodes[two.c2].duration = 103;
  double alpha = 0, beta = 0;
  analysis::replay::FitTransfers({&fit}, &alpha, &beta);
  EXPECT_NEAR(alpha, 3, 1e-9);
  EXPECT_NEAR(beta, 0.5, 1e-9);
}

// A DDP-like step on two ranks: a backward pass of four element-wise pairs (ReluGrad 200, 200
// of dispatch, ReluGrad 200), each followed by a parameter's gradient (AccumulateGrad 10, 1 MiB),
// then the all-reduce's call (10), one transfer of the 4 MiB, and the rest of the call (10);
// with `gradients` false, one MatMul(100) and a 2 MiB transfer instead. Transfers cost
// 1000 + 1000 per MiB (as measured: 5000 and 3000), so the fit on both is exact.
StepGraph DdpLikeStep(bool gradients) {
  StepGraph sg;
  Graph& g = sg.graph;
  uint32_t comm = g.AddResource("communicator 0", -1);
  int64_t mib = 1 << 20, bytes = gradients ? 4 * mib : 2 * mib;
  uint32_t c = g.AddNode(comm, g.AddLabel("allreduce"), NodeKind::kComm, gradients ? 5000 : 3000);
  g.nodes[c].bytes = bytes;
  for (int r = 0; r < 2; ++r) {
    size_t rank = g.AddRank("rank " + std::to_string(r), 0, 0);
    uint32_t t = g.AddResource("main", r), prev = g.ranks[rank].source;
    uint64_t now = 0;
    auto add = [&](const std::string& name, uint64_t dur, uint64_t gap, NodeKind k) {
      now += gap;
      uint32_t v = g.AddNode(t, g.AddLabel(name), k, dur, now);
      now += dur;
      g.AddEdge(prev, v, gap);
      return prev = v;
    };
    if (!gradients) add("MatMul", 100, 0, NodeKind::kOp);
    for (int i = 0; gradients && i < 4; ++i) {
      add("ReluGrad", 200, 0, NodeKind::kOp);
      add("ReluGrad", 200, 200, NodeKind::kOp);
      uint32_t grad = add("AccumulateGrad", 10, 0, NodeKind::kOp);
      g.nodes[grad].grad = true;
      g.nodes[grad].bytes = mib;
    }
    uint32_t call = add("allreduce", 10, 0, NodeKind::kRuntime);
    uint32_t rest = add("allreduce", 10, 0, NodeKind::kRuntime);
    g.AddEdge(call, c, 0, EdgeKind::kCollective);
    g.AddEdge(c, rest, 0, EdgeKind::kCollective);
    g.AddEdge(rest, g.ranks[rank].sink, 0);
    g.nodes[c].measured = now - 10;
  }
  return sg;
}

// With the gradients' ready times, tensor-fusion makes DDP's buckets: 2 MiB closes one bucket
// after the second gradient (ready at 1220), whose transfer (3000) runs during the rest of the
// backward pass; the last bucket follows it (4220 to 7220). 1 MiB: four buckets of 2000 in a
// row from 610; 4 MiB: the step as measured.
TEST(ReplaySim, TensorFusionStartsEachBucketWhenItsGradientsAreReady) {
  StepGraph sg = DdpLikeStep(true);
  EXPECT_EQ(Simulate(sg.graph).predicted, (std::vector<uint64_t>{7460, 7460}));
  auto with = [&](int64_t bucket) {
    WhatIf w = analysis::replay::MakeWhatIf("tensor-fusion", "tensor-fusion", "tensor-fusion", 1);
    w.bucket = bucket;
    w.alpha = 1000;
    w.beta = 1000.0 / (1 << 20);
    Graph g = sg.graph;
    EXPECT_EQ(analysis::replay::Apply(w, &g), 1u);
    return Simulate(g).predicted;
  };
  EXPECT_EQ(with(2 << 20), (std::vector<uint64_t>{7230, 7230}));
  EXPECT_EQ(with(1 << 20), (std::vector<uint64_t>{8620, 8620}));
  EXPECT_EQ(with(4 << 20), (std::vector<uint64_t>{7460, 7460}));
  EXPECT_EQ(with(64 << 20), (std::vector<uint64_t>{7460, 7460}));
}

// A local optimum of the greedy search: alone, 2 MiB buckets help (the first bucket's transfer
// hides behind the backward pass: mean step 5290 to 5175), so greedy keeps them and then fuses
// the element-wise ops (4775); but once they are fused the backward pass is too short to hide
// a transfer, and one bucket is better (4490). The Metropolis search, seeded with the greedy
// plan, finds it; the same seed gives the same plan.
TEST(ReplaySim, McmcSearchLeavesTheGreedyLocalOptimum) {
  std::vector<StepGraph> steps = {DdpLikeStep(true), DdpLikeStep(false)};
  auto greedy = analysis::replay::Optimize(steps);
  EXPECT_EQ(greedy.search, "greedy");
  EXPECT_NEAR(greedy.base, 5290, 1);
  ASSERT_EQ(greedy.steps.size(), 2u);
  EXPECT_EQ(greedy.steps[0].what_if.spec, "tensor-fusion=2M");
  EXPECT_NEAR(greedy.steps[0].predicted, 5175, 1);
  EXPECT_EQ(greedy.steps[1].what_if.spec, "op-fusion=auto");
  EXPECT_NEAR(greedy.steps[1].predicted, 4775, 1);
  analysis::replay::SearchOptions o;
  o.mcmc = true;
  o.budget = 60;
  auto mcmc = analysis::replay::Optimize(steps, o);
  EXPECT_EQ(mcmc.search, "mcmc");
  ASSERT_FALSE(mcmc.steps.empty());
  EXPECT_NEAR(mcmc.steps.back().predicted, 4490, 1);
  bool fused = false;
  for (const auto& p : mcmc.steps) {
    fused |= p.what_if.Is("op-fusion");
    if (p.what_if.Is("tensor-fusion")) {
      EXPECT_GE(p.what_if.bucket, 4 << 20);
    }
  }
  EXPECT_TRUE(fused);
  EXPECT_LE(mcmc.tried.size(), o.budget + 1);
  auto again = analysis::replay::Optimize(steps, o);
  ASSERT_EQ(again.steps.size(), mcmc.steps.size());
  for (size_t i = 0; i < mcmc.steps.size(); ++i)
    EXPECT_EQ(again.steps[i].what_if.spec, mcmc.steps[i].what_if.spec);
  EXPECT_EQ(again.tried, mcmc.tried);
}

// Add(10), Mul(30), Relu(20), then MatMul(50), 5 apart on one thread: op-fusion=auto makes the
// three element-wise ops one of 30 with no gaps between them; a pattern picks its own.
TEST(ReplaySim, OpFusionJoinsChainsOfElementWiseOps) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 0);
  uint32_t t = h.g.AddResource("thread", 0);
  std::vector<uint32_t> chain = {h.g.ranks[r].source, h.Op(t, "a/Add:Add", 10),
                                 h.Op(t, "a/Mul:Mul", 30), h.Op(t, "a/Relu:Relu", 20),
                                 h.Op(t, "a/MatMul:MatMul", 50)};
  for (size_t i = 0; i + 1 < chain.size(); ++i) h.g.AddEdge(chain[i], chain[i + 1], 5);
  h.g.AddEdge(chain.back(), h.g.ranks[r].sink, 0);
  EXPECT_EQ(Simulate(h.g).predicted[0], 130u);
  StepGraph sg{h.g, {0}};
  auto parse = [](const std::string&, const std::string& x) { return std::stod(x); };
  auto fused =
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("op-fusion=auto", parse)});
  EXPECT_EQ(Simulate(fused[0].graph).predicted[0], 90u);
  auto two = analysis::replay::Changed(
      {sg}, {analysis::replay::ParseWhatIf("op-fusion=:(Mul|Relu)$", parse)});
  EXPECT_EQ(Simulate(two[0].graph).predicted[0], 105u);  // 5+10+5+30+0+0+5+50
  EXPECT_THROW(
      analysis::replay::Changed({sg}, {analysis::replay::ParseWhatIf("op-fusion=MatMul", parse)}),
      Error);
}

TEST(ReplaySim, ACycleIsAnErrorNotAHang) {
  Hand h;
  size_t r = h.g.AddRank("rank 0", 0, 0);
  uint32_t t = h.g.AddResource("t", 0);
  uint32_t a = h.Op(t, "a", 1), b = h.Op(t, "b", 1);
  h.g.AddEdge(h.g.ranks[r].source, a, 0);
  h.g.AddEdge(a, b, 0);
  h.g.AddEdge(b, a, 0);
  EXPECT_THROW(Simulate(h.g), Error);
}

TEST(ReplaySim, WhatIfsMatchingNothingAreErrors) {
  TwoRanks two;
  StepGraph sg{two.h.g, {0, 0}};
  EXPECT_THROW(
      analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "nope=0", "nope", 0)}),
      Error);
  EXPECT_THROW(analysis::replay::Changed(
                   {sg}, {analysis::replay::MakeWhatIf("input", "input=0", "input", 0)}),
               Error);
  auto parse = [](const std::string&, const std::string& t) { return std::stod(t); };
  WhatIf w = analysis::replay::ParseWhatIf("a=b=2", parse);  // the factor after the last '='
  EXPECT_EQ(w.pattern, "a=b");
  EXPECT_EQ(w.factor, 2);
  EXPECT_TRUE(analysis::replay::ParseWhatIf("input=0", parse).Is("input"));
  EXPECT_TRUE(analysis::replay::ParseWhatIf("overlap=comm", parse).Is("overlap"));
  EXPECT_THROW(analysis::replay::ParseWhatIf("MatMul", parse), Error);
  EXPECT_THROW(analysis::replay::ParseWhatIf("=2", parse), Error);
  EXPECT_THROW(analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "(=1", "(", 1)}),
               Error);
}

// PyTorch autograd's own links, through the Kineto importer: a recorded process given a Kineto
// file of three steps (ProfilerStep#N, 2 ms each) where the forward op aten::linear (100 us,
// sequence number 10 + 10i) runs on thread 100 and its backward op (100 us from 1000 us, the
// same sequence number, forward thread id 1) and a parameter's AccumulateGrad (256x256 floats,
// 50 us) on thread 200: 900 us after the forward op, too late for an inferred wake-up, so only
// the sequence number links them. Unchanged, each step replays as measured; with the forward
// op 15x as long (1500 us), the backward op waits for it: the step ends 500 us later (without
// the edge, thread 200 would start at 1000 us as measured, and the step end at 2 ms).
TEST(ReplayAutograd, BackwardOpsFollowTheirForwardOpsAcrossThreads) {
  TempDir d;
  test::HandKineto k(d.path());
  ASSERT_GT(k.pid, 0);
  std::string trace = k.trace;
  for (int i = 0; i < 3; ++i) {
    double t = 2000.0 * i;
    int seq = 10 + 10 * i;
    k.Event(100, "user_annotation", "ProfilerStep#" + std::to_string(i + 1), t, 2000);
    k.Event(100, "cpu_op", "aten::linear", t, 100,
            {{"Sequence number", seq}, {"Fwd thread id", 0}});
    k.Event(200, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", t + 1000, 100,
            {{"Sequence number", seq}, {"Fwd thread id", 1}});
    k.Event(200, "cpu_op", "AddmmBackward0", t + 1001, 98,
            {{"Sequence number", seq}, {"Fwd thread id", 1}});
    k.Event(200, "cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
            t + 1100, 50);
    k.Event(200, "cpu_op", "torch::autograd::AccumulateGrad", t + 1101, 10,
            {{"Input Dims", {{256, 256}}}, {"Input type", {"float"}}});
  }
  k.Import();
  auto r = RunCmd(
      {TT_CLI, "replay", trace, "--json", "--skip-warmup", "0", "--what-if", "aten::linear=15"});
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["steps_replayed"].get<int>(), 3) << j.dump(1);
  EXPECT_EQ(j["autograd_edges"].get<int>(), 3);
  EXPECT_EQ(j["gradients"].get<int>(), 3);
  EXPECT_NEAR(j["predicted_ns"].get<double>(), 2e6, 1e3);
  EXPECT_NEAR(j["what_ifs"][0]["predicted_ns"].get<double>(), 2.5e6, 1e3) << j.dump(1);
}

// The synthetic job (tests/programs/synthetic_job.cc): steps of framework ops on two threads
// with GPU kernels and copies on their streams.
class ReplaySynthetic : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_SYNTHETIC, "8", "300", "1"}, {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static json Replay(const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {TT_CLI, "replay", dir_->path(), "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = RunCmd(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json::object();
  }
  static TempDir* dir_;
};
TempDir* ReplaySynthetic::dir_ = nullptr;

TEST_F(ReplaySynthetic, UnchangedReplayPredictsTheMeasuredSteps) {
  json j = Replay({});
  EXPECT_EQ(j["schema"], "tensortrace.replay/1");
  ASSERT_EQ(j["steps_replayed"].get<int>(), 7);  // the first is warm-up
  EXPECT_LT(std::abs(j["error"].get<double>()), 0.01) << j.dump(1);
  for (const auto& s : j["steps"])
    EXPECT_NEAR(s["predicted_ns"].get<double>(), s["measured_ns"].get<double>(),
                0.01 * s["measured_ns"].get<double>());
  EXPECT_FALSE(j["critical_path"]["items"].empty());
  bool device = false;
  for (const auto& r : j["resources"]) device |= r["name"].get<std::string>().find("GPU") == 0;
  EXPECT_TRUE(device) << j["resources"].dump(1);
}

// One typical step: the median step's graph, with mean durations and gaps.
TEST_F(ReplaySynthetic, TypicalStepPredictsTheMeanStep) {
  json j = Replay({"--typical"});
  EXPECT_TRUE(j["typical"].get<bool>());
  EXPECT_EQ(j["steps_replayed"].get<int>(), 7);
  ASSERT_EQ(j["steps"].size(), 1u);
  EXPECT_LT(std::abs(j["error"].get<double>()), 0.05) << j.dump(1);
}

// MatMul half as long: the step is shorter by at most MatMul's time on the critical path.
TEST_F(ReplaySynthetic, WhatIfPredictsAShorterStep) {
  json j = Replay({"--what-if", "MatMul=0.5", "--what-if", "Relu=1"});
  ASSERT_EQ(j["what_ifs"].size(), 3u);  // each, and both together
  const json& w = j["what_ifs"][0];
  EXPECT_EQ(w["spec"], "MatMul=0.5");
  double base = j["predicted_ns"].get<double>(), after = w["predicted_ns"].get<double>();
  double matmul = 0;
  for (const auto& it : j["critical_path"]["items"])
    if (it["label"].get<std::string>().find("MatMul") != std::string::npos)
      matmul += it["ns"].get<double>();
  ASSERT_GT(matmul, 0) << j["critical_path"].dump(1);
  EXPECT_LT(after, base);
  EXPECT_GE(after + 1, base - matmul / 2);
  EXPECT_NEAR(w["speedup"].get<double>(), base / after, 1e-5);  // the JSON rounds to ns
  EXPECT_FALSE(w["moved"].empty());
  EXPECT_NEAR(j["what_ifs"][1]["predicted_ns"].get<double>(), base, 1);  // factor 1
}

// What would help most: changes a user can make, the largest predicted gain first, each a
// what-if the command takes back with its kind, gain (the unchanged prediction less its own),
// uncertainty and how. Here no change of another kind gains 0.5% (no input, no collectives, no
// Python lines; the fused BiasAdd and Relu less): the heaviest ops twice as fast.
TEST_F(ReplaySynthetic, SuggestionsAreRankedWhatIfs) {
  json j = Replay({"--suggest", "2"});
  const json& s = j["suggestions"];
  ASSERT_FALSE(s.empty()) << j["critical_path"].dump(1);
  double base = j["predicted_ns"].get<double>();
  for (size_t i = 0; i < s.size(); ++i) {
    const json& w = s[i];
    std::string spec = w["spec"];
    EXPECT_EQ(w["kind"], "op") << spec;
    EXPECT_EQ(spec.substr(spec.size() - 4), "=0.5");
    EXPECT_EQ(w["what_if"], spec);
    EXPECT_NEAR(w["gain_ns"].get<double>(), base - w["predicted_ns"].get<double>(), 2);
    EXPECT_GE(w["uncertainty_ns"].get<double>(), 0);
    EXPECT_FALSE(w["how"].get<std::string>().empty());
    if (i) {
      EXPECT_LE(w["gain_ns"].get<double>(), s[i - 1]["gain_ns"].get<double>());
    }
    json again = Replay({"--what-if", spec});
    EXPECT_EQ(again["what_ifs"][0]["predicted_ns"], w["predicted_ns"]) << spec;
  }
  EXPECT_EQ(analysis::replay::RegexQuote("a.b(c)"), "a\\.b\\(c\\)");
}

// The report's "What would help most": replay's suggestions, best first, with the predictions
// `replay --suggest` gives for them.
TEST_F(ReplaySynthetic, ReportShowsWhatWouldHelpMost) {
  TempDir out;
  auto r = RunCmd({TT_CLI, "report", dir_->path(), "-o", out / "r.html"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(out / "r.html");
  size_t at = html.find("<table id=\"suggestions\">");
  ASSERT_NE(at, std::string::npos) << html.substr(0, 2000);
  std::string table = html.substr(at, html.find("</table>", at) - at);
  json j = Replay({"--suggest", "5"});
  ASSERT_FALSE(j["suggestions"].empty());
  size_t prev = 0;
  for (const auto& w : j["suggestions"]) {  // the same what-ifs, in the same order
    size_t pos = table.find(">" + w["spec"].get<std::string>() + "<");
    ASSERT_NE(pos, std::string::npos) << w["spec"] << table;
    EXPECT_GE(pos, prev);
    prev = pos;
  }
}

// optimize: what it tried (op-fusion=auto: BiasAdd then Relu on one thread; no collectives, so
// no bucket size), and a plan whose every step shortens the predicted step.
TEST_F(ReplaySynthetic, OptimizeTriesSettingsAndKeepsWhatHelps) {
  auto r = RunCmd({TT_CLI, "optimize", dir_->path(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "tensortrace.optimize/1");
  ASSERT_EQ(j["tried"].size(), 1u) << j.dump(1);
  EXPECT_EQ(j["tried"][0]["spec"], "op-fusion=auto");
  double last = j["predicted_ns"].get<double>();
  for (const auto& s : j["plan"]) {
    EXPECT_LT(s["predicted_ns"].get<double>(), last);
    last = s["predicted_ns"].get<double>();
    EXPECT_FALSE(s["setting"].get<std::string>().empty());
  }
  // The Metropolis search from there: nothing better on this trace (one fusion choice).
  auto m =
      RunCmd({TT_CLI, "optimize", dir_->path(), "--search", "mcmc", "--budget", "20", "--json"});
  ASSERT_EQ(m.status, 0) << m.err;
  json jm = json::parse(m.out);
  EXPECT_EQ(jm["search"], "mcmc");
  EXPECT_EQ(jm["plan"], j["plan"]);
  EXPECT_GE(jm["tried"].size(), 1u);
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"--search", "annealing"}, {"--budget", "0"}, {"--budget", "x"}}) {
    std::vector<std::string> argv = {TT_CLI, "optimize", dir_->path()};
    argv.insert(argv.end(), bad.begin(), bad.end());
    auto r2 = RunCmd(argv);
    EXPECT_NE(r2.status, 0) << bad[1];
    EXPECT_EQ(test::CountLines(r2.err), 1u) << r2.err;
  }
  auto none = RunCmd({TT_CLI, "optimize"});
  EXPECT_NE(none.status, 0);
  EXPECT_EQ(test::CountLines(none.err), 1u) << none.err;
  EXPECT_EQ(RunCmd({TT_CLI, "optimize", "--help"}).status, 0);
}

// Each bad input: one line on stderr, a non-zero exit.
TEST_F(ReplaySynthetic, BadInputIsOneClearLine) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"--what-if", "input=0"}, "matches nothing"},
      {{"--what-if", "overlap=comm"}, "no collective joining ranks"},
      {{"--what-if", "tensor-fusion=4M"}, "no collective joining ranks"},
      {{"--what-if", "tensor-fusion=lots"}, "is not a size"},
      {{"--what-if", "NoSuchOp=0"}, "matches nothing"},
      {{"--what-if", "MatMul=-1"}, "is not a non-negative number"},
      {{"--what-if", "MatMul=fast"}, "is not a non-negative number"},
      {{"--what-if", "MatMul"}, "expected REGEX=FACTOR"},
      {{"--what-if", "(=1"}, "not a regular expression"},
      {{"--steps", "100:200"}, "no step"},
      {{"--suggest", "0"}, "at least 1"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {TT_CLI, "replay", dir_->path()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = RunCmd(argv);
    EXPECT_NE(r.status, 0) << c.args.back();
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  }
  TempDir none;  // a trace without steps
  ASSERT_EQ(
      RunCmd({TT_CLI, "record", "-o", none / "t", "--", TT_PROGRAM, "threads", "1", "10"}).status,
      0);
  auto r = RunCmd({TT_CLI, "replay", none / "t"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("no step"), std::string::npos) << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  r = RunCmd({TT_CLI, "replay", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--what-if"), std::string::npos);
}

// The what-if table: every entry is in replay's help, and a spec written as its syntax says
// parses as that entry (so no entry is shadowed by one before it).
TEST(WhatIfTable, EachEntryIsInTheHelpAndParsesAsItself) {
  auto help = RunCmd({TT_CLI, "replay", "--help"});
  ASSERT_EQ(help.status, 0);
  auto factor = [](const std::string&, const std::string& x) { return std::stod(x); };
  auto bytes = [](const std::string&, const std::string&) -> uint64_t { return 4 << 20; };
  const std::vector<std::pair<std::string, std::string>> examples = {
      {"REGEX|auto", "auto"}, {"bf16|fp16[:FACTOR]", "bf16"},
      {"REGEX", "MatMul"},    {"FACTOR", "0.5"},
      {"BYTES", "4M"},        {"FILE:FIRST[-LAST]", "a.py:3"},
      {"R:SPEC", "3:like=0"}};
  ASSERT_GE(analysis::replay::WhatIfKinds().size(), 7u);
  for (const auto* k : analysis::replay::WhatIfKinds()) {
    EXPECT_NE(help.out.find(std::string("  ") + k->syntax + " "), std::string::npos) << k->syntax;
    std::string spec = k->syntax;
    for (const auto& [from, to] : examples)
      if (size_t at = spec.find(from); at != std::string::npos) spec.replace(at, from.size(), to);
    WhatIf w = analysis::replay::ParseWhatIf(spec, factor, bytes);
    EXPECT_TRUE(w.Is(k->name)) << spec << " parsed as '" << w.kind->name << "'";
    EXPECT_FALSE(k->nothing(w).empty()) << spec;
  }
}

}  // namespace
}  // namespace tt
