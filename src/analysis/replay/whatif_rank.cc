// What-ifs of one rank: rank=R:SPEC, any what-if that changes durations and gaps (REGEX=F,
// scope:, line:, input=, comm=, precision=, op-fusion=) on the processes of rank R only (the
// rank their launcher gave them, as comm and the run summary name it); and rank=R:like=0, rank
// R's step made like the median rank's: in each step, the rank whose own time (its compute
// durations and the gaps before them on its threads) is the median of the other ranks' lends
// rank R its compute durations and gaps, node by node (threads paired by their names, the
// k-th node of a label on a thread with the k-th of that label on the paired thread), where
// they are shorter than rank R's own (the median rank's gaps and ops hold its waits for rank R
// where the trace shows no wake-up); work of rank R that the median rank had none of (a
// straggler's sleep) is gone. Waits (collectives
// as one rank saw them, input waits) stay rank R's own: they follow from the others.
#include <algorithm>
#include <charconv>
#include <map>

#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

// The rank its launcher gave g's rank `r` ("rank 3": 3), -1 for a process without one.
int64_t RankNumber(const RankStep& r) {
  int64_t v = -1;
  if (r.label.rfind("rank ", 0) != 0) return -1;
  const char* end = r.label.data() + r.label.size();
  return std::from_chars(r.label.data() + 5, end, v).ptr == end ? v : -1;
}

// g's index of the rank numbered `rank`; kNoIndex where g has none.
uint32_t RankIndex(const Graph& g, int64_t rank) {
  for (uint32_t i = 0; i < g.ranks.size(); ++i)
    if (!g.ranks[i].participant && RankNumber(g.ranks[i]) == rank) return i;
  return kNoIndex;
}

std::string RanksOf(const Graph& g) {
  std::string out;
  for (const RankStep& r : g.ranks)
    if (!r.participant) out += (out.empty() ? "" : ", ") + r.label;
  return out.empty() ? "none" : out;
}

// Notes why w matched nothing (no rank R in the graphs), once.
void NoteNoRank(const WhatIf& w, const Graph& g) {
  if (!w.near)
    w.near = std::make_shared<std::string>("no rank " + std::to_string(w.rank) +
                                           " (the ranks: " + RanksOf(g) + ")");
}

bool OnRank(const Graph& g, uint32_t v, uint32_t r) {
  return g.resources[g.nodes[v].resource].rank == static_cast<int32_t>(r);
}

// rank=R:SPEC: SPEC applied to a copy of g, whose changes to rank R's nodes and to the gaps
// before them are kept. In the copy, a node of rank R that another what-if already removed
// (duration 0) has a duration, so that SPEC's matching it shows (it stays removed).
size_t ApplyOnRank(const WhatIf& w, Graph* g) {
  constexpr uint64_t kShows = 1'000'000;
  uint32_t r = RankIndex(*g, w.rank);
  if (r == kNoIndex) return NoteNoRank(w, *g), 0;
  Graph h = *g;
  for (uint32_t v = 0; v < h.nodes.size(); ++v)
    if (OnRank(h, v, r) && h.nodes[v].duration == 0) h.nodes[v].duration = kShows;
  std::vector<Node> before = h.nodes;
  if (w.inner->kind->apply(*w.inner, &h) == 0) return 0;
  std::vector<char> changed(g->nodes.size(), 0);
  for (uint32_t v = 0; v < g->nodes.size(); ++v)
    if (OnRank(*g, v, r) && h.nodes[v].duration != before[v].duration) {
      if (g->nodes[v].duration != 0) g->nodes[v].duration = h.nodes[v].duration;
      changed[v] = 1;
    }
  for (size_t i = 0; i < g->edges.size() && i < h.edges.size(); ++i) {
    Edge& e = g->edges[i];
    if (!OnRank(*g, e.to, r) || h.edges[i].gap == e.gap) continue;
    e.gap = h.edges[i].gap;
    changed[e.to] = 1;
  }
  // What precision= and op-fusion= changed against the roofline (roofline.h): rank R's nodes.
  for (size_t i = g->bounded.size(); i < h.bounded.size(); ++i)
    if (OnRank(*g, h.bounded[i].node, r)) g->bounded.push_back(h.bounded[i]);
  return static_cast<size_t>(std::count(changed.begin(), changed.end(), 1));
}

bool IsCompute(NodeKind k) {
  return k == NodeKind::kOp || k == NodeKind::kRuntime || k == NodeKind::kInput ||
         k == NodeKind::kDevice;
}

// Per node, the resource edge into it (kNoIndex: none).
std::vector<uint32_t> ResourceEdgeInto(const Graph& g) {
  std::vector<uint32_t> in(g.nodes.size(), kNoIndex);
  for (uint32_t i = 0; i < g.edges.size(); ++i)
    if (g.edges[i].kind == EdgeKind::kResource) in[g.edges[i].to] = i;
  return in;
}

// A rank's own time in the step: its compute nodes' durations and the gaps before them on
// their resources.
double OwnTime(const Graph& g, uint32_t r, const std::vector<uint32_t>& in) {
  double t = 0;
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    if (!OnRank(g, v, r) || !IsCompute(g.nodes[v].kind)) continue;
    t += static_cast<double>(g.nodes[v].duration);
    if (in[v] != kNoIndex) t += static_cast<double>(g.edges[in[v]].gap);
  }
  return t;
}

// The median of the ranks other than `r` by their own time (the lower of two middle ones).
uint32_t MedianRank(const Graph& g, uint32_t r, const std::vector<uint32_t>& in) {
  std::vector<std::pair<double, uint32_t>> others;
  for (uint32_t i = 0; i < g.ranks.size(); ++i)
    if (i != r && !g.ranks[i].participant) others.push_back({OwnTime(g, i, in), i});
  if (others.empty()) return kNoIndex;
  std::sort(others.begin(), others.end());
  return others[(others.size() - 1) / 2].second;
}

// A resource's name without its numbers (pids, thread ids): "pid  thread  (python3)".
std::string Shape(const std::string& name) {
  std::string out;
  for (char c : name)
    if (c < '0' || c > '9') out += c;
  return out;
}

// By node: whether it is a rank's part of a collective or a send/receive (its call before
// its arrival or after the transfer): waiting, not compute.
std::vector<char> CommParts(const Graph& g) {
  std::vector<char> part(g.nodes.size(), 0);
  for (const Edge& e : g.edges)
    if (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kP2p) part[e.from] = part[e.to] = 1;
  return part;
}

// Rank r's compute nodes, each with its counterpart on rank m (kNoIndex: none): resources
// paired by their shape and order, nodes by label and order on them; a rank's parts of
// collectives stay its own.
std::vector<std::pair<uint32_t, uint32_t>> Counterparts(const Graph& g, uint32_t r, uint32_t m) {
  // (shape, k-th resource of that shape) -> (label -> its nodes in order), for r and for m.
  using Lane = std::map<uint32_t, std::vector<uint32_t>>;
  std::map<std::pair<std::string, size_t>, Lane> of[2];
  std::vector<std::pair<std::string, size_t>> key(g.resources.size());
  std::map<std::string, size_t> seen[2];
  for (uint32_t i = 0; i < g.resources.size(); ++i) {
    int32_t rank = g.resources[i].rank;
    if (rank != static_cast<int32_t>(r) && rank != static_cast<int32_t>(m)) continue;
    size_t side = rank == static_cast<int32_t>(r) ? 0 : 1;
    std::string s = Shape(g.resources[i].name);
    key[i] = {s, seen[side][s]++};
  }
  std::vector<char> comm = CommParts(g);
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    const Node& n = g.nodes[v];
    bool mine = OnRank(g, v, r);
    if ((!mine && !OnRank(g, v, m)) || !IsCompute(n.kind) || comm[v]) continue;
    of[mine ? 0 : 1][key[n.resource]][n.label].push_back(v);
  }
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (auto& [k, lane] : of[0])
    for (auto& [label, nodes] : lane) {
      const std::vector<uint32_t>* theirs = nullptr;
      if (auto l = of[1].find(k); l != of[1].end())
        if (auto x = l->second.find(label); x != l->second.end()) theirs = &x->second;
      for (size_t i = 0; i < nodes.size(); ++i)
        out.push_back({nodes[i], theirs && i < theirs->size() ? (*theirs)[i] : kNoIndex});
    }
  return out;
}

// rank=R:like=0: rank R's compute nodes and the gaps before them as their counterparts' on the
// median rank; its nodes without one removed.
size_t ApplyLike(const WhatIf& w, Graph* g) {
  uint32_t r = RankIndex(*g, w.rank);
  if (r == kNoIndex) return NoteNoRank(w, *g), 0;
  std::vector<uint32_t> in = ResourceEdgeInto(*g);
  uint32_t m = MedianRank(*g, r, in);
  if (m == kNoIndex) {
    if (!w.near)
      w.near = std::make_shared<std::string>("no rank but rank " + std::to_string(w.rank));
    return 0;
  }
  std::vector<char> removed(g->nodes.size(), 0);
  size_t n = 0;
  for (auto [v, u] : Counterparts(*g, r, m)) {
    uint64_t gap = u == kNoIndex || in[u] == kNoIndex ? 0 : g->edges[in[u]].gap;
    uint64_t& d = g->nodes[v].duration;
    d = u == kNoIndex ? 0 : std::min(d, g->nodes[u].duration);
    if (in[v] != kNoIndex) g->edges[in[v]].gap = std::min(g->edges[in[v]].gap, gap);
    removed[v] = u == kNoIndex;
    ++n;
  }
  ZeroGapsInto(g, removed);
  return n;
}

size_t ApplyRank(const WhatIf& w, Graph* g) {
  return w.inner ? ApplyOnRank(w, g) : ApplyLike(w, g);
}

bool ParseRank(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  if (spec.rfind("rank=", 0) != 0) return false;
  size_t colon = spec.find(':');
  const char* end = spec.data() + (colon == std::string::npos ? spec.size() : colon);
  auto [p, ec] = std::from_chars(spec.data() + 5, end, w->rank);
  if (colon == std::string::npos || ec != std::errc() || p != end || w->rank < 0)
    throw Error("--what-if '" + spec +
                "': expected rank=R:SPEC or rank=R:like=0 (R a rank, from 0, SPEC a what-if "
                "that changes durations, e.g. rank=3:like=0 or rank=3:aten::mm=0.5)");
  std::string rest = spec.substr(colon + 1);
  w->pattern = rest;
  if (rest.rfind("like=", 0) == 0) {
    if (numbers.factor(spec, rest.substr(5)) != 0)
      throw Error("--what-if '" + spec + "': like= takes 0 only (rank R as the median rank)");
    return true;
  }
  auto inner = std::make_shared<WhatIf>(ParseWhatIf(rest, numbers));
  if (inner->Is("rank") || inner->Is("overlap") || inner->Is("tensor-fusion"))
    throw Error("--what-if '" + spec + "': " + rest +
                " changes the job's collectives, not one rank's work; give it without rank=");
  w->factor = inner->factor;
  w->inner = std::move(inner);
  return true;
}

std::string NoOnRank(const WhatIf& w) {
  if (w.near) return *w.near;
  if (w.inner) return w.inner->kind->nothing(*w.inner) + " on rank " + std::to_string(w.rank);
  return "no compute work on rank " + std::to_string(w.rank);
}

// Per step, each rank's own time (index in g.ranks; participants 0).
std::vector<double> OwnTimes(const Graph& g) {
  std::vector<uint32_t> in = ResourceEdgeInto(g);
  std::vector<double> t(g.ranks.size(), 0);
  for (uint32_t r = 0; r < g.ranks.size(); ++r)
    if (!g.ranks[r].participant) t[r] = OwnTime(g, r, in);
  return t;
}

// The rank whose own time, where it is the longest, exceeds the median of the others' by the
// most over the steps, and that excess (mean ns over all steps); -1 where no rank is the
// longest in a quarter of the steps or more (a rank slow every other step is a straggler too:
// asked for in most steps, one that sleeps in every second step was found by chance).
int64_t Straggler(const std::vector<StepGraph>& steps, double* over) {
  std::map<int64_t, std::pair<size_t, double>> slowest;  // rank -> steps, excess
  for (const StepGraph& sg : steps) {
    std::vector<double> t = OwnTimes(sg.graph);
    if (t.size() < 2) return -1;
    size_t r = static_cast<size_t>(std::max_element(t.begin(), t.end()) - t.begin());
    std::vector<double> others;
    for (size_t i = 0; i < t.size(); ++i)
      if (i != r && !sg.graph.ranks[i].participant) others.push_back(t[i]);
    // A step with one rank of its own (the others only a device's participants, as two
    // TensorFlow workers' send/receive pairs give) has no straggler.
    if (others.empty() || sg.graph.ranks[r].participant) continue;
    std::sort(others.begin(), others.end());
    auto& s = slowest[RankNumber(sg.graph.ranks[r])];
    ++s.first;
    s.second += t[r] - others[(others.size() - 1) / 2];
  }
  auto best = std::max_element(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) {
    return a.second.second < b.second.second;
  });
  if (best == slowest.end() || best->first < 0 || 4 * best->second.first < steps.size()) return -1;
  *over = best->second.second / static_cast<double>(steps.size());
  return best->first;
}

// A straggler: the rank whose excess as the slowest is, over all steps, 5% of the step or more,
// made like the median rank.
std::vector<WhatIf> SuggestLike(const SuggestInput& in) {
  double over = 0;
  int64_t r = Straggler(in.steps, &over);
  if (r < 0 || over < 0.05 * in.base.predicted) return {};
  WhatIf w = MakeWhatIf("rank", "rank=" + std::to_string(r) + ":like=0", "like=0", 0);
  w.rank = r;
  return {w};
}

// The work rank r had in a step that the median rank had none of, its heaviest labels.
std::string ExtraWork(const Graph& g, int64_t rank) {
  uint32_t r = RankIndex(g, rank);
  std::vector<uint32_t> in = ResourceEdgeInto(g);
  uint32_t m = r == kNoIndex ? kNoIndex : MedianRank(g, r, in);
  if (m == kNoIndex) return "";
  std::map<std::string, uint64_t> extra;
  for (auto [v, u] : Counterparts(g, r, m))
    if (u == kNoIndex) extra[g.Label(g.nodes[v].label)] += g.nodes[v].duration;
  std::vector<std::pair<uint64_t, std::string>> top;
  for (auto& [label, ns] : extra) top.push_back({ns, label});
  std::sort(top.rbegin(), top.rend());
  std::string out;
  for (size_t i = 0; i < top.size() && i < 3; ++i) out += (i ? ", " : "") + top[i].second;
  return out;
}

std::string HowLike(const WhatIf& w, const SuggestInput& in) {
  std::string r = std::to_string(w.rank);
  std::string extra;  // from the first step that has some
  for (size_t i = 0; i < in.steps.size() && i < 8 && extra.empty(); ++i)
    extra = ExtraWork(in.steps[i].graph, w.rank);
  return "rank " + r + " is the straggler: the others wait for it at each collective. " +
         (extra.empty() ? "Its work takes longer than theirs"
                        : "It runs work the others do not (" + extra + ")") +
         ": remove or spread that work, or give rank " + r +
         " what the others have (a quieter host, its own cores; stats --rank " + r + ")";
}

}  // namespace

const WhatIfKind& RankWhatIf() {
  static const WhatIfKind k{
      .name = "rank",
      .syntax = "rank=R:SPEC",
      .help =
          "SPEC (a what-if that changes work: REGEX=F, scope:,\nline:, input=, ...) on rank R's "
          "processes only;\nrank=R:like=0: rank R's step as the median rank's (its\ncompute "
          "and the gaps before it, node by node; its\nwork the median rank lacks gone): a "
          "straggler made\nlike the others",
      .parse = ParseRank,
      .apply = ApplyRank,
      .nothing = NoOnRank,
      .suggest = SuggestLike,
      .change = "straggler",
      .how = HowLike,
  };
  return k;
}

}  // namespace tt::analysis::replay
