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
  ShareCurve(std::vector<std::pair<uint64_t, double>> changes, uint32_t cores) {
    std::sort(changes.begin(), changes.end());
    double load = 0;
    double acc = 0;
    for (size_t i = 0; i < changes.size();) {
      uint64_t t = changes[i].first;
      if (!at_.empty()) acc += static_cast<double>(t - at_.back()) * CoreShare(load, cores);
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

// Each host's CPU nodes (TakesCore), by host.
std::vector<std::vector<uint32_t>> NodesByHost(const Graph& g) {
  std::vector<std::vector<uint32_t>> on(g.hosts.size());
  for (uint32_t v = 0; v < g.nodes.size(); ++v)
    if (TakesCore(g, g.nodes[v]))
      for (const auto& [host, cores] : g.resources[g.nodes[v].resource].cpus) on[host].push_back(v);
  return on;
}

// Each host's share of a core over the measured step, its nodes asking for their cores times
// their demands while they ran.
std::vector<ShareCurve> Curves(const Graph& g, const std::vector<std::vector<uint32_t>>& on) {
  std::vector<ShareCurve> curves;
  for (uint32_t h = 0; h < g.hosts.size(); ++h) {
    std::vector<std::pair<uint64_t, double>> changes;
    for (uint32_t v : on[h]) {
      const Node& n = g.nodes[v];
      for (const auto& [host, cores] : g.resources[n.resource].cpus)
        if (host == h) {
          changes.push_back({n.measured, cores * n.demand});
          changes.push_back({n.measured + n.took, -(cores * n.demand)});
        }
    }
    curves.emplace_back(std::move(changes), g.hosts[h].cores);
  }
  return curves;
}

// The demand of each node whose CPU time was recorded: that time over the CPU time it could
// have had while it ran (its share of a core, integrated over its measured time), at most 1.
// A thread that ran all along asks for a full core however many shared it; one that slept, for
// none. Returns the largest change.
double SetDemands(Graph* g, const std::vector<std::vector<uint32_t>>& on,
                  const std::vector<ShareCurve>& curves) {
  double changed = 0;
  for (uint32_t h = 0; h < g->hosts.size(); ++h)
    for (uint32_t v : on[h]) {
      Node& n = g->nodes[v];
      double could = curves[h].Over(n.measured, n.measured + n.took);
      if (n.cpu < 0 || could <= 0) continue;
      double d = std::clamp(n.cpu / could, 0.0, 1.0);
      changed = std::max(changed, std::fabs(d - n.demand));
      n.demand = d;
    }
  return changed;
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
  std::vector<std::vector<uint32_t>> on = NodesByHost(*g);
  std::vector<ShareCurve> curves = Curves(*g, on);
  // Each demand from the others': the fewer cores they ask for, the more CPU a thread could
  // have had, and the less of it its recorded CPU time asked for. From a core each, the demands
  // only fall (and the shares rise) from round to round, to where they hold.
  for (int round = 0; round < 20; ++round) {
    if (SetDemands(g, on, curves) < 1e-4) break;
    curves = Curves(*g, on);
  }
  std::vector<double> work(g->nodes.size(), std::numeric_limits<double>::infinity());
  for (uint32_t h = 0; h < g->hosts.size(); ++h)
    for (uint32_t v : on[h]) {
      const Node& n = g->nodes[v];
      double shared = curves[h].Over(n.measured, n.measured + n.took);
      work[v] = std::min(work[v], (1 - n.demand) * static_cast<double>(n.took) + n.demand * shared);
    }
  for (size_t v = 0; v < work.size(); ++v)
    if (std::isfinite(work[v])) g->nodes[v].duration = static_cast<uint64_t>(std::llround(work[v]));
}

}  // namespace tt::analysis::replay
