// Aligning the clocks of several recordings (comm.h, CommClock): recorded CLOCK_REALTIME
// offsets, refined by the causality of symmetric collectives and of sends paired with their
// receives.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/comm/comm.h"
#include "analysis/comm/p2p.h"

namespace tt::analysis {

namespace {

// Collectives that no rank can leave before every rank entered (each needs every rank's data).
bool Symmetric(const std::string& c) {
  return c == "allreduce" || c == "allgather" || c == "reducescatter" || c == "alltoall" ||
         c == "barrier";
}

// What the instances shared with the reference say of one clock's offset d (added to its
// times): every rank of it leaves after every reference rank entered (d >= enter_a - exit_b),
// and the reverse (d <= exit_a - enter_b).
struct Bounds {
  int64_t low = INT64_MIN, high = INT64_MAX;
  uint64_t instances = 0;
};

// A send paired with its receive bounds it on one side: the receive ends after the send began,
// its call where known (the backend's range may open later: comm_collect.cc), so d >= send_a -
// exit_b where the reference sent, d <= exit_a - send_b where it received.
bool SendRecvBounds(const CommInstance& in, const std::vector<size_t>& unit_of, size_t unit,
                    Bounds* b) {
  auto sent = [](const CommArrival& x) {
    return static_cast<int64_t>(x.call ? std::min(x.call, x.enter) : x.enter);
  };
  bool shared = false;
  for (const CommArrival& a : in.arrivals)
    for (const CommArrival& o : in.arrivals) {
      if (unit_of[a.rank] != 0 || unit_of[o.rank] != unit || a.send == o.send) continue;
      if (a.send)
        b->low = std::max(b->low, sent(a) - static_cast<int64_t>(o.exit));
      else
        b->high = std::min(b->high, static_cast<int64_t>(a.exit) - sent(o));
      shared = true;
    }
  return shared;
}

Bounds BoundsOf(const std::vector<CommInstance>& instances, const std::vector<size_t>& unit_of,
                size_t unit) {
  Bounds b;
  for (const CommInstance& in : instances) {
    if (in.src >= 0) {
      b.instances += SendRecvBounds(in, unit_of, unit, &b);
      continue;
    }
    if (!Symmetric(in.collective)) continue;
    bool shared = false;
    for (const CommArrival& a : in.arrivals) {
      if (unit_of[a.rank] != 0) continue;
      for (const CommArrival& o : in.arrivals) {
        if (unit_of[o.rank] != unit) continue;
        auto ae = static_cast<int64_t>(a.enter), ax = static_cast<int64_t>(a.exit);
        auto oe = static_cast<int64_t>(o.enter), ox = static_cast<int64_t>(o.exit);
        b.low = std::max(b.low, ae - ox);
        b.high = std::min(b.high, ax - oe);
        shared = true;
      }
    }
    b.instances += shared;
  }
  return b;
}

std::string Ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

// Decides one clock's offset from its recorded one and its bounds.
void Refine(CommClock* c, Bounds b, const std::string& reference, std::vector<std::string>* notes) {
  c->offset_ns = c->recorded_ns;
  c->constraints = b.instances;
  if (!b.instances) {
    c->method = "unbounded";
    return;
  }
  c->bounded = true;
  c->low_ns = b.low;
  c->high_ns = b.high;
  if (b.low > b.high) {
    c->method = "inconsistent";
    notes->push_back("the clock of " + c->trace + " cannot be aligned with " + reference +
                     " by causality: no offset lets every rank leave its collectives after all "
                     "entered (they allow at least " +
                     Ms(b.low) + " and at most " + Ms(b.high) +
                     "); its recorded clock is kept, so some collectives end before their last "
                     "arrival");
    return;
  }
  if (c->recorded_ns >= b.low && c->recorded_ns <= b.high) {
    c->method = "recorded";
  } else {
    // The window's middle: each bound comes from the instance whose last rank was followed
    // most closely by the other's exit (the least delay, as NTP takes the fastest exchange),
    // and a collective's latency after the last arrival is alike both ways. Bounded on one
    // side only (sends in one direction), the nearest offset it allows.
    c->offset_ns = IntoWindow(c->recorded_ns, b.low, b.high);
    c->method = "causality";
  }
  if (b.low != INT64_MIN && b.high != INT64_MAX)
    c->uncertainty_ns = std::max(c->offset_ns - b.low, b.high - c->offset_ns);
}

}  // namespace

std::vector<CommClock> AlignClocks(std::vector<CommRank>* ranks,
                                   std::vector<CommInstance>* instances,
                                   std::vector<std::string>* notes) {
  std::vector<CommClock> clocks;
  std::vector<size_t> unit_of(ranks->size());
  std::map<std::pair<std::string, std::string>, size_t> units;  // (trace, boot) -> clock
  for (size_t r = 0; r < ranks->size(); ++r) {
    const CommRank& k = (*ranks)[r];
    auto [it, fresh] = units.emplace(std::make_pair(k.trace, k.clock), clocks.size());
    if (fresh) {
      CommClock c;
      c.trace = k.trace, c.host = k.host, c.clock = k.clock;
      // Another boot: the difference of the recorded offsets (a realtime instant t is
      // t - off on each clock); one boot shares CLOCK_MONOTONIC.
      if (k.clock != (*ranks)[0].clock)
        c.recorded_ns = k.realtime_offset - (*ranks)[0].realtime_offset;
      clocks.push_back(std::move(c));
    }
    unit_of[r] = it->second;
    clocks[it->second].ranks.push_back(r);
  }
  if (clocks.empty()) return clocks;
  clocks[0].method = "reference";
  clocks[0].uncertainty_ns = 0;
  for (size_t u = 1; u < clocks.size(); ++u)
    Refine(&clocks[u], BoundsOf(*instances, unit_of, u), clocks[0].trace, notes);
  for (CommInstance& in : *instances)
    for (CommArrival& a : in.arrivals) {
      auto d = static_cast<uint64_t>(clocks[unit_of[a.rank]].offset_ns);
      a.enter += d, a.exit += d;
      if (a.call) a.call += d;
    }
  for (size_t r = 0; r < ranks->size(); ++r) {
    auto d = static_cast<uint64_t>(clocks[unit_of[r]].offset_ns);
    for (CommEvent& e : (*ranks)[r].events) {
      e.start += d, e.end += d;
      if (e.call) e.call += d;
    }
    for (CommStep& s : (*ranks)[r].steps) s.start += d, s.end += d;
  }
  return clocks;
}

}  // namespace tt::analysis
