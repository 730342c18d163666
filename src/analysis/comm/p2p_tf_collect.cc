// Reading TensorFlow's cross-process sends and receives from each process's tracks (p2p.h), as
// TensorFlow's profiler records them and the XSpace importer passes them through:
// - a _Send (_HostSend) is an op slice "<node>:_Send" with the argument `key`, its rendezvous
//   key;
// - a _Recv (_HostRecv) is asynchronous: an "ExecutorState::ProcessAsync::Start" slice where
//   the executor started it and an "ExecutorState::ProcessAsync::Done" slice where its tensor
//   arrived, both with `name` (the node), `kernel_type` and `step_id`;
// - the received tensor is decoded from the RecvTensor response into a buffer of TensorFlow's
//   allocator: a "MemoryAllocation" instant (`requested_bytes`) on the thread that then runs
//   the receive's done callback, the last one there before that callback began.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/comm/p2p.h"
#include "core/parallel.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

// TensorFlow's own names (its TraceMe arguments and executor ranges), passed through verbatim.
constexpr char kRecvStart[] = "ExecutorState::ProcessAsync::Start";
constexpr char kRecvDone[] = "ExecutorState::ProcessAsync::Done";

struct Keys {
  uint32_t start, done, alloc;                  // event names
  uint32_t key, name, kernel, step, requested;  // argument keys
  uint32_t recv, host_recv;                     // kernel types
  explicit Keys(const model::Process& p) {
    static constexpr std::string_view kNames[] = {
        kRecvStart,    kRecvDone, keys::kMemoryAllocation,      "key",   "name",
        "kernel_type", "step_id", keys::xstat::kRequestedBytes, "_Recv", "_HostRecv"};
    auto ids = model::KeyIds(p, kNames);
    std::tie(start, done, alloc, key, name, kernel, step, requested, recv, host_recv) =
        std::tuple_cat(ids);
  }
  bool Any() const { return key || recv || host_recv; }
};

struct RecvEvent {
  uint32_t name = 0;
  int64_t step = 0;
  uint64_t ts = 0;
};

// One track's sends, receive starts and dones, and allocations (time, bytes); the dones and
// allocations sorted by time before they are read.
struct TrackRendezvous {
  const model::Process* proc = nullptr;
  const Keys* keys = nullptr;
  std::vector<TfSend> sends;
  std::vector<RecvEvent> starts, dones;
  std::vector<std::pair<uint64_t, int64_t>> allocs;

  bool IsSend(uint32_t name) const {
    std::string_view n = proc->Name(name);
    return n.ends_with(":_Send") || n.ends_with(":_HostSend");
  }
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point& p) {
    if (!keys->alloc || p.name != keys->alloc) return;
    if (auto b = model::ArgInt(p.args, keys->requested); b && *b > 0) allocs.push_back({p.ts, *b});
  }
  void OnSlice(const model::Slice& s) {
    if (!s.name) return;
    if (s.name == keys->start || s.name == keys->done) {
      uint32_t kernel = model::ArgStr(s.args, keys->kernel);
      if (!kernel || (kernel != keys->recv && kernel != keys->host_recv)) return;
      uint32_t name = model::ArgStr(s.args, keys->name);
      auto step = model::ArgInt(s.args, keys->step);
      if (!name || !step) return;
      (s.name == keys->start ? starts : dones).push_back({name, *step, s.start});
    } else if (uint32_t key = model::ArgStr(s.args, keys->key); key && IsSend(s.name)) {
      sends.push_back({0, std::string(proc->Name(key)), s.start, s.end});
    }
  }
};

// The bytes of the receive that completed at `done` on track t: the last allocation there at
// or after its `start`, before `done` and after the receive done there before it (whose
// tensor's that allocation would be: a control edge's receive allocates none).
int64_t ReceivedBytes(const TrackRendezvous& t, uint64_t start, uint64_t done) {
  auto d = std::lower_bound(t.dones.begin(), t.dones.end(), done,
                            [](const RecvEvent& e, uint64_t ts) { return e.ts < ts; });
  uint64_t after = d == t.dones.begin() ? 0 : std::prev(d)->ts;  // the done before it (0: none)
  auto it = std::upper_bound(t.allocs.begin(), t.allocs.end(), std::make_pair(done, INT64_MAX));
  if (it == t.allocs.begin()) return -1;
  uint64_t ts = std::prev(it)->first;
  return ts >= start && (after == 0 || ts > after) ? std::prev(it)->second : -1;
}

// A process's receives: each start with the done of the same node and step, in order.
void Receives(const model::TraceModel& m, size_t p, size_t index,
              std::vector<TrackRendezvous>& tracks, std::vector<TfRecv>* recvs) {
  using Id = std::pair<uint32_t, int64_t>;
  std::map<Id, std::vector<uint64_t>> starts;
  std::map<Id, std::vector<std::pair<uint64_t, size_t>>> dones;  // (time, track)
  for (size_t t : m.processes[p].tracks) {
    for (const RecvEvent& e : tracks[t].starts) starts[{e.name, e.step}].push_back(e.ts);
    for (const RecvEvent& e : tracks[t].dones) dones[{e.name, e.step}].push_back({e.ts, t});
  }
  for (auto& [id, st] : starts) {
    auto it = dones.find(id);
    if (it == dones.end()) continue;  // never completed in the recording
    std::sort(st.begin(), st.end());
    std::sort(it->second.begin(), it->second.end());
    for (size_t i = 0; i < std::min(st.size(), it->second.size()); ++i) {
      auto [done, track] = it->second[i];
      if (done < st[i]) continue;
      recvs->push_back({index, std::string(m.processes[p].Name(id.first)), id.second, st[i], done,
                        ReceivedBytes(tracks[track], st[i], done)});
    }
  }
}

// The index of process p of m in `procs`, added where it is not there yet. A process is named
// by its recording (as the sockets' are: several recordings read as one job keep theirs).
size_t ProcessIndex(const model::TraceModel& m, size_t p, std::vector<SocketProcess>* procs) {
  const ProcessMeta& meta = m.processes[p].meta;
  const std::string& trace = m.processes[p].recording;
  for (size_t i = 0; i < procs->size(); ++i)
    if ((*procs)[i].trace == trace && (*procs)[i].pid == meta.pid) return i;
  procs->push_back(
      {meta.pid, meta.rank, meta.hostname, trace, meta.clock_uuid, meta.offset_start_ns});
  return procs->size() - 1;
}

void Merge(const model::TraceModel& m, size_t p, std::vector<TrackRendezvous>& tracks,
           std::vector<SocketProcess>* procs, std::vector<TfSend>* sends,
           std::vector<TfRecv>* recvs) {
  bool any = false;
  for (size_t t : m.processes[p].tracks)
    any |= !tracks[t].sends.empty() || !tracks[t].starts.empty();
  if (!any) return;
  size_t index = ProcessIndex(m, p, procs);
  for (size_t t : m.processes[p].tracks) {
    std::sort(tracks[t].allocs.begin(), tracks[t].allocs.end());
    std::sort(tracks[t].dones.begin(), tracks[t].dones.end(),
              [](const RecvEvent& a, const RecvEvent& b) { return a.ts < b.ts; });
    for (TfSend& s : tracks[t].sends) {
      s.process = index;
      sends->push_back(std::move(s));
    }
  }
  Receives(m, p, index, tracks, recvs);
}

struct Visitor {
  TrackRendezvous* t;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point& p) { t->OnPoint(p); }
  void OnSlice(const model::Slice& s) { t->OnSlice(s); }
};

}  // namespace

bool HasRendezvous(const model::TraceModel& m) {
  for (const auto& p : m.processes)
    if (Keys(p).Any()) return true;
  return false;
}

void CollectRendezvous(const std::vector<const model::TraceModel*>& traces, unsigned threads,
                       std::vector<SocketProcess>* processes, std::vector<TfSend>* sends,
                       std::vector<TfRecv>* recvs, std::vector<Problem>* problems) {
  for (const model::TraceModel* m : traces) {
    std::vector<Keys> keys;
    for (const auto& p : m->processes) keys.emplace_back(p);
    std::vector<TrackRendezvous> tracks(m->tracks.size());
    std::vector<std::vector<Problem>> probs(m->tracks.size());
    ParallelFor(m->tracks.size(), DefaultThreads(threads), [&](size_t i) {
      const Keys& k = keys[m->tracks[i].process];
      if (!k.Any()) return;  // a process with neither a rendezvous key nor a _Recv
      tracks[i].proc = &m->processes[m->tracks[i].process];
      tracks[i].keys = &k;
      Visitor v{&tracks[i]};
      model::ScanTrack(*m, m->tracks[i], &probs[i], v);
    });
    for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
    for (size_t p = 0; p < m->processes.size(); ++p) Merge(*m, p, tracks, processes, sends, recvs);
  }
}

}  // namespace tt::analysis
