// Reading each process's collectives from its tracks (comm.h): slices that carry a `collective`
// argument, in three tiers (the backend's ranges, other communication ranges, the framework's
// calls), of which each process keeps the first it has.
#include <algorithm>
#include <map>

#include "analysis/comm.h"
#include "analysis/parallel.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

enum Tier { kBackend, kCollective, kCall, kTiers };
const char* const kTierNames[kTiers] = {"backend", "collective", "call"};

struct Keys {
  uint32_t collective, group, communicator, bytes, nranks, rank, instance, op_name;
  uint32_t tf_op;  // the name kTfCollectiveOp
  explicit Keys(const model::Process& p) {
    auto ids =
        model::KeyIds(p, {keys::kCollective, keys::kProcessGroup, keys::kCommunicator, keys::kBytes,
                          keys::kNranks, keys::kRank, keys::kInstanceKey, keys::kOpName});
    std::tie(collective, group, communicator, bytes, nranks, rank, instance, op_name) =
        std::tuple_cat(ids);
    tf_op = model::KeyId(p, keys::kTfCollectiveOp);
  }
};

// One track's collectives, by tier.
struct TrackComm {
  const model::Process* proc = nullptr;
  const Keys* keys = nullptr;
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
    uint32_t coll = model::ArgStr(s.args, keys->collective);
    if (!coll) return;
    std::string_view name = proc->Name(s.name);
    Tier t = s.category != layout::Category::kCommunication           ? kCall
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
    e.name = std::string(name);
    if (uint32_t op = model::ArgStr(s.args, keys->op_name)) e.op = proc->Name(op);
    if (auto r = model::ArgInt(s.args, keys->rank); r && rank < 0) rank = *r;
    tiers[t].push_back(std::move(e));
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
  std::vector<Keys> keys;
  std::vector<TrackComm> scans;
};

CommScans::CommScans(const model::TraceModel& m) : s_(std::make_unique<State>()) {
  s_->m = &m;
  for (const auto& p : m.processes) s_->keys.emplace_back(p);
  s_->scans.resize(m.tracks.size());
  for (size_t i = 0; i < m.tracks.size(); ++i) {
    s_->scans[i].proc = &m.processes[m.tracks[i].process];
    s_->scans[i].keys = &s_->keys[m.tracks[i].process];
  }
}

CommScans::~CommScans() = default;

void CommScans::OnSlice(size_t track, const model::Slice& s) { s_->scans[track].OnSlice(s); }

void CommScans::OnPoint(size_t track, const model::Point& p) { s_->scans[track].OnPoint(p); }

std::vector<CommRank> CommScans::Finish() {
  const model::TraceModel* m = s_->m;
  std::vector<CommRank> ranks;
  for (size_t p = 0; p < m->processes.size(); ++p) {
    const ProcessMeta& meta = m->processes[p].meta;
    CommRank r;
    r.rank = meta.rank;
    r.pid = meta.pid;
    r.host = meta.hostname;
    r.trace = m->path;
    r.clock = meta.clock_uuid;
    r.realtime_offset = meta.offset_start_ns;
    for (int t = 0; t < kTiers && r.events.empty(); ++t)
      for (size_t track : m->processes[p].tracks) {
        auto& ev = s_->scans[track].tiers[t];
        if (ev.empty()) continue;
        r.source = kTierNames[t];
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
    ranks.push_back(std::move(r));
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
                                         unsigned threads, std::vector<Problem>* problems) {
  std::vector<CommRank> ranks;
  for (const model::TraceModel* m : traces) {
    CommScans scans(*m);
    std::vector<std::vector<Problem>> probs(m->tracks.size());
    ParallelFor(m->tracks.size(), DefaultThreads(threads), [&](size_t i) {
      CommTrackVisitor v{&scans, i};
      model::ScanTrack(*m, m->tracks[i], &probs[i], v);
    });
    for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
    std::vector<CommRank> r = scans.Finish();
    ranks.insert(ranks.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return ranks;
}

}  // namespace tt::analysis
