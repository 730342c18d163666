// Replay of a typical step (typical.h).
#include "analysis/replay/typical.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace tt::analysis::replay {

namespace {

// A node's identity across steps: its rank (-1: a shared resource) and label.
uint64_t Key(const Graph& g, const Node& n) {
  uint32_t rank = static_cast<uint32_t>(g.resources[n.resource].rank);
  return uint64_t{rank} << 32 | n.label;
}

// An edge's: its ends' and its kind.
struct EdgeKey {
  uint64_t from, to;
  EdgeKind kind;
  bool operator==(const EdgeKey&) const = default;
};
struct EdgeHash {
  size_t operator()(const EdgeKey& k) const {
    return std::hash<uint64_t>()(k.from * 1000003u ^ k.to) ^ static_cast<size_t>(k.kind);
  }
};
EdgeKey KeyOf(const Graph& g, const Edge& e) {
  return {Key(g, g.nodes[e.from]), Key(g, g.nodes[e.to]), e.kind};
}

using Means = std::unordered_map<uint64_t, std::pair<double, double>>;  // ns added, count
using EdgeMeans = std::unordered_map<EdgeKey, std::pair<double, double>, EdgeHash>;

uint64_t Mean(const std::pair<double, double>& m) {
  return m.second > 0 ? static_cast<uint64_t>(std::llround(m.first / m.second)) : 0;
}

// The step whose slowest rank's measured time is the median.
size_t MedianStep(const std::vector<StepGraph>& steps) {
  std::vector<std::pair<uint64_t, size_t>> by;
  for (size_t i = 0; i < steps.size(); ++i) {
    uint64_t m = 0;
    for (const RankStep& r : steps[i].graph.ranks) m = std::max(m, r.measured);
    by.push_back({m, i});
  }
  std::sort(by.begin(), by.end());
  return by[(by.size() - 1) / 2].second;
}

}  // namespace

std::vector<StepGraph> Typical(const std::vector<StepGraph>& steps) {
  if (steps.empty()) return {};
  Means nodes;
  EdgeMeans edges;
  std::vector<double> measured(steps[0].graph.ranks.size(), 0);
  std::vector<double> release(measured.size(), 0);
  double job = 0;
  for (const StepGraph& sg : steps) {
    const Graph& g = sg.graph;
    uint64_t slowest = 0;
    for (size_t r = 0; r < release.size() && r < g.ranks.size(); ++r) {
      release[r] += static_cast<double>(g.nodes[g.ranks[r].source].release);
      slowest = std::max(slowest, g.ranks[r].measured);
    }
    job += static_cast<double>(slowest);
    for (const Node& n : g.nodes) {
      auto& [ns, count] = nodes[Key(g, n)];
      ns += static_cast<double>(n.duration);
      count += 1;
    }
    for (const Edge& e : g.edges) {
      auto& [ns, count] = edges[KeyOf(g, e)];
      ns += static_cast<double>(e.gap);
      count += 1;
    }
    for (size_t r = 0; r < measured.size() && r < g.ranks.size(); ++r)
      measured[r] += static_cast<double>(g.ranks[r].measured);
  }
  StepGraph t = steps[MedianStep(steps)];
  for (Node& n : t.graph.nodes) n.duration = Mean(nodes[Key(t.graph, n)]);
  for (Edge& e : t.graph.edges) e.gap = Mean(edges[KeyOf(t.graph, e)]);
  double n = static_cast<double>(steps.size());
  for (size_t r = 0; r < measured.size(); ++r) {
    t.graph.ranks[r].measured = static_cast<uint64_t>(std::llround(measured[r] / n));
    t.graph.nodes[t.graph.ranks[r].source].release =
        static_cast<uint64_t>(std::llround(release[r] / n));
  }
  t.measured = static_cast<uint64_t>(std::llround(job / n));
  return {t};
}

}  // namespace tt::analysis::replay
