#include "analysis/report/timeline.h"

#include <algorithm>

#include "core/parallel.h"
#include "model/scan.h"

namespace tt::analysis {

TimelineTrackScan::TimelineTrackScan(const model::TraceModel& m, size_t track, uint64_t start,
                                     uint64_t end, size_t cap)
    : proc(&m.processes[m.tracks[track].process]), track(track), start(start), end(end), cap(cap) {
  const model::Track& t = m.tracks[track];
  row.device = t.kind == layout::TrackKind::kDevice;
  // Threads often share a name (the program's): the tid tells them apart.
  row.label = row.device       ? (t.name.empty() ? "device " + std::to_string(t.id) : t.name)
              : t.name.empty() ? "tid " + std::to_string(t.id)
                               : t.name + " (" + std::to_string(t.id) + ")";
}

void TimelineTrackScan::OnSlice(const model::Slice& s) {
  if (s.end <= start || s.start >= end) return;
  TimelineSlice t;
  t.start = std::max(s.start, start);
  t.end = std::min(s.end, end);
  t.name = std::string(proc->Name(s.name));
  t.category = s.category;
  t.depth = s.depth;
  row.slices.push_back(std::move(t));
  // Past the cap, keep the longest: the short ones are the least visible at this scale.
  if (row.slices.size() > 2 * cap) Trim();
}

void TimelineTrackScan::Trim() {
  if (row.slices.size() <= cap) return;
  std::nth_element(row.slices.begin(), row.slices.begin() + static_cast<long>(cap),
                   row.slices.end(), [](const TimelineSlice& a, const TimelineSlice& b) {
                     return a.end - a.start > b.end - b.start;
                   });
  left_out += row.slices.size() - cap;
  row.slices.resize(cap);
}

TimelineScans::TimelineScans(const model::TraceModel& m, size_t process, uint64_t start,
                             uint64_t end, size_t max_per_track)
    : start_(start), end_(end) {
  if (process >= m.processes.size()) return;
  size_t cap = std::max<size_t>(max_per_track, 1);
  for (size_t t : m.processes[process].tracks) tracks.emplace_back(m, t, start, end, cap);
}

Timeline TimelineScans::Finish() {
  Timeline tl;
  tl.start = start_;
  tl.end = end_;
  for (auto& t : tracks) {
    t.Trim();
    TimelineRow& row = t.row;
    std::sort(row.slices.begin(), row.slices.end(),
              [](const TimelineSlice& a, const TimelineSlice& b) {
                return a.depth < b.depth || (a.depth == b.depth && a.start < b.start);
              });
    for (const auto& s : row.slices)
      row.depth = std::max<uint16_t>(row.depth, static_cast<uint16_t>(s.depth + 1));
    tl.left_out += t.left_out;
    if (!row.slices.empty()) tl.rows.push_back(std::move(row));
  }
  std::stable_sort(tl.rows.begin(), tl.rows.end(), [](const TimelineRow& a, const TimelineRow& b) {
    return !a.device && b.device;
  });
  return tl;
}

Timeline ComputeTimeline(const model::TraceModel& m, size_t process, uint64_t start, uint64_t end,
                         size_t max_per_track, unsigned threads, std::vector<Problem>* problems) {
  TimelineScans scans(m, process, start, end, max_per_track);
  std::vector<std::vector<Problem>> probs(scans.tracks.size());
  ParallelFor(scans.tracks.size(), DefaultThreads(threads), [&](size_t i) {
    model::ScanTrack(m, m.tracks[scans.tracks[i].track], &probs[i], scans.tracks[i]);
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  return scans.Finish();
}

const Step* MedianStep(const std::vector<Step>& steps, const std::vector<bool>& keep) {
  std::vector<const Step*> v;
  for (size_t i = 0; i < steps.size(); ++i)
    if (i < keep.size() && keep[i]) v.push_back(&steps[i]);
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end(), [](const Step* a, const Step* b) {
    uint64_t da = a->end - a->start, db = b->end - b->start;
    return da < db || (da == db && a->start < b->start);
  });
  return v[(v.size() - 1) / 2];
}

}  // namespace tt::analysis
