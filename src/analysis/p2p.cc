// Pairing socket receives with their sends (p2p.h).
#include "analysis/p2p.h"

#include <algorithm>
#include <tuple>

#include "analysis/human.h"

namespace tt::analysis {

std::string SocketProcess::Label() const {
  std::string p = "pid " + std::to_string(pid);
  return rank >= 0 ? "rank " + std::to_string(rank) + " (" + p + ")" : p;
}

namespace {

// One direction's calls from both sides, before pairing.
struct Side {
  int64_t process = -1;
  std::vector<SocketCall> calls;
};

struct Flow {
  Side send, recv;
};

// What each send became: bytes received of it and the end of the last receive that took some.
struct Delivery {
  uint64_t covered = 0, done = 0;
};

bool ByOffset(const SocketCall& a, const SocketCall& b) {
  return std::tie(a.offset, a.start) < std::tie(b.offset, b.start);
}

// Calls whose byte range starts before the previous call's ended (sorted by offset).
uint64_t Overlaps(const std::vector<SocketCall>& calls) {
  uint64_t n = 0, end = 0;
  for (const SocketCall& c : calls) {
    n += c.offset < end;
    end = std::max(end, c.offset + c.bytes);
  }
  return n;
}

// Walks the receives and the sends in offset order: each receive's bytes that sends carried.
std::vector<Delivery> Pair(const std::vector<SocketCall>& sends,
                           const std::vector<SocketCall>& recvs, P2pDirection* d) {
  std::vector<Delivery> out(sends.size());
  size_t first = 0;
  for (const SocketCall& r : recvs) {
    uint64_t r_end = r.offset + r.bytes;
    while (first < sends.size() && sends[first].offset + sends[first].bytes <= r.offset) ++first;
    for (size_t j = first; j < sends.size() && sends[j].offset < r_end; ++j) {
      const SocketCall& s = sends[j];
      uint64_t lo = std::max(s.offset, r.offset), hi = std::min(s.offset + s.bytes, r_end);
      if (hi <= lo) continue;
      d->matched += hi - lo;
      out[j].covered += hi - lo;
      out[j].done = std::max(out[j].done, r.end);
      d->causality += r.end < s.start;
    }
  }
  // Overlapping sends (a descriptor shared, offsets restarted) may count bytes twice.
  d->matched = std::min(d->matched, d->received);
  return out;
}

// Latencies of the messages (sends wholly received) and the time some was in flight.
void Latencies(const std::vector<SocketCall>& sends, const std::vector<Delivery>& del,
               P2pDirection* d) {
  std::vector<uint64_t> lat;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (size_t i = 0; i < sends.size(); ++i) {
    if (del[i].covered < sends[i].bytes) continue;
    uint64_t done = std::max(del[i].done, sends[i].start);
    lat.push_back(done - sends[i].start);
    spans.emplace_back(sends[i].start, done);
  }
  d->messages = lat.size();
  if (lat.empty()) return;
  std::sort(lat.begin(), lat.end());
  d->latency_min = lat.front();
  d->latency_max = lat.back();
  d->latency_p50 = lat[(lat.size() - 1) / 2];
  double sum = 0;
  for (uint64_t l : lat) sum += static_cast<double>(l);
  d->latency_mean = sum / static_cast<double>(lat.size());
  std::sort(spans.begin(), spans.end());
  uint64_t cur_lo = spans[0].first, cur_hi = spans[0].second;
  for (const auto& [lo, hi] : spans) {
    if (lo > cur_hi) {
      d->busy_ns += cur_hi - cur_lo;
      cur_lo = lo;
    }
    cur_hi = std::max(cur_hi, hi);
  }
  d->busy_ns += cur_hi - cur_lo;
  if (d->busy_ns > 0) d->bandwidth = static_cast<double>(d->matched) * 1e9 / d->busy_ns;
}

uint64_t Sum(const std::vector<SocketCall>& calls) {
  uint64_t n = 0;
  for (const SocketCall& c : calls) n += c.bytes;
  return n;
}

P2pDirection Direction(const std::string& from, const std::string& to, Flow f) {
  P2pDirection d;
  d.from = from;
  d.to = to;
  d.sender = f.send.process;
  d.receiver = f.recv.process;
  std::sort(f.send.calls.begin(), f.send.calls.end(), ByOffset);
  std::sort(f.recv.calls.begin(), f.recv.calls.end(), ByOffset);
  d.sends = f.send.calls.size();
  d.receives = f.recv.calls.size();
  d.sent = Sum(f.send.calls);
  d.received = Sum(f.recv.calls);
  d.overlaps = Overlaps(f.send.calls) + Overlaps(f.recv.calls);
  std::vector<Delivery> del = Pair(f.send.calls, f.recv.calls, &d);
  Latencies(f.send.calls, del, &d);
  return d;
}

// The notes on one direction: a missing side, bytes left unpaired, broken causality.
void Note(const P2pDirection& d, const std::vector<SocketProcess>& procs,
          std::vector<std::string>* notes) {
  std::string name = d.from + " -> " + d.to;
  auto who = [&](int64_t p) { return procs[p].Label() + " of " + procs[p].trace; };
  if (d.receiver < 0) {
    notes->push_back(name + ": " + HumanBytes(d.sent) + " sent by " + who(d.sender) +
                     ", received by no process in the traces (record its peer too)");
  } else if (d.sender < 0) {
    notes->push_back(name + ": " + HumanBytes(d.received) + " received by " + who(d.receiver) +
                     ", sent by no process in the traces (record its peer too)");
  } else if (d.matched < d.received || d.matched < d.sent) {
    notes->push_back(name + ": " + std::to_string(d.sent - std::min(d.sent, d.matched)) +
                     " byte(s) sent and " + std::to_string(d.received - d.matched) +
                     " received left unpaired (calls before the recording, a descriptor "
                     "shared, or bytes still in flight at the end)");
  }
  if (d.overlaps)
    notes->push_back(name + ": " + std::to_string(d.overlaps) +
                     " call(s) overlap another's bytes (the connection's ends were reused)");
  if (d.causality)
    notes->push_back(name + ": " + std::to_string(d.causality) +
                     " receive(s) end before the send of their bytes began (clocks not aligned)");
}

void Shift(std::vector<SocketCall>* calls, int64_t by) {
  for (SocketCall& c : *calls) {
    c.start = static_cast<uint64_t>(static_cast<int64_t>(c.start) + by);
    c.end = static_cast<uint64_t>(static_cast<int64_t>(c.end) + by);
  }
}

// The ns added to a process's times: comm's for its trace, else from the recorded offsets where
// it ran on another boot than the first process.
int64_t Offset(const std::vector<SocketProcess>& procs, size_t p,
               const std::map<std::string, int64_t>& offsets) {
  if (auto it = offsets.find(procs[p].trace); it != offsets.end()) return it->second;
  if (procs.empty() || procs[p].clock == procs[0].clock) return 0;
  return procs[p].realtime_offset - procs[0].realtime_offset;
}

}  // namespace

P2pView MatchSockets(std::vector<SocketProcess> processes, std::vector<SocketEnd> ends,
                     const std::map<std::string, int64_t>& offsets) {
  P2pView v;
  std::map<std::pair<std::string, std::string>, Flow> flows;  // (from, to)
  uint64_t anonymous = 0;
  for (SocketEnd& e : ends) {
    if (e.local.empty() || e.peer.empty()) {
      anonymous += Sum(e.sends) + Sum(e.receives);
      continue;
    }
    int64_t by = Offset(processes, e.process, offsets);
    Shift(&e.sends, by);
    Shift(&e.receives, by);
    auto add = [&](Side* s, std::vector<SocketCall>* calls) {
      if (calls->empty()) return;
      s->process = static_cast<int64_t>(e.process);
      s->calls.insert(s->calls.end(), calls->begin(), calls->end());
    };
    add(&flows[{e.local, e.peer}].send, &e.sends);
    add(&flows[{e.peer, e.local}].recv, &e.receives);
  }
  std::map<std::pair<std::string, std::string>, P2pConnection> conns;
  for (auto& [key, f] : flows) {
    if (f.send.calls.empty() && f.recv.calls.empty()) continue;
    P2pDirection d = Direction(key.first, key.second, std::move(f));
    Note(d, processes, &v.notes);
    v.matched += d.matched;
    v.unmatched += (d.sent - std::min(d.sent, d.matched)) + (d.received - d.matched);
    auto ab = std::minmax(key.first, key.second);
    P2pConnection& c = conns[{ab.first, ab.second}];
    c.a = ab.first;
    c.b = ab.second;
    c.dirs.push_back(std::move(d));
  }
  for (auto& [key, c] : conns) {
    std::stable_sort(c.dirs.begin(), c.dirs.end(), [&](const auto& x, const auto& y) {
      return (x.from == c.a) > (y.from == c.a);
    });
    v.connections.push_back(std::move(c));
  }
  auto bytes = [](const P2pConnection& c) {
    uint64_t n = 0;
    for (const auto& d : c.dirs) n += std::max(d.sent, d.received);
    return n;
  };
  std::stable_sort(v.connections.begin(), v.connections.end(),
                   [&](const auto& x, const auto& y) { return bytes(x) > bytes(y); });
  if (anonymous)
    v.notes.push_back(std::to_string(anonymous) +
                      " byte(s) on connections never announced (their net.connection event is "
                      "missing: a damaged trace): not paired");
  v.unmatched += anonymous;
  v.processes = std::move(processes);
  return v;
}

}  // namespace tt::analysis
