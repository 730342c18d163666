// Work that runs across steps' boundaries under a what-if (carry_over.h).
#include "analysis/replay/carry_over.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

namespace tt::analysis::replay {

namespace {

struct Ran {
  uint64_t start = 0, end = 0;  // the trace's clock
  double gone = 0;              // the share of it the what-ifs took off
};

// Each thread's nodes over the job's steps (by its resource's name), in order of start: one
// thread's nodes do not overlap.
std::unordered_map<std::string, std::vector<Ran>> ThreadsNodes(
    const std::vector<const Graph*>& measured, const std::vector<Graph*>& changed) {
  std::unordered_map<std::string, std::vector<Ran>> out;
  for (size_t i = 0; i < measured.size(); ++i) {
    const Graph& g = *measured[i];
    for (size_t v = 0; v < g.nodes.size(); ++v) {
      const Node& n = g.nodes[v];
      if (n.kind == NodeKind::kMarker || n.took == 0) continue;
      uint64_t at = g.origin + n.measured;
      out[g.resources[n.resource].name].push_back(
          {at, at + n.took, 1 - KeptShare(n, changed[i]->nodes[v])});
    }
  }
  for (auto& [name, v] : out)
    std::sort(v.begin(), v.end(), [](const Ran& a, const Ran& b) { return a.start < b.start; });
  return out;
}

}  // namespace

CarriedOver CarriedOverOf(const std::vector<const Graph*>& measured,
                          const std::vector<Graph*>& changed) {
  CarriedOver c;
  for (size_t i = 0; i < measured.size(); ++i)
    if (measured[i]->nodes.size() != changed[i]->nodes.size() ||
        measured[i]->edges.size() != changed[i]->edges.size())
      return c;  // a what-if that rebuilt a graph (its gaps are its own)
  std::unordered_map<std::string, std::vector<Ran>> threads = ThreadsNodes(measured, changed);
  for (const Graph* g : measured) {
    c.part.emplace_back(g->edges.size(), 0);
    c.gone.emplace_back(g->edges.size(), 0);
    for (size_t i = 0; i < g->edges.size(); ++i) {
      const Edge& e = g->edges[i];
      const Node& from = g->nodes[e.from];
      if (from.kind != NodeKind::kMarker || e.gap == 0 || e.from_start) continue;
      auto it = threads.find(g->resources[g->nodes[e.to].resource].name);
      if (it == threads.end()) continue;
      uint64_t t0 = g->origin + from.measured;
      // The thread's last node begun before the step: the one it may still run at its start.
      auto next = std::lower_bound(it->second.begin(), it->second.end(), t0,
                                   [](const Ran& r, uint64_t t) { return r.start < t; });
      if (next == it->second.begin()) continue;
      const Ran& r = *std::prev(next);
      if (r.end <= t0) continue;
      uint64_t part = std::min(r.end - t0, e.gap);
      c.part.back()[i] = part;
      c.gone.back()[i] = static_cast<double>(part) * r.gone;
    }
  }
  return c;
}

void ShortenCarriedOver(const CarriedOver& carried, const std::vector<Graph*>& changed) {
  for (size_t g = 0; g < changed.size() && g < carried.gone.size(); ++g)
    for (size_t i = 0; i < changed[g]->edges.size() && i < carried.gone[g].size(); ++i) {
      Edge& e = changed[g]->edges[i];
      uint64_t off = static_cast<uint64_t>(std::llround(carried.gone[g][i]));
      e.gap -= std::min(e.gap, off);
    }
}

}  // namespace tt::analysis::replay
