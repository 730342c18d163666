// Pairing TensorFlow's cross-process sends and receives by rendezvous key (p2p.h).
#include <algorithm>
#include <set>
#include <tuple>

#include "core/human.h"
#include "analysis/comm/p2p.h"

namespace tt::analysis {

namespace {

// A rendezvous key's parts: "send device;incarnation;recv device;tensor;frame:iter".
struct Key {
  std::string send_device, recv_device, tensor;
  bool ok = false;
};

Key ParseKey(const std::string& key) {
  Key k;
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t at; (at = key.find(';', from)) != std::string::npos; from = at + 1)
    parts.push_back(key.substr(from, at - from));
  parts.push_back(key.substr(from));
  if (parts.size() != 5) return k;
  k.send_device = parts[0];
  k.recv_device = parts[2];
  k.tensor = parts[3];
  k.ok = !k.send_device.empty() && !k.recv_device.empty() && !k.tensor.empty();
  return k;
}

// The task a device belongs to: "/job:worker/replica:0/task:1/device:CPU:0" ->
// "/job:worker/replica:0/task:1" (one process).
std::string TaskOf(const std::string& device) { return device.substr(0, device.find("/device:")); }

// Whether a key's devices are of two tasks (two processes): not two devices of one process
// ("/device:CPU:0" to "/device:GPU:0", as a single process's graph names them).
bool CrossTask(const Key& k) {
  std::string from = TaskOf(k.send_device), to = TaskOf(k.recv_device);
  return k.ok && !from.empty() && !to.empty() && from != to;
}

// The producer a tensor name names: "edge_10_mul" -> "mul" (else the name itself).
std::string TensorProducer(const std::string& tensor) {
  if (!tensor.starts_with("edge_")) return tensor;
  size_t at = tensor.find('_', 5);
  return at == std::string::npos ? tensor : tensor.substr(at + 1);
}

// The producer a _Recv node's name names: "mul/_4" -> "mul".
std::string RecvProducer(const std::string& name) {
  size_t at = name.rfind("/_");
  if (at == std::string::npos || at + 2 == name.size()) return name;
  for (size_t i = at + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, at);
}

// The ns added to each process's times: `offsets` or the view's clocks for its trace, else the
// recorded CLOCK_REALTIME offsets against the first process's where its boot differs.
std::vector<int64_t> Offsets(const P2pView& v, const std::map<std::string, int64_t>& offsets) {
  std::map<std::string, int64_t> by_trace = offsets;
  for (const P2pClock& c : v.clocks) by_trace.emplace(c.trace, c.offset_ns);
  std::vector<int64_t> out(v.processes.size(), 0);
  for (size_t p = 0; p < v.processes.size(); ++p) out[p] = ProcessOffset(v.processes, p, by_trace);
  return out;
}

uint64_t Shifted(uint64_t t, int64_t by) {
  return static_cast<uint64_t>(static_cast<int64_t>(t) + by);
}

// One channel: its sends (one key, or several frames of one edge) and its receiver's receives.
struct Channel {
  RendezvousChannel c;
  std::vector<TfSend> sends;
  std::vector<TfRecv> recvs;
};

// Pairs a channel's sends and receives in order, filling its transfers and totals.
void PairChannel(size_t index, Channel* ch, std::vector<TfTransfer>* out) {
  auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
  std::sort(ch->sends.begin(), ch->sends.end(), by_start);
  std::sort(ch->recvs.begin(), ch->recvs.end(), by_start);
  RendezvousChannel& c = ch->c;
  c.sends = ch->sends.size();
  c.receives = ch->recvs.size();
  c.pairs = std::min(c.sends, c.receives);
  std::vector<uint64_t> lat;
  for (size_t i = 0; i < c.pairs; ++i) {
    const TfSend& s = ch->sends[i];
    const TfRecv& r = ch->recvs[i];
    TfTransfer t{index, i, r.step, s.start, s.end, r.start, r.done, r.bytes, 0, r.done - r.start};
    c.causality += r.done < s.start;
    t.latency = r.done > s.start ? r.done - s.start : 0;
    lat.push_back(t.latency);
    if (r.bytes >= 0) {
      c.bytes += r.bytes;
      ++c.sized;
    }
    c.wait += t.wait;
    c.wait_max = std::max(c.wait_max, t.wait);
    out->push_back(t);
  }
  if (lat.empty()) return;
  std::sort(lat.begin(), lat.end());
  c.latency_min = lat.front();
  c.latency_p50 = lat[(lat.size() - 1) / 2];
  c.latency_max = lat.back();
}

// The process of each task: the process whose sends name a device of it as theirs.
std::map<std::string, int64_t> TaskProcesses(const std::vector<TfSend>& sends,
                                             std::vector<std::string>* notes) {
  std::map<std::string, int64_t> of;
  for (const TfSend& s : sends) {
    Key k = ParseKey(s.key);
    if (!CrossTask(k)) continue;
    auto [it, fresh] = of.emplace(TaskOf(k.send_device), static_cast<int64_t>(s.process));
    if (!fresh && it->second != static_cast<int64_t>(s.process) && it->second >= 0) {
      notes->push_back(it->first +
                       ": named as their sending task by the sends of two processes (two "
                       "recordings of one job's workers mixed?)");
      it->second = -2;  // ambiguous
    }
  }
  return of;
}

// The process that received channel c's tensor: its task's, else the only other process with
// receives of its producer (`producers`: producer -> processes that received it).
int64_t Receiver(const RendezvousChannel& c, const std::map<std::string, int64_t>& tasks,
                 const std::map<std::string, std::set<size_t>>& producers) {
  if (auto it = tasks.find(TaskOf(c.recv_device)); it != tasks.end()) return it->second;
  auto it = producers.find(TensorProducer(c.tensor));
  if (it == producers.end()) return -1;
  std::set<size_t> others = it->second;
  others.erase(static_cast<size_t>(c.sender));
  return others.size() == 1 ? static_cast<int64_t>(*others.begin()) : -1;
}

void Note(const RendezvousChannel& c, const P2pView& v, std::vector<std::string>* notes) {
  std::string name = "rendezvous " + c.tensor + " (" + c.send_device + " -> " + c.recv_device + ")";
  if (c.receiver < 0) {
    notes->push_back(name + ": " + std::to_string(c.sends) + " send(s) by " +
                     v.processes[c.sender].Label() + ", received by no process in the traces " +
                     "(record its peer too)");
  } else if (c.sends != c.receives) {
    notes->push_back(name + ": " + std::to_string(c.sends) + " send(s) and " +
                     std::to_string(c.receives) +
                     " receive(s): paired in order, the rest left unpaired (a worker's profiler "
                     "started late or stopped early)");
  }
  if (c.causality)
    notes->push_back(name + ": " + std::to_string(c.causality) +
                     " receive(s) done before their send began (clocks not aligned)");
}

}  // namespace

void MatchRendezvous(std::vector<TfSend> sends, std::vector<TfRecv> recvs,
                     const std::map<std::string, int64_t>& offsets, P2pView* v) {
  if (sends.empty()) return;
  std::vector<int64_t> shift = Offsets(*v, offsets);
  for (TfSend& s : sends) {
    s.start = Shifted(s.start, shift[s.process]);
    s.end = Shifted(s.end, shift[s.process]);
  }
  std::map<std::string, std::set<size_t>> producers;
  for (TfRecv& r : recvs) {
    r.start = Shifted(r.start, shift[r.process]);
    r.done = Shifted(r.done, shift[r.process]);
    producers[RecvProducer(r.name)].insert(r.process);
  }
  std::map<std::string, int64_t> tasks = TaskProcesses(sends, &v->notes);
  // Channels by (send device, recv device, tensor): the frames and iterations of one edge.
  std::map<std::tuple<std::string, std::string, std::string>, Channel> channels;
  for (TfSend& s : sends) {
    Key k = ParseKey(s.key);
    if (!CrossTask(k)) continue;
    Channel& ch = channels[{k.send_device, k.recv_device, k.tensor}];
    if (ch.sends.empty())
      ch.c = {s.key, k.tensor, k.send_device, k.recv_device, static_cast<int64_t>(s.process)};
    ch.sends.push_back(std::move(s));
  }
  // Each receive goes to the channel of its producer whose receiver is its process.
  std::map<std::pair<size_t, std::string>, std::vector<Channel*>> by_receiver;
  for (auto& kv : channels) {
    Channel& ch = kv.second;
    ch.c.receiver = Receiver(ch.c, tasks, producers);
    if (ch.c.receiver >= 0)
      by_receiver[{static_cast<size_t>(ch.c.receiver), TensorProducer(ch.c.tensor)}].push_back(&ch);
  }
  for (TfRecv& r : recvs) {
    auto it = by_receiver.find({r.process, RecvProducer(r.name)});
    if (it != by_receiver.end() && it->second.size() == 1)
      it->second[0]->recvs.push_back(std::move(r));
  }
  for (auto& kv : channels) {
    PairChannel(v->rendezvous.size(), &kv.second, &v->transfers);
    Note(kv.second.c, *v, &v->notes);
    v->rendezvous.push_back(std::move(kv.second.c));
  }
}

std::map<std::string, OffsetBound> RendezvousBounds(const P2pView& v,
                                                    const std::string& reference) {
  std::map<std::string, OffsetBound> out;
  auto trace = [&](int64_t p) {
    return p >= 0 ? v.processes[static_cast<size_t>(p)].trace : std::string();
  };
  for (const TfTransfer& t : v.transfers) {
    const RendezvousChannel& ch = v.rendezvous[t.channel];
    std::string from = trace(ch.sender), to = trace(ch.receiver);
    if (from.empty() || to.empty() || from == to || (from != reference && to != reference))
      continue;
    auto ss = static_cast<int64_t>(t.send_start), rd = static_cast<int64_t>(t.recv_done);
    OffsetBound& b = out[from == reference ? to : from];
    if (from == reference)  // its receive done no earlier than the reference's send began
      b.low = std::max(b.low, ss - rd);
    else  // the reference's receive done no earlier than its send began
      b.high = std::min(b.high, rd - ss);
    ++b.pairs;
  }
  return out;
}

}  // namespace tt::analysis
