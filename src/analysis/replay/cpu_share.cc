// Replay's CPU sharing: the cores each resource takes, and each node's work (cpu_share.h).
#include "analysis/replay/cpu_share.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "analysis/replay/share_curve.h"

namespace tt::analysis::replay {

namespace {

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

// The GIL's share over the measured step in each rank's process: its nodes that held it asking
// for it times their GIL demands while they ran.
std::vector<ShareCurve> GilCurves(const Graph& g, const std::vector<uint32_t>& gil_nodes) {
  std::vector<std::vector<std::pair<uint64_t, double>>> changes(g.ranks.size());
  for (uint32_t v : gil_nodes) {
    const Node& n = g.nodes[v];
    auto& c = changes[static_cast<size_t>(g.resources[n.resource].rank)];
    c.push_back({n.measured, n.gil_demand});
    c.push_back({n.measured + n.took, -n.gil_demand});
  }
  std::vector<ShareCurve> curves;
  for (auto& c : changes) curves.emplace_back(std::move(c), 1);
  return curves;
}

// The nodes of the ranks' threads that held the GIL while they ran (Node::gil), each asking
// first for all of it.
std::vector<uint32_t> GilNodes(Graph* g) {
  std::vector<uint32_t> nodes;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    Node& n = g->nodes[v];
    n.gil_demand = 0;
    if (n.gil > 0 && n.took > 0 && TakesCore(*g, n) && g->resources[n.resource].rank >= 0) {
      n.gil_demand = 1;
      nodes.push_back(v);
    }
  }
  return nodes;
}

// The shares a node could have had while it ran: of a core (`core`, its host's) and, where it
// asks for the GIL, of the GIL while it had a core (`lock`, its rank's).
struct Could {
  double core = 0, lock = 0;
};

// A node's demands from what it used while it ran: its GIL time over the GIL time it could
// have had (`lock`); its CPU time, the part not under the lock, over the core time it could have
// had; each at most 1, the GIL's at most the core's (it runs while it holds the lock). A thread
// that ran all along asks for a full core however many shared it; one that slept, for none; one
// that waited for the GIL, for the lock. Returns the largest change.
double SetDemand(Node* n, Could could) {
  double gil = n->gil_demand, demand = n->demand;
  if (gil > 0 && could.lock > 0) {
    double held = n->cpu >= 0 ? std::min(n->gil, n->cpu) : n->gil;
    gil = std::clamp(held / could.lock, 1e-9, 1.0);
    demand = n->cpu < 0 || could.core <= 0
                 ? 1.0
                 : std::clamp(gil + (n->cpu - held) / could.core, gil, 1.0);
  } else if (n->cpu >= 0 && could.core > 0) {
    demand = std::clamp(n->cpu / could.core, 0.0, 1.0);
  }
  double changed = std::max(std::fabs(demand - n->demand), std::fabs(gil - n->gil_demand));
  n->demand = demand;
  n->gil_demand = gil;
  return changed;
}

// Replay's sharing state: each host's CPU nodes and share curve, the GIL's nodes and each
// rank's GIL curve.
struct Sharing {
  std::vector<std::vector<uint32_t>> on;
  std::vector<ShareCurve> cores;
  std::vector<uint32_t> gil_nodes;
  std::vector<ShareCurve> gil;

  const ShareCurve& GilOf(const Graph& g, const Node& n) const {
    return gil[static_cast<size_t>(g.resources[n.resource].rank)];
  }
  // What node n could have had on host h over its measured time.
  Could CouldHave(const Graph& g, uint32_t h, const Node& n) const {
    uint64_t a = n.measured, b = n.measured + n.took;
    Could c{cores[h].Over(a, b), 0};
    if (n.gil_demand > 0)
      c.lock = IntegrateBoth(cores[h], GilOf(g, n), a, b,
                             [](double core, double lock) { return std::min(core, lock); });
    return c;
  }
  // Node n's work (its time with a core and the lock to itself) from its measured time on h.
  double Work(const Graph& g, uint32_t h, const Node& n) const {
    uint64_t a = n.measured, b = n.measured + n.took;
    if (n.gil_demand <= 0)
      return (1 - n.demand) * static_cast<double>(n.took) + n.demand * cores[h].Over(a, b);
    return IntegrateBoth(cores[h], GilOf(g, n), a, b, [&n](double core, double lock) {
      return GilRate(n.demand, n.gil_demand, core, lock);
    });
  }
};

// Each demand from the others': the fewer cores (and the less of the GIL) they ask for, the
// more a thread could have had, and the less of it what it used asked for. From a core and
// the lock each, the demands fall (and the shares rise) from round to round, to where they hold.
void SetDemands(Graph* g, Sharing* s) {
  for (int round = 0; round < 20; ++round) {
    double changed = 0;
    for (uint32_t h = 0; h < g->hosts.size(); ++h)
      for (uint32_t v : s->on[h])
        changed = std::max(changed, SetDemand(&g->nodes[v], s->CouldHave(*g, h, g->nodes[v])));
    s->cores = Curves(*g, s->on);
    s->gil = GilCurves(*g, s->gil_nodes);
    if (changed < 1e-4) break;
  }
}

}  // namespace

double GilRate(double demand, double gil_demand, double cpu_share, double gil_share) {
  return 1 - demand + (demand - gil_demand) * cpu_share +
         gil_demand * std::min(cpu_share, gil_share);
}

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
  Sharing s;
  s.on = NodesByHost(*g);
  s.gil_nodes = GilNodes(g);
  s.cores = Curves(*g, s.on);
  s.gil = GilCurves(*g, s.gil_nodes);
  SetDemands(g, &s);
  std::vector<double> work(g->nodes.size(), std::numeric_limits<double>::infinity());
  for (uint32_t h = 0; h < g->hosts.size(); ++h)
    for (uint32_t v : s.on[h]) work[v] = std::min(work[v], s.Work(*g, h, g->nodes[v]));
  for (size_t v = 0; v < work.size(); ++v)
    if (std::isfinite(work[v])) g->nodes[v].duration = static_cast<uint64_t>(std::llround(work[v]));
}

void SpreadGilByOp(std::vector<Graph*> graphs) {
  std::map<std::pair<int32_t, uint32_t>, std::pair<double, double>> by_op;  // (gil, took)
  auto key = [](const Graph& g, const Node& n) {
    return std::make_pair(g.resources[n.resource].rank, n.label);
  };
  for (const Graph* g : graphs)
    for (const Node& n : g->nodes)
      if (n.gil >= 0) {
        auto& [gil, took] = by_op[key(*g, n)];
        gil += n.gil;
        took += static_cast<double>(n.took);
      }
  for (Graph* g : graphs)
    for (Node& n : g->nodes) {
      auto it = by_op.find(key(*g, n));
      if (it == by_op.end() || it->second.second <= 0) continue;
      n.gil = it->second.first / it->second.second * static_cast<double>(n.took);
    }
}

}  // namespace tt::analysis::replay
