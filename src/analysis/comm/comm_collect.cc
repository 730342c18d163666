// Reading each process's collectives from its tracks (comm_collect.h): slices that carry a
// `collective` argument, in tiers (our NCCL plugin's, the backend's ranges, other communication
// ranges, the framework's calls, XLA's instructions), of which each process keeps the first it
// has.
#include "analysis/comm/comm_collect.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/comm/comm.h"
#include "core/parallel.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

enum Tier { kNccl, kBackend, kCollective, kCall, kXla, kTiers };
const char* const kTierNames[kTiers] = {"nccl", "backend", "collective", "call", "xla"};

struct Keys {
  uint32_t collective, group, communicator, bytes, nranks, rank, instance, op_name;
  uint32_t algorithm, protocol;                 // NCCL's (our plugin's events)
  uint32_t tf_op;                               // the name kTfCollectiveOp
  uint32_t peer;                                // a send's or receive's peer rank
  uint32_t hlo_op, hlo_module, run_id, device;  // an XLA op's (imported from XSpace)
  explicit Keys(const model::Process& p) {
    auto xla = model::KeyIds(p, {keys::xstat::kHloOp, keys::xstat::kHloModule, keys::xstat::kRunId,
                                 keys::xstat::kDeviceOrdinal});
    hlo_op = xla[0], hlo_module = xla[1], run_id = xla[2], device = xla[3];
    auto ids =
        model::KeyIds(p, {keys::kCollective, keys::kProcessGroup, keys::kCommunicator, keys::kBytes,
                          keys::kNranks, keys::kRank, keys::kInstanceKey, keys::kOpName});
    std::tie(collective, group, communicator, bytes, nranks, rank, instance, op_name) =
        std::tuple_cat(ids);
    tf_op = model::KeyId(p, keys::kTfCollectiveOp);
    peer = model::KeyId(p, keys::kPeerRank);
    algorithm = model::KeyId(p, keys::kAlgorithm);
    protocol = model::KeyId(p, keys::kProtocol);
  }
};

// One track's collectives, by tier.
struct TrackComm {
  const model::Process* proc = nullptr;
  const Keys* keys = nullptr;
  size_t track = 0;
  bool overlap = false;           // gather compute too
  std::vector<Interval> compute;  // compute ops, primitives and kernels (with overlap)
  std::vector<CommEvent> tiers[kTiers];
  int64_t rank = -1;                        // the rank the events give
  std::map<std::string, int64_t> op_bytes;  // TensorFlow's collective ops: op name -> bytes
  std::map<std::pair<std::string, int64_t>, int64_t> key_bytes;  // eager: (group, key) -> bytes

  void OnBegin(const model::Slice&) {}
  // tf.collective_op: the bytes of a graph's collective op (-1 where two graphs disagree), or
  // of an eager one's instance.
  void OnPoint(const model::Point& p) {
    if (!keys->tf_op || p.name != keys->tf_op) return;
    uint32_t op = model::ArgStr(p.args, keys->op_name);
    auto b = model::ArgInt(p.args, keys->bytes);
    auto key = model::ArgInt(p.args, keys->instance);
    if (b && op) {
      auto [it, fresh] = op_bytes.emplace(std::string(proc->Name(op)), *b);
      if (!fresh && it->second != *b) it->second = -1;
    } else if (b && key) {
      key_bytes[{GroupOf(p.args), *key}] = *b;
    }
  }
  void OnSlice(const model::Slice& s) {
    if (overlap && IsCompute(s)) compute.push_back({s.start, s.end});
    uint32_t coll = model::ArgStr(s.args, keys->collective);
    if (!coll) {
      if (keys->hlo_op && s.category == layout::Category::kFrameworkOp) OnXlaOp(s);
      return;
    }
    std::string_view name = proc->Name(s.name);
    Tier t = s.category != layout::Category::kCommunication           ? kCall
             : name.starts_with(keys::kNcclPrefix)                    ? kNccl
             : name.starts_with("gloo:") || name.starts_with("nccl:") ? kBackend
                                                                      : kCollective;
    CommEvent e;
    e.start = s.start;
    e.end = s.end;
    e.collective = NormaliseCollective(proc->Name(coll));
    e.group = GroupOf(s.args);
    e.bytes = model::ArgInt(s.args, keys->bytes).value_or(-1);
    e.nranks = model::ArgInt(s.args, keys->nranks).value_or(-1);
    e.key = model::ArgInt(s.args, keys->instance).value_or(-1);
    e.peer = model::ArgInt(s.args, keys->peer).value_or(-1);
    e.name = std::string(name);
    e.track = track;
    if (uint32_t op = model::ArgStr(s.args, keys->op_name)) e.op = proc->Name(op);
    if (uint32_t a = model::ArgStr(s.args, keys->algorithm)) e.algorithm = proc->Name(a);
    if (uint32_t a = model::ArgStr(s.args, keys->protocol)) e.protocol = proc->Name(a);
    if (auto r = model::ArgInt(s.args, keys->rank); r && rank < 0) rank = *r;
    tiers[t].push_back(std::move(e));
  }
  // An XLA collective (JAX's, from its XSpace): the group is its program and instruction, the
  // instance key its execution's run id (the same on every process of one execution).
  void OnXlaOp(const model::Slice& s) {
    if (!model::ArgStr(s.args, keys->hlo_op)) return;
    std::string_view name = proc->Name(s.name);
    std::string c = XlaCollective(name);
    if (c.empty()) return;
    CommEvent e;
    e.start = s.start;
    e.end = s.end;
    e.collective = std::move(c);
    e.bytes = model::ArgInt(s.args, keys->bytes).value_or(-1);  // from the HLO (the import)
    uint32_t module = model::ArgStr(s.args, keys->hlo_module);
    e.group = std::string(module ? proc->Name(module) : "") + "/" + std::string(name);
    if (auto run = model::ArgInt(s.args, keys->run_id))
      e.key = static_cast<int64_t>(static_cast<uint32_t>(*run));  // run ids are 32-bit
    e.name = std::string(name);
    e.op = e.name;
    e.track = track;
    e.device = model::ArgInt(s.args, keys->device).value_or(-1);
    tiers[kXla].push_back(std::move(e));
  }
  bool IsCompute(const model::Slice& s) const {
    if (s.category == layout::Category::kGpuKernel) return true;
    model::Meaning m = model::MeaningOfSlice(*proc, s.category, s.name, s.args);
    return m == model::Meaning::kOp || m == model::Meaning::kPrimitive;
  }
  // The process group's name (a string or a number), else NCCL's communicator.
  std::string GroupOf(const model::ArgsView& a) const {
    for (uint32_t k : {keys->group, keys->communicator}) {
      if (uint32_t s = model::ArgStr(a, k)) return std::string(proc->Name(s));
      if (auto n = model::ArgInt(a, k)) return std::to_string(*n);
    }
    return "";
  }
};

}  // namespace

struct CommScans::State {
  const model::TraceModel* m;
  bool overlap = false;
  std::vector<Keys> keys;
  std::vector<TrackComm> scans;
  // Each track's compute, sorted and merged (taken from the scans).
  std::vector<std::vector<Interval>> ComputeByTrack() {
    std::vector<std::vector<Interval>> compute;
    for (auto& t : scans) {
      SortedIntervals iv;
      iv.v = std::move(t.compute);
      iv.Build();
      compute.push_back(iv.Merged(0, UINT64_MAX));
    }
    return compute;
  }
  // An aligned model's clock (job_clock.h): the reference recording's boot ("": not aligned).
  std::string JobClock() const {
    if (!m->clocks.empty())
      for (const auto& p : m->processes)
        if (p.recording == m->clocks[0].recording) return p.meta.clock_uuid;
    return "";
  }
};

namespace {

// A backend's send range may begin well after the program's call handed its data over (under
// load, milliseconds after: gloo opens it once the work is queued), so a send also keeps its
// call's start (c10d::send, the `call` tier of its track) where the range began within one.
void SendCalls(const std::vector<CommEvent>& calls, std::vector<CommEvent>* events) {
  for (CommEvent& e : *events) {
    if (e.collective != "send") continue;
    for (const CommEvent& c : calls)
      if (c.collective == "send" && c.track == e.track && c.start <= e.start && e.start <= c.end)
        e.call = c.start;
  }
}

// Process p's steps of `steps` (null: none), by start.
std::vector<Step> StepsOf(const std::vector<Step>* steps, size_t p) {
  std::vector<Step> own;
  if (steps)
    for (const Step& st : *steps)
      if (st.process == p) own.push_back(st);
  std::sort(own.begin(), own.end(), [](const Step& a, const Step& b) { return a.start < b.start; });
  return own;
}

}  // namespace

CommScans::CommScans(const model::TraceModel& m, bool overlap) : s_(std::make_unique<State>()) {
  s_->m = &m;
  s_->overlap = overlap;
  for (const auto& p : m.processes) s_->keys.emplace_back(p);
  s_->scans.resize(m.tracks.size());
  for (size_t i = 0; i < m.tracks.size(); ++i) {
    s_->scans[i].proc = &m.processes[m.tracks[i].process];
    s_->scans[i].keys = &s_->keys[m.tracks[i].process];
    s_->scans[i].track = i;
    s_->scans[i].overlap = overlap;
  }
}

CommScans::~CommScans() = default;

void CommScans::OnSlice(size_t track, const model::Slice& s) { s_->scans[track].OnSlice(s); }

void CommScans::OnPoint(size_t track, const model::Point& p) { s_->scans[track].OnPoint(p); }

namespace {

// A process whose XLA collectives ran on several of its devices (jax.shard_map, pmap over a
// host's devices): each device is a participant, as a rank is, so that each instance matches
// across the devices and names the one that arrived last. Others as they are.
void ByDevice(CommRank r, std::vector<CommRank>* out) {
  std::set<int64_t> devices;
  for (const CommEvent& e : r.events) devices.insert(e.device);
  if (r.source != "xla" || devices.size() < 2 || devices.count(-1)) {
    out->push_back(std::move(r));
    return;
  }
  for (int64_t d : devices) {
    CommRank one = r;
    one.device = d;
    std::erase_if(one.events, [d](const CommEvent& e) { return e.device != d; });
    out->push_back(std::move(one));
  }
}

}  // namespace

std::vector<CommRank> CommScans::Finish(const std::vector<Step>* steps) {
  const model::TraceModel* m = s_->m;
  std::vector<std::vector<Interval>> compute;
  if (s_->overlap) compute = s_->ComputeByTrack();
  std::vector<CommRank> ranks;
  std::string job_clock = s_->JobClock();
  for (size_t p = 0; p < m->processes.size(); ++p) {
    const ProcessMeta& meta = m->processes[p].meta;
    CommRank r;
    r.rank = meta.rank;
    r.pid = meta.pid;
    r.host = meta.hostname;
    r.trace = m->processes[p].recording;
    r.clock = meta.clock_uuid;
    r.realtime_offset = meta.offset_start_ns;
    if (!m->clocks.empty()) {  // aligned (job_clock.h): its times are on the job's clock
      r.clock = job_clock;
      r.realtime_offset = m->realtime_offset_ns;
    }
    for (int t = 0; t < kTiers && r.events.empty(); ++t)
      for (size_t track : m->processes[p].tracks) {
        auto& ev = s_->scans[track].tiers[t];
        if (ev.empty()) continue;
        r.source = kTierNames[t];
        if (t == kBackend) SendCalls(s_->scans[track].tiers[kCall], &ev);
        r.events.insert(r.events.end(), std::make_move_iterator(ev.begin()),
                        std::make_move_iterator(ev.end()));
      }
    if (r.events.empty()) continue;
    std::map<std::string, int64_t> op_bytes;
    for (size_t track : m->processes[p].tracks) {
      if (r.rank < 0) r.rank = s_->scans[track].rank;
      for (const auto& [op, b] : s_->scans[track].op_bytes) {
        auto [it, fresh] = op_bytes.emplace(op, b);
        if (!fresh && it->second != b) it->second = -1;
      }
    }
    std::map<std::pair<std::string, int64_t>, int64_t> key_bytes;
    for (size_t track : m->processes[p].tracks)
      key_bytes.insert(s_->scans[track].key_bytes.begin(), s_->scans[track].key_bytes.end());
    for (CommEvent& e : r.events) {
      if (auto it = op_bytes.find(e.op); e.bytes < 0 && !e.op.empty() && it != op_bytes.end())
        e.bytes = it->second;
      if (auto it = key_bytes.find({e.group, e.key}); e.bytes < 0 && it != key_bytes.end())
        e.bytes = it->second;
    }
    if (s_->overlap) MeasureOverlap(compute, m->processes[p].tracks, StepsOf(steps, p), &r);
    ByDevice(std::move(r), &ranks);
  }
  return ranks;
}

namespace {

// One track of CommScans, as a visitor of model::ScanTrack.
struct CommTrackVisitor {
  CommScans* scans;
  size_t track;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point& p) { scans->OnPoint(track, p); }
  void OnSlice(const model::Slice& s) { scans->OnSlice(track, s); }
};

}  // namespace

std::vector<CommRank> CollectCollectives(const std::vector<const model::TraceModel*>& traces,
                                         unsigned threads, std::vector<Problem>* problems,
                                         bool overlap) {
  std::vector<CommRank> ranks;
  for (const model::TraceModel* m : traces) {
    CommScans scans(*m, overlap);
    std::vector<std::vector<Problem>> probs(m->tracks.size());
    ParallelFor(m->tracks.size(), DefaultThreads(threads), [&](size_t i) {
      CommTrackVisitor v{&scans, i};
      model::ScanTrack(*m, m->tracks[i], &probs[i], v);
    });
    for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
    std::vector<Step> steps;
    if (overlap) steps = FindSteps(*m, {}, threads);
    std::vector<CommRank> r = scans.Finish(&steps);
    ranks.insert(ranks.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return ranks;
}

}  // namespace tt::analysis
