// Replay's CPU sharing: the cores each resource takes, and each node's work (cpu_share.h).
#include "analysis/replay/cpu_share.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace tt::analysis::replay {

namespace {

// A host's running work over time: its share of a core, integrated from the first change.
class ShareCurve {
 public:
  // (time, cores asked for: + at a start, - at an end)
  ShareCurve(std::vector<std::pair<uint64_t, int64_t>> changes, uint32_t cores) {
    std::sort(changes.begin(), changes.end());
    int64_t load = 0;
    double acc = 0;
    for (size_t i = 0; i < changes.size();) {
      uint64_t t = changes[i].first;
      if (!at_.empty())
        acc += static_cast<double>(t - at_.back()) * CoreShare(static_cast<double>(load), cores);
      for (; i < changes.size() && changes[i].first == t; ++i) load += changes[i].second;
      at_.push_back(t);
      integral_.push_back(acc);
    }
  }
  // The integral of the share over [a, b] (both times of changes).
  double Over(uint64_t a, uint64_t b) const { return Integral(b) - Integral(a); }

 private:
  double Integral(uint64_t t) const {
    auto it = std::lower_bound(at_.begin(), at_.end(), t);
    return it == at_.end() ? integral_.back() : integral_[static_cast<size_t>(it - at_.begin())];
  }
  std::vector<uint64_t> at_;
  std::vector<double> integral_;
};

// Each resource's cores (Resource::cpus).
void AssignCores(Graph* g, const std::vector<uint32_t>& host_of_rank) {
  std::vector<bool> device(g->resources.size(), false);
  for (const Node& n : g->nodes)
    if (n.kind == NodeKind::kDevice) device[n.resource] = true;
  std::vector<std::set<int32_t>> joins(g->resources.size());  // a communicator's or link's ranks
  for (const Edge& e : g->edges) {
    if (e.kind != EdgeKind::kCollective && e.kind != EdgeKind::kP2p) continue;
    const Resource& to = g->resources[g->nodes[e.to].resource];
    if (to.rank < 0)
      joins[g->nodes[e.to].resource].insert(g->resources[g->nodes[e.from].resource].rank);
  }
  for (size_t r = 0; r < g->resources.size(); ++r) {
    Resource& res = g->resources[r];
    if (res.markers || device[r]) continue;
    if (res.rank >= 0) {
      res.cpus = {{host_of_rank[static_cast<size_t>(res.rank)], 1}};
      continue;
    }
    std::map<uint32_t, uint32_t> per_host;
    for (int32_t rank : joins[r])
      if (rank >= 0) ++per_host[host_of_rank[static_cast<size_t>(rank)]];
    res.cpus.assign(per_host.begin(), per_host.end());
  }
}

}  // namespace

bool TakesCpu(NodeKind k) {
  return k == NodeKind::kOp || k == NodeKind::kRuntime || k == NodeKind::kInput ||
         k == NodeKind::kComm;
}

double CoreShare(double load, uint32_t cores) { return load > cores ? cores / load : 1.0; }

bool TakesCore(const Graph& g, const Node& n) {
  return TakesCpu(n.kind) && !g.resources[n.resource].cpus.empty();
}

void ShareCpus(Graph* g, std::vector<Host> hosts, const std::vector<uint32_t>& host_of_rank) {
  g->hosts = std::move(hosts);
  AssignCores(g, host_of_rank);
  std::vector<double> work(g->nodes.size(), std::numeric_limits<double>::infinity());
  for (uint32_t h = 0; h < g->hosts.size(); ++h) {
    std::vector<std::pair<uint64_t, int64_t>> changes;
    std::vector<uint32_t> on;  // its CPU nodes
    for (uint32_t v = 0; v < g->nodes.size(); ++v) {
      const Node& n = g->nodes[v];
      if (!TakesCore(*g, n)) continue;
      for (const auto& [host, cores] : g->resources[n.resource].cpus)
        if (host == h) {
          changes.push_back({n.measured, cores});
          changes.push_back({n.measured + n.took, -static_cast<int64_t>(cores)});
          on.push_back(v);
        }
    }
    if (on.empty()) continue;
    ShareCurve curve(std::move(changes), g->hosts[h].cores);
    for (uint32_t v : on) {
      const Node& n = g->nodes[v];
      work[v] = std::min(work[v], curve.Over(n.measured, n.measured + n.took));
    }
  }
  for (size_t v = 0; v < work.size(); ++v)
    if (std::isfinite(work[v])) g->nodes[v].duration = static_cast<uint64_t>(std::llround(work[v]));
}

}  // namespace tt::analysis::replay
