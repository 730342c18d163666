// What-if batch=FACTOR: the batch FACTOR times as large, from a PyTorch recording's op shapes.
// Each op, at any depth, with an input that is not a parameter's tensor grows with the batch,
// by its own time (less the ops inside it); ops on parameters only (an optimizer's updates,
// zero_grad), on scalars or without shapes (Python's ranges, autograd's engine) keep theirs,
// as does Python's time between ops. A growing op's own time is split in three: the dispatch every
// op call pays (kept), its FLOPs at one core's peak (x FACTOR), and the rest, its memory traffic,
// by the elements of its inputs (and a matrix product's output): the batch's share x FACTOR, the
// parameters' kept (a weight's gradient, [out,B] by [B,in], writes a parameter's shape). The input
// pipeline's work and the step's waits for it grow x FACTOR (its work per sample). Where no op
// gives its shapes (TensorFlow, JAX), it says so instead of predicting.
#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

using Shape = std::vector<int64_t>;

// The tensors of an input_dims text: each innermost list ("[[32,256],[],[[4],[4]]]": [32,256],
// [], [4], [4]); [] is a scalar or not a tensor.
std::vector<Shape> Shapes(const std::string& text) {
  std::vector<Shape> out;
  Shape cur;
  bool open = false;
  int64_t v = -1;
  for (char c : text) {
    if (c == '[') {
      open = true, cur.clear(), v = -1;
    } else if (c >= '0' && c <= '9') {
      if (open && v < (int64_t{1} << 40)) v = (v < 0 ? 0 : v * 10) + (c - '0');
    } else if (c == ',' || c == ']') {
      if (open && v >= 0) cur.push_back(v);
      v = -1;
      if (c == ']' && open) out.push_back(cur), open = false;
    }
  }
  return out;
}

Shape Sorted(Shape s) {
  std::sort(s.begin(), s.end());
  return s;
}

// An op's tensors: the elements of those that are not a parameter's (a tensor of the same
// dimensions in some order: a weight transposed is one) and of those that are; its inputs, and
// a matrix product's output too (its shape follows from its last two inputs').
struct Inputs {
  double batch = 0, fixed = 0;
  double out_batch = 0, out_fixed = 0;  // a matrix product's output
};

// The output of a product of its last two inputs of 2 or more dimensions ([..,m,k] by [k,n]:
// [..,m,n]); empty where they do not chain.
Shape ProductOf(const std::vector<Shape>& in) {
  std::vector<const Shape*> m;
  for (auto it = in.rbegin(); it != in.rend() && m.size() < 2; ++it)
    if (it->size() >= 2) m.push_back(&*it);
  if (m.size() < 2 || (*m[1])[m[1]->size() - 1] != (*m[0])[m[0]->size() - 2]) return {};
  Shape out(*m[1]);
  out.back() = m[0]->back();
  return out;
}

// Per LabelTable::dims entry: its tensors, the parameters being the tensors autograd's
// AccumulateGrad ops of g took (their gradients).
std::vector<Inputs> InputsOf(const Graph& g) {
  const LabelTable& t = *g.names;
  std::set<Shape> params;
  auto param = [&](uint32_t label, uint32_t dims) {
    if (dims == kNoIndex || t.labels[label] != "torch::autograd::AccumulateGrad") return;
    for (Shape& s : Shapes(t.dims[dims]))
      if (!s.empty()) params.insert(Sorted(std::move(s)));
  };
  for (const Node& n : g.nodes) param(n.label, n.dims);
  for (const Inner& x : g.inner->slices) param(x.label, x.dims);
  auto count = [&](const Shape& s, double* batch, double* fixed) {
    if (s.empty()) return;
    double n = 1;
    for (int64_t d : s) n *= static_cast<double>(d);
    *(params.count(Sorted(s)) ? fixed : batch) += n;
  };
  std::vector<Inputs> out(t.dims.size());
  for (size_t i = 0; i < t.dims.size(); ++i) {
    std::vector<Shape> in = Shapes(t.dims[i]);
    for (const Shape& s : in) count(s, &out[i].batch, &out[i].fixed);
    count(ProductOf(in), &out[i].out_batch, &out[i].out_fixed);
  }
  return out;
}

// PyTorch's matrix products, whose output InputsOf knows.
bool Product(const std::string& label) {
  static const std::set<std::string, std::less<>> kProducts = {
      "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul"};
  return kProducts.count(label) > 0;
}

// One op's own time (ns: less the ops inside it), FLOPs and inputs.
struct Leaf {
  double ns = 0;
  int64_t flops = -1;
  const Inputs* in = nullptr;
  bool product = false;  // a matrix product: its output counts with its inputs
};

// The time every op call pays whatever its tensors: the median own time of the ops whose
// tensors hold at most 16 elements (a scalar's update, a step counter's); 0 where fewer than 5
// do.
double DispatchNs(const std::vector<Leaf>& leaves) {
  std::vector<double> small;
  for (const Leaf& l : leaves)
    if (l.in && l.in->batch + l.in->fixed <= 16) small.push_back(l.ns);
  if (small.size() < 5) return 0;
  std::nth_element(small.begin(), small.begin() + small.size() / 2, small.end());
  return small[small.size() / 2];
}

// An op's own time with the batch x factor (batch=FACTOR's model, above).
double Grown(const Leaf& l, double dispatch, double peak, double factor) {
  if (!l.in || l.in->batch <= 0) return l.ns;
  double c = std::min(l.ns, dispatch);
  double f = l.flops > 0 && peak > 0 ? std::min(l.ns - c, static_cast<double>(l.flops) / peak) : 0;
  double batch = l.in->batch + (l.product ? l.in->out_batch : 0);
  double all = l.in->batch + l.in->fixed + (l.product ? l.in->out_batch + l.in->out_fixed : 0);
  double rest = l.ns - c - f, share = batch / all;
  return c + f * factor + rest * (1 + share * (factor - 1));
}

// The work of g by op: each node's and each inner slice's own time (less that of the slices
// inside it); `node` gives each one's node, `inner` its inner slice (-1: the node itself).
std::vector<Leaf> Leaves(const Graph& g, const std::vector<Inputs>& inputs,
                         std::vector<uint32_t>* node, std::vector<int64_t>* inner) {
  const std::vector<Inner>& in = g.inner->slices;
  std::vector<double> held(in.size(), 0), node_held(g.nodes.size(), 0);
  for (const Inner& x : in) (x.parent == kNoIndex ? node_held[x.node] : held[x.parent]) += x.share;
  std::vector<Leaf> out;
  auto add = [&](uint32_t v, int64_t i, double share, uint32_t label, uint32_t dims,
                 int64_t flops) {
    double ns = std::max(0.0, share) * static_cast<double>(g.nodes[v].duration);
    out.push_back({ns, flops, dims == kNoIndex ? nullptr : &inputs[dims], Product(g.Label(label))});
    node->push_back(v), inner->push_back(i);
  };
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    const Node& n = g.nodes[v];
    if (n.kind == NodeKind::kOp || n.kind == NodeKind::kRuntime)
      add(v, -1, 1 - node_held[v], n.label, n.dims, n.flops);
  }
  for (size_t i = 0; i < in.size(); ++i)
    add(in[i].node, static_cast<int64_t>(i), in[i].share - held[i], in[i].label, in[i].dims,
        in[i].flops);
  return out;
}

// Device work launched by an op that grew grows by the same ratio.
void GrowLaunched(const std::vector<uint32_t>& node, const std::vector<int64_t>& inner,
                  const std::vector<double>& ratio, Graph* g) {
  std::vector<double> by_node(g->nodes.size(), 1);
  std::vector<double> by_inner(g->inner->slices.size(), 1);
  for (size_t k = 0; k < ratio.size(); ++k)
    (inner[k] < 0 ? by_node[node[k]] : by_inner[static_cast<size_t>(inner[k])]) = ratio[k];
  std::vector<double> device(g->nodes.size(), 1);
  for (const Edge& e : g->edges)
    if (e.kind == EdgeKind::kFlow && by_node[e.from] != 1) device[e.to] = by_node[e.from];
  for (auto [i, d] : g->inner->launches)
    if (by_inner[i] != 1) device[d] = by_inner[i];
  for (uint32_t v = 0; v < g->nodes.size(); ++v)
    if (device[v] != 1 && g->nodes[v].kind == NodeKind::kDevice) ScaleNode(g, v, device[v]);
}

size_t ApplyBatch(const WhatIf& w, Graph* g) {
  std::vector<Inputs> inputs = InputsOf(*g);
  std::vector<uint32_t> node;
  std::vector<int64_t> inner;
  std::vector<Leaf> leaves = Leaves(*g, inputs, &node, &inner);
  double dispatch = DispatchNs(leaves), peak = g->names->core_flops_per_ns;
  std::vector<double> delta(g->nodes.size(), 0), ratio(leaves.size(), 1);
  bool shapes = false;
  for (size_t k = 0; k < leaves.size(); ++k) {
    shapes |= leaves[k].in != nullptr;
    double grown = Grown(leaves[k], dispatch, peak, w.factor);
    delta[node[k]] += grown - leaves[k].ns;
    if (leaves[k].ns > 0) ratio[k] = grown / leaves[k].ns;
  }
  if (!shapes) return 0;  // nothing says what grows with the batch: no prediction
  GrowLaunched(node, inner, ratio, g);
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    Node& x = g->nodes[v];
    if (x.kind == NodeKind::kInputWait || x.kind == NodeKind::kInput) {
      ScaleNode(g, v, w.factor);
      ++n;
    } else if (delta[v] != 0) {
      double d = std::max(0.0, static_cast<double>(x.duration) + delta[v]);
      x.duration = static_cast<uint64_t>(std::llround(d));
      ++n;
    }
  }
  return n;
}

bool ParseBatch(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  if (!ParseNamedFactor("batch", spec, numbers, w)) return false;
  if (w->factor <= 0)
    throw Error("--what-if '" + spec +
                "': batch=FACTOR needs a factor above 0 (batch=2: twice the batch)");
  return true;
}

// Twice the batch, where ops give their shapes (PyTorch): compared per sample (suggest.h), it
// says how much of the step is a fixed cost the batch shares (dispatch, optimizer, Python).
std::vector<WhatIf> SuggestBatch(const SuggestInput&) {
  return {MakeWhatIf("batch", "batch=2", "batch", 2)};
}

std::string HowBatch(const WhatIf&, const SuggestInput&) {
  return "twice the batch (the DataLoader's batch_size): a step of twice the samples, its "
         "predicted time compared per sample; the step's fixed costs (each op's dispatch, the "
         "optimizer's updates, Python between ops) are shared by more samples. A gain only if "
         "the model trains as well with it (scale the learning rate; memory grows: memory DIR)";
}

std::string NoBatch(const WhatIf&) {
  return "no op with recorded input shapes (PyTorch records them; TensorFlow's and JAX's ops "
         "give none), so nothing says which ops grow with the batch: no prediction";
}

}  // namespace

const WhatIfKind& BatchWhatIf() {
  static const WhatIfKind k{
      .name = "batch",
      .syntax = "batch=FACTOR",
      .help =
          "the batch FACTOR times as large (PyTorch: from the ops'\nshapes): ops with an input "
          "not a parameter's grow,\ntheir FLOPs at one core's peak and the batch's share of\n"
          "their inputs x FACTOR, each call's dispatch kept; ops on\nparameters only (the "
          "optimizer's) and Python's time kept;\ninput work and waits x FACTOR",
      .parse = ParseBatch,
      .apply = ApplyBatch,
      .nothing = NoBatch,
      .suggest = SuggestBatch,
      .change = "batch",
      .how = HowBatch,
      .per_sample = true,
  };
  return k;
}

}  // namespace tt::analysis::replay
