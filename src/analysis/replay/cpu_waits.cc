// A thread's gaps under a what-if, where a job's threads share a host's cores (cpu_waits.h).
#include "analysis/replay/cpu_waits.h"

#include <algorithm>
#include <cmath>

#include "analysis/replay/cpu_share.h"
#include "analysis/replay/share_curve.h"

namespace tt::analysis::replay {

namespace {

// Each host's share of a core for one more ask (a gap's), over the measured step, as measured
// (`after` false) or after the what-ifs (each node's ask scaled by the duration it kept).
std::vector<ShareCurve> HostShares(const Graph& measured, const Graph& changed, bool after) {
  std::vector<std::vector<std::pair<uint64_t, double>>> changes(measured.hosts.size());
  for (auto& c : changes) c.push_back({0, 1.0});  // the gap's own ask, throughout
  for (size_t v = 0; v < measured.nodes.size(); ++v) {
    const Node& n = measured.nodes[v];
    if (!TakesCore(measured, n) || n.took == 0) continue;
    double kept = after ? KeptShare(n, changed.nodes[v]) : 1;
    for (const auto& [host, cores] : measured.resources[n.resource].cpus) {
      double ask = cores * n.demand * kept;
      changes[host].push_back({n.measured, ask});
      changes[host].push_back({n.measured + n.took, -ask});
    }
  }
  std::vector<ShareCurve> curves;
  for (size_t h = 0; h < measured.hosts.size(); ++h)
    curves.emplace_back(std::move(changes[h]), measured.hosts[h].cores);
  return curves;
}

}  // namespace

void ShortenCpuWaits(const Graph& measured, Graph* changed) {
  if (measured.hosts.empty() || measured.nodes.size() != changed->nodes.size() ||
      measured.edges.size() != changed->edges.size())
    return;  // no CPU sharing, or a what-if that rebuilt the graph (its gaps are its own)
  std::vector<ShareCurve> before = HostShares(measured, *changed, false);
  std::vector<ShareCurve> after = HostShares(measured, *changed, true);
  for (size_t i = 0; i < changed->edges.size(); ++i) {
    Edge& e = changed->edges[i];
    const Node& to = measured.nodes[e.to];
    const Resource& r = measured.resources[to.resource];
    uint64_t gap = measured.edges[i].gap;
    if (e.gap == 0 || e.from_start || r.cpus.empty() || gap > to.measured) continue;
    uint64_t a = to.measured - gap, b = to.measured;
    uint32_t host = r.cpus.front().first;
    double work = before[host].Over(a, b), could = after[host].Over(a, b);
    if (could <= work || could <= 0) continue;
    e.gap = static_cast<uint64_t>(std::llround(static_cast<double>(e.gap) * work / could));
  }
}

}  // namespace tt::analysis::replay
