// What a what-if that names work matched, at any depth, and the change (whatif_match.h).
#include "analysis/replay/whatif_match.h"

#include <algorithm>
#include <cmath>

#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

namespace {

// Per node, the share of it that the matched inner slices held, each counted once: a slice
// inside a matched node or a matched slice is in it already. `reached`: each inner slice that
// is matched or inside a matched one (its launches change with it).
std::vector<double> Held(const Matched& m, const Graph& g, std::vector<char>* reached) {
  const std::vector<Inner>& in = g.inner->slices;
  std::vector<double> held(g.nodes.size(), 0);
  reached->assign(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {  // a parent comes before its children
    const Inner& x = in[i];
    bool parent = x.parent != kNoIndex && (*reached)[x.parent];
    (*reached)[i] = m.inner[i] || parent;
    if (m.inner[i] && !parent && !m.nodes[x.node]) held[x.node] += x.share;
  }
  return held;
}

// PyTorch: the backward ops of the forward ops matched (the op that made one, or one around that
// op), with the device work they launched, marked in `changed`.
void AddBackwards(const Matched& m, const std::vector<char>& reached, Graph* g,
                  std::vector<char>* changed) {
  std::vector<char> gone(g->nodes.size(), 0);
  for (const InnerSlices::Backward& b : g->inner->backwards)
    if (m.nodes[b.node] || (b.inner != kNoIndex && reached[b.inner])) gone[b.backward] = 1;
  for (const Edge& e : g->edges)
    if (e.kind == EdgeKind::kFlow && gone[e.from]) (*changed)[e.to] = 1;
  for (size_t v = 0; v < gone.size(); ++v) (*changed)[v] |= gone[v];
}

}  // namespace

size_t ScaleMatched(const Matched& m, double factor, Graph* g, Backward backward) {
  auto any = [](const std::vector<char>& v) { return std::find(v.begin(), v.end(), 1) != v.end(); };
  if (!any(m.nodes) && !any(m.inner)) return 0;
  std::vector<char> reached;
  std::vector<double> held = Held(m, *g, &reached);
  std::vector<char> whole(m.nodes), launched(g->nodes.size(), 0);
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) n += whole[v] || held[v] > 0;
  if (n == 0) return 0;
  for (Edge& e : g->edges)
    if (e.kind == EdgeKind::kFlow && whole[e.from]) {
      e.gap = static_cast<uint64_t>(std::llround(static_cast<double>(e.gap) * factor));
      launched[e.to] = 1;
    }
  for (auto [i, device] : g->inner->launches) launched[device] |= reached[i];
  if (factor == 0 || backward == Backward::kWithForward) AddBackwards(m, reached, g, &launched);
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    whole[v] |= launched[v];
    if (whole[v]) {
      ScaleNode(g, v, factor);
    } else if (held[v] > 0) {  // part of it: its other work stays as it was
      Node& x = g->nodes[v];
      double kept = 1 + (factor - 1) * std::min(held[v], 1.0);
      x.duration = static_cast<uint64_t>(std::llround(static_cast<double>(x.duration) * kept));
    }
  }
  if (factor == 0) ZeroGapsInto(g, whole);
  return n;
}

}  // namespace tt::analysis::replay
