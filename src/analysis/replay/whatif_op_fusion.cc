// What-if op-fusion=REGEX|auto: each chain of element-wise ops that ran one after the other on
// one resource (ops matching REGEX, or with auto the element-wise types and kernels below) is
// fused into one: the gaps between them (dispatch, launch) are gone, and the fused op costs its
// longest member's time. The memory-traffic model behind it: an element-wise op reads and
// writes about the same bytes as its neighbours in the chain, and a fused chain reads its
// inputs and writes its output once. The fused op takes no less than the roofline allows
// (roofline.h): its members' FLOPs at the FP32 peak.
#include <algorithm>
#include <regex>

#include "analysis/replay/roofline.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

namespace {

const std::regex& ElementWise() {
  static const std::regex re(
      "^(Add|AddV2|Sub|Mul|Div|RealDiv|Maximum|Minimum|Relu|Relu6|Elu|Selu|Gelu|Sigmoid|Tanh|Exp|"
      "Log|Sqrt|Rsqrt|Square|Neg|Abs|Cast|BiasAdd|ReluGrad|SigmoidGrad|TanhGrad|AddN|"
      "aten::(add|add_|sub|mul|mul_|div|relu|relu_|gelu|sigmoid|tanh|exp|log|sqrt|neg|abs|"
      "threshold_backward|to|copy_)|add|subtract|multiply|divide|maximum|minimum|exponential|"
      "log|tanh|logistic|negate|convert|select)$|elementwise_kernel|vectorized_elementwise",
      std::regex::ECMAScript);
  return re;
}

bool Fusable(const WhatIf& w, const Graph& g, const Node& n) {
  if (n.kind != NodeKind::kOp && n.kind != NodeKind::kDevice) return false;
  if (w.pattern != "auto") return w.Matches(g.Label(n.label), g.Type(n.label));
  return IsElementWise(g, n);
}

}  // namespace

bool IsElementWise(const Graph& g, const Node& n) {
  if (n.kind != NodeKind::kOp && n.kind != NodeKind::kDevice) return false;
  return std::regex_search(g.Type(n.label), ElementWise()) ||
         std::regex_search(g.Label(n.label), ElementWise());
}

namespace {

// Member m of a chain fused into its head h: the longest member's time; the chain keeps its
// members' FLOPs and moves about the bytes of one member (the model above).
void Merge(Node* h, const Node& m) {
  h->duration = std::max(h->duration, m.duration);
  if (m.float_ops >= 0) h->float_ops = std::max<int64_t>(h->float_ops, 0) + m.float_ops;
  h->moved_bytes = std::max(h->moved_bytes, m.moved_bytes);
}

size_t ApplyOpFusion(const WhatIf& w, Graph* g) {
  std::vector<char> ok(g->nodes.size(), 0);
  for (uint32_t v = 0; v < g->nodes.size(); ++v) ok[v] = Fusable(w, *g, g->nodes[v]);
  // head[v]: the first member of v's chain (a resource edge from a fusable node to v).
  std::vector<uint32_t> head(g->nodes.size(), UINT32_MAX);
  std::vector<Edge*> into(g->nodes.size(), nullptr);
  for (Edge& e : g->edges)
    if (e.kind == EdgeKind::kResource && ok[e.from] && ok[e.to] &&
        g->nodes[e.from].resource == g->nodes[e.to].resource)
      into[e.to] = &e;
  size_t fused = 0;
  std::vector<int64_t> before(g->nodes.size(), -1);  // a chain's head: its members' time
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {   // the graph's order is each lane's
    if (!into[v]) continue;
    uint32_t from = into[v]->from;
    uint32_t h = head[from] == UINT32_MAX ? from : head[from];
    head[v] = h;
    into[v]->gap = 0;
    if (before[h] < 0) before[h] = static_cast<int64_t>(g->nodes[h].duration);
    before[h] += static_cast<int64_t>(g->nodes[v].duration);
    Merge(&g->nodes[h], g->nodes[v]);
    g->nodes[v].duration = 0;
    ++fused;
  }
  for (uint32_t h = 0; h < g->nodes.size(); ++h)
    if (before[h] >= 0) BoundByRoof(g, h, static_cast<uint64_t>(before[h]), false);
  return fused;
}

}  // namespace

namespace {

bool ParseOpFusion(const std::string& spec, const WhatIfNumbers&, WhatIf* w) {
  if (spec.rfind("op-fusion=", 0) != 0 || spec.size() <= 10) return false;
  w->pattern = spec.substr(10);
  return true;
}

std::string NoChain(const WhatIf& w) {
  return "no two element-wise ops" +
         (w.pattern == "auto" ? std::string() : " matching '" + w.pattern + "'") +
         " one after the other on one resource";
}

std::vector<WhatIf> FuseElementWise() {
  return {MakeWhatIf("op-fusion", "op-fusion=auto", "auto")};
}

std::string FusionSetting(const WhatIf& w) {
  std::string which = w.pattern == "auto" ? "element-wise ops" : "the ops " + w.pattern;
  return "fuse " + which +
         ": TensorFlow @tf.function(jit_compile=True) (XLA), JAX jit (XLA fuses them), PyTorch "
         "torch.compile";
}

std::string HowFusion(const WhatIf& w, const SuggestInput&) { return FusionSetting(w); }

}  // namespace

const WhatIfKind& OpFusionWhatIf() {
  static const WhatIfKind k{
      .name = "op-fusion",
      .syntax = "op-fusion=REGEX|auto",
      .help =
          "each chain of element-wise ops (matching REGEX;\nauto: Add, Mul, Relu, ... and "
          "element-wise kernels) run one\nafter the other on one resource fused into one: "
          "no gaps,\nthe longest member's time, no less than the chain's FLOPs\nat the FP32 "
          "peak (the roofline: hardware.json)",
      .parse = ParseOpFusion,
      .apply = ApplyOpFusion,
      .nothing = NoChain,
      .suggest = [](const SuggestInput&) { return FuseElementWise(); },
      .change = "fusion",
      .how = HowFusion,
      .settings = FuseElementWise,
      .setting_of = FusionSetting,
  };
  return k;
}

}  // namespace tt::analysis::replay
