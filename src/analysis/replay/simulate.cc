// Replay's discrete-event simulation (simulate.h).
#include "analysis/replay/simulate.h"

#include <algorithm>
#include <map>
#include <queue>

#include "analysis/replay/adjacency.h"
#include "analysis/replay/cpu_share.h"
#include "core/error.h"

namespace tt::analysis::replay {

Schedule Simulate(const Graph& g) {
  if (!g.hosts.empty()) return SimulateSharingCpus(g);
  const size_t n = g.nodes.size();
  Schedule s;
  s.start.assign(n, 0);
  s.end.assign(n, 0);
  s.binding.assign(n, kNone);
  s.binding_gap.assign(n, 0);
  s.binding_from_start.assign(n, 0);
  Adjacency out = By(g, true);
  std::vector<uint32_t> waiting(n, 0);
  std::vector<uint64_t> ready(n, 0);
  for (const Edge& e : g.edges) ++waiting[e.to];
  for (size_t i = 0; i < n; ++i) ready[i] = g.nodes[i].release;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> queue;
  for (uint32_t i = 0; i < n; ++i)
    if (!waiting[i]) queue.push({ready[i], i});
  std::vector<uint64_t> free_at(g.resources.size(), 0);
  std::vector<uint32_t> last_on(g.resources.size(), kNone);
  size_t done = 0;
  while (!queue.empty()) {
    auto [at, v] = queue.top();
    queue.pop();
    const Node& node = g.nodes[v];
    uint64_t start = std::max(at, free_at[node.resource]);
    if (start > at) {  // it waited in its resource's queue
      s.binding[v] = last_on[node.resource];
      s.binding_gap[v] = 0;
      s.binding_from_start[v] = 0;
    }
    s.start[v] = start;
    s.end[v] = start + node.duration;
    free_at[node.resource] = s.end[v];
    last_on[node.resource] = v;
    ++done;
    for (uint32_t k = out.first[v]; k < out.first[v + 1]; ++k) {
      const Edge& e = g.edges[out.edges[k]];
      uint64_t t = (e.from_start ? s.start[v] : s.end[v]) + e.gap;
      if (Relax(v, e, t, &ready, &waiting, &s)) queue.push({ready[e.to], e.to});
    }
  }
  if (done != n) throw Error("replay: the dependency graph has a cycle; no schedule exists");
  for (const RankStep& r : g.ranks)
    s.predicted.push_back(s.end[r.sink] - g.nodes[r.source].release);
  return s;
}

CriticalPath CriticalPathOf(const Graph& g, const Schedule& s, size_t rank) {
  CriticalPath p;
  const RankStep& r = g.ranks[rank];
  p.length = s.predicted[rank];
  std::map<uint32_t, PathShare> by_label;
  bool counted = true;  // false: the path left this node from its start (a launch in it)
  for (uint32_t v = r.sink; v != kNone; v = s.binding[v]) {
    p.nodes.push_back(v);
    p.gaps += s.binding_gap[v];
    const Node& node = g.nodes[v];
    bool count = counted;
    counted = !s.binding_from_start[v];
    if (node.kind == NodeKind::kMarker || !count) continue;
    PathShare& sh = by_label[node.label];
    sh.label = node.label;
    sh.ns += s.end[v] - s.start[v];
    ++sh.count;
  }
  std::reverse(p.nodes.begin(), p.nodes.end());
  for (auto& [label, sh] : by_label) p.shares.push_back(sh);
  std::sort(p.shares.begin(), p.shares.end(), [](const PathShare& a, const PathShare& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.label < b.label;
  });
  return p;
}

std::vector<double> Utilisation(const Graph& g, const Schedule& s) {
  std::vector<uint64_t> busy(g.resources.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) busy[g.nodes[i].resource] += s.end[i] - s.start[i];
  uint64_t longest = 0;
  for (uint64_t p : s.predicted) longest = std::max(longest, p);
  std::vector<double> u(g.resources.size(), 0);
  for (size_t i = 0; i < u.size(); ++i) {
    int32_t rank = g.resources[i].rank;
    uint64_t span =
        rank >= 0 && static_cast<size_t>(rank) < s.predicted.size() ? s.predicted[rank] : longest;
    u[i] = span ? std::min(1.0, static_cast<double>(busy[i]) / static_cast<double>(span)) : 0;
  }
  return u;
}

}  // namespace tt::analysis::replay
