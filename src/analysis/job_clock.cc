#include "analysis/job_clock.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace tt::analysis {

namespace {

// A recording's first process on boot `clock` ("": any).
const model::Process* FirstOf(const model::TraceModel& m, const std::string& recording,
                              const std::string& clock) {
  for (const auto& p : m.processes)
    if (p.recording == recording && (clock.empty() || p.meta.clock_uuid == clock)) return &p;
  return nullptr;
}

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
  // A clock is a recording's boot: its processes without collectives move with those that
  // ran them. A recording without any: by the recorded offsets (another boot), else as is.
  for (auto& p : m->processes) {
    if (const CommClock* c = ClockOf(clocks, p))
      p.shift_ns = c->offset_ns;
    else
      p.shift_ns = p.meta.clock_uuid == ref->meta.clock_uuid
                       ? 0
                       : p.meta.offset_start_ns - ref->meta.offset_start_ns;
  }
  m->realtime_offset_ns = RealtimeOffset(*ref);
  m->clocks.clear();
  for (const auto& rec : recordings) {
    model::RecordingClock rc;
    rc.recording = rec;
    const model::Process* first = FirstOf(*m, rec, "");
    rc.offset_ns = first->shift_ns;
    rc.method = rec == ref_recording ? "reference" : "unbounded";
    for (const auto& c : clocks)
      if (c.trace == rec) {
        rc.offset_ns = c.offset_ns;
        rc.recorded_ns = c.recorded_ns;
        rc.uncertainty_ns = c.uncertainty_ns;
        rc.constraints = c.constraints;
        rc.method = c.method;
        break;
      }
    if (rc.method == "unbounded") rc.recorded_ns = rc.offset_ns;
    m->clocks.push_back(std::move(rc));
  }
}

std::vector<std::string> ClockNotes(const model::TraceModel& m) {
  std::vector<std::string> notes;
  for (const auto& c : m.clocks) {
    std::string why = c.method;
    if (c.method == "recorded") why = "recorded offsets, which the collectives agree with";
    if (c.method == "inconsistent")
      why = "inconsistent: no offset satisfies every collective; the recorded one is kept";
    if (c.method == "unbounded") why = "no collective shared with the reference: as recorded";
    if (c.uncertainty_ns > 0) {
      char b[64];
      std::snprintf(b, sizeof b, ": within %.1f us", static_cast<double>(c.uncertainty_ns) / 1e3);
      why += b;
    }
    if (c.constraints) why += "; " + std::to_string(c.constraints) + " collective(s) bound it";
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
