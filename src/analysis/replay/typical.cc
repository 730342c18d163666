// Replay of a typical step (typical.h).
#include "analysis/replay/typical.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace tt::analysis::replay {

namespace {

// A node's identity across steps: its rank (-1: a shared resource), its label, and which of
// that rank's nodes with that label it is (in the graph's order: each resource's in time order),
// so that the k-th "ExecutorState::Process" of a step stands for the k-th of every step.
struct NodeKey {
  uint64_t label = 0;  // rank << 32 | label
  uint32_t nth = 0;
  bool operator==(const NodeKey&) const = default;
};

std::vector<NodeKey> Keys(const Graph& g) {
  std::unordered_map<uint64_t, uint32_t> seen;
  std::vector<NodeKey> keys(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    uint64_t label = uint64_t{static_cast<uint32_t>(g.resources[n.resource].rank)} << 32 | n.label;
    keys[i] = {label, seen[label]++};
  }
  return keys;
}

// An edge's: its ends' and its kind.
struct EdgeKey {
  NodeKey from, to;
  EdgeKind kind;
  bool operator==(const EdgeKey&) const = default;
};

struct KeyHash {
  size_t operator()(const NodeKey& k) const {
    return std::hash<uint64_t>()(k.label * 1000003u ^ k.nth);
  }
  size_t operator()(const EdgeKey& k) const {
    return (*this)(k.from) * 31 ^ (*this)(k.to) ^ static_cast<size_t>(k.kind);
  }
};

using Sum = std::pair<double, double>;  // ns added, count
using Means = std::unordered_map<NodeKey, Sum, KeyHash>;
using EdgeMeans = std::unordered_map<EdgeKey, Sum, KeyHash>;

uint64_t Mean(const Sum& m) {
  return m.second > 0 ? static_cast<uint64_t>(std::llround(m.first / m.second)) : 0;
}

// The step whose slowest rank's measured time is the median.
size_t MedianStep(const std::vector<StepGraph>& steps) {
  std::vector<std::pair<uint64_t, size_t>> by;
  for (size_t i = 0; i < steps.size(); ++i) {
    by.push_back({steps[i].graph.MeasuredStep(), i});
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
    std::vector<NodeKey> keys = Keys(g);
    for (size_t r = 0; r < release.size() && r < g.ranks.size(); ++r)
      release[r] += static_cast<double>(g.nodes[g.ranks[r].source].release);
    job += static_cast<double>(g.MeasuredStep());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      auto& [ns, count] = nodes[keys[i]];
      ns += static_cast<double>(g.nodes[i].duration);
      count += 1;
    }
    for (const Edge& e : g.edges) {
      auto& [ns, count] = edges[{keys[e.from], keys[e.to], e.kind}];
      ns += static_cast<double>(e.gap);
      count += 1;
    }
    for (size_t r = 0; r < measured.size() && r < g.ranks.size(); ++r)
      measured[r] += static_cast<double>(g.ranks[r].measured);
  }
  StepGraph t = steps[MedianStep(steps)];
  std::vector<NodeKey> keys = Keys(t.graph);
  for (size_t i = 0; i < keys.size(); ++i) t.graph.nodes[i].duration = Mean(nodes[keys[i]]);
  for (Edge& e : t.graph.edges) e.gap = Mean(edges[{keys[e.from], keys[e.to], e.kind}]);
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
