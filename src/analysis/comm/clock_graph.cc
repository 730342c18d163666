#include "analysis/comm/clock_graph.h"

#include <algorithm>

namespace tt::analysis {

namespace {

// Collectives that no rank can leave before every rank entered (each needs every rank's data).
bool Symmetric(const std::string& c) {
  return c == "allreduce" || c == "allgather" || c == "reducescatter" || c == "alltoall" ||
         c == "barrier";
}

int64_t I(uint64_t t) { return static_cast<int64_t>(t); }

// Per unit of one symmetric instance: the latest entry and the earliest and latest exits.
struct UnitSpan {
  int64_t enter = INT64_MIN, first_exit = INT64_MAX, last_exit = INT64_MIN;
  bool seen = false;
};

// Every pair of units' bounds where there are few (all pairs: the tightest chains), else each
// unit's with the instance's first unit (linear in units; chains through the first units).
constexpr size_t kAllPairsUnits = 64;

void AddSymmetric(const CommInstance& in, const std::vector<size_t>& unit_of, ClockEvidence* e) {
  std::vector<UnitSpan> s(e->units);
  size_t anchor = e->units;
  for (const CommArrival& a : in.arrivals) {
    size_t k = unit_of[a.rank];
    UnitSpan& u = s[k];
    u.seen = true;
    u.enter = std::max(u.enter, I(a.enter));
    u.first_exit = std::min(u.first_exit, I(a.exit));
    u.last_exit = std::max(u.last_exit, I(a.exit));
    anchor = std::min(anchor, k);
  }
  auto pair = [&](size_t u, size_t v) {
    if (u == v || !s[u].seen || !s[v].seen) return;
    // Every rank of v leaves after every rank of u entered: exit_v + d_v >= enter_u + d_u.
    int64_t& low = e->low[u * e->units + v];
    low = std::max(low, s[u].enter - s[v].first_exit);
    if (u == anchor) e->exit_diffs[u * e->units + v].push_back(s[u].last_exit - s[v].last_exit);
  };
  if (e->units <= kAllPairsUnits) {
    for (size_t u = 0; u < e->units; ++u)
      for (size_t v = 0; v < e->units; ++v) pair(u, v);
    return;
  }
  for (size_t v = 0; v < e->units; ++v) pair(anchor, v), pair(v, anchor);
}

// A send's receive ends after the send began (its call where known).
void AddSendRecv(const CommInstance& in, const std::vector<size_t>& unit_of, ClockEvidence* e) {
  for (const CommArrival& s : in.arrivals)
    for (const CommArrival& r : in.arrivals) {
      size_t u = unit_of[s.rank], v = unit_of[r.rank];
      if (!s.send || r.send || u == v) continue;
      int64_t sent = I(s.call ? std::min(s.call, s.enter) : s.enter);
      int64_t& low = e->low[u * e->units + v];
      low = std::max(low, sent - I(r.exit));
    }
}

// Shortest paths from unit 0 over the constraints' graph (an edge v -> u of weight -low[u][v]
// for d_v - d_u >= low: d_u <= d_v - low); `reverse`: paths into unit 0. nullopt: a negative
// cycle (the constraints contradict each other).
std::optional<std::vector<int64_t>> Paths(const ClockEvidence& e, bool reverse) {
  size_t n = e.units;
  std::vector<int64_t> dist(n, INT64_MAX);
  dist[0] = 0;
  for (size_t round = 0; round <= n; ++round) {
    bool changed = false;
    for (size_t u = 0; u < n; ++u)
      for (size_t v = 0; v < n; ++v) {
        int64_t low = e.low[u * n + v];
        if (low == INT64_MIN) continue;
        size_t from = reverse ? u : v, to = reverse ? v : u;
        if (dist[from] == INT64_MAX) continue;
        __int128 d = static_cast<__int128>(dist[from]) - low;
        if (d < dist[to]) {
          dist[to] = static_cast<int64_t>(std::max<__int128>(d, INT64_MIN + 1));
          changed = true;
        }
      }
    if (!changed) return dist;
  }
  return std::nullopt;
}

int64_t Median(std::vector<int64_t> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The median of `v` and its median absolute deviation.
ExitEstimate MedianAndSpread(const std::vector<int64_t>& v) {
  ExitEstimate x;
  x.offset = Median(v);
  std::vector<int64_t> dev;
  for (int64_t d : v) dev.push_back(d > x.offset ? d - x.offset : x.offset - d);
  x.spread = Median(dev);
  return x;
}

}  // namespace

ClockEvidence CollectEvidence(const std::vector<CommInstance>& instances,
                              const std::vector<size_t>& unit_of, size_t units) {
  ClockEvidence e;
  e.units = units;
  e.low.assign(units * units, INT64_MIN);
  e.exit_diffs.resize(units * units);
  e.instances.assign(units, 0);
  for (const CommInstance& in : instances) {
    bool p2p = in.src >= 0;
    if (!p2p && !Symmetric(in.collective)) continue;
    std::vector<bool> seen(units, false);
    for (const CommArrival& a : in.arrivals) seen[unit_of[a.rank]] = true;
    if (std::count(seen.begin(), seen.end(), true) < 2) continue;
    for (size_t u = 0; u < units; ++u) e.instances[u] += seen[u];
    if (p2p)
      AddSendRecv(in, unit_of, &e);
    else
      AddSymmetric(in, unit_of, &e);
  }
  return e;
}

std::optional<std::vector<OffsetWindow>> JointWindows(const ClockEvidence& e) {
  // d_x <= d_0 + path(0 -> x); d_x >= d_0 - path(x -> 0); d_0 = 0.
  auto up = Paths(e, false), down = Paths(e, true);
  if (!up || !down) return std::nullopt;
  std::vector<OffsetWindow> w(e.units);
  for (size_t x = 0; x < e.units; ++x) {
    w[x].high = (*up)[x];
    w[x].low = (*down)[x] == INT64_MAX ? INT64_MIN : -(*down)[x];
    w[x].instances = e.instances[x];
  }
  return w;
}

std::vector<std::optional<ExitEstimate>> ExitEstimates(const ClockEvidence& e) {
  // A tree from unit 0 over the pairs with the most shared exits (Prim's, by count: each unit
  // keeps its best link to the tree, so O(units^2) in all).
  size_t n = e.units;
  std::vector<std::optional<ExitEstimate>> d(n);
  if (n == 0) return d;
  std::vector<size_t> most(n, 0), from(n, n);
  auto count = [&](size_t u, size_t v) {
    return std::max(e.exit_diffs[u * n + v].size(), e.exit_diffs[v * n + u].size());
  };
  d[0] = ExitEstimate{};
  for (size_t added = 0;;) {
    for (size_t v = 0; v < n; ++v)
      if (!d[v] && count(added, v) > most[v]) most[v] = count(added, v), from[v] = added;
    size_t next = n;
    for (size_t v = 0; v < n; ++v)
      if (!d[v] && most[v] && (next == n || most[v] > most[next])) next = v;
    if (next == n) return d;
    size_t u = from[next];
    // exit_u + d_u = exit_v + d_v at one true moment: d_v = d_u + (exit_u - exit_v); the diffs
    // are stored from the instances' first unit, either way round.
    bool flip = e.exit_diffs[next * n + u].size() > e.exit_diffs[u * n + next].size();
    ExitEstimate pair = MedianAndSpread(e.exit_diffs[flip ? next * n + u : u * n + next]);
    if (flip) pair.offset = -pair.offset;
    d[next] = ExitEstimate{d[u]->offset + pair.offset, d[u]->spread + pair.spread};
    added = next;
  }
}

}  // namespace tt::analysis
