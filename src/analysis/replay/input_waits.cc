// A step's wait for its input under a what-if (input_waits.h).
#include "analysis/replay/input_waits.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace tt::analysis::replay {

namespace {

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
      double gone = 1 - KeptShare(was, now);
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

double InputWaitGone(const std::vector<const Graph*>& before,
                     const std::vector<const Graph*>& after) {
  double gone = 0;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    if (before[i]->nodes.size() != after[i]->nodes.size()) return 0;
    for (size_t v = 0; v < before[i]->nodes.size(); ++v) {
      const Node &was = before[i]->nodes[v], &now = after[i]->nodes[v];
      if (was.kind == NodeKind::kInputWait && now.duration < was.duration)
        gone += static_cast<double>(was.took) * (1 - KeptShare(was, now));
    }
  }
  return gone;
}

}  // namespace tt::analysis::replay
