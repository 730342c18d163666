#include "analysis/timeline.h"

#include <algorithm>

#include "analysis/parallel.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

struct Visitor {
  const model::Process& proc;
  uint64_t start, end;
  size_t cap;
  TimelineRow* row;
  uint64_t left_out = 0;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s) {
    if (s.end <= start || s.start >= end) return;
    TimelineSlice t;
    t.start = std::max(s.start, start);
    t.end = std::min(s.end, end);
    t.name = std::string(proc.Name(s.name));
    t.category = s.category;
    t.depth = s.depth;
    row->slices.push_back(std::move(t));
    // Past the cap, keep the longest: the short ones are the least visible at this scale.
    if (row->slices.size() > 2 * cap) Trim();
  }
  void Trim() {
    if (row->slices.size() <= cap) return;
    std::nth_element(row->slices.begin(), row->slices.begin() + static_cast<long>(cap),
                     row->slices.end(), [](const TimelineSlice& a, const TimelineSlice& b) {
                       return a.end - a.start > b.end - b.start;
                     });
    left_out += row->slices.size() - cap;
    row->slices.resize(cap);
  }
};

}  // namespace

Timeline ComputeTimeline(const model::TraceModel& m, size_t process, uint64_t start, uint64_t end,
                         size_t max_per_track, unsigned threads, std::vector<Problem>* problems) {
  Timeline tl;
  tl.start = start;
  tl.end = end;
  if (process >= m.processes.size()) return tl;
  const model::Process& proc = m.processes[process];
  std::vector<size_t> tracks = proc.tracks;
  std::vector<TimelineRow> rows(tracks.size());
  std::vector<uint64_t> left(tracks.size(), 0);
  std::vector<std::vector<Problem>> probs(tracks.size());
  size_t cap = std::max<size_t>(max_per_track, 1);
  ParallelFor(tracks.size(), DefaultThreads(threads), [&](size_t i) {
    const model::Track& t = m.tracks[tracks[i]];
    rows[i].device = t.kind == layout::TrackKind::kDevice;
    // Threads often share a name (the program's): the tid tells them apart.
    rows[i].label = rows[i].device   ? (t.name.empty() ? "device " + std::to_string(t.id) : t.name)
                    : t.name.empty() ? "tid " + std::to_string(t.id)
                                     : t.name + " (" + std::to_string(t.id) + ")";
    Visitor v{proc, start, end, cap, &rows[i]};
    model::ScanTrack(m, t, &probs[i], v);
    v.Trim();
    left[i] = v.left_out;
    std::sort(rows[i].slices.begin(), rows[i].slices.end(),
              [](const TimelineSlice& a, const TimelineSlice& b) {
                return a.depth < b.depth || (a.depth == b.depth && a.start < b.start);
              });
    for (const auto& s : rows[i].slices)
      rows[i].depth = std::max<uint16_t>(rows[i].depth, static_cast<uint16_t>(s.depth + 1));
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  for (size_t i = 0; i < rows.size(); ++i) {
    tl.left_out += left[i];
    if (!rows[i].slices.empty()) tl.rows.push_back(std::move(rows[i]));
  }
  std::stable_sort(tl.rows.begin(), tl.rows.end(), [](const TimelineRow& a, const TimelineRow& b) {
    return !a.device && b.device;
  });
  return tl;
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
