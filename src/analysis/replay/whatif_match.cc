// What a what-if that names work matched, at any depth, and the change (whatif_match.h).
#include "analysis/replay/whatif_match.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

namespace {

// Per node, the share of it that the matched inner slices held, each counted once: a slice
// inside a matched node or a matched slice is in it already. `reached`: each inner slice that
// is matched or inside a matched one (its launches change with it).
std::vector<double> Held(const Matched& m, const Graph& g, std::vector<char>* reached) {
  const std::vector<Inner>& in = g.inner->slices;
  std::vector<double> held(g.nodes.size(), 0);
  reached->assign(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {  // a parent comes before its children
    const Inner& x = in[i];
    bool parent = x.parent != kNoIndex && (*reached)[x.parent];
    (*reached)[i] = m.inner[i] || parent;
    if (m.inner[i] && !parent && !m.nodes[x.node]) held[x.node] += x.share;
  }
  return held;
}

// PyTorch: the backward ops of the forward ops matched (the op that made one, or one around that
// op), with the device work they launched, marked in `changed`.
void AddBackwards(const Matched& m, const std::vector<char>& reached, Graph* g,
                  std::vector<char>* changed) {
  std::vector<char> gone(g->nodes.size(), 0);
  for (const InnerSlices::Backward& b : g->inner->backwards)
    if (m.nodes[b.node] || (b.inner != kNoIndex && reached[b.inner])) gone[b.backward] = 1;
  for (const Edge& e : g->edges)
    if (e.kind == EdgeKind::kFlow && gone[e.from]) (*changed)[e.to] = 1;
  for (size_t v = 0; v < gone.size(); ++v) (*changed)[v] |= gone[v];
}

// The time within [a, b] that removed or shortened work ran: each instant counted by the
// largest share gone of the work running then (the intervals: start, end, share gone).
double GoneWithin(std::vector<std::tuple<uint64_t, uint64_t, double>> runs, uint64_t a,
                  uint64_t b) {
  std::vector<std::pair<uint64_t, double>> at;  // (time, +share at a start, -share at an end)
  for (auto [s, e, gone] : runs) {
    s = std::max(s, a), e = std::min(e, b);
    if (e <= s) continue;
    at.push_back({s, gone});
    at.push_back({e, -gone});
  }
  std::sort(at.begin(), at.end());
  std::multiset<double> running;
  double sum = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    if (at[i].second > 0)
      running.insert(at[i].second);
    else
      running.erase(running.find(-at[i].second));
    if (i + 1 < at.size() && !running.empty())
      sum += static_cast<double>(at[i + 1].first - at[i].first) * *running.rbegin();
  }
  return sum;
}

}  // namespace

size_t ScaleMatched(const Matched& m, double factor, Graph* g, Backward backward) {
  auto any = [](const std::vector<char>& v) { return std::find(v.begin(), v.end(), 1) != v.end(); };
  if (!any(m.nodes) && !any(m.inner)) return 0;
  std::vector<char> reached;
  std::vector<double> held = Held(m, *g, &reached);
  std::vector<char> whole(m.nodes), launched(g->nodes.size(), 0);
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) n += whole[v] || held[v] > 0;
  if (n == 0) return 0;
  for (Edge& e : g->edges)
    if (e.kind == EdgeKind::kFlow && whole[e.from]) {
      e.gap = static_cast<uint64_t>(std::llround(static_cast<double>(e.gap) * factor));
      launched[e.to] = 1;
    }
  for (auto [i, device] : g->inner->launches) launched[device] |= reached[i];
  if (factor == 0 || backward == Backward::kWithForward) AddBackwards(m, reached, g, &launched);
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    whole[v] |= launched[v];
    if (whole[v]) {
      ScaleNode(g, v, factor);
    } else if (held[v] > 0) {  // part of it: its other work stays as it was
      Node& x = g->nodes[v];
      double kept = 1 + (factor - 1) * std::min(held[v], 1.0);
      x.duration = static_cast<uint64_t>(std::llround(static_cast<double>(x.duration) * kept));
    }
  }
  if (factor == 0) ZeroGapsInto(g, whole);
  return n;
}

void ShortenInputWaits(const std::vector<const Graph*>& before, const std::vector<Graph*>& after) {
  using Run = std::tuple<uint64_t, uint64_t, double>;
  std::map<int32_t, std::vector<Run>> runs;  // by rank, on the trace's clock
  uint64_t longest = 0;
  for (size_t i = 0; i < before.size(); ++i)
    for (size_t v = 0; v < before[i]->nodes.size() && v < after[i]->nodes.size(); ++v) {
      const Node &was = before[i]->nodes[v], &now = after[i]->nodes[v];
      int32_t rank = before[i]->resources[was.resource].rank;
      if (was.kind != NodeKind::kInput || was.duration == 0 || now.duration >= was.duration)
        continue;
      double gone = 1 - static_cast<double>(now.duration) / static_cast<double>(was.duration);
      uint64_t at = before[i]->origin + was.measured;
      runs[rank].push_back({at, at + was.took, gone});
      longest = std::max(longest, was.took);
    }
  for (auto& [rank, r] : runs) std::sort(r.begin(), r.end());
  for (size_t i = 0; i < before.size(); ++i)
    for (size_t v = 0; v < before[i]->nodes.size() && v < after[i]->nodes.size(); ++v) {
      const Node& was = before[i]->nodes[v];
      Node& now = after[i]->nodes[v];
      auto r = runs.find(before[i]->resources[was.resource].rank);
      if (was.kind != NodeKind::kInputWait || now.duration != was.duration || r == runs.end() ||
          was.took == 0)
        continue;  // a wait the what-if changed itself (input=F) keeps that change
      uint64_t a = before[i]->origin + was.measured, b = a + was.took;
      auto first = std::lower_bound(r->second.begin(), r->second.end(),
                                    Run{a > longest ? a - longest : 0, 0, 0});
      auto last = std::lower_bound(first, r->second.end(), Run{b, 0, 0});
      double gone = GoneWithin({first, last}, a, b);
      double kept = std::max(0.0, 1 - gone / static_cast<double>(was.took));
      now.duration = static_cast<uint64_t>(std::llround(static_cast<double>(now.duration) * kept));
    }
}

}  // namespace tt::analysis::replay
