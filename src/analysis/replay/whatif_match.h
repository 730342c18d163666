// What a what-if that names work (an op's name, a scope, a Python line) matched in a graph, at
// any depth: nodes whole, and inner slices (the ops nested in a node, graph.h); and the change
// they make. Shared by REGEX=FACTOR, scope: and line:.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

struct Matched {
  std::vector<char> nodes, inner;  // by node, by inner slice
};

// What `pred(label, scope, stack)` says yes to: each node but the markers, and each inner
// slice (kNoIndex where it has no scope or stack). A template: it runs for every node of every
// step's graph.
template <class Pred>
Matched MatchBy(const Graph& g, Pred&& pred) {
  Matched m;
  m.nodes.assign(g.nodes.size(), 0);
  for (size_t v = 0; v < g.nodes.size(); ++v) {
    const Node& n = g.nodes[v];
    m.nodes[v] = n.kind != NodeKind::kMarker && pred(n.label, n.scope, n.stack);
  }
  const std::vector<Inner>& in = g.inner->slices;
  m.inner.assign(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) m.inner[i] = pred(in[i].label, in[i].scope, in[i].stack);
  return m;
}

// Changes g by `factor` for what matched: a matched node whole, with the device work it
// launched and the time from its start to each launch (0 removes it and its dispatch gap); a
// node not matched, by the share of it its matched inner slices held, each counted once (one
// inside another matched one is in it already), with the device work launched inside them.
// PyTorch's backward ops of the forward ops matched go with them where `factor` is 0 (autograd
// would not run them), and change by `factor` too where `backward` (scope: and line: name a
// layer's or a line's work, whose gradients are computed by those ops; REGEX=FACTOR names ops,
// whose backward ops are others). Returns how many nodes changed (0: nothing matched).
enum class Backward { kOnlyRemoved, kWithForward };
size_t ScaleMatched(const Matched& m, double factor, Graph* g,
                    Backward backward = Backward::kOnlyRemoved);

}  // namespace tt::analysis::replay
