#include "analysis/job/job_clock.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/comm/p2p.h"

namespace tt::analysis {

namespace {

// A recording's first process on boot `clock` ("": any).
const model::Process* FirstOf(const model::TraceModel& m, const std::string& recording,
                              const std::string& clock) {
  for (const auto& p : m.processes)
    if (p.recording == recording && (clock.empty() || p.meta.clock_uuid == clock)) return &p;
  return nullptr;
}

// The offsets the causality of a recording's events allows (open where nothing bounds it).
struct ClockWindow {
  int64_t low = INT64_MIN, high = INT64_MAX;
};

int64_t RealtimeOffset(const model::Process& p) {
  return p.meta.clock_offset_ns ? p.meta.clock_offset_ns : p.meta.offset_start_ns;
}

const CommClock* ClockOf(const std::vector<CommClock>& clocks, const model::Process& p) {
  for (const auto& c : clocks)
    if (c.trace == p.recording && c.clock == p.meta.clock_uuid) return &c;
  return nullptr;
}

std::string Signed(int64_t ns) {
  char b[48];
  if (ns == 0) return "+0 ns";
  std::snprintf(b, sizeof b, "%+.3f ms", static_cast<double>(ns) / 1e6);
  return b;
}

// Each recording's clock from the collectives: offset, window and method (comm_clock.cc); a
// recording without collectives by its recorded offset (another boot), else as is.
std::vector<model::RecordingClock> CollectiveClocks(const model::TraceModel& m,
                                                    const std::vector<std::string>& recordings,
                                                    const std::vector<CommClock>& clocks,
                                                    const model::Process& ref,
                                                    std::vector<ClockWindow>* windows) {
  std::vector<model::RecordingClock> out;
  for (const auto& rec : recordings) {
    model::RecordingClock rc;
    rc.recording = rec;
    const model::Process* first = FirstOf(m, rec, "");
    rc.host = first->meta.hostname;
    rc.offset_ns = first->meta.clock_uuid == ref.meta.clock_uuid
                       ? 0
                       : first->meta.offset_start_ns - ref.meta.offset_start_ns;
    rc.recorded_ns = rc.offset_ns;
    rc.method = out.empty() ? "reference" : "unbounded";
    ClockWindow w;
    for (const auto& c : clocks)
      if (c.trace == rec) {
        rc.offset_ns = c.offset_ns;
        rc.recorded_ns = c.recorded_ns;
        rc.uncertainty_ns = c.uncertainty_ns;
        rc.constraints = c.constraints;
        rc.method = c.method;
        if (c.bounded) w = {c.low_ns, c.high_ns};
        break;
      }
    out.push_back(std::move(rc));
    windows->push_back(w);
  }
  return out;
}

// The socket pairs between each recording and the reference (p2p.h) bound its offset: a
// receive never ends before the send of its bytes began. Into `pairs`: those windows, and how
// many pairs bound each.
void SocketBounds(const model::TraceModel& m, unsigned threads,
                  const std::map<std::string, int64_t>& offsets,
                  const std::vector<model::RecordingClock>& clocks, std::vector<ClockWindow>* pairs,
                  std::vector<uint64_t>* count) {
  std::vector<SocketProcess> procs;
  std::vector<SocketEnd> ends;
  std::vector<Problem> ignored;
  CollectSockets({&m}, threads, &procs, &ends, &ignored);
  if (procs.empty()) return;
  P2pView v = MatchSockets(std::move(procs), std::move(ends), offsets);
  for (size_t i = 1; i < clocks.size(); ++i)
    for (const auto& p : v.clocks)
      if (p.trace == clocks[i].recording && p.pairs) {
        (*pairs)[i] = {p.low_ns, p.high_ns};
        (*count)[i] = p.pairs;
      }
}

// TensorFlow's tensors sent between each recording and the reference (p2p.h) bound its offset
// too: a receive is never done before its send began. Narrows `pairs`; counts into `count`.
void TensorBounds(const model::TraceModel& m, unsigned threads,
                  const std::map<std::string, int64_t>& offsets,
                  const std::vector<model::RecordingClock>& clocks, std::vector<ClockWindow>* pairs,
                  std::vector<uint64_t>* count) {
  P2pView v;
  std::vector<TfSend> sends;
  std::vector<TfRecv> recvs;
  std::vector<Problem> ignored;
  CollectRendezvous({&m}, threads, &v.processes, &sends, &recvs, &ignored);
  MatchRendezvous(std::move(sends), std::move(recvs), offsets, &v);  // times with `offsets`
  std::map<std::string, OffsetBound> bounds = RendezvousBounds(v, clocks[0].recording);
  for (size_t i = 1; i < clocks.size(); ++i) {
    auto b = bounds.find(clocks[i].recording);
    if (b == bounds.end()) continue;
    int64_t o = offsets.at(clocks[i].recording);
    ClockWindow& w = (*pairs)[i];
    if (b->second.low != INT64_MIN) w.low = std::max(w.low, o + b->second.low);
    if (b->second.high != INT64_MAX) w.high = std::min(w.high, o + b->second.high);
    (*count)[i] += b->second.pairs;
  }
}

// The pairs between recordings (sockets, TensorFlow's sends and receives) narrow each one's
// window. An offset outside the joint window moves into it.
void RefineByPairs(const model::TraceModel& m, unsigned threads, std::vector<ClockWindow> windows,
                   std::vector<model::RecordingClock>* clocks) {
  std::map<std::string, int64_t> offsets;
  for (const auto& c : *clocks) offsets[c.recording] = c.offset_ns;
  std::vector<ClockWindow> pairs(clocks->size());
  std::vector<uint64_t> sockets(clocks->size(), 0), tensors(clocks->size(), 0);
  if (HasSocketCalls(m)) SocketBounds(m, threads, offsets, *clocks, &pairs, &sockets);
  if (HasRendezvous(m)) TensorBounds(m, threads, offsets, *clocks, &pairs, &tensors);
  for (size_t i = 1; i < clocks->size(); ++i) {
    model::RecordingClock& c = (*clocks)[i];
    if (!sockets[i] && !tensors[i]) continue;
    c.pairs = sockets[i];
    c.tensor_pairs = tensors[i];
    ClockWindow& w = windows[i];
    w.low = std::max(w.low, pairs[i].low);
    w.high = std::min(w.high, pairs[i].high);
    if (w.low > w.high) {
      c.method = "inconsistent";
      continue;
    }
    if (c.offset_ns >= w.low && c.offset_ns <= w.high) {
      if (c.method == "unbounded") c.method = "recorded";
    } else {
      c.offset_ns = IntoWindow(c.offset_ns, w.low, w.high);
      c.method = c.constraints ? "causality" : sockets[i] ? "sockets" : "tensors";
    }
    if (w.low != INT64_MIN && w.high != INT64_MAX)
      c.uncertainty_ns = std::max(c.offset_ns - w.low, w.high - c.offset_ns);
  }
}

}  // namespace

model::JobClock SolveJobClock(const model::TraceModel& m, unsigned threads) {
  model::JobClock out;
  std::vector<std::string> recordings;
  for (const auto& p : m.processes)
    if (std::find(recordings.begin(), recordings.end(), p.recording) == recordings.end())
      recordings.push_back(p.recording);
  if (recordings.size() < 2) return out;
  std::vector<Problem> ignored;  // the views report damage when they scan
  std::vector<CommRank> ranks = CollectCollectives({&m}, threads, &ignored);
  std::vector<CommClock> clocks;
  if (!ranks.empty()) clocks = MatchCollectives(std::move(ranks)).clocks;
  // The reference: the first rank's recording (comm's), else the first recording.
  std::string ref_recording = clocks.empty() ? recordings[0] : clocks[0].trace;
  const model::Process* ref =
      FirstOf(m, ref_recording, clocks.empty() ? std::string() : clocks[0].clock);
  std::stable_partition(recordings.begin(), recordings.end(),
                        [&](const std::string& r) { return r == ref_recording; });
  std::vector<ClockWindow> windows;
  out.clocks = CollectiveClocks(m, recordings, clocks, *ref, &windows);
  RefineByPairs(m, threads, std::move(windows), &out.clocks);
  // A clock is a recording's boot: its processes without collectives move with those that
  // ran them; another boot of the recording by the recorded offsets.
  for (const auto& p : m.processes) {
    const CommClock* c = ClockOf(clocks, p);
    const model::RecordingClock* rc = nullptr;
    for (const auto& r : out.clocks)
      if (r.recording == p.recording) rc = &r;
    const model::Process* first = FirstOf(m, p.recording, "");
    if (p.meta.clock_uuid == first->meta.clock_uuid || !c)
      out.shift_ns.push_back(rc->offset_ns +
                             (p.meta.clock_uuid == first->meta.clock_uuid
                                  ? 0
                                  : p.meta.offset_start_ns - first->meta.offset_start_ns));
    else
      out.shift_ns.push_back(c->offset_ns);
  }
  out.realtime_offset_ns = RealtimeOffset(*ref);
  return out;
}

std::vector<std::string> ClockNotes(const model::TraceModel& m) {
  std::vector<std::string> notes;
  for (const auto& c : m.clocks) {
    std::string why = c.method;
    if (c.method == "recorded") why = "recorded offsets, which causality agrees with";
    if (c.method == "inconsistent")
      why =
          "inconsistent: no offset satisfies every collective and pair; kept as the "
          "collectives or the recorded offsets gave it";
    if (c.method == "unbounded")
      why = "no collective or pair shared with the reference: as recorded";
    if (c.method == "sockets") why = "causality of socket pairs";
    if (c.method == "tensors") why = "causality of TensorFlow's sends and receives";
    if (c.uncertainty_ns > 0) {
      char b[64];
      std::snprintf(b, sizeof b, ": within %.1f us", static_cast<double>(c.uncertainty_ns) / 1e3);
      why += b;
    }
    if (c.constraints) why += "; " + std::to_string(c.constraints) + " collective(s) bound it";
    if (c.pairs) why += "; " + std::to_string(c.pairs) + " socket pair(s) bound it";
    if (c.tensor_pairs)
      why += "; " + std::to_string(c.tensor_pairs) + " TensorFlow send/receive pair(s) bound it";
    notes.push_back("clock of " + c.recording + ": " + Signed(c.offset_ns) + " (" + why + ")");
  }
  return notes;
}

void ShowAppliedClocks(const model::TraceModel& m, CommView* v) {
  if (m.clocks.empty()) return;
  for (CommClock& c : v->clocks)
    for (const auto& rc : m.clocks) {
      if (rc.recording != c.trace) continue;
      // What this view found is what is left after the alignment (0 where it agrees).
      int64_t applied = rc.offset_ns;
      if (c.low_ns != INT64_MIN) c.low_ns += applied;  // unbounded sides stay so
      if (c.high_ns != INT64_MAX) c.high_ns += applied;
      c.offset_ns += applied;
      c.recorded_ns = rc.recorded_ns;
      if (c.method == "recorded" || c.method == "reference") {
        c.method = rc.method;
        c.uncertainty_ns = rc.uncertainty_ns;
      }
      break;
    }
}

void ShowAppliedClocks(const model::TraceModel& m, P2pView* v) {
  for (const auto& rc : m.clocks) {
    for (P2pClock& c : v->clocks) {
      if (rc.recording != c.trace) continue;
      if (c.low_ns != INT64_MIN) c.low_ns += rc.offset_ns;  // what was left, as above
      if (c.high_ns != INT64_MAX) c.high_ns += rc.offset_ns;
      c.offset_ns += rc.offset_ns;
      c.recorded_ns = rc.recorded_ns;
      if (c.method == "recorded" || c.method == "reference") c.method = rc.method;
    }
    if (rc.method == "tensors")
      v->notes.push_back("clock of " + rc.recording + ": moved by " + Signed(rc.offset_ns) +
                         " for TensorFlow's " + std::to_string(rc.tensor_pairs) +
                         " send/receive pair(s) with the reference (a receive is never done "
                         "before its send began)");
  }
}

}  // namespace tt::analysis
