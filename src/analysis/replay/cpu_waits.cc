// A thread's gaps under a what-if, where a job's threads share a host's cores (cpu_waits.h).
#include "analysis/replay/cpu_waits.h"

#include <algorithm>
#include <cmath>

#include "analysis/replay/cpu_share.h"
#include "analysis/replay/share_curve.h"

namespace tt::analysis::replay {

namespace {

// Each host's share of a core for one more ask (a gap's), over the job's measured steps on the
// trace's clock (work begun in one step loads the next), as measured (`after` false) or after
// the what-ifs (each node's ask scaled by the duration it kept).
std::vector<ShareCurve> HostShares(const std::vector<const Graph*>& measured,
                                   const std::vector<Graph*>& changed, bool after) {
  size_t hosts = measured.front()->hosts.size();
  std::vector<std::vector<std::pair<uint64_t, double>>> changes(hosts);
  for (auto& c : changes) c.push_back({0, 1.0});  // the gap's own ask, throughout
  for (size_t i = 0; i < measured.size(); ++i) {
    const Graph& g = *measured[i];
    for (size_t v = 0; v < g.nodes.size(); ++v) {
      const Node& n = g.nodes[v];
      if (!TakesCore(g, n) || n.took == 0) continue;
      double kept = after ? KeptShare(n, changed[i]->nodes[v]) : 1;
      for (const auto& [host, cores] : g.resources[n.resource].cpus) {
        if (host >= hosts) continue;
        double ask = cores * n.demand * kept;
        changes[host].push_back({g.origin + n.measured, ask});
        changes[host].push_back({g.origin + n.measured + n.took, -ask});
      }
    }
  }
  std::vector<ShareCurve> curves;
  for (size_t h = 0; h < hosts; ++h)
    curves.emplace_back(std::move(changes[h]), measured.front()->hosts[h].cores);
  return curves;
}

void Shorten(const Graph& measured, const std::vector<ShareCurve>& before,
             const std::vector<ShareCurve>& after, const std::vector<uint64_t>* carried,
             Graph* changed) {
  for (size_t i = 0; i < changed->edges.size(); ++i) {
    Edge& e = changed->edges[i];
    const Node& to = measured.nodes[e.to];
    const Resource& r = measured.resources[to.resource];
    // its own time: less what it spent finishing an earlier step's node (carry_over.h)
    uint64_t part = carried ? std::min((*carried)[i], measured.edges[i].gap) : 0;
    uint64_t gap = measured.edges[i].gap - part;
    if (gap == 0 || e.gap <= part || e.from_start || r.cpus.empty() || gap > to.measured) continue;
    uint64_t b = measured.origin + to.measured, a = b - gap;
    uint32_t host = r.cpus.front().first;
    if (host >= before.size()) continue;
    double work = before[host].Over(a, b), could = after[host].Over(a, b);
    if (could <= work || could <= 0) continue;
    e.gap = part +
            static_cast<uint64_t>(std::llround(static_cast<double>(e.gap - part) * work / could));
  }
}

}  // namespace

void ShortenCpuWaits(const std::vector<const Graph*>& measured, const std::vector<Graph*>& changed,
                     const std::vector<std::vector<uint64_t>>& carried) {
  if (measured.empty() || measured.front()->hosts.empty()) return;  // no CPU sharing
  for (size_t i = 0; i < measured.size(); ++i)
    if (measured[i]->nodes.size() != changed[i]->nodes.size() ||
        measured[i]->edges.size() != changed[i]->edges.size())
      return;  // a what-if that rebuilt a graph (its gaps are its own)
  std::vector<ShareCurve> before = HostShares(measured, changed, false);
  std::vector<ShareCurve> after = HostShares(measured, changed, true);
  for (size_t i = 0; i < measured.size(); ++i)
    Shorten(*measured[i], before, after, i < carried.size() ? &carried[i] : nullptr, changed[i]);
}

}  // namespace tt::analysis::replay
