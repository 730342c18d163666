// One step's graph from the ranks' atoms (build_step.h).
#include "analysis/replay/build_step.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "analysis/replay/build_inner.h"

namespace tt::analysis::replay {

namespace {

struct Placed {
  uint64_t start = 0, end = 0;  // trace clock
  uint32_t node = 0, resource = 0;
};

struct Lane {
  uint32_t resource = 0;
  size_t track = 0;           // in the rank's trace
  std::vector<Placed> nodes;  // in start order
};

// A launch of device work: the node it ran in, and when.
struct Launched {
  uint32_t node = 0;
  uint64_t ts = 0, node_start = 0;
};

// A TensorFlow op of a saved graph with producers: where it ran, and their names (a name id).
struct TfOp {
  Placed at;
  uint32_t inputs = 0;
};

struct RankBuild {
  size_t rank = 0;  // index in Graph::ranks
  uint64_t a = 0, b = 0;
  std::vector<Lane> lanes;
  std::vector<Placed> by_end;
  std::unordered_map<int64_t, Launched> launched;       // by correlation id
  std::unordered_map<uint32_t, int64_t> device;         // device node -> its correlation id
  std::vector<std::pair<uint32_t, int64_t>> backwards;  // backward op nodes, their sequence
  // TensorFlow graphs: the step's ops by node name (by end once placed), those with producers,
  // and each op's producers that ran before it in the step (TfProducers)
  std::unordered_map<std::string_view, std::vector<Placed>> tf_nodes;
  std::vector<TfOp> tf_ops;
  std::unordered_map<uint32_t, std::vector<Placed>> fed;
  std::unique_ptr<InnerPlacer> inner;  // what its nodes keep of what ran inside them
};

// A rank's call of a collective, split at its arrival and at the transfer's end; of a
// point-to-point instance, the sender's call is whole (`a`, with no `e`) and the receiver's is
// split at its own exit (the data arrived).
struct Split {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t a = 0, e = kNone;
  size_t rank = 0;
  uint64_t enter = 0;  // the arrival's
};

std::string ResourceName(const model::TraceModel& m, const model::Track& t) {
  if (t.kind == layout::TrackKind::kDevice) return t.name;
  std::string pid = "pid " + std::to_string(m.processes[t.process].meta.pid) + " ";
  std::string tid = "thread " + std::to_string(t.id);
  if (t.name.rfind(tid, 0) == 0) return pid + t.name;  // already "thread T (name)"
  return pid + tid + (t.name.empty() ? "" : " (" + t.name + ")");
}

// A thread's own name (its comm), without the "thread T (...)" some traces give.
std::string_view Comm(const model::Track& t) {
  std::string_view n = t.name;
  if (n.rfind("thread ", 0) == 0 && n.back() == ')') {
    size_t open = n.find(" (");
    if (open != std::string_view::npos) return n.substr(open + 2, n.size() - open - 3);
  }
  return n;
}

// Whether thread t is one the interpreter made (Resource::python): the process's main thread,
// or one with its name (a new thread keeps its creator's name; frameworks name their pools).
bool PythonThread(const model::TraceModel& m, const model::Track& t) {
  const model::Process& p = m.processes[t.process];
  if (t.kind == layout::TrackKind::kDevice) return false;
  uint64_t pid = static_cast<uint64_t>(p.meta.pid);
  if (t.id == pid) return true;
  for (size_t i : p.tracks)
    if (m.tracks[i].id == pid && m.tracks[i].kind != layout::TrackKind::kDevice)
      return !Comm(m.tracks[i]).empty() && Comm(m.tracks[i]) == Comm(t);
  return false;
}

// The node of another resource that ended last in (p, s], started before s, and within
// `wake` of s or in the last quarter of the gap (a loaded machine wakes threads late); nullptr
// when none.
const Placed* Infer(const RankBuild& rb, uint32_t resource, uint64_t p, uint64_t s, uint64_t wake) {
  auto it = std::upper_bound(rb.by_end.begin(), rb.by_end.end(), s,
                             [](uint64_t t, const Placed& x) { return t < x.end; });
  for (int looked = 0; it != rb.by_end.begin() && looked < 64; ++looked) {
    const Placed& c = *--it;
    if (c.end <= p || (s - c.end > wake && s - c.end > (s - p) / 4)) return nullptr;
    if (c.resource != resource && c.start < s) return &c;
  }
  return nullptr;
}

class StepBuilder {
 public:
  StepBuilder(const std::vector<RankInput>& ranks, const std::vector<Instance>& instances,
              const std::vector<PointToPoint>& pairs, size_t k, Graph* g)
      : ranks_(ranks), inst_(instances), pairs_(pairs), k_(k), g_(*g), splits_(instances.size()) {
    t0_ = UINT64_MAX;
    for (const auto& r : ranks) t0_ = std::min(t0_, r.steps[k].start);
    g_.origin = t0_;
  }
  void Run();

 private:
  void Place(const RankInput& r, RankBuild* rb);
  void PlaceAtom(const RankInput& r, const Atom& at, Lane* lane, RankBuild* rb);
  uint32_t Node(Lane* lane, RankBuild* rb, uint32_t label, NodeKind kind, uint64_t start,
                uint64_t end);
  uint32_t SharedLane(const std::string& name, uint64_t start, uint64_t end, bool link);
  void Collectives();
  void SendRecv(const Instance& in, const std::vector<Split>& ends);
  void PointToPoints(const std::vector<RankBuild>& builds);
  void Edges(const RankBuild& rb);
  void AutogradEdges(const RankInput& r, const RankBuild& rb);
  void LaneEdges(const RankBuild& rb, const Lane& lane);
  bool GraphEdges(const RankBuild& rb, const Placed& n, uint32_t prev, uint64_t p);
  uint64_t Rel(uint64_t t) const { return t - t0_; }

  const std::vector<RankInput>& ranks_;
  const std::vector<Instance>& inst_;
  const std::vector<PointToPoint>& pairs_;
  size_t k_;
  Graph& g_;
  uint64_t t0_ = 0;
  std::vector<std::vector<Split>> splits_;  // by instance
  // Nodes that waited for a transfer: collectives' exits, receives' completions.
  std::unordered_set<uint32_t> waited_;
  // By rank: the transfers of the collectives it joined (their nodes).
  std::map<size_t, std::vector<uint32_t>> transfers_;
  const replay::Node* WokeBy(const RankBuild& rb, uint64_t p, uint64_t s, uint32_t* t) const;
  std::vector<uint32_t> labels_;  // the current rank's name id -> label
  // Shared resources (communicators, links) by name: their lanes, each busy until a time.
  std::map<std::string, std::vector<std::pair<uint32_t, uint64_t>>> shared_;
};

uint32_t StepBuilder::Node(Lane* lane, RankBuild* rb, uint32_t label, NodeKind kind, uint64_t start,
                           uint64_t end) {
  uint32_t v = g_.AddNode(lane->resource, label, kind, end > start ? end - start : 0, Rel(start));
  Placed p{start, std::max(start, end), v, lane->resource};
  lane->nodes.push_back(p);
  rb->by_end.push_back(p);
  return v;
}

void StepBuilder::PlaceAtom(const RankInput& r, const Atom& at, Lane* lane, RankBuild* rb) {
  if (at.name >= labels_.size()) labels_.resize(at.name + 1, UINT32_MAX);
  uint32_t& label = labels_[at.name];
  if (label == UINT32_MAX)
    label = g_.AddLabel(std::string(r.m->processes[r.process].Name(at.name)));
  const Arrival* arr = nullptr;
  if (at.kind == NodeKind::kComm) {
    auto it = std::lower_bound(r.arrivals.begin(), r.arrivals.end(), at.start,
                               [](const Arrival& x, uint64_t t) { return x.enter < t; });
    if (it != r.arrivals.end() && it->enter <= at.end && it->exit <= at.end) arr = &*it;
  }
  if (!arr || arr->send) {
    uint32_t v = Node(lane, rb, label, at.kind, at.start, at.end);
    rb->inner->Place(at, lane->track, v);
    if (arr) splits_[arr->instance].push_back({v, Split::kNone, rb->rank, arr->enter});
    if (at.corr >= 0) rb->device[v] = at.corr;
    if (at.grad_bytes >= 0) g_.nodes[v].grad = true, g_.nodes[v].bytes = at.grad_bytes;
    g_.nodes[v].float_ops = at.float_ops, g_.nodes[v].moved_bytes = at.moved_bytes;
    if (at.backward_seq >= 0) rb->backwards.emplace_back(v, at.backward_seq);
    if (at.tf_node) {
      rb->tf_nodes[r.m->processes[r.process].Name(at.tf_node)].push_back(lane->nodes.back());
      if (at.tf_inputs) rb->tf_ops.push_back({lane->nodes.back(), at.tf_inputs});
    }
    return;
  }
  const Instance& in = inst_[arr->instance];
  uint64_t done =
      in.p2p ? std::max(in.last_enter, arr->exit) : std::max(in.last_enter, in.first_exit);
  Split sp;
  sp.rank = rb->rank;
  sp.enter = arr->enter;
  // The call before its arrival and after the transfer is the rank's own (runtime) work.
  sp.a = Node(lane, rb, label, NodeKind::kRuntime, at.start, arr->enter);
  sp.e = Node(lane, rb, label, NodeKind::kRuntime, std::min(done, at.end), at.end);
  splits_[arr->instance].push_back(sp);
}

// The launches in the step on this lane, each with the node that ran it (the one open at it).
void AddLaunches(const std::vector<Launch>& launches, const Lane& lane, RankBuild* rb) {
  auto it = std::lower_bound(launches.begin(), launches.end(), rb->a,
                             [](const Launch& l, uint64_t t) { return l.ts < t; });
  for (; it != launches.end() && it->ts < rb->b; ++it) {
    auto n = std::upper_bound(lane.nodes.begin(), lane.nodes.end(), it->ts,
                              [](uint64_t t, const Placed& p) { return t < p.start; });
    if (n == lane.nodes.begin() || (--n)->end < it->ts) continue;
    rb->launched[it->corr] = {n->node, it->ts, n->start};
  }
}

// The CPU time each node of `lane` used while it ran, where the Python sampler read its thread's
// CPU clock (Node::cpu), and its expected time holding the GIL, where the sampler saw the thread
// hold it (Node::gil; spread, since each look is a sample: SpreadGilByOp sums it by op).
void SetCpu(const RankInput& r, const Lane& lane, Graph* g) {
  if (!r.code) return;
  uint64_t tid = r.m->tracks[lane.track].id;
  if (auto it = r.code->cpu.find(tid); it != r.code->cpu.end())
    for (const Placed& p : lane.nodes) g->nodes[p.node].cpu = it->second.During(p.start, p.end);
  if (auto it = r.code->gil.find(tid); it != r.code->gil.end())
    for (const Placed& p : lane.nodes) g->nodes[p.node].gil = it->second.Spread(p.start, p.end);
}

void StepBuilder::Place(const RankInput& r, RankBuild* rb) {
  labels_.clear();
  rb->inner = std::make_unique<InnerPlacer>(r, &g_);
  const model::Process& p = r.m->processes[r.process];
  // A JAX step dispatched asynchronously: its call, then its execution; what started between
  // them (the next steps' calls, the earlier steps' executions) is theirs (StepParts).
  std::vector<Window> parts = StepParts(r.steps[k_]);
  auto between = [&](uint64_t t) {
    return std::none_of(parts.begin(), parts.end(),
                        [&](const Window& w) { return t >= w.start && t < w.end; });
  };
  for (size_t t : p.tracks) {
    const std::vector<Atom>& atoms = (*r.atoms)[t].atoms;
    auto it = std::lower_bound(atoms.begin(), atoms.end(), rb->a,
                               [](const Atom& x, uint64_t s) { return x.start < s; });
    while (it != atoms.end() && it->start < rb->b && between(it->start)) ++it;
    if (it == atoms.end() || it->start >= rb->b) continue;
    Lane lane;
    lane.resource =
        g_.AddResource(ResourceName(*r.m, r.m->tracks[t]), static_cast<int32_t>(rb->rank));
    g_.resources[lane.resource].python = PythonThread(*r.m, r.m->tracks[t]);
    lane.track = t;
    for (; it != atoms.end() && it->start < rb->b; ++it)
      if (!between(it->start)) PlaceAtom(r, *it, &lane, rb);
    AddLaunches((*r.atoms)[t].launches, lane, rb);
    SetCpu(r, lane, &g_);
    rb->lanes.push_back(std::move(lane));
  }
  std::sort(rb->by_end.begin(), rb->by_end.end(),
            [](const Placed& x, const Placed& y) { return x.end < y.end; });
}

// The resource of a shared lane of `name` (a communicator, a link) free at `start`, busy until
// `end` then: transfers that overlapped in time go to lanes of their own ("communicator 0 (2)"),
// so that the replay does not queue them (gloo runs a process group's collectives on several
// threads).
uint32_t StepBuilder::SharedLane(const std::string& name, uint64_t start, uint64_t end, bool link) {
  auto& lanes = shared_[name];
  auto lane =
      std::find_if(lanes.begin(), lanes.end(), [&](const auto& l) { return l.second <= start; });
  if (lane == lanes.end()) {
    std::string n = lanes.empty() ? name : name + " (" + std::to_string(lanes.size() + 1) + ")";
    lanes.emplace_back(g_.AddResource(n, -1), 0);
    g_.resources[lanes.back().first].link = link;
    lane = std::prev(lanes.end());
  }
  lane->second = end;
  return lane->first;
}

// Each collective that joined every rank: one transfer node on its communicator.
void StepBuilder::Collectives() {
  std::vector<size_t> joined;
  for (size_t i = 0; i < inst_.size(); ++i)
    if (splits_[i].size() >= 2 && splits_[i].size() == inst_[i].ranks) joined.push_back(i);
  std::sort(joined.begin(), joined.end(),
            [&](size_t x, size_t y) { return inst_[x].last_enter < inst_[y].last_enter; });
  for (size_t i : joined) {
    const Instance& in = inst_[i];
    if (in.p2p) {
      SendRecv(in, splits_[i]);
      continue;
    }
    uint64_t end = std::max(in.first_exit, in.last_enter);
    uint32_t lane = SharedLane("communicator " + (in.group.empty() ? "0" : in.group), in.last_enter,
                               end, false);
    uint32_t c = g_.AddNode(lane, g_.AddLabel(in.name), NodeKind::kComm, end - in.last_enter,
                            Rel(in.last_enter));
    g_.nodes[c].bytes = in.bytes;
    for (const Split& s : splits_[i]) {
      transfers_[s.rank].push_back(c);
      g_.AddEdge(s.a, c, 0, EdgeKind::kCollective);
      g_.AddEdge(c, s.e, 0, EdgeKind::kCollective);
      waited_.insert(s.e);
    }
  }
}

// A send paired with its receive: one transfer node on the link from the sender to the
// receiver, from the later of the two arrivals to the receive's end; it follows the send's call
// at the send's offset into it and the receive's call up to its arrival, and the rest of the
// receive's call waits for it. The sender waits for nothing (its data is buffered).
void StepBuilder::SendRecv(const Instance& in, const std::vector<Split>& ends) {
  auto send =
      std::find_if(ends.begin(), ends.end(), [](const Split& s) { return s.e == Split::kNone; });
  auto recv =
      std::find_if(ends.begin(), ends.end(), [](const Split& s) { return s.e != Split::kNone; });
  if (send == ends.end() || recv == ends.end()) return;
  uint64_t end = std::max(in.last_enter, t0_ + g_.nodes[recv->e].measured);
  uint32_t lane = SharedLane(g_.ranks[send->rank].label + " -> " + g_.ranks[recv->rank].label,
                             in.last_enter, end, true);
  uint32_t t = g_.AddNode(lane, g_.AddLabel(in.name), NodeKind::kComm, end - in.last_enter,
                          Rel(in.last_enter));
  g_.nodes[t].bytes = in.bytes;
  uint64_t send_start = t0_ + g_.nodes[send->a].measured;
  g_.AddEdge(send->a, t, send->enter > send_start ? send->enter - send_start : 0, EdgeKind::kP2p,
             true);
  g_.AddEdge(recv->a, t, 0, EdgeKind::kP2p);
  g_.AddEdge(t, recv->e, 0, EdgeKind::kP2p);
  waited_.insert(recv->e);
}

// The node of rb that started at t, else (where `running`) one running at t, else the first
// to start within kWakeNs after t (a range's first leaf: the receive's ranges hold the thread
// pool's instants); nullptr when none.
const Placed* NodeAt(const RankBuild& rb, uint64_t t, bool running) {
  const Placed *at = nullptr, *after = nullptr;
  for (const Lane& lane : rb.lanes) {
    auto it = std::upper_bound(lane.nodes.begin(), lane.nodes.end(), t,
                               [](uint64_t x, const Placed& p) { return x < p.start; });
    if (it != lane.nodes.end() && it->start <= t + kWakeNs && (!after || it->start < after->start))
      after = &*it;
    if (it == lane.nodes.begin()) continue;
    const Placed& p = *std::prev(it);
    if (p.start == t) return &p;
    if (running && t <= p.end && !at) at = &p;
  }
  return at ? at : after;
}

// Where the wake-ups that ran n began, after `from`: back from n through its thread's previous
// node where n followed it within kWakeNs, else through the node of another thread it was
// inferred to wait for (Infer), as long as they started after `from`.
const Placed* WokenBy(const RankBuild& rb, const Placed* n, uint64_t from) {
  for (int hops = 0; hops < 64; ++hops) {
    auto lane = std::find_if(rb.lanes.begin(), rb.lanes.end(),
                             [&](const Lane& l) { return l.resource == n->resource; });
    if (lane == rb.lanes.end()) return n;
    auto it = std::lower_bound(lane->nodes.begin(), lane->nodes.end(), n->start,
                               [](const Placed& p, uint64_t t) { return p.start < t; });
    while (it != lane->nodes.end() && it->node != n->node) ++it;
    if (it == lane->nodes.end()) return n;
    const Placed* prev = it == lane->nodes.begin() ? nullptr : &*std::prev(it);
    const Placed* by = prev && n->start <= prev->end + kWakeNs
                           ? prev
                           : Infer(rb, n->resource, prev ? prev->end : rb.a, n->start, kWakeNs);
    if (!by || by->start <= from) return n;
    n = by;
  }
  return n;
}

// Each tensor sent between two processes in the step: one transfer node on the link from the
// sender to the receiver, from the later of the send's start and the receive's request to the
// tensor's arrival. It follows both at their measured offsets into the nodes that ran them
// (from their start: a _Send hands its tensor over while it runs). It arrives where the
// wake-ups that ran the receive's done callback began while it was in flight (gRPC's threads
// take the response, then schedule the callback: WokenBy); that node and the callback's follow
// the transfer and wait for nothing else.
void StepBuilder::PointToPoints(const std::vector<RankBuild>& builds) {
  uint64_t b = 0;  // the step's last end over the ranks
  for (const RankBuild& rb : builds) b = std::max(b, rb.b);
  std::vector<const PointToPoint*> order;  // pairs_ are sorted by recv_start
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), t0_,
                             [](const PointToPoint& p, uint64_t t) { return p.recv_start < t; });
  for (; it != pairs_.end() && it->recv_start < b; ++it) order.push_back(&*it);
  auto start_of = [](const PointToPoint* p) { return std::max(p->send_start, p->recv_start); };
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto* x, const auto* y) { return start_of(x) < start_of(y); });
  for (const PointToPoint* p : order) {
    const RankBuild &s = builds[p->sender], &r = builds[p->receiver];
    uint64_t start = start_of(p);
    if (p->recv_start < r.a || p->recv_start >= r.b || p->recv_done < start) continue;
    const Placed* send = NodeAt(s, p->send_start, true);
    const Placed* ask = NodeAt(r, p->recv_start, true);
    const Placed* done = NodeAt(r, p->recv_done, false);
    // The send and the request must have begun by the transfer's start (a node found after
    // them would be a dependency the trace does not show, or a cycle).
    if (!send || !ask || !done || send->start > start || ask->start > start) continue;
    const Placed* woke = WokenBy(r, done, start);
    if (woke == done) woke = nullptr;
    uint64_t end = woke ? woke->start : done->start;
    uint32_t lane =
        SharedLane(g_.ranks[s.rank].label + " -> " + g_.ranks[r.rank].label, start, end, true);
    uint32_t t = g_.AddNode(lane, g_.AddLabel("recv " + p->tensor), NodeKind::kComm, end - start,
                            Rel(start));
    g_.nodes[t].bytes = p->bytes;
    auto since = [](uint64_t t, const Placed* n) { return t > n->start ? t - n->start : 0; };
    g_.AddEdge(send->node, t, since(p->send_start, send), EdgeKind::kP2p, true);
    g_.AddEdge(ask->node, t, since(p->recv_start, ask), EdgeKind::kP2p, true);
    for (const Placed* n : {woke, done})
      if (n) {
        g_.AddEdge(t, n->node, n->start - end, EdgeKind::kP2p);
        waited_.insert(n->node);
      }
  }
}

// The launch of device node v, if the step holds it.
const Launched* LaunchOf(const RankBuild& rb, uint32_t v) {
  auto d = rb.device.find(v);
  if (d == rb.device.end()) return nullptr;
  auto l = rb.launched.find(d->second);
  return l == rb.launched.end() ? nullptr : &l->second;
}

// The transfer of a collective rank rb joined that began before s and ended last in (p, s]
// (absolute times): the end of a wait that no node of the rank shows (the thread resumed
// before its collective's range on another thread ended); nullptr when none.
const replay::Node* StepBuilder::WokeBy(const RankBuild& rb, uint64_t p, uint64_t s,
                                        uint32_t* t) const {
  auto it = transfers_.find(rb.rank);
  const replay::Node* best = nullptr;
  if (it == transfers_.end()) return nullptr;
  for (uint32_t c : it->second) {
    const replay::Node& n = g_.nodes[c];
    uint64_t end = n.measured + n.duration;
    // began before s too: a transfer of a collective the node at s arrives at begins no
    // earlier than that arrival (its last rank's), and would wait for it (a cycle)
    if (end > Rel(p) && end <= Rel(s) && n.measured < Rel(s) &&
        (!best || end > best->measured + best->duration))
      best = &n, *t = c;
  }
  return best;
}

// A lane's edges: its order, with the gap before each node, or no gap where the node waited
// for another resource's node (inferred), for its launch (a kernel that started within
// kWakeNs of it), or for a collective's transfer; and each kernel's launch, from the start of
// the node that launched it.
void StepBuilder::LaneEdges(const RankBuild& rb, const Lane& lane) {
  uint32_t prev = g_.ranks[rb.rank].source;
  uint64_t p = rb.a;
  for (const Placed& n : lane.nodes) {
    uint64_t gap = n.start > p ? n.start - p : 0;
    const Launched* l = LaunchOf(rb, n.node);
    bool waited = waited_.count(n.node) || (l && n.start <= l->ts + kWakeNs);
    bool graph = !waited && GraphEdges(rb, n, prev, p);
    const Placed* m =
        gap && !waited && !graph ? Infer(rb, lane.resource, p, n.start, kWakeNs) : nullptr;
    // Device work launched at or after n's start cannot have woken n (a trace whose device
    // times are not the device's own, or a clock off, shows it ending before; it would be a cycle).
    if (const Launched* ml = m ? LaunchOf(rb, m->node) : nullptr; ml && ml->ts >= n.start)
      m = nullptr;
    uint32_t t = 0;
    const replay::Node* woke =
        gap > kWakeNs && !waited && !graph && !m ? WokeBy(rb, p, n.start, &t) : nullptr;
    if (!graph) g_.AddEdge(prev, n.node, m || waited || woke ? 0 : gap);
    if (m) g_.AddEdge(m->node, n.node, n.start - m->end, EdgeKind::kInferred);
    if (woke)
      g_.AddEdge(t, n.node, Rel(n.start) - (woke->measured + woke->duration), EdgeKind::kInferred);
    if (l) {
      g_.AddEdge(l->node, n.node, n.start > l->node_start ? n.start - l->node_start : 0,
                 EdgeKind::kFlow, true);
      if (uint32_t in = rb.inner->InnerAt(l->node, l->ts); in != kNoIndex)
        g_.inner->launches.emplace_back(in, n.node);
    }
    prev = n.node;
    p = std::max(p, n.end);
  }
}

// Each TensorFlow op's producers in its graph (by node name): of each, the instance that ended
// last before the op started in the step (a loop's iteration, a function called twice).
void TfProducers(const model::Process& proc, RankBuild* rb) {
  for (auto& named : rb->tf_nodes)
    std::sort(named.second.begin(), named.second.end(),
              [](const Placed& x, const Placed& y) { return x.end < y.end; });
  for (const TfOp& op : rb->tf_ops) {
    std::string_view list = proc.Name(op.inputs);
    std::vector<Placed> producers;
    for (size_t at = 0; at < list.size();) {
      size_t comma = std::min(list.find(',', at), list.size());
      auto named = rb->tf_nodes.find(list.substr(at, comma - at));
      at = comma + 1;
      if (named == rb->tf_nodes.end()) continue;
      const std::vector<Placed>& v = named->second;
      auto e = std::upper_bound(v.begin(), v.end(), op.at.start,
                                [](uint64_t t, const Placed& x) { return t < x.end; });
      // Started before the op, too (two empty ops at one time on one thread: no cycle).
      if (e != v.begin() && std::prev(e)->start < op.at.start) producers.push_back(*std::prev(e));
    }
    if (!producers.empty()) rb->fed[op.at.node] = std::move(producers);
  }
}

// A TensorFlow op fed by producers that ran in the step (TfProducers): its lane's order, and an
// edge from each producer, in place of an inferred one. The measured delay goes to the later of
// the two: after the producers when they ended after the lane's previous node (at p), else
// after that node. False (no edge added) for an op without producers in the step.
bool StepBuilder::GraphEdges(const RankBuild& rb, const Placed& n, uint32_t prev, uint64_t p) {
  auto fed = rb.fed.find(n.node);
  if (fed == rb.fed.end()) return false;
  uint64_t ready = 0;
  for (const Placed& q : fed->second) ready = std::max(ready, q.end);
  bool by_producers = ready > p;
  g_.AddEdge(prev, n.node, by_producers || n.start <= p ? 0 : n.start - p);
  for (const Placed& q : fed->second)
    g_.AddEdge(q.node, n.node, by_producers && q.end == ready ? n.start - ready : 0,
               EdgeKind::kGraph);
  return true;
}

// Autograd's own dependencies: each backward op after the forward op of its sequence number (the
// latest one in the step before it), where they ran on different resources (on one, its order
// says it already).
void StepBuilder::AutogradEdges(const RankInput& r, const RankBuild& rb) {
  for (auto [v, seq] : rb.backwards) {
    uint64_t at = g_.nodes[v].measured + t0_;
    const Placed* best = nullptr;
    for (const Lane& lane : rb.lanes) {
      const auto& fw = (*r.atoms)[lane.track].forwards;
      auto it =
          std::lower_bound(fw.begin(), fw.end(), std::make_pair(seq, at),
                           [](const ForwardSeq& f, const std::pair<int64_t, uint64_t>& k) {
                             return f.seq != k.first ? f.seq < k.first : f.atom_start < k.second;
                           });
      if (it == fw.begin() || (--it)->seq != seq || it->atom_start < rb.a) continue;
      auto n = std::lower_bound(lane.nodes.begin(), lane.nodes.end(), it->atom_start,
                                [](const Placed& p, uint64_t t) { return p.start < t; });
      if (n != lane.nodes.end() && n->start == it->atom_start && (!best || n->start > best->start))
        best = &*n;
    }
    if (best && best->resource != g_.nodes[v].resource && best->end <= at)
      g_.AddEdge(best->node, v, 0, EdgeKind::kAutograd);  // no wait of its own: a dependency
  }
}

// Device work takes the FLOPs and bytes of the op that launched it, where it gives none of its
// own (PyTorch's and TensorFlow's counts are on the host op): shared among the device nodes that
// op launched by their measured time. The op keeps none: its FLOPs are the device's work.
void DeviceFlops(const RankBuild& rb, Graph* g) {
  std::map<uint32_t, std::vector<uint32_t>> by_op;
  for (auto [v, corr] : rb.device)
    if (const Launched* l = LaunchOf(rb, v); l && g->nodes[v].float_ops < 0)
      by_op[l->node].push_back(v);
  for (auto& [op, kernels] : by_op) {
    replay::Node& host = g->nodes[op];
    if (host.float_ops < 0) continue;
    double total = 0;
    for (uint32_t v : kernels) total += static_cast<double>(g->nodes[v].took);
    for (uint32_t v : kernels) {
      double share = total > 0 ? static_cast<double>(g->nodes[v].took) / total
                               : 1.0 / static_cast<double>(kernels.size());
      g->nodes[v].float_ops = std::llround(static_cast<double>(host.float_ops) * share);
      if (host.moved_bytes >= 0)
        g->nodes[v].moved_bytes = std::llround(static_cast<double>(host.moved_bytes) * share);
    }
    host.float_ops = host.moved_bytes = -1;
  }
}

void StepBuilder::Edges(const RankBuild& rb) {
  const RankStep& rs = g_.ranks[rb.rank];
  for (const Lane& lane : rb.lanes) LaneEdges(rb, lane);
  const Placed* last = Infer(rb, UINT32_MAX, rb.a, rb.b, UINT64_MAX);
  g_.AddEdge(rs.source, rs.sink, last ? 0 : rb.b - rb.a);
  if (last) g_.AddEdge(last->node, rs.sink, rb.b - last->end, EdgeKind::kInferred);
}

void StepBuilder::Run() {
  std::vector<RankBuild> builds(ranks_.size());
  for (size_t i = 0; i < ranks_.size(); ++i) {
    const Step& s = ranks_[i].steps[k_];
    builds[i].a = s.start;
    builds[i].b = s.end;
    builds[i].rank = g_.AddRank(ranks_[i].label, Rel(s.start), s.end - s.start);
    g_.ranks[builds[i].rank].participant = ranks_[i].participant;
    Place(ranks_[i], &builds[i]);
    builds[i].inner->LinkBackwards(builds[i].backwards);
    TfProducers(ranks_[i].m->processes[ranks_[i].process], &builds[i]);
  }
  Collectives();
  PointToPoints(builds);
  for (const auto& rb : builds) Edges(rb);
  for (const auto& rb : builds) DeviceFlops(rb, &g_);
  for (size_t i = 0; i < ranks_.size(); ++i) AutogradEdges(ranks_[i], builds[i]);
}

}  // namespace

StepGraph BuildStep(const std::vector<RankInput>& ranks, const std::vector<Instance>& instances,
                    const std::vector<PointToPoint>& pairs, size_t k,
                    const std::shared_ptr<LabelTable>& names) {
  StepGraph sg;
  sg.graph.names = names;
  for (const auto& r : ranks)
    if (!r.participant) sg.numbers.push_back(r.steps[k].number);
  StepBuilder(ranks, instances, pairs, k, &sg.graph).Run();
  return sg;
}

}  // namespace tt::analysis::replay
