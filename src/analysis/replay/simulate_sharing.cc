// Replay's simulation with CPU sharing (cpu_share.h): as Simulate (one queue per resource,
// nodes ready in the order of their predecessors' ends), but a node's end is not known when it
// starts: it runs at its host's share of a core, which changes whenever work starts or ends on
// the host. Time advances from event to event: the next node ready, or the next end.
#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

#include "analysis/replay/adjacency.h"
#include "analysis/replay/cpu_share.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

class SharingSim {
 public:
  explicit SharingSim(const Graph& g)
      : g_(g),
        out_(By(g, true)),
        waiting_(g.nodes.size(), 0),
        ready_(g.nodes.size(), 0),
        left_(g.nodes.size(), 0),
        busy_(g.resources.size(), kNone),
        last_on_(g.resources.size(), kNone),
        pending_(g.resources.size()),
        load_(g.hosts.size(), 0),
        gil_load_(g.ranks.size(), 0) {
    const size_t n = g.nodes.size();
    s_.start.assign(n, 0);
    s_.end.assign(n, 0);
    s_.binding.assign(n, kNone);
    s_.binding_gap.assign(n, 0);
    s_.binding_from_start.assign(n, 0);
    for (const Edge& e : g.edges) ++waiting_[e.to];
    for (uint32_t i = 0; i < n; ++i) {
      ready_[i] = g.nodes[i].release;
      if (!waiting_[i]) queue_.push({ready_[i], i});
    }
  }

  Schedule Run() {
    for (;;) {
      uint64_t next_end = NextEnd();
      if (!queue_.empty() && queue_.top().at < next_end) {
        auto [at, v] = queue_.top();
        queue_.pop();
        Advance(at);
        uint32_t res = g_.nodes[v].resource;
        if (busy_[res] == kNone)
          Start(v);
        else
          pending_[res].push_back(v);
      } else if (next_end != UINT64_MAX) {
        Advance(next_end);
        EndDue();
      } else {
        break;
      }
    }
    if (done_ != g_.nodes.size())
      throw Error("replay: the dependency graph has a cycle; no schedule exists");
    for (const RankStep& r : g_.ranks)
      s_.predicted.push_back(s_.end[r.sink] - g_.nodes[r.source].release);
    return std::move(s_);
  }

 private:
  // How fast node v progresses now: at its most crowded host's share (ShareRate), and its
  // rank's GIL share where it asks for the GIL (GilRate).
  double Rate(uint32_t v) const {
    const Node& n = g_.nodes[v];
    if (!TakesCore(g_, n)) return 1.0;
    double r = 1.0;
    for (const auto& [host, cores] : g_.resources[n.resource].cpus)
      r = std::min(r, CoreShare(load_[host], g_.hosts[host].cores));
    if (n.gil_demand > 0)
      return GilRate(n.demand, n.gil_demand, r, CoreShare(gil_load_[RankOf(n)], 1));
    return ShareRate(n.demand, r);
  }

  size_t RankOf(const Node& n) const { return static_cast<size_t>(g_.resources[n.resource].rank); }

  uint64_t EndOf(uint32_t v) const {
    return now_ + static_cast<uint64_t>(std::ceil(left_[v] / Rate(v) - 1e-6));
  }

  uint64_t NextEnd() const {
    uint64_t t = UINT64_MAX;
    for (uint32_t v : running_) t = std::min(t, EndOf(v));
    return t;
  }

  void Advance(uint64_t t) {
    if (t <= now_) return;
    double dt = static_cast<double>(t - now_);
    for (uint32_t v : running_) left_[v] = std::max(0.0, left_[v] - dt * Rate(v));
    now_ = t;
  }

  void Load(uint32_t v, int sign) {
    const Node& n = g_.nodes[v];
    if (!TakesCore(g_, n)) return;
    for (const auto& [host, cores] : g_.resources[n.resource].cpus)
      load_[host] += sign * static_cast<double>(cores) * n.demand;
    if (n.gil_demand > 0) gil_load_[RankOf(n)] += sign * n.gil_demand;
  }

  void Start(uint32_t v) {
    uint32_t res = g_.nodes[v].resource;
    if (now_ > ready_[v]) {  // it waited in its resource's queue
      s_.binding[v] = last_on_[res];
      s_.binding_gap[v] = 0;
      s_.binding_from_start[v] = 0;
    }
    s_.start[v] = now_;
    busy_[res] = v;
    last_on_[res] = v;
    left_[v] = static_cast<double>(g_.nodes[v].duration);
    running_.push_back(v);
    Load(v, +1);
    Release(v, true);
  }

  // Ends every running node due now, then starts what waited for their resources.
  void EndDue() {
    std::vector<uint32_t> due;
    for (uint32_t v : running_)
      if (EndOf(v) <= now_) due.push_back(v);
    for (uint32_t v : due) {
      running_.erase(std::find(running_.begin(), running_.end(), v));
      Load(v, -1);
      s_.end[v] = now_;
      ++done_;
      busy_[g_.nodes[v].resource] = kNone;
      Release(v, false);
    }
    for (uint32_t v : due) {
      auto& q = pending_[g_.nodes[v].resource];
      if (busy_[g_.nodes[v].resource] == kNone && !q.empty()) {
        uint32_t next = q.front();
        q.pop_front();
        Start(next);
      }
    }
  }

  // The successors of v on edges from its start (at its start) or from its end (at its end).
  void Release(uint32_t v, bool from_start) {
    for (uint32_t k = out_.first[v]; k < out_.first[v + 1]; ++k) {
      const Edge& e = g_.edges[out_.edges[k]];
      if (e.from_start != from_start) continue;
      if (Relax(v, e, now_ + e.gap, &ready_, &waiting_, &s_)) queue_.push({ready_[e.to], e.to});
    }
  }

  const Graph& g_;
  Adjacency out_;
  Schedule s_;
  std::vector<uint32_t> waiting_;
  std::vector<uint64_t> ready_;
  std::vector<double> left_;                   // by node: work left (ns at a full core)
  std::vector<uint32_t> busy_, last_on_;       // by resource: its running node, its last started
  std::vector<std::deque<uint32_t>> pending_;  // by resource: ready nodes, in order
  std::vector<double> load_;      // by host: cores asked for by running work (times their demands)
  std::vector<double> gil_load_;  // by rank: its GIL asked for by running work
  std::vector<uint32_t> running_;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> queue_;
  uint64_t now_ = 0;
  size_t done_ = 0;
};

}  // namespace

Schedule SimulateSharingCpus(const Graph& g) { return SharingSim(g).Run(); }

}  // namespace tt::analysis::replay
