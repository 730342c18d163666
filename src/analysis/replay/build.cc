// Replay's graphs from a trace (build.h): the ranks and their selected steps, their atoms, the
// collectives that joined them, then one graph per step.
#include "analysis/replay/build.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/comm/comm.h"
#include "analysis/comm/p2p.h"
#include "analysis/replay/build_inner.h"
#include "analysis/replay/build_step.h"
#include "analysis/replay/cpu_share.h"
#include "analysis/replay/roofline.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

std::vector<std::set<uint32_t>> StepNameIds(const model::TraceModel& m,
                                            const std::vector<std::string>& names) {
  std::vector<std::set<uint32_t>> ids(m.processes.size());
  for (size_t p = 0; p < m.processes.size(); ++p)
    for (uint32_t i = 0; i < m.processes[p].names.size(); ++i)
      if (std::find(names.begin(), names.end(), m.processes[p].names[i]) != names.end())
        ids[p].insert(i);
  return ids;
}

std::string RankLabel(const ProcessMeta& meta) {
  return meta.rank >= 0 ? "rank " + std::to_string(meta.rank) : "pid " + std::to_string(meta.pid);
}

// What the traces give a job's graphs: ranks and participants (RankInput), their atoms (by
// trace), and the tensors sent between them with their ends still as (trace, process).
struct Gathered {
  std::vector<std::vector<TrackWork>> atoms;
  std::vector<CodeIndex> code;  // by trace: the Python stacks behind its ops
  std::vector<RankInput> ranks, participants;
  struct Pair {
    const model::TraceModel* m = nullptr;
    size_t sender = 0, receiver = 0;  // processes of m
    PointToPoint p;
  };
  std::vector<Pair> pairs;
};

// TensorFlow's tensors sent between processes of m of which one has steps (`stepped`), into
// g->pairs; `joining` gets the others (processes without steps: participants).
void TensorPairs(const model::TraceModel& m, const std::vector<bool>& stepped, Gathered* g,
                 std::vector<bool>* joining) {
  P2pView v = AlignedPointToPoint(m, false);
  std::vector<int64_t> process(v.processes.size(), -1);  // index in m
  for (size_t i = 0; i < v.processes.size(); ++i)
    for (size_t p = 0; p < m.processes.size(); ++p)
      if (m.processes[p].recording == v.processes[i].trace &&
          m.processes[p].meta.pid == v.processes[i].pid)
        process[i] = static_cast<int64_t>(p);
  for (const TfTransfer& t : v.transfers) {
    const RendezvousChannel& ch = v.rendezvous[t.channel];
    if (ch.sender < 0 || ch.receiver < 0) continue;
    int64_t a = process[static_cast<size_t>(ch.sender)],
            b = process[static_cast<size_t>(ch.receiver)];
    if (a < 0 || b < 0 || (!stepped[static_cast<size_t>(a)] && !stepped[static_cast<size_t>(b)]))
      continue;
    for (int64_t x : {a, b})
      if (!stepped[static_cast<size_t>(x)]) (*joining)[static_cast<size_t>(x)] = true;
    g->pairs.push_back({&m,
                        static_cast<size_t>(a),
                        static_cast<size_t>(b),
                        {0, 0, ch.tensor, t.send_start, t.recv_start, t.recv_done, t.bytes}});
  }
}

// The ranks of one trace (its processes with selected steps) and its participants, with their
// atoms.
void AddRanks(const model::TraceModel& m, const BuildOptions& o, Gathered* g,
              std::vector<Problem>* problems) {
  std::vector<Step> steps = FindSteps(m, o.step_names, o.threads);
  std::vector<bool> keep = SelectSteps(steps, o.range, o.skip_warmup);
  std::vector<RankInput> mine(m.processes.size());
  std::vector<bool> stepped(m.processes.size(), false), joining(stepped);
  for (size_t i = 0; i < steps.size(); ++i)
    if (keep[i]) {
      mine[steps[i].process].steps.push_back(steps[i]);
      stepped[steps[i].process] = true;
    }
  if (HasRendezvous(m)) TensorPairs(m, stepped, g, &joining);
  std::vector<bool> wanted(stepped);
  for (size_t p = 0; p < wanted.size(); ++p) wanted[p] = stepped[p] || joining[p];
  g->atoms.push_back(CollectAtoms(m, wanted, StepNameIds(m, o.step_names), o.threads, problems));
  g->code.push_back(LoadCodeIndex(m, problems));
  if (!o.graph_edges)
    for (TrackWork& w : g->atoms.back())
      for (Atom& at : w.atoms) at.tf_node = at.tf_inputs = 0;
  for (size_t p = 0; p < m.processes.size(); ++p) {
    if (!wanted[p]) continue;
    RankInput& r = mine[p];
    r.label = RankLabel(m.processes[p].meta);
    r.m = &m;
    r.process = p;
    r.participant = joining[p];
    if (!g->code.back().processes[p].Empty()) r.code = &g->code.back().processes[p];
    (r.participant ? g->participants : g->ranks).push_back(std::move(r));
  }
}

// The participants' steps: the k-th is the ranks' k-th window (their earliest start to their
// latest end), for the first n.
void ParticipantSteps(size_t n, std::vector<RankInput>* ranks) {
  for (RankInput& p : *ranks) {
    if (!p.participant) continue;
    for (size_t k = 0; k < n; ++k) {
      Step s;
      s.start = UINT64_MAX;
      s.process = p.process;
      for (const RankInput& r : *ranks)
        if (!r.participant) {
          s.start = std::min(s.start, r.steps[k].start);
          s.end = std::max(s.end, r.steps[k].end);
          if (s.number < 0) s.number = r.steps[k].number;
        }
      p.steps.push_back(s);
    }
  }
}

// g's pairs with their ends as indices in `ranks` (ranks, then participants, as gathered), by
// recv_start.
std::vector<PointToPoint> Pairs(const Gathered& g, const std::vector<RankInput>& ranks) {
  auto index = [&](const model::TraceModel* m, size_t p) {
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].m == m && ranks[i].process == p) return i;
    return SIZE_MAX;
  };
  std::vector<PointToPoint> out;
  for (const Gathered::Pair& x : g.pairs) {
    PointToPoint p = x.p;
    p.sender = index(x.m, x.sender);
    p.receiver = index(x.m, x.receiver);
    if (p.sender != SIZE_MAX && p.receiver != SIZE_MAX) out.push_back(std::move(p));
  }
  std::stable_sort(out.begin(), out.end(), [](const PointToPoint& a, const PointToPoint& b) {
    return a.recv_start < b.recv_start;
  });
  return out;
}

// The matched collectives, as instances and each rank's arrivals.
std::vector<Instance> Collectives(const std::vector<const model::TraceModel*>& traces,
                                  unsigned threads, std::vector<RankInput>* ranks,
                                  std::vector<Problem>* problems) {
  CommView v = MatchCollectives(CollectCollectives(traces, threads, problems));
  std::vector<size_t> to_rank(v.ranks.size(), SIZE_MAX);
  for (size_t i = 0; i < v.ranks.size(); ++i)
    for (size_t r = 0; r < ranks->size(); ++r) {
      const RankInput& in = (*ranks)[r];
      const model::Process& p = in.m->processes[in.process];
      if (p.recording == v.ranks[i].trace && p.meta.pid == v.ranks[i].pid) to_rank[i] = r;
    }
  std::vector<Instance> out;
  for (const CommInstance& ci : v.instances) {
    if (!ci.matched) continue;
    uint64_t first_exit = UINT64_MAX;
    for (const auto& a : ci.arrivals) first_exit = std::min(first_exit, a.exit);
    bool p2p = ci.src >= 0;
    // A transfer's label names its direction (not its number), so that a step's sends of one
    // direction add up as one item of the critical path across steps.
    std::string name = !p2p ? ci.collective
                            : ci.collective + CommDirection(ci) +
                                  (ci.group.empty() ? "" : " of group " + ci.group);
    out.push_back({name, ci.group, ci.last_enter, first_exit, ci.arrivals.size(), ci.bytes, p2p});
    for (const auto& a : ci.arrivals)
      if (to_rank[a.rank] != SIZE_MAX)
        (*ranks)[to_rank[a.rank]].arrivals.push_back(
            {a.enter, a.exit, out.size() - 1, p2p && v.ranks[a.rank].rank == ci.src});
  }
  for (auto& r : *ranks)
    std::sort(r.arrivals.begin(), r.arrivals.end(),
              [](const Arrival& a, const Arrival& b) { return a.enter < b.enter; });
  return out;
}

// The ranks' hosts (by host name: the most CPUs any of its processes had), for CPU sharing;
// empty where a rank's CPUs are not known (a trace from before they were recorded).
std::vector<Host> Hosts(const std::vector<RankInput>& ranks, std::vector<uint32_t>* host_of_rank) {
  std::vector<Host> hosts;
  for (const RankInput& r : ranks) {
    const ProcessMeta& meta = r.m->processes[r.process].meta;
    if (!meta.cpus) return {};
    auto h = std::find_if(hosts.begin(), hosts.end(),
                          [&](const Host& x) { return x.name == meta.hostname; });
    if (h == hosts.end()) h = hosts.insert(hosts.end(), {meta.hostname, 0});
    h->cores = std::max(h->cores, meta.cpus);
    host_of_rank->push_back(static_cast<uint32_t>(h - hosts.begin()));
  }
  return hosts;
}

// Why a step's threads share their hosts' cores (cpu_share.h): none (device work in the step, or
// no host's CPUs known), its collectives ran on the CPU (transfers that joined ranks), or the
// job ran on the CPU only (no device work, no collective).
// kTooMany: a step of more resources (threads, streams, links) than kMaxSharedResources, replayed
// without sharing: the sharing simulation's time grows with the nodes running at once times the
// events (a hostile trace of 20,000 threads took replay past 30 s).
enum class Sharing { kNone, kCollectives, kCpuOnly, kTooMany };
constexpr size_t kMaxSharedResources = 512;

Sharing ShareCpusOfStep(const std::vector<Host>& hosts, const std::vector<uint32_t>& host_of_rank,
                        StepGraph* sg) {
  bool transfers = false;
  for (const Node& n : sg->graph.nodes) {
    if (n.kind == NodeKind::kDevice) return Sharing::kNone;
    transfers |= IsCollectiveTransfer(sg->graph, n);
  }
  if (hosts.empty()) return Sharing::kNone;
  if (sg->graph.resources.size() > kMaxSharedResources) return Sharing::kTooMany;
  ShareCpus(&sg->graph, hosts, host_of_rank);
  return transfers ? Sharing::kCollectives : Sharing::kCpuOnly;
}

std::string SharingNote(const Graph& g, Sharing why, size_t steps) {
  std::string hosts;
  for (const Host& h : g.hosts)
    hosts += (hosts.empty() ? "" : ", ") + h.name + " (" + std::to_string(h.cores) + " CPUs)";
  if (why == Sharing::kCpuOnly)
    return "CPU sharing: no GPU work; in " + std::to_string(steps) +
           " step(s), the threads' ops and input work share the cores of " + hosts +
           ", so work a what-if removes gives its core back (--no-cpu-sharing: as measured; "
           "docs/replay.md)";
  return "CPU sharing: the collectives ran on the CPU; in " + std::to_string(steps) +
         " step(s), ranks' threads and transfers share the cores of " + hosts + " (docs/replay.md)";
}

// Each step's CPU sharing (cpu_share.h), with the GIL's share of each op from all the steps,
// and the job's notes on it.
void ShareJobsCpus(const std::vector<RankInput>& ranks, Job* job) {
  std::vector<uint32_t> host_of_rank;
  std::vector<Host> hosts = Hosts(ranks, &host_of_rank);
  std::vector<Graph*> graphs;
  for (StepGraph& sg : job->steps) graphs.push_back(&sg.graph);
  SpreadGilByOp(graphs);
  size_t shared = 0, first_shared = 0, too_many = 0;
  Sharing why = Sharing::kNone;
  for (size_t k = 0; k < job->steps.size(); ++k) {
    Sharing s = ShareCpusOfStep(hosts, host_of_rank, &job->steps[k]);
    too_many += s == Sharing::kTooMany;
    if (s == Sharing::kNone || s == Sharing::kTooMany) continue;
    if (!shared++) first_shared = k;
    if (why != Sharing::kCollectives) why = s;
  }
  if (shared) job->notes.push_back(SharingNote(job->steps[first_shared].graph, why, shared));
  if (too_many)
    job->notes.push_back("CPU sharing: left out in " + std::to_string(too_many) +
                         " step(s) of more than " + std::to_string(kMaxSharedResources) +
                         " threads, streams and links: those replay their measured durations");
}

}  // namespace

Job BuildJob(const std::vector<const model::TraceModel*>& traces, const BuildOptions& o,
             std::vector<Problem>* problems) {
  Gathered g;
  g.atoms.reserve(traces.size());
  g.code.reserve(traces.size());  // ranks point into it
  for (const model::TraceModel* m : traces) AddRanks(*m, o, &g, problems);
  if (g.ranks.empty())
    throw Error(
        "no step in the trace, or none left by --steps/--skip-warmup: replay needs steps "
        "(the framework's step markers, the loop's repeated call, or --step-name NAME)");
  std::vector<RankInput> ranks = std::move(g.ranks);
  size_t n = SIZE_MAX;
  for (const auto& r : ranks) n = std::min(n, r.steps.size());
  Job job;
  job.hardware = HardwareOf(*traces[0]);
  for (auto& p : g.participants) {
    job.participants.push_back(p.label);
    ranks.push_back(std::move(p));
  }
  ParticipantSteps(n, &ranks);
  for (auto& r : ranks)
    for (size_t t = 0; t < traces.size(); ++t)
      if (traces[t] == r.m) r.atoms = &g.atoms[t];
  std::vector<PointToPoint> pairs = Pairs(g, ranks);
  std::vector<Instance> instances = Collectives(traces, o.threads, &ranks, problems);
  auto names = std::make_shared<LabelTable>();
  names->core_flops_per_ns = CoreFlopsPerNs(*traces[0]);
  for (auto& r : ranks)
    if (r.code) r.stacks = InternStacks(*r.code, names.get());
  for (size_t k = 0; k < n; ++k) {
    job.steps.push_back(BuildStep(ranks, instances, pairs, k, names));
    SetRoofs(job.hardware, &job.steps.back().graph);
  }
  if (o.cpu_sharing) ShareJobsCpus(ranks, &job);
  for (const auto& who : job.participants)
    job.notes.push_back(who +
                        ": no steps of its own; its work within the ranks' steps is replayed with "
                        "them, linked by the tensors they sent each other (docs/replay.md)");
  for (const auto& r : ranks)
    if (!r.participant && r.steps.size() > n)
      job.notes.push_back(r.label + ": " + std::to_string(r.steps.size() - n) +
                          " step(s) past the other ranks' last left out");
  for (const auto& s : job.steps)
    for (const auto& node : s.graph.nodes)
      if (IsCollectiveTransfer(s.graph, node))
        ++job.collectives;
      else if (node.kind == NodeKind::kComm && s.graph.resources[node.resource].link)
        ++job.transfers;
      else if (node.grad)
        ++job.gradients;
  std::set<std::pair<std::string, std::string>> links;
  for (const auto& s : job.steps)
    for (const auto& e : s.graph.edges)
      if (e.kind == EdgeKind::kAutograd) {
        ++job.autograd_edges;
      } else if (e.kind == EdgeKind::kGraph) {
        ++job.graph_edges;
        if (links.size() < Job::kMaxLinks)
          links.emplace(s.graph.Label(s.graph.nodes[e.from].label),
                        s.graph.Label(s.graph.nodes[e.to].label));
      }
  job.graph_links.assign(links.begin(), links.end());
  return job;
}

}  // namespace tt::analysis::replay
