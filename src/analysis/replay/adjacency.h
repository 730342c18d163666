// The simulations' edge index, ready queue and edge relaxation (private to simulate*.cc).
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"
#include "analysis/replay/simulate.h"

namespace tt::analysis::replay {

// Edges by their source or destination, as offsets into one array (compressed rows).
struct Adjacency {
  std::vector<uint32_t> first;  // by node: its first edge in `edges`; node+1: past its last
  std::vector<uint32_t> edges;  // edge indices
};

inline Adjacency By(const Graph& g, bool by_source) {
  Adjacency a;
  a.first.assign(g.nodes.size() + 1, 0);
  for (const Edge& e : g.edges) ++a.first[(by_source ? e.from : e.to) + 1];
  for (size_t i = 1; i < a.first.size(); ++i) a.first[i] += a.first[i - 1];
  a.edges.resize(g.edges.size());
  std::vector<uint32_t> fill(a.first.begin(), a.first.end() - 1);
  for (uint32_t i = 0; i < g.edges.size(); ++i)
    a.edges[fill[by_source ? g.edges[i].from : g.edges[i].to]++] = i;
  return a;
}

// A node ready at `at` (the queue's order: earliest first, then the lower index).
struct Ready {
  uint64_t at;
  uint32_t node;
  bool operator>(const Ready& o) const { return at != o.at ? at > o.at : node > o.node; }
};

// Edge e from v gives its destination the ready time t: the latest (a tie keeps the first
// binding) sets it, and binds it to v; true when that was its last predecessor.
inline bool Relax(uint32_t v, const Edge& e, uint64_t t, std::vector<uint64_t>* ready,
                  std::vector<uint32_t>* waiting, Schedule* s) {
  uint64_t& r = (*ready)[e.to];
  if (t > r || (t == r && s->binding[e.to] == kNone)) {
    r = t;
    s->binding[e.to] = v;
    s->binding_gap[e.to] = e.gap;
    s->binding_from_start[e.to] = e.from_start;
  }
  return --(*waiting)[e.to] == 0;
}

}  // namespace tt::analysis::replay
