// Aligning the clocks of several recordings (comm.h, CommClock): recorded CLOCK_REALTIME
// offsets, refined by the causality of symmetric collectives and of sends paired with their
// receives.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "analysis/comm/clock_graph.h"
#include "analysis/comm/comm.h"
#include "analysis/comm/p2p.h"

namespace tt::analysis {

namespace {

// The window against the reference that the pairs shared with it alone allow (where the pairs
// together contradict each other, to say which recording's clock cannot be aligned).
OffsetWindow DirectWindow(const ClockEvidence& e, size_t u) {
  OffsetWindow w;
  w.instances = e.instances[u];
  w.low = e.low[u];                   // d_u - d_0 >= low[0][u]
  int64_t back = e.low[u * e.units];  // d_0 - d_u >= low[u][0]
  w.high = back == INT64_MIN ? INT64_MAX : -back;
  return w;
}

std::string Ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

// The recorded offset where the exits agree with it: within four times their spread and 1 ms
// (ranks of one collective may leave a few hundred us apart, always in one order: a bias the
// spread does not show), or where there are none. A window wide enough to hold a wrong recorded
// offset (a straggler's entries bound little) does not keep it against the exits.
bool AgreesWithExits(const CommClock& c, const std::optional<ExitEstimate>& x) {
  if (!x) return true;
  int64_t off = x->offset - c.recorded_ns;
  return (off < 0 ? -off : off) <= std::max<int64_t>(1000000, 4 * x->spread);
}

// Decides one clock's offset from its recorded one, its window and the collectives' exits.
void Refine(CommClock* c, OffsetWindow b, std::optional<ExitEstimate> by_exits,
            const std::string& reference, std::vector<std::string>* notes) {
  c->offset_ns = c->recorded_ns;
  c->constraints = b.instances;
  if (!b.instances || (b.low == INT64_MIN && b.high == INT64_MAX)) {
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
  if (c->recorded_ns >= b.low && c->recorded_ns <= b.high && AgreesWithExits(*c, by_exits)) {
    c->method = "recorded";
  } else {
    // Where the collectives' exits say (clamped into the window), else the window's middle
    // (bounded on one side only, by sends one way: the nearest offset it allows).
    c->offset_ns = by_exits ? std::clamp(by_exits->offset, b.low, b.high)
                            : IntoWindow(c->recorded_ns, b.low, b.high);
    c->method = "causality";
  }
  if (b.low != INT64_MIN && b.high != INT64_MAX)
    c->uncertainty_ns = std::max(c->offset_ns - b.low, b.high - c->offset_ns);
}

// Every clock but the reference's, from the evidence of all pairs together; where that
// contradicts itself, each from what it shares with the reference alone.
void RefineAll(const std::vector<CommInstance>& instances, const std::vector<size_t>& unit_of,
               std::vector<CommClock>* clocks, std::vector<std::string>* notes) {
  ClockEvidence e = CollectEvidence(instances, unit_of, clocks->size());
  std::optional<std::vector<OffsetWindow>> joint = JointWindows(e);
  std::vector<std::optional<ExitEstimate>> by_exits = ExitEstimates(e);
  for (size_t u = 1; u < clocks->size(); ++u)
    Refine(&(*clocks)[u], joint ? (*joint)[u] : DirectWindow(e, u), by_exits[u], (*clocks)[0].trace,
           notes);
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
  RefineAll(*instances, unit_of, &clocks, notes);
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
