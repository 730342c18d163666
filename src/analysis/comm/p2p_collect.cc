// Reading each process's socket calls from its tracks (p2p_collect.h): net.send and net.recv
// slices (conn, offset, bytes) and net.connection instants (conn, local, peer), which may lie on
// different threads of the process.
#include "analysis/comm/p2p_collect.h"

#include <map>

#include "analysis/comm/p2p.h"
#include "core/parallel.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

struct Keys {
  uint32_t send, recv, connection;  // event names
  uint32_t conn, offset, bytes, local, peer;
  explicit Keys(const model::Process& p) {
    auto ids = model::KeyIds(p, {keys::kNetSend, keys::kNetRecv, keys::kNetConnection, keys::kConn,
                                 keys::kOffset, keys::kBytes, keys::kLocal, keys::kPeer});
    std::tie(send, recv, connection, conn, offset, bytes, local, peer) = std::tuple_cat(ids);
  }
  bool Any() const { return send || recv; }
};

// One track's socket events.
struct TrackSockets {
  const model::Process* proc = nullptr;
  const Keys* keys = nullptr;
  std::map<uint64_t, std::pair<std::string, std::string>> conns;  // conn -> (local, peer)
  std::map<uint64_t, std::vector<SocketCall>> calls[2];           // send, recv: conn -> calls

  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point& p) {
    if (!keys->connection || p.name != keys->connection) return;
    auto conn = model::ArgInt(p.args, keys->conn);
    uint32_t local = model::ArgStr(p.args, keys->local), peer = model::ArgStr(p.args, keys->peer);
    if (!conn || !local || !peer) return;  // damaged: its calls are then not paired (a note)
    conns[static_cast<uint64_t>(*conn)] = {std::string(proc->Name(local)),
                                           std::string(proc->Name(peer))};
  }
  void OnSlice(const model::Slice& s) {
    if (!s.name || (s.name != keys->send && s.name != keys->recv)) return;
    auto conn = model::ArgInt(s.args, keys->conn);
    auto offset = model::ArgInt(s.args, keys->offset);
    auto bytes = model::ArgInt(s.args, keys->bytes);
    if (!conn || !offset || !bytes || *offset < 0 || *bytes <= 0) return;  // damaged
    calls[s.name == keys->recv][static_cast<uint64_t>(*conn)].push_back(
        {s.start, s.end, static_cast<uint64_t>(*offset), static_cast<uint64_t>(*bytes)});
  }
};

// One track as a visitor of model::ScanTrack.
struct Visitor {
  TrackSockets* t;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point& p) { t->OnPoint(p); }
  void OnSlice(const model::Slice& s) { t->OnSlice(s); }
};

// A process's connections from its tracks' events.
void Merge(const model::TraceModel& m, size_t p, std::vector<TrackSockets>& tracks,
           std::vector<SocketProcess>* procs, std::vector<SocketEnd>* ends) {
  std::map<uint64_t, SocketEnd> by_conn;
  for (size_t t : m.processes[p].tracks) {
    for (int dir = 0; dir < 2; ++dir)
      for (auto& [conn, calls] : tracks[t].calls[dir]) {
        auto& v = dir ? by_conn[conn].receives : by_conn[conn].sends;
        v.insert(v.end(), calls.begin(), calls.end());
      }
  }
  if (by_conn.empty()) return;
  const ProcessMeta& meta = m.processes[p].meta;
  procs->push_back({meta.pid, meta.rank, meta.hostname, m.processes[p].recording, meta.clock_uuid,
                    meta.offset_start_ns});
  for (auto& [conn, e] : by_conn) {
    for (size_t t : m.processes[p].tracks)
      if (auto it = tracks[t].conns.find(conn); it != tracks[t].conns.end())
        std::tie(e.local, e.peer) = it->second;
    e.process = procs->size() - 1;
    e.conn = conn;
    ends->push_back(std::move(e));
  }
}

}  // namespace

bool HasSocketCalls(const model::TraceModel& m) {
  for (const auto& p : m.processes)
    if (Keys(p).Any()) return true;
  return false;
}

void CollectSockets(const std::vector<const model::TraceModel*>& traces, unsigned threads,
                    std::vector<SocketProcess>* processes, std::vector<SocketEnd>* ends,
                    std::vector<Problem>* problems) {
  for (const model::TraceModel* m : traces) {
    std::vector<Keys> keys;
    for (const auto& p : m->processes) keys.emplace_back(p);
    std::vector<TrackSockets> tracks(m->tracks.size());
    std::vector<std::vector<Problem>> probs(m->tracks.size());
    ParallelFor(m->tracks.size(), DefaultThreads(threads), [&](size_t i) {
      const Keys& k = keys[m->tracks[i].process];
      if (!k.Any()) return;  // a process that never recorded a socket call
      tracks[i].proc = &m->processes[m->tracks[i].process];
      tracks[i].keys = &k;
      Visitor v{&tracks[i]};
      model::ScanTrack(*m, m->tracks[i], &probs[i], v);
    });
    for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
    for (size_t p = 0; p < m->processes.size(); ++p) Merge(*m, p, tracks, processes, ends);
  }
}

}  // namespace tt::analysis
