// Replay's CPU sharing (analysis/replay/cpu_share.h) on hand-built graphs: the cores each
// resource takes, each node's work from its measured time, and the simulation that shares a
// host's cores among what runs on it (exact times).
#include <gtest/gtest.h>

#include "analysis/pass/thread_cpu.h"
#include "analysis/replay/cpu_share.h"
#include "analysis/replay/predict.h"
#include "analysis/replay/simulate.h"
#include "analysis/replay/whatif_kind.h"

namespace tt {
namespace {

using analysis::replay::EdgeKind;
using analysis::replay::Graph;
using analysis::replay::Host;
using analysis::replay::NodeKind;
using analysis::replay::ShareCpus;
using analysis::replay::Simulate;
using analysis::replay::StepGraph;
using analysis::replay::WhatIf;

// One rank with three threads, each running one op from the step's start; `took` is each op's
// measured time, all at once.
struct ThreeThreads {
  Graph g;
  uint32_t ops[3];
  explicit ThreeThreads(uint64_t took) {
    size_t r = g.AddRank("rank 0", 0, took);
    for (int i = 0; i < 3; ++i) {
      uint32_t t = g.AddResource("thread " + std::to_string(i), 0);
      ops[i] = g.AddNode(t, g.AddLabel("op" + std::to_string(i)), NodeKind::kOp, took, 0);
      g.AddEdge(g.ranks[r].source, ops[i], 0);
      g.AddEdge(ops[i], g.ranks[r].sink, 0);
    }
  }
};

TEST(ReplayCpuShare, ThreeThreadsOnTwoCoresRunAtTwoThirds) {
  ThreeThreads three(10);
  three.g.hosts = {{"h", 2}};
  for (auto& res : three.g.resources)
    if (!res.markers) res.cpus = {{0, 1}};
  auto s = Simulate(three.g);
  for (uint32_t v : three.ops) {
    EXPECT_EQ(s.start[v], 0u);
    EXPECT_EQ(s.end[v], 15u) << "10 of work at 2/3 of a core";
  }
  EXPECT_EQ(s.predicted[0], 15u);
  three.g.hosts[0].cores = 3;
  EXPECT_EQ(Simulate(three.g).predicted[0], 10u);
  three.g.hosts.clear();  // no sharing: the plain simulation
  EXPECT_EQ(Simulate(three.g).predicted[0], 10u);
}

// Measured: three ops of 15 at once on a host of 2 cores: each did 10 of work. Replayed
// unchanged, the step takes its measured 15; without one op, the other two have a core each.
TEST(ReplayCpuShare, WorkFromMeasuredTimeReplaysAsMeasured) {
  ThreeThreads three(15);
  ShareCpus(&three.g, {{"h", 2}}, {0});
  for (uint32_t v : three.ops) {
    EXPECT_EQ(three.g.nodes[v].duration, 10u);
    EXPECT_EQ(three.g.nodes[v].took, 15u);
  }
  EXPECT_EQ(Simulate(three.g).predicted[0], 15u);
  StepGraph sg{three.g, {0}};
  auto without =
      analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "op2=0", "op2", 0)});
  EXPECT_EQ(Simulate(without[0].graph).predicted[0], 10u);
}

// Two ranks on one host of 2 cores, each computing 100, then an all-reduce whose transfer
// (100, measured alone) takes a core on each rank's host: 200. Moved beside the computation
// (its arrivals removed: it starts with the step), the four asks share 2 cores and all end at
// 200 still, where without sharing the overlap would hide the transfer (100). Rank 0's GPU
// stream takes no core.
TEST(ReplayCpuShare, ATransferOnTheCpuTakesACoreOfEachRank) {
  Graph g;
  uint32_t comm = g.AddResource("communicator 0", -1);
  uint32_t c = g.AddNode(comm, g.AddLabel("allreduce"), NodeKind::kComm, 100, 100);
  uint32_t gpu = 0, work[2];
  for (int r = 0; r < 2; ++r) {
    size_t rank = g.AddRank("rank " + std::to_string(r), 0, 200);
    uint32_t t = g.AddResource("main", r);
    work[r] = g.AddNode(t, g.AddLabel("backward"), NodeKind::kOp, 100, 0);
    uint32_t call = g.AddNode(t, g.AddLabel("allreduce"), NodeKind::kRuntime, 0, 100);
    g.AddEdge(g.ranks[rank].source, work[r], 0);
    g.AddEdge(work[r], call, 0);
    g.AddEdge(call, c, 0, EdgeKind::kCollective);
    g.AddEdge(c, g.ranks[rank].sink, 0, EdgeKind::kCollective);
    if (r == 0) {
      gpu = g.AddResource("GPU 0 stream 7", r);
      uint32_t k = g.AddNode(gpu, g.AddLabel("kernel"), NodeKind::kDevice, 50, 0);
      g.AddEdge(g.ranks[rank].source, k, 0);
    }
  }
  Graph one_host = g;
  ShareCpus(&one_host, {{"h", 2}}, {0, 0});
  using Cores = std::vector<std::pair<uint32_t, uint32_t>>;
  EXPECT_EQ(one_host.resources[comm].cpus, (Cores{{0, 2}}));
  EXPECT_EQ(one_host.resources[one_host.nodes[work[1]].resource].cpus, (Cores{{0, 1}}));
  EXPECT_TRUE(one_host.resources[gpu].cpus.empty()) << "device work takes no core";
  EXPECT_EQ(one_host.nodes[c].duration, 100u) << "measured alone: its work is its time";
  EXPECT_EQ(Simulate(one_host).predicted, (std::vector<uint64_t>{200, 200}));
  one_host.edges.erase(std::find_if(one_host.edges.begin(), one_host.edges.end(), [&](auto& e) {
    return e.to == c && e.kind == EdgeKind::kCollective;
  }));  // rank 0's arrival
  one_host.edges.erase(std::find_if(one_host.edges.begin(), one_host.edges.end(), [&](auto& e) {
    return e.to == c && e.kind == EdgeKind::kCollective;
  }));  // rank 1's: the transfer starts at once
  EXPECT_EQ(Simulate(one_host).predicted, (std::vector<uint64_t>{200, 200}));
  one_host.hosts.clear();
  EXPECT_EQ(Simulate(one_host).predicted, (std::vector<uint64_t>{100, 100}));
  Graph two_hosts = g;
  ShareCpus(&two_hosts, {{"a", 2}, {"b", 2}}, {0, 1});
  EXPECT_EQ(two_hosts.resources[comm].cpus, (Cores{{0, 1}, {1, 1}}));
}

// A CPU-only job (no GPU work, no collective): every thread's node asks for a core of its host.
// Two threads on a host of 1 core: op a and op b at once, 20 measured each (10 of work each at
// half a core), then op c on thread 0, 10 alone; thread 1 then waits for its input (a wait
// takes no core). Replayed unchanged: 30, as measured. Without b, a has the core to itself:
// 10, then c: 20. Without sharing the same what-if keeps a's contended 20: 30.
TEST(ReplayCpuShare, TwoThreadsOnOneCoreStretchAndARemovedNodeGivesItsCoreBack) {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 30);
  uint32_t t0 = g.AddResource("thread 0", 0), t1 = g.AddResource("thread 1", 0);
  uint32_t a = g.AddNode(t0, g.AddLabel("a"), NodeKind::kOp, 20, 0);
  uint32_t c = g.AddNode(t0, g.AddLabel("c"), NodeKind::kRuntime, 10, 20);
  uint32_t b = g.AddNode(t1, g.AddLabel("b"), NodeKind::kInput, 20, 0);
  uint32_t w = g.AddNode(t1, g.AddLabel("wait"), NodeKind::kInputWait, 10, 20);
  g.AddEdge(g.ranks[r].source, a, 0);
  g.AddEdge(g.ranks[r].source, b, 0);
  g.AddEdge(a, c, 0);
  g.AddEdge(b, w, 0);
  g.AddEdge(c, g.ranks[r].sink, 0);
  g.AddEdge(w, g.ranks[r].sink, 0);
  Graph shared = g;
  ShareCpus(&shared, {{"h", 1}}, {0});
  EXPECT_EQ(shared.nodes[a].duration, 10u) << "20 measured at half a core";
  EXPECT_EQ(shared.nodes[b].duration, 10u);
  EXPECT_EQ(shared.nodes[c].duration, 10u) << "alone: its work is its time";
  EXPECT_EQ(shared.nodes[w].duration, 10u) << "a wait takes no core";
  auto s = Simulate(shared);
  EXPECT_EQ(s.end[a], 20u) << "stretched: b beside it";
  EXPECT_EQ(s.predicted[0], 30u) << "unchanged: as measured";
  auto without = [](const Graph& graph) {
    StepGraph sg{graph, {0}};
    auto changed =
        analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "b=0", "b", 0)});
    return Simulate(changed[0].graph);
  };
  auto freed = without(shared);
  EXPECT_EQ(freed.end[a], 10u) << "b's core given back";
  EXPECT_EQ(freed.predicted[0], 20u);
  EXPECT_EQ(without(g).predicted[0], 30u) << "without sharing: a as measured, beside b";
}

// A thread's CPU time as the sampler read it (analysis/pass/thread_cpu.h), every 5: busy from 0
// to 10, asleep from 10 to 30 (no read changed from 10; the read at 30, since 25, saw 2 more),
// then busy. A stretch its reads resolve gets its CPU time; one shorter than a read's interval at
// most its own length.
TEST(ReplayCpuShare, ThreadCpuGivesWhatItsReadsResolve) {
  analysis::ThreadCpu t;
  t.Add(0, 0, 100);
  t.Add(5, 0, 105);
  t.Add(10, 5, 110);
  t.Add(30, 25, 112);  // nothing from 10 to 25
  t.Add(35, 30, 117);
  EXPECT_DOUBLE_EQ(t.During(0, 10), 10);
  EXPECT_DOUBLE_EQ(t.During(10, 25), 0) << "asleep";
  EXPECT_DOUBLE_EQ(t.During(12, 30), 2) << "at most what the reads saw";
  EXPECT_DOUBLE_EQ(t.During(1, 2), 1) << "shorter than a read: its own length";
  EXPECT_DOUBLE_EQ(t.During(27, 29), 2);
  EXPECT_DOUBLE_EQ(t.During(31, 40), -1) << "past the last read";
}

// A rank among four threads on a host of 2 cores sleeps (no CPU time recorded during its op)
// while three compute (each 2/3 of a core, all they could have: a full core asked for). Its op
// asks for none: the three did 20 of work each in 30 at 2/3 of a core, and replay without the
// sleep gives them the same share (30), where four asks of a core would have made their work
// 15 and the step without the sleep 22.5.
TEST(ReplayCpuShare, AThreadThatSleepsAsksForNoCore) {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 30000);
  uint32_t ops[4];
  for (int i = 0; i < 4; ++i) {
    uint32_t t = g.AddResource("thread " + std::to_string(i), 0);
    ops[i] = g.AddNode(t, g.AddLabel(i == 3 ? "sleep" : "op" + std::to_string(i)), NodeKind::kOp,
                       30000, 0);
    g.nodes[ops[i]].cpu = i == 3 ? 0 : 20000;
    g.AddEdge(g.ranks[r].source, ops[i], 0);
    g.AddEdge(ops[i], g.ranks[r].sink, 0);
  }
  ShareCpus(&g, {{"h", 2}}, {0});
  EXPECT_DOUBLE_EQ(g.nodes[ops[3]].demand, 0);
  EXPECT_EQ(g.nodes[ops[3]].duration, 30000u) << "a sleep is not slowed";
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(g.nodes[ops[i]].demand, 1);
    EXPECT_EQ(g.nodes[ops[i]].duration, 20000u) << "30 at 2/3 of a core";
  }
  EXPECT_EQ(Simulate(g).predicted[0], 30000u) << "unchanged: as measured";
  StepGraph sg{g, {0}};
  auto without =
      analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "sleep=0", "sleep", 0)});
  EXPECT_EQ(Simulate(without[0].graph).predicted[0], 30000u) << "the three keep 2/3 of a core";
}

// Two threads on one core, both 20 at once: a computes (15 of CPU time), b waits part of its
// time (5 of CPU time). b asks for d of a core where its CPU time is what d gets: 5 = d x 20 x
// 1/(1 + d), d = 1/3; a gets 3/4 of a core (15 of CPU). b's work: its waits (2/3 of 20) and its
// CPU time (5): 18.33; a's: 15. Replayed unchanged, as measured; without a, b runs alone: 18.33.
TEST(ReplayCpuShare, APartlyWaitingThreadAsksForPartOfACore) {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 20000);
  uint32_t a = g.AddNode(g.AddResource("thread 0", 0), g.AddLabel("a"), NodeKind::kOp, 20000, 0);
  uint32_t b =
      g.AddNode(g.AddResource("thread 1", 0), g.AddLabel("b"), NodeKind::kRuntime, 20000, 0);
  g.nodes[a].cpu = 15000, g.nodes[b].cpu = 5000;
  for (uint32_t v : {a, b}) {
    g.AddEdge(g.ranks[r].source, v, 0);
    g.AddEdge(v, g.ranks[r].sink, 0);
  }
  ShareCpus(&g, {{"h", 1}}, {0});
  EXPECT_NEAR(g.nodes[b].demand, 1.0 / 3, 1e-4);
  EXPECT_DOUBLE_EQ(g.nodes[a].demand, 1);
  EXPECT_NEAR(static_cast<double>(g.nodes[a].duration), 15000, 2);
  EXPECT_NEAR(static_cast<double>(g.nodes[b].duration), 18333, 2);
  EXPECT_NEAR(static_cast<double>(Simulate(g).predicted[0]), 20000, 2) << "unchanged";
  StepGraph sg{g, {0}};
  auto without = analysis::replay::Changed({sg}, {analysis::replay::MakeWhatIf("", "a=0", "a", 0)});
  EXPECT_NEAR(static_cast<double>(Simulate(without[0].graph).predicted[0]), 18333, 2);
}

// Two Python threads on two cores, 20 each at once, each holding the GIL for 10 of them and
// using 10 of CPU time: each waited for the lock, not for a core (nor slept). Each asks for
// the whole lock and a core, and its work is 10; replayed unchanged, 20 as measured; without a,
// b has the lock to itself: 10. Without the GIL's reads, the waits look like sleeps that no
// removal shortens: 20.
TEST(ReplayCpuShare, TwoThreadsWaitingForTheGilShareItAndARemovedOneGivesItBack) {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 20000);
  uint32_t a = g.AddNode(g.AddResource("thread 0", 0), g.AddLabel("a"), NodeKind::kOp, 20000, 0);
  uint32_t b = g.AddNode(g.AddResource("thread 1", 0), g.AddLabel("b"), NodeKind::kOp, 20000, 0);
  for (uint32_t v : {a, b}) {
    g.nodes[v].cpu = 10000;
    g.AddEdge(g.ranks[r].source, v, 0);
    g.AddEdge(v, g.ranks[r].sink, 0);
  }
  Graph no_gil = g;
  g.nodes[a].gil = g.nodes[b].gil = 10000;
  ShareCpus(&g, {{"h", 2}}, {0});
  for (uint32_t v : {a, b}) {
    EXPECT_NEAR(g.nodes[v].gil_demand, 1, 1e-4);
    EXPECT_NEAR(g.nodes[v].demand, 1, 1e-4);
    EXPECT_NEAR(static_cast<double>(g.nodes[v].duration), 10000, 2);
  }
  EXPECT_NEAR(static_cast<double>(Simulate(g).predicted[0]), 20000, 2) << "unchanged";
  auto a0 = [](const Graph& x) {
    return analysis::replay::Changed({StepGraph{x, {0}}},
                                     {analysis::replay::MakeWhatIf("", "a=0", "a", 0)});
  };
  EXPECT_NEAR(static_cast<double>(Simulate(a0(g)[0].graph).predicted[0]), 10000, 2);
  ShareCpus(&no_gil, {{"h", 2}}, {0});
  EXPECT_DOUBLE_EQ(no_gil.nodes[b].gil_demand, 0);
  EXPECT_NEAR(static_cast<double>(Simulate(a0(no_gil)[0].graph).predicted[0]), 20000, 2);
}

// Edge `edge`'s gap in g after the what-if REGEX=FACTOR (spec) of one step.
uint64_t GapAfter(const Graph& g, size_t edge, const char* spec, const std::string& pattern,
                  double factor) {
  auto out = analysis::replay::Changed({StepGraph{g, {0}}},
                                       {analysis::replay::MakeWhatIf("", spec, pattern, factor)});
  return out[0].graph.edges[edge].gap;
}

// A Python thread's gap (its own Python between two calls, 10 long) while another thread's
// py_function held the GIL 60% of its 10: the gap waited 6 for the lock. Without the
// py_function it takes 4; at half its time, 7 (half of the lock time given back); a node that
// held no lock, or one made slower, gives nothing back (no sharing model here: gil_waits.h works
// on the lock as measured).
TEST(ReplayGilWaits, APythonThreadsGapGetsBackTheLockARemovedNodeHeld) {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 20000);
  uint32_t main = g.AddResource("thread 0", 0), pool = g.AddResource("thread 1", 0);
  g.resources[main].python = true;  // its gaps are its Python (the pool's: waits for work)
  uint32_t m1 = g.AddNode(main, g.AddLabel("call"), NodeKind::kOp, 5000, 0);
  uint32_t m2 = g.AddNode(main, g.AddLabel("call"), NodeKind::kOp, 5000, 15000);
  uint32_t py = g.AddNode(pool, g.AddLabel("py_function"), NodeKind::kOp, 10000, 5000);
  uint32_t native = g.AddNode(pool, g.AddLabel("native"), NodeKind::kOp, 2000, 15000);
  g.nodes[m1].gil = g.nodes[m2].gil = 2500;
  g.nodes[py].gil = 6000;
  g.AddEdge(g.ranks[r].source, m1, 0);
  g.AddEdge(m1, m2, 10000);
  g.AddEdge(g.ranks[r].source, py, 5000);
  g.AddEdge(py, native, 0);
  for (uint32_t v : {m2, native}) g.AddEdge(v, g.ranks[r].sink, 0);
  auto gap_after = [&](const char* spec, const std::string& pattern, double factor) {
    return GapAfter(g, 1, spec, pattern, factor);
  };
  EXPECT_EQ(gap_after("py_function=0", "py_function", 0), 4000u);
  EXPECT_EQ(gap_after("py_function=0.5", "py_function", 0.5), 7000u);
  EXPECT_EQ(gap_after("native=0", "native", 0), 10000u);
  EXPECT_EQ(gap_after("py_function=2", "py_function", 2), 10000u);
  Graph pool_thread = g;  // a framework's pool thread: its gap is a wait for work, not Python
  pool_thread.resources[main].python = false;
  EXPECT_EQ(GapAfter(pool_thread, 1, "py_function=0", "py_function", 0), 10000u);
  EXPECT_EQ(Simulate(analysis::replay::Changed(
                         {StepGraph{g, {0}}},
                         {analysis::replay::MakeWhatIf("", "py_function=0", "py_function", 0)})[0]
                         .graph)
                .predicted[0],
            14000u);
}

// A thread's gap (a dispatch, its own Python) needs a core too (cpu_waits.h). One core: thread 0
// runs p (0-10), a gap of 40, then q (50-60); thread 1's x runs 0-100 beside them, so the gap
// had half the core: 20 of work. Without x: 20; x at half its time (half its ask over the same
// time): 30, a third of the core still x's; x made slower, or a what-if on q: 40, as measured.
TEST(ReplayCpuWaits, AGapGetsBackTheCoreARemovedNodeTook) {
  Graph g;
  size_t r = g.AddRank("rank 0", 0, 100);
  uint32_t t0 = g.AddResource("thread 0", 0), t1 = g.AddResource("thread 1", 0);
  uint32_t p = g.AddNode(t0, g.AddLabel("p"), NodeKind::kOp, 10, 0);
  uint32_t q = g.AddNode(t0, g.AddLabel("q"), NodeKind::kOp, 10, 50);
  uint32_t x = g.AddNode(t1, g.AddLabel("x"), NodeKind::kOp, 100, 0);
  g.AddEdge(g.ranks[r].source, p, 0);
  g.AddEdge(p, q, 40);
  g.AddEdge(g.ranks[r].source, x, 0);
  for (uint32_t v : {q, x}) g.AddEdge(v, g.ranks[r].sink, 0);
  ShareCpus(&g, {{"h", 1}}, {0});
  auto gap_after = [&](const char* spec, const std::string& pattern, double factor) {
    return GapAfter(g, 1, spec, pattern, factor);
  };
  EXPECT_EQ(gap_after("x=0", "x", 0), 20u);
  EXPECT_EQ(gap_after("x=0.5", "x", 0.5), 30u);
  EXPECT_EQ(gap_after("x=2", "x", 2), 40u);
  EXPECT_EQ(gap_after("q=0.5", "q", 0.5), 40u);
  Graph alone = g;  // two cores: the gap had a core of its own
  alone.hosts[0].cores = 2;
  EXPECT_EQ(GapAfter(alone, 1, "x=0", "x", 0), 40u);
}

// Work begun in one step loads the next (a tf.data thread's py_function runs across the steps'
// boundaries): step 0's py_function runs 10-30 holding the GIL 60% of the time, and step 1
// (origin 20) has the main thread's first gap (4, after its start) and a wake-up (3, after
// another thread's node, an inferred edge) beside it. Without the py_function both get its lock
// time back: 1.6 and 1.2. Likewise a core (one core, x of step 0 running 0-200 beside step 1,
// origin 100: the gap of 40 had half the core, so 20 without x).
TEST(ReplayGilWaits, AStepsGapGetsBackTheLockOfWorkBegunInTheStepBefore) {
  auto step = [](uint64_t origin) {
    Graph g;
    g.origin = origin;
    g.AddRank("rank 0", 0, 20000);
    return g;
  };
  Graph s0 = step(0), s1 = step(20000);
  uint32_t main0 = s0.AddResource("thread 0", 0), pool = s0.AddResource("thread 1", 0);
  uint32_t m0 = s0.AddNode(main0, s0.AddLabel("call"), NodeKind::kOp, 5000, 0);
  uint32_t py = s0.AddNode(pool, s0.AddLabel("py_function"), NodeKind::kOp, 20000, 10000);
  s0.nodes[m0].gil = 2500;
  s0.nodes[py].gil = 12000;
  s0.AddEdge(s0.ranks[0].source, m0, 0);
  s0.AddEdge(s0.ranks[0].source, py, 10000);
  uint32_t main1 = s1.AddResource("thread 0", 0), other = s1.AddResource("thread 2", 0);
  s1.resources[main1].python = true;
  uint32_t m1 = s1.AddNode(main1, s1.AddLabel("call"), NodeKind::kOp, 1000, 4000);
  uint32_t w = s1.AddNode(other, s1.AddLabel("wait"), NodeKind::kOp, 6000, 0);
  uint32_t m2 = s1.AddNode(main1, s1.AddLabel("call"), NodeKind::kOp, 1000, 9000);
  s1.nodes[m1].gil = s1.nodes[m2].gil = 500;
  s1.AddEdge(s1.ranks[0].source, m1, 4000);  // edge 0
  s1.AddEdge(m1, m2, 4000);                  // edge 1: the thread's order, bound by the wake-up
  s1.AddEdge(s1.ranks[0].source, w, 0);
  s1.AddEdge(w, m2, 3000, EdgeKind::kInferred);  // edge 3
  auto out = analysis::replay::Changed(
      {StepGraph{s0, {0}}, StepGraph{s1, {1}}},
      {analysis::replay::MakeWhatIf("", "py_function=0", "py_function", 0)});
  EXPECT_EQ(out[1].graph.edges[0].gap, 1600u);
  EXPECT_EQ(out[1].graph.edges[3].gap, 1200u);
  EXPECT_EQ(out[0].graph.edges[0].gap, 0u);
  auto alone = analysis::replay::Changed({StepGraph{s1, {1}}},
                                         {analysis::replay::MakeWhatIf("", "w=0", "wait", 0)});
  EXPECT_EQ(alone[0].graph.edges[0].gap, 4000u) << "nothing held the lock in the step itself";

  Graph c0 = step(0), c1 = step(100);
  c0.ranks[0].measured = c1.ranks[0].measured = 100;
  uint32_t x = c0.AddNode(c0.AddResource("thread 1", 0), c0.AddLabel("x"), NodeKind::kOp, 200, 0);
  c0.AddEdge(c0.ranks[0].source, x, 0);
  uint32_t t0 = c1.AddResource("thread 0", 0);
  uint32_t p = c1.AddNode(t0, c1.AddLabel("p"), NodeKind::kOp, 10, 40);
  c1.AddEdge(c1.ranks[0].source, p, 40);
  ShareCpus(&c0, {{"h", 1}}, {0});
  ShareCpus(&c1, {{"h", 1}}, {0});
  auto cores = analysis::replay::Changed({StepGraph{c0, {0}}, StepGraph{c1, {1}}},
                                         {analysis::replay::MakeWhatIf("", "x=0", "x", 0)});
  EXPECT_EQ(cores[1].graph.edges[0].gap, 20u);
}

// A thread busy at a step's start with a node of the step before (carry_over.h): step 0's py
// runs 10-30 on thread 1, and thread 1's first node of step 1 (origin 20) starts at 12 after
// it: its edge from the step's start holds 10 of py and 2 of its own. Without py, 2; py at half
// its time, 7. The carried part is not the thread's own time: the GIL py held then is not given
// back to the gap as well (the thread runs Python and holds the lock, as a main thread would).
TEST(ReplayCarryOver, AThreadBusyAtAStepsStartIsFreedByTheEarlierNodesChange) {
  Graph s0, s1;
  s1.origin = 20000;
  for (Graph* g : {&s0, &s1}) g->AddRank("rank 0", 0, 20000);
  uint32_t pool0 = s0.AddResource("thread 1", 0);
  uint32_t py = s0.AddNode(pool0, s0.AddLabel("py"), NodeKind::kOp, 20000, 10000);
  s0.nodes[py].gil = 12000;
  s0.AddEdge(s0.ranks[0].source, py, 10000);
  uint32_t pool1 = s1.AddResource("thread 1", 0);
  s1.resources[pool1].python = true;
  uint32_t q = s1.AddNode(pool1, s1.AddLabel("q"), NodeKind::kOp, 1000, 12000);
  s1.nodes[q].gil = 100;
  s1.AddEdge(s1.ranks[0].source, q, 12000);
  auto gap_after = [&](const char* spec, double factor) {
    auto out = analysis::replay::Changed({StepGraph{s0, {0}}, StepGraph{s1, {1}}},
                                         {analysis::replay::MakeWhatIf("", spec, "^py$", factor)});
    return out[1].graph.edges[0].gap;
  };
  EXPECT_EQ(gap_after("py=0", 0), 2000u);
  EXPECT_EQ(gap_after("py=0.5", 0.5), 7000u);
  EXPECT_EQ(gap_after("py=2", 2), 12000u);
}

// A Python thread that holds the GIL all along (20 of 20) beside a native thread that never
// takes it, on two cores: neither waits for the other; both replay as measured, and removing
// the Python thread's node leaves the native one's time as it was. On one core they share it.
TEST(ReplayCpuShare, ANativeThreadDoesNotWaitForTheGil) {
  for (uint32_t cores : {2u, 1u}) {
    Graph g;
    size_t r = g.AddRank("rank 0", 0, 40000);
    uint32_t py =
        g.AddNode(g.AddResource("thread 0", 0), g.AddLabel("py"), NodeKind::kOp, 40000, 0);
    uint32_t nat =
        g.AddNode(g.AddResource("thread 1", 0), g.AddLabel("nat"), NodeKind::kOp, 40000, 0);
    double cpu = cores == 2 ? 40000 : 20000;
    g.nodes[py].cpu = g.nodes[py].gil = cpu;
    g.nodes[nat].cpu = cpu;
    for (uint32_t v : {py, nat}) {
      g.AddEdge(g.ranks[r].source, v, 0);
      g.AddEdge(v, g.ranks[r].sink, 0);
    }
    ShareCpus(&g, {{"h", cores}}, {0});
    EXPECT_NEAR(g.nodes[py].gil_demand, 1, 1e-4) << cores;
    EXPECT_DOUBLE_EQ(g.nodes[nat].gil_demand, 0) << cores;
    EXPECT_NEAR(static_cast<double>(Simulate(g).predicted[0]), 40000, 2) << cores;
    auto without = analysis::replay::Changed({StepGraph{g, {0}}},
                                             {analysis::replay::MakeWhatIf("", "py=0", "py", 0)});
    EXPECT_NEAR(static_cast<double>(Simulate(without[0].graph).predicted[0]), cpu, 2) << cores;
  }
}

}  // namespace
}  // namespace tt
