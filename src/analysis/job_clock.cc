#include "analysis/job_clock.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/p2p.h"

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

// The socket pairs between recordings (p2p.h) narrow each one's window: a receive never ends
// before the send of its bytes began. An offset outside the joint window moves into it.
void RefineBySockets(const model::TraceModel& m, unsigned threads, std::vector<ClockWindow> windows,
                     std::vector<model::RecordingClock>* clocks) {
  std::vector<SocketProcess> procs;
  std::vector<SocketEnd> ends;
  std::vector<Problem> ignored;
  CollectSockets({&m}, threads, &procs, &ends, &ignored);
  if (procs.empty()) return;
  std::map<std::string, int64_t> offsets;
  for (const auto& c : *clocks) offsets[c.recording] = c.offset_ns;
  P2pView v = MatchSockets(std::move(procs), std::move(ends), offsets);
  for (size_t i = 1; i < clocks->size(); ++i) {
    model::RecordingClock& c = (*clocks)[i];
    const P2pClock* sc = nullptr;
    for (const auto& p : v.clocks)
      if (p.trace == c.recording && p.pairs) sc = &p;
    if (!sc) continue;
    c.pairs = sc->pairs;
    ClockWindow& w = windows[i];
    w.low = std::max(w.low, sc->low_ns);
    w.high = std::min(w.high, sc->high_ns);
    if (w.low > w.high) {
      c.method = "inconsistent";
      continue;
    }
    if (c.offset_ns >= w.low && c.offset_ns <= w.high) {
      if (c.method == "unbounded") c.method = "recorded";
    } else {
      bool closed = w.low != INT64_MIN && w.high != INT64_MAX;
      c.offset_ns = closed ? w.low / 2 + w.high / 2 : (c.offset_ns < w.low ? w.low : w.high);
      c.method = c.constraints ? "causality" : "sockets";
    }
    if (w.low != INT64_MIN && w.high != INT64_MAX)
      c.uncertainty_ns = std::max(c.offset_ns - w.low, w.high - c.offset_ns);
  }
}

}  // namespace

void AlignRecordings(model::TraceModel* m, unsigned threads) {
  std::vector<std::string> recordings;
  for (const auto& p : m->processes)
    if (std::find(recordings.begin(), recordings.end(), p.recording) == recordings.end())
      recordings.push_back(p.recording);
  if (recordings.size() < 2) return;
  std::vector<Problem> ignored;  // the views report damage when they scan
  std::vector<CommRank> ranks = CollectCollectives({m}, threads, &ignored);
  std::vector<CommClock> clocks;
  if (!ranks.empty()) clocks = MatchCollectives(std::move(ranks)).clocks;
  // The reference: the first rank's recording (comm's), else the first recording.
  std::string ref_recording = clocks.empty() ? recordings[0] : clocks[0].trace;
  const model::Process* ref =
      FirstOf(*m, ref_recording, clocks.empty() ? std::string() : clocks[0].clock);
  std::stable_partition(recordings.begin(), recordings.end(),
                        [&](const std::string& r) { return r == ref_recording; });
  std::vector<ClockWindow> windows;
  m->clocks = CollectiveClocks(*m, recordings, clocks, *ref, &windows);
  if (HasSocketCalls(*m)) RefineBySockets(*m, threads, std::move(windows), &m->clocks);
  // A clock is a recording's boot: its processes without collectives move with those that
  // ran them; another boot of the recording by the recorded offsets.
  for (auto& p : m->processes) {
    const CommClock* c = ClockOf(clocks, p);
    const model::RecordingClock* rc = nullptr;
    for (const auto& r : m->clocks)
      if (r.recording == p.recording) rc = &r;
    const model::Process* first = FirstOf(*m, p.recording, "");
    if (p.meta.clock_uuid == first->meta.clock_uuid || !c)
      p.shift_ns = rc->offset_ns + (p.meta.clock_uuid == first->meta.clock_uuid
                                        ? 0
                                        : p.meta.offset_start_ns - first->meta.offset_start_ns);
    else
      p.shift_ns = c->offset_ns;
  }
  m->realtime_offset_ns = RealtimeOffset(*ref);
}

std::vector<std::string> ClockNotes(const model::TraceModel& m) {
  std::vector<std::string> notes;
  for (const auto& c : m.clocks) {
    std::string why = c.method;
    if (c.method == "recorded") why = "recorded offsets, which causality agrees with";
    if (c.method == "inconsistent")
      why =
          "inconsistent: no offset satisfies every collective and socket pair; kept as the "
          "collectives or the recorded offsets gave it";
    if (c.method == "unbounded")
      why = "no collective or socket pair shared with the reference: as recorded";
    if (c.method == "sockets") why = "causality of socket pairs";
    if (c.uncertainty_ns > 0) {
      char b[64];
      std::snprintf(b, sizeof b, ": within %.1f us", static_cast<double>(c.uncertainty_ns) / 1e3);
      why += b;
    }
    if (c.constraints) why += "; " + std::to_string(c.constraints) + " collective(s) bound it";
    if (c.pairs) why += "; " + std::to_string(c.pairs) + " socket pair(s) bound it";
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
      c.low_ns += applied;
      c.high_ns += applied;
      c.offset_ns += applied;
      c.recorded_ns = rc.recorded_ns;
      if (c.method == "recorded" || c.method == "reference") {
        c.method = rc.method;
        c.uncertainty_ns = rc.uncertainty_ns;
      }
      break;
    }
}

}  // namespace tt::analysis
