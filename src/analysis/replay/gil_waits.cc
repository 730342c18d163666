// A Python thread's gaps under a what-if (gil_waits.h).
#include "analysis/replay/gil_waits.h"

#include <algorithm>
#include <cmath>

namespace tt::analysis::replay {

namespace {

// The GIL held by one rank's nodes over its measured step, as measured and after the what-ifs:
// piecewise constant between the nodes' starts and ends, each at most the whole lock.
class LockHeld {
 public:
  void Add(uint64_t a, uint64_t b, double rate, double kept) {
    changes_.push_back({a, rate, rate * kept});
    changes_.push_back({b, -rate, -rate * kept});
  }
  void Build() {
    std::sort(changes_.begin(), changes_.end(),
              [](const Change& x, const Change& y) { return x.t < y.t; });
    double load = 0, load_after = 0, sum = 0, sum_after = 0;
    for (size_t i = 0; i < changes_.size(); ++i) {
      if (i > 0) {
        double dt = static_cast<double>(changes_[i].t - changes_[i - 1].t);
        sum += dt * std::min(load, 1.0);
        sum_after += dt * std::min(load_after, 1.0);
      }
      load += changes_[i].rate;
      load_after += changes_[i].rate_after;
      at_.push_back(changes_[i].t);
      before_.push_back(sum);
      after_.push_back(sum_after);
      level_.push_back(
          {std::min(std::max(load, 0.0), 1.0), std::min(std::max(load_after, 0.0), 1.0)});
    }
  }
  // The lock time given back over [a, b]: held as measured less held after the what-ifs.
  double FreedOver(uint64_t a, uint64_t b) const {
    auto [ha, ha2] = Integral(a);
    auto [hb, hb2] = Integral(b);
    return std::max(0.0, (hb - ha) - (hb2 - ha2));
  }

 private:
  struct Change {
    uint64_t t;
    double rate, rate_after;
  };
  std::pair<double, double> Integral(uint64_t t) const {
    size_t i = static_cast<size_t>(std::upper_bound(at_.begin(), at_.end(), t) - at_.begin());
    if (i == 0) return {0, 0};
    double dt = static_cast<double>(t - at_[i - 1]);
    return {before_[i - 1] + dt * level_[i - 1].first, after_[i - 1] + dt * level_[i - 1].second};
  }
  std::vector<Change> changes_;
  std::vector<uint64_t> at_;
  std::vector<double> before_, after_;
  std::vector<std::pair<double, double>> level_;
};

// Each rank's lock, from the nodes of all the job's steps that held it (their GIL time over
// their measured time, on the trace's clock: work that began in one step holds the lock in the
// next), each kept in proportion to its duration left (never more than measured). `holds`: by
// graph, its resources whose nodes held it.
std::vector<LockHeld> LocksOf(const std::vector<const Graph*>& measured,
                              const std::vector<Graph*>& changed,
                              std::vector<std::vector<char>>* holds) {
  std::vector<LockHeld> locks;
  holds->resize(measured.size());
  for (size_t i = 0; i < measured.size(); ++i) {
    const Graph& g = *measured[i];
    (*holds)[i].assign(g.resources.size(), 0);
    if (locks.size() < g.ranks.size()) locks.resize(g.ranks.size());
    for (size_t v = 0; v < g.nodes.size(); ++v) {
      const Node& n = g.nodes[v];
      int32_t rank = g.resources[n.resource].rank;
      if (n.gil <= 0 || n.took == 0 || rank < 0) continue;
      (*holds)[i][n.resource] = 1;
      double kept = KeptShare(n, changed[i]->nodes[v]);
      double rate = std::min(1.0, n.gil / static_cast<double>(n.took));
      uint64_t at = g.origin + n.measured;
      locks[static_cast<size_t>(rank)].Add(at, at + n.took, rate, kept);
    }
  }
  for (LockHeld& l : locks) l.Build();
  return locks;
}

// A gap the lock's holders can have stretched: the thread's own time between two of its nodes
// (its order, or after its step's start), or its wake-up after another thread's node it waited
// for (an inferred happens-before): either way the thread ran Python, needing the lock.
bool ThreadsOwnTime(const Graph& g, const Edge& e) {
  return e.kind == EdgeKind::kResource || e.kind == EdgeKind::kInferred ||
         g.nodes[e.from].kind == NodeKind::kMarker;
}

void Shorten(const Graph& measured, const std::vector<char>& holds,
             const std::vector<LockHeld>& locks, const std::vector<uint64_t>* carried,
             Graph* changed) {
  for (size_t i = 0; i < changed->edges.size(); ++i) {
    Edge& e = changed->edges[i];
    const Node& to = measured.nodes[e.to];
    int32_t rank = measured.resources[to.resource].rank;
    // its own time: less what it spent finishing an earlier step's node (carry_over.h)
    uint64_t gap =
        measured.edges[i].gap - (carried ? std::min((*carried)[i], measured.edges[i].gap) : 0);
    if (!ThreadsOwnTime(measured, e) || gap == 0 || e.gap == 0 || e.from_start ||
        !holds[to.resource] || !measured.resources[to.resource].python || rank < 0 ||
        gap > to.measured)
      continue;
    uint64_t b = measured.origin + to.measured;
    double freed = locks[static_cast<size_t>(rank)].FreedOver(b - gap, b);
    e.gap -= std::min(e.gap, static_cast<uint64_t>(std::llround(freed)));
  }
}

}  // namespace

void ShortenGilWaits(const std::vector<const Graph*>& measured, const std::vector<Graph*>& changed,
                     const std::vector<std::vector<uint64_t>>& carried) {
  for (size_t i = 0; i < measured.size(); ++i)
    if (measured[i]->nodes.size() != changed[i]->nodes.size() ||
        measured[i]->edges.size() != changed[i]->edges.size())
      return;  // a what-if that rebuilt a graph (its gaps are its own)
  std::vector<std::vector<char>> holds;
  std::vector<LockHeld> locks = LocksOf(measured, changed, &holds);
  for (size_t i = 0; i < measured.size(); ++i)
    Shorten(*measured[i], holds[i], locks, i < carried.size() ? &carried[i] : nullptr, changed[i]);
}

}  // namespace tt::analysis::replay
