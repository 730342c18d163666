// Pairing socket receives with their sends (p2p.h).
#include "analysis/comm/p2p.h"

#include <algorithm>
#include <tuple>

#include "core/human.h"

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

// Walks the receives and the sends (both sorted by offset): f(send index, receive, bytes) for
// each send whose bytes the receive carries, with the bytes they share.
template <typename F>
void ForEachPair(const std::vector<SocketCall>& sends, const std::vector<SocketCall>& recvs, F f) {
  size_t first = 0;
  for (const SocketCall& r : recvs) {
    uint64_t r_end = r.offset + r.bytes;
    while (first < sends.size() && sends[first].offset + sends[first].bytes <= r.offset) ++first;
    for (size_t j = first; j < sends.size() && sends[j].offset < r_end; ++j) {
      uint64_t lo = std::max(sends[j].offset, r.offset);
      uint64_t hi = std::min(sends[j].offset + sends[j].bytes, r_end);
      if (hi > lo) f(j, r, hi - lo);
    }
  }
}

// Each receive's bytes that sends carried.
std::vector<Delivery> Pair(const std::vector<SocketCall>& sends,
                           const std::vector<SocketCall>& recvs, P2pDirection* d) {
  std::vector<Delivery> out(sends.size());
  ForEachPair(sends, recvs, [&](size_t j, const SocketCall& r, uint64_t n) {
    d->matched += n;
    out[j].covered += n;
    out[j].done = std::max(out[j].done, r.end);
    d->causality += r.end < sends[j].start;
  });
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

// The window one recording's offset must lie in, from its pairs with the reference (unit 0).
void BoundClocks(const std::map<std::pair<std::string, std::string>, Flow>& flows,
                 const std::vector<size_t>& unit_of, std::vector<P2pClock>* clocks) {
  int64_t d0 = (*clocks)[0].offset_ns;
  for (const auto& kv : flows) {
    const Flow& f = kv.second;  // not a structured binding: clang 14 cannot capture one
    if (f.send.process < 0 || f.recv.process < 0) continue;
    size_t us = unit_of[f.send.process], ur = unit_of[f.recv.process];
    if (us == ur || (us != 0 && ur != 0)) continue;
    P2pClock& c = (*clocks)[us == 0 ? ur : us];
    ForEachPair(f.send.calls, f.recv.calls, [&](size_t j, const SocketCall& r, uint64_t) {
      auto ss = static_cast<int64_t>(f.send.calls[j].start), re = static_cast<int64_t>(r.end);
      if (us == 0)
        c.low_ns = std::max(c.low_ns, ss + d0 - re);
      else
        c.high_ns = std::min(c.high_ns, re + d0 - ss);
      ++c.pairs;
    });
  }
}

// Each recording's offset: the recorded one where the window holds it, else the nearest point
// of the window (its middle where it is closed on both sides).
void DecideClocks(std::vector<P2pClock>* clocks, std::vector<std::string>* notes) {
  for (size_t i = 1; i < clocks->size(); ++i) {
    P2pClock& c = (*clocks)[i];
    int64_t r = c.recorded_ns;
    if (!c.pairs) {
      c.method = "unbounded";
    } else if (c.low_ns > c.high_ns) {
      c.method = "inconsistent";
      notes->push_back(c.trace +
                       ": no clock offset lets every socket receive end after its "
                       "send began; the recorded offset is kept");
    } else if (r >= c.low_ns && r <= c.high_ns) {
      c.method = "recorded";
    } else {
      c.method = "sockets";
      c.offset_ns = IntoWindow(r, c.low_ns, c.high_ns);
    }
  }
}

// Puts every side's calls on the reference recording's clock (P2pClock).
std::vector<P2pClock> AlignSocketClocks(const std::vector<SocketProcess>& procs,
                                        const std::map<std::string, int64_t>& offsets,
                                        std::map<std::pair<std::string, std::string>, Flow>* flows,
                                        std::vector<std::string>* notes) {
  std::vector<P2pClock> clocks;
  std::vector<size_t> unit_of(procs.size());
  std::map<std::string, size_t> units;
  for (size_t p = 0; p < procs.size(); ++p) {
    auto [it, fresh] = units.emplace(procs[p].trace, clocks.size());
    if (fresh) {
      P2pClock c;
      c.trace = procs[p].trace;
      c.recorded_ns = c.offset_ns = ProcessOffset(procs, p, offsets);
      c.method = clocks.empty() ? "reference" : "";
      clocks.push_back(c);
    }
    unit_of[p] = it->second;
  }
  if (clocks.size() > 1) {
    BoundClocks(*flows, unit_of, &clocks);
    DecideClocks(&clocks, notes);
  }
  for (auto& [key, f] : *flows)
    for (Side* s : {&f.send, &f.recv})
      if (s->process >= 0) Shift(&s->calls, clocks[unit_of[s->process]].offset_ns);
  if (clocks.size() < 2) clocks.clear();
  return clocks;
}

}  // namespace

int64_t ProcessOffset(const std::vector<SocketProcess>& procs, size_t p,
                      const std::map<std::string, int64_t>& offsets) {
  if (auto it = offsets.find(procs[p].trace); it != offsets.end()) return it->second;
  if (procs.empty() || procs[p].clock == procs[0].clock) return 0;
  return procs[p].realtime_offset - procs[0].realtime_offset;
}

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
    auto add = [&](Side* s, std::vector<SocketCall>* calls) {
      if (calls->empty()) return;
      s->process = static_cast<int64_t>(e.process);
      s->calls.insert(s->calls.end(), calls->begin(), calls->end());
    };
    add(&flows[{e.local, e.peer}].send, &e.sends);
    add(&flows[{e.peer, e.local}].recv, &e.receives);
  }
  for (auto& [key, f] : flows) {
    std::sort(f.send.calls.begin(), f.send.calls.end(), ByOffset);
    std::sort(f.recv.calls.begin(), f.recv.calls.end(), ByOffset);
  }
  v.clocks = AlignSocketClocks(processes, offsets, &flows, &v.notes);
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
  for (auto& kv : conns) {
    P2pConnection& c = kv.second;  // not a structured binding: clang 14 cannot capture one
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
