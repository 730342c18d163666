// The slices of one time window (a representative step) on every track of one process: one row
// per thread or GPU stream, for the report's timeline overview.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/job/steps.h"
#include "model/model.h"
#include "model/scan.h"

namespace tt::analysis {

struct TimelineSlice {
  uint64_t start = 0, end = 0;  // clipped to the window
  std::string name;
  layout::Category category = layout::Category::kUser;
  uint16_t depth = 0;
};

struct TimelineRow {
  std::string label;  // thread name (or tid), or "GPU d stream q"
  bool device = false;
  uint16_t depth = 0;  // deepest slice + 1
  std::vector<TimelineSlice> slices;
};

struct Timeline {
  uint64_t start = 0, end = 0;
  std::vector<TimelineRow> rows;  // threads first, then device queues; rows with no slice left out
  uint64_t left_out = 0;          // slices past max_per_track
};

// The timeline's row of one track, as its scan meets its slices (ComputeTimeline's visitor).
struct TimelineTrackScan {
  TimelineTrackScan(const model::TraceModel& m, size_t track, uint64_t start, uint64_t end,
                    size_t cap);
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s);
  void Trim();  // down to cap slices, the longest kept
  const model::Process* proc;
  size_t track;
  uint64_t start, end;
  size_t cap;
  TimelineRow row;
  uint64_t left_out = 0;
};

// ComputeTimeline in two halves, for a caller that scans the tracks itself (with other
// visitors): a TimelineTrackScan per track of the process (`tracks`, each to be scanned
// exactly once), then Finish().
class TimelineScans {
 public:
  TimelineScans(const model::TraceModel& m, size_t process, uint64_t start, uint64_t end,
                size_t max_per_track);
  std::vector<TimelineTrackScan> tracks;  // in the process's track order
  Timeline Finish();

 private:
  uint64_t start_, end_;
};

// Slices overlapping [start, end) on the tracks of `process`, at most max_per_track per track
// (the longest kept first), so memory stays bounded whatever the step holds.
Timeline ComputeTimeline(const model::TraceModel& m, size_t process, uint64_t start, uint64_t end,
                         size_t max_per_track, unsigned threads, std::vector<Problem>* problems);

// The step of median duration among the selected ones (the lower median for an even count);
// nullptr when there is none.
const Step* MedianStep(const std::vector<Step>& steps, const std::vector<bool>& keep);

}  // namespace tt::analysis
