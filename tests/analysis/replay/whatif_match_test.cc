// The what-ifs that name work at any depth (whatif_match.h) on hand-built graphs: an op nested
// in a node changes the node by the share it held; an op inside another matched one, or inside
// a matched node, is counted once; device work launched inside a matched nested op changes with
// it; a forward op removed takes its backward op with it; scope: matches a node's nn.Module
// path or the name scope in its name; line: the Python stacks behind ops, with a one-line error
// for a bad spec and the lines known when nothing matched. batch=: ops on the batch's tensors
// grow, ops on parameters only keep their time, and a graph without shapes gives no prediction.
// A step's wait for its input shortens by the time removed pipeline work ran during it.
#include <gtest/gtest.h>

#include <tuple>

#include "analysis/replay/predict.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt {
namespace {

using analysis::replay::Graph;
using analysis::replay::Inner;
using analysis::replay::kNoIndex;
using analysis::replay::NodeKind;
using analysis::replay::WhatIf;

double Factor(const std::string&, const std::string& x) { return std::stod(x); }

WhatIf Parse(const std::string& spec) { return analysis::replay::ParseWhatIf(spec, Factor); }

// One thread, one node "aten::linear" (1000 ns) holding aten::addmm (600 ns), itself holding
// aten::mm (500 ns), and aten::t (100 ns) beside it; a kernel launched inside aten::mm.
struct Linear {
  Graph g;
  uint32_t node = 0, kernel = 0;
  Linear() {
    g.AddRank("rank 0", 0, 1000);
    uint32_t t = g.AddResource("thread", 0), s = g.AddResource("GPU 0 stream 7", 0);
    node = g.AddNode(t, g.AddLabel("aten::linear"), NodeKind::kOp, 1000);
    kernel = g.AddNode(s, g.AddLabel("gemm_kernel"), NodeKind::kDevice, 400);
    auto inner = [&](const char* name, uint32_t parent, double share) {
      Inner x;
      x.node = node;
      x.parent = parent;
      x.label = g.AddLabel(name);
      x.share = share;
      g.inner->slices.push_back(x);
      return static_cast<uint32_t>(g.inner->slices.size() - 1);
    };
    uint32_t addmm = inner("aten::addmm", kNoIndex, 0.6);
    uint32_t mm = inner("aten::mm", addmm, 0.5);
    inner("aten::t", kNoIndex, 0.1);
    g.inner->launches.emplace_back(mm, kernel);
  }
  uint64_t After(const std::string& spec) {
    Graph c = g;
    EXPECT_GT(analysis::replay::Apply(Parse(spec), &c), 0u) << spec;
    return c.nodes[node].duration;
  }
};

TEST(WhatIfNested, ANestedOpChangesItsNodeByWhatItHeld) {
  Linear l;
  EXPECT_EQ(l.After("aten::mm=0.5"), 750u);  // 1000 - 0.5 x 500
  EXPECT_EQ(l.After("aten::t=0"), 900u);
  // addmm and the mm inside it: addmm's 600 ns once, not 600 + 500
  EXPECT_EQ(l.After("aten::(add)?mm=0"), 400u);
  EXPECT_EQ(l.After("^aten::(t|mm)$=0"), 400u);       // two apart: 500 + 100
  EXPECT_EQ(l.After("aten::(linear|mm)=0.5"), 500u);  // the node whole
}

TEST(WhatIfNested, DeviceWorkLaunchedInsideANestedOpChangesWithIt) {
  Linear l;
  Graph c = l.g;
  analysis::replay::Apply(Parse("aten::addmm=0.5"), &c);  // mm, inside it, launched the kernel
  EXPECT_EQ(c.nodes[l.kernel].duration, 200u);
  c = l.g;
  analysis::replay::Apply(Parse("aten::t=0.5"), &c);
  EXPECT_EQ(c.nodes[l.kernel].duration, 400u);
}

// aten::dropout (a node) runs bernoulli_ and then mul, which made MulBackward0 (the last op with
// the sequence number): removing dropout, or mul, removes its backward op; bernoulli_ does not,
// and a factor other than 0 leaves it.
TEST(WhatIfNested, ARemovedForwardOpTakesItsBackwardOpWithIt) {
  Graph g;
  g.AddRank("rank 0", 0, 1000);
  uint32_t t = g.AddResource("thread", 0);
  uint32_t drop = g.AddNode(t, g.AddLabel("aten::dropout"), NodeKind::kOp, 100);
  uint32_t back = g.AddNode(t, g.AddLabel("MulBackward0"), NodeKind::kOp, 50);
  for (const char* name : {"aten::bernoulli_", "aten::mul"}) {
    Inner x;
    x.node = drop;
    x.label = g.AddLabel(name);
    x.share = 0.4;
    g.inner->slices.push_back(x);
  }
  g.inner->backwards.push_back({drop, 1, back});  // mul made it
  for (auto [spec, kept] :
       std::vector<std::pair<std::string, uint64_t>>{{"aten::dropout=0", 0},
                                                     {"aten::mul=0", 0},
                                                     {"aten::bernoulli_=0", 50},
                                                     {"aten::dropout=0.5", 50}}) {
    Graph c = g;
    analysis::replay::Apply(Parse(spec), &c);
    EXPECT_EQ(c.nodes[back].duration, kept) << spec;
  }
}

// A layer's work halved by scope: halves its backward ops too (autograd computes its gradients
// there); an op named by REGEX=0.5 keeps its backward op, which is another op.
TEST(WhatIfNested, AScopeChangesItsForwardOpsBackwardOpsToo) {
  Graph g;
  g.AddRank("rank 0", 0, 1000);
  uint32_t t = g.AddResource("thread", 0);
  uint32_t fwd = g.AddNode(t, g.AddLabel("aten::linear"), NodeKind::kOp, 100);
  g.nodes[fwd].scope = g.AddLabel("Sequential/Linear_0");
  uint32_t back = g.AddNode(t, g.AddLabel("AddmmBackward0"), NodeKind::kOp, 60);
  uint32_t other = g.AddNode(t, g.AddLabel("MulBackward0"), NodeKind::kOp, 40);
  g.inner->backwards.push_back({fwd, kNoIndex, back});
  for (auto [spec, kept] : std::vector<std::pair<std::string, uint64_t>>{
           {"scope:Linear_0=0.5", 30}, {"scope:Linear_0=0", 0}, {"aten::linear=0.5", 60}}) {
    Graph c = g;
    analysis::replay::Apply(Parse(spec), &c);
    EXPECT_EQ(c.nodes[back].duration, kept) << spec;
    EXPECT_EQ(c.nodes[other].duration, 40u) << spec;
  }
}

// Two steps of one rank: the input pipeline's py_function (6000 from 2000 in the first step's
// graph) makes the batch the second step waits for (3000 from 5500 on the trace's clock, the
// graph's time 0 at 5000): they overlap by 2500. Without the py_function the wait keeps 500;
// at half its time 1750; input=0.5 halves the wait itself, and only that.
TEST(WhatIfInputWork, AWaitShortensByTheRemovedPipelineWorkThatRanDuringIt) {
  Graph first, second;
  for (Graph* g : {&first, &second}) g->AddRank("rank 0", 0, 9000);
  uint32_t pool = first.AddResource("tf_data_private_threadpool", 0);
  first.AddNode(pool, first.AddLabel("EagerPyFunc"), NodeKind::kInput, 6000, 2000);
  second.origin = 5000;
  uint32_t main = second.AddResource("python3", 0);
  uint32_t wait =
      second.AddNode(main, second.AddLabel("IteratorGetNext"), NodeKind::kInputWait, 3000, 500);
  for (auto [spec, pattern, factor, kept] :
       std::vector<std::tuple<std::string, std::string, double, uint64_t>>{
           {"EagerPyFunc=0", "EagerPyFunc", 0, 500},
           {"EagerPyFunc=0.5", "EagerPyFunc", 0.5, 1750},
           {"input=0.5", "input", 0.5, 1500}}) {
    WhatIf w = Parse(spec);
    auto out = analysis::replay::Changed({{first, {0}}, {second, {1}}}, {w});
    EXPECT_EQ(out[1].graph.nodes[wait].duration, kept) << spec;
  }
}

TEST(WhatIfNested, ScopeMatchesModulePathsAndNameScopes) {
  Linear l;
  l.g.inner->slices[1].scope = l.g.AddLabel("GPT2Model/h.0/attn");
  EXPECT_EQ(l.After("scope:h\\.0/attn$=0.5"), 750u);
  uint32_t t = l.g.nodes[l.node].resource;
  uint32_t tf = l.g.AddNode(t, l.g.AddLabel("histogram/one_hot:OneHot"), NodeKind::kOp, 300);
  Graph c = l.g;
  EXPECT_EQ(analysis::replay::Apply(Parse("scope:^histogram$=0"), &c), 1u);
  EXPECT_EQ(c.nodes[tf].duration, 0u);
  c = l.g;
  EXPECT_EQ(analysis::replay::Apply(Parse("scope:one_hot=0"), &c), 0u);  // its name, no scope
  EXPECT_THROW(Parse("scope:=0.5"), Error);
  EXPECT_THROW(Parse("scope:(=0.5"), Error);
}

TEST(WhatIfNested, LineMatchesThePythonStacksBehindOps) {
  Linear l;
  auto& t = *l.g.names;
  t.files = {"/home/u/train.py", "/usr/lib/python3/site-packages/torch/nn/linear.py"};
  t.stacks = {{{0, 10}, {0, 42}, {1, 125}}, {{0, 10}, {0, 50}}};
  l.g.nodes[l.node].stack = 1;
  l.g.inner->slices[1].stack = 0;  // aten::mm, under train.py:42
  EXPECT_EQ(l.After("line:train.py:42=0.5"), 750u);
  EXPECT_EQ(l.After("line:u/train.py:40-45=0.5"), 750u);
  EXPECT_EQ(l.After("line:train.py:10=0.5"), 500u);  // the node's stack has it too: whole
  WhatIf w = Parse("line:train.py:43-49=0");
  ASSERT_TRUE(w.Is("line"));
  Graph c = l.g;
  EXPECT_EQ(analysis::replay::Apply(w, &c), 0u);
  EXPECT_EQ(w.kind->nothing(w),
            "no op created at or run under train.py:43-49; the lines known in that file: 10, "
            "42, 50");
  w = Parse("line:rain.py:42=0");  // a file's name is matched whole
  c = l.g;
  EXPECT_EQ(analysis::replay::Apply(w, &c), 0u);
  EXPECT_NE(w.kind->nothing(w).find("the program's files known: train.py"), std::string::npos)
      << w.kind->nothing(w);
  for (const char* bad : {"line:train.py=0", "line:train.py:x=0", "line:train.py:9-3=0",
                          "line::3=0", "line:train.py:0=0", "line:train.py:3-=0"})
    EXPECT_THROW(Parse(bad), Error) << bad;
}

TEST(WhatIfNested, MatchingNothingSaysSoForTheWholeJob) {
  Linear l;
  analysis::replay::StepGraph sg;
  sg.graph = l.g;
  try {
    analysis::replay::Changed({sg}, {Parse("aten::conv2d=0.5")});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no op's name or type matching 'aten::conv2d', at any "
                                         "depth"),
              std::string::npos)
        << e.what();
  }
}

// batch=2 (whatif_batch.cc) on one thread's nodes with PyTorch's shapes: AccumulateGrad names
// the parameters ([1024,256] and [1024]); aten::addmm of the batch's [32,256] by a transposed
// weight grows by its FLOPs (400 ns at the peak given) x2 and the rest by the batch's share of
// its inputs' and output's elements (8192 + 32768 of 304128); aten::relu on [32,1024] doubles;
// Adam's aten::add_ on parameters keeps its time. Without shapes: nothing matched.
TEST(WhatIfBatch, OpsOnTheBatchGrowAndOpsOnParametersKeepTheirTime) {
  Graph g;
  g.AddRank("rank 0", 0, 3000);
  uint32_t t = g.AddResource("thread", 0);
  auto node = [&](const char* name, uint64_t ns, const char* dims, int64_t flops) {
    uint32_t v = g.AddNode(t, g.AddLabel(name), NodeKind::kOp, ns);
    g.nodes[v].dims = static_cast<uint32_t>(g.names->dims.size());
    g.names->dims.push_back(dims);
    g.nodes[v].flops = flops;
    return v;
  };
  g.names->core_flops_per_ns = 16777216.0 / 400;
  uint32_t addmm = node("aten::addmm", 1000, "[[1024],[32,256],[256,1024]]", 16777216);
  uint32_t relu = node("aten::relu", 200, "[[32,1024]]", -1);
  uint32_t add = node("aten::add_", 500, "[[1024,256],[1024,256],[]]", -1);
  node("torch::autograd::AccumulateGrad", 100, "[[1024,256]]", -1);
  node("torch::autograd::AccumulateGrad", 50, "[[1024]]", -1);
  Graph c = g;
  EXPECT_EQ(analysis::replay::Apply(Parse("batch=2"), &c), 2u);
  EXPECT_EQ(c.nodes[addmm].duration, 1481u);  // 400 x 2 + 600 x (1 + 40960 / 304128)
  EXPECT_EQ(c.nodes[relu].duration, 400u);
  EXPECT_EQ(c.nodes[add].duration, 500u);
  Graph bare;
  bare.AddRank("rank 0", 0, 1000);
  bare.AddNode(bare.AddResource("thread", 0), bare.AddLabel("MatMul"), NodeKind::kOp, 1000);
  EXPECT_EQ(analysis::replay::Apply(Parse("batch=2"), &bare), 0u);
  EXPECT_THROW(Parse("batch=0"), Error);
}

}  // namespace
}  // namespace tt
