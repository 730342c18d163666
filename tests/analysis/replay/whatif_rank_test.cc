// Per-rank what-ifs (whatif_rank.cc) on a hand-built job of three ranks joined by one
// all-reduce, rank 2 a straggler (a 5 us sleep op and 1 us more of forward, and a 2 us gap
// before its backward): rank=R:SPEC changes rank R's work only; rank=R:like=0 gives rank R the
// median rank's durations and gaps and removes what that rank lacks, so the job's step is the
// others'; a rank the job lacks, a bad spec and a what-if of the whole job's collectives are
// one-line errors.
#include <gtest/gtest.h>

#include "analysis/replay/build.h"
#include "analysis/replay/predict.h"
#include "analysis/replay/simulate.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt {
namespace {

using analysis::replay::EdgeKind;
using analysis::replay::Graph;
using analysis::replay::NodeKind;
using analysis::replay::WhatIf;

double Factor(const std::string&, const std::string& x) { return std::stod(x); }

uint64_t Bytes(const std::string&, const std::string& x) { return std::stoull(x); }

WhatIf Parse(const std::string& spec) { return analysis::replay::ParseWhatIf(spec, Factor, Bytes); }

// Ranks 0..2: a python thread each with forward (1000, 1100, 2000 ns) and backward (2000 ns,
// rank 2's after a 2000 ns gap), rank 2's forward after a "sleep" op of 5000 ns; then an
// all-reduce (500 ns), each rank's call of it (gloo:all_reduce, no time of its own) then
// waiting for it, and each rank's step end waiting for it.
struct Job {
  Graph g;
  std::vector<uint32_t> fwd, bwd;
  uint32_t sleep = 0;
  Job() {
    uint32_t f = g.AddLabel("forward"), b = g.AddLabel("backward");
    uint32_t comm = g.AddResource("communicator 0", -1);
    uint32_t ar = g.AddNode(comm, g.AddLabel("allreduce"), NodeKind::kComm, 500);
    const uint64_t fwd_ns[] = {1000, 1100, 2000};
    for (int r = 0; r < 3; ++r) {
      size_t k = g.AddRank("rank " + std::to_string(r), 0, 0);
      std::string pid = std::to_string(100 + r);
      uint32_t t =
          g.AddResource("pid " + pid + " thread " + pid + " (python3)", static_cast<int32_t>(k));
      uint32_t prev = g.ranks[k].source;
      if (r == 2) {
        sleep = g.AddNode(t, g.AddLabel("sleep"), NodeKind::kOp, 5000);
        g.AddEdge(prev, sleep, 0);
        prev = sleep;
      }
      fwd.push_back(g.AddNode(t, f, NodeKind::kOp, fwd_ns[r]));
      bwd.push_back(g.AddNode(t, b, NodeKind::kOp, 2000));
      g.AddEdge(prev, fwd.back(), 0);
      g.AddEdge(fwd.back(), bwd.back(), r == 2 ? 2000 : 100);
      uint32_t call = g.AddNode(t, g.AddLabel("gloo:all_reduce"), NodeKind::kRuntime, 0);
      g.AddEdge(bwd.back(), call, 0);
      g.AddEdge(call, ar, 0, EdgeKind::kCollective);
      g.AddEdge(ar, g.ranks[k].sink, 0, EdgeKind::kCollective);
    }
    analysis::replay::Schedule s = analysis::replay::Simulate(g);
    for (size_t r = 0; r < 3; ++r) g.ranks[r].measured = s.predicted[r];
  }
  uint64_t Step(const Graph& c) {
    analysis::replay::Schedule s = analysis::replay::Simulate(c);
    return *std::max_element(s.predicted.begin(), s.predicted.end());
  }
};

TEST(WhatIfRank, ASpecOnOneRankChangesThatRanksWorkOnly) {
  Job j;
  EXPECT_EQ(j.Step(j.g), 5000u + 2000 + 2000 + 2000 + 500);
  WhatIf w = Parse("rank=2:forward=0.5");
  ASSERT_TRUE(w.Is("rank"));
  EXPECT_EQ(w.rank, 2);
  Graph c = j.g;
  EXPECT_EQ(analysis::replay::Apply(w, &c), 1u);
  EXPECT_EQ(c.nodes[j.fwd[2]].duration, 1000u);
  EXPECT_EQ(c.nodes[j.fwd[0]].duration, 1000u);
  EXPECT_EQ(c.nodes[j.fwd[1]].duration, 1100u);
  c = j.g;
  EXPECT_EQ(analysis::replay::Apply(Parse("rank=2:sleep=0"), &c), 1u);
  EXPECT_EQ(j.Step(c), 2000u + 2000 + 2000 + 500);
  c = j.g;  // rank 0 has no sleep: nothing, and the message says where
  WhatIf none = Parse("rank=0:sleep=0");
  EXPECT_EQ(analysis::replay::Apply(none, &c), 0u);
  EXPECT_EQ(none.kind->nothing(none),
            "no op's name or type matching 'sleep', at any depth on rank 0");
}

TEST(WhatIfRank, LikeTheMedianRankRemovesAStragglersExtraWork) {
  Job j;
  Graph c = j.g;
  // The others' own times: rank 0 3100 ns, rank 1 3200 ns: the median of two is rank 0.
  EXPECT_EQ(analysis::replay::Apply(Parse("rank=2:like=0"), &c), 3u);
  EXPECT_EQ(c.nodes[j.sleep].duration, 0u);
  EXPECT_EQ(c.nodes[j.fwd[2]].duration, 1000u);
  EXPECT_EQ(j.Step(c), 1100u + 100 + 2000 + 500);  // rank 1 is now the slowest
  // The job's step as the others': the rank left is no longer waited for.
  analysis::replay::StepGraph sg;
  sg.graph = j.g;
  auto p = analysis::replay::Predict(analysis::replay::Changed({sg}, {Parse("rank=2:like=0")}));
  EXPECT_DOUBLE_EQ(p.predicted, 1100 + 100 + 2000 + 500);
}

// Rank 2 sleeps in 4 of 10 steps; in the others rank 1 is the slowest, by 100 ns. The straggler
// suggested is rank 2 (its excess over the steps is the largest), though it is the slowest in
// fewer than half of them.
TEST(WhatIfRank, ARankSlowInSomeStepsIsSuggestedLikeTheOthers) {
  std::vector<analysis::replay::StepGraph> steps;
  for (int i = 0; i < 10; ++i) {
    Job j;
    if (i % 5 >= 2) {  // no sleep, rank 2's forward and gap as rank 0's
      j.g.nodes[j.sleep].duration = 0;
      j.g.nodes[j.fwd[2]].duration = 1000;
      for (auto& e : j.g.edges)
        if (e.from == j.fwd[2]) e.gap = 100;
    }
    analysis::replay::Schedule s = analysis::replay::Simulate(j.g);
    for (size_t r = 0; r < 3; ++r) j.g.ranks[r].measured = s.predicted[r];
    steps.push_back({j.g, {0}});
  }
  analysis::replay::Prediction base = analysis::replay::Predict(steps);
  analysis::replay::Hardware hw;
  auto w = analysis::replay::WhatIfNamed("rank").suggest({base, steps, hw, 3});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rank, 2);
}

TEST(WhatIfRank, BadSpecsAndMissingRanksAreOneLineErrors) {
  for (const char* bad :
       {"rank=x:like=0", "rank=2", "rank=-1:like=0", "rank=2:like=1", "rank=2:overlap=comm",
        "rank=2:tensor-fusion=4096", "rank=1:rank=2:like=0"})
    EXPECT_THROW(Parse(bad), Error) << bad;
  Job j;
  analysis::replay::StepGraph sg;
  sg.graph = j.g;
  try {
    analysis::replay::Changed({sg}, {Parse("rank=7:like=0")});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no rank 7 (the ranks: rank 0, rank 1, rank 2)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tt
