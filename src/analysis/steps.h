// Steps: found from framework step events (category step) or from annotations named by the
// user, numbered, and selected (--steps A:B, --skip-warmup N) as time windows per process.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/scan.h"

namespace tt::analysis {

// Steps A..B inclusive, by step number (or by position when steps carry no number).
struct StepRange {
  int64_t first = 0;
  int64_t last = INT64_MAX;
};

struct Step {
  uint64_t start = 0, end = 0;
  int64_t number = -1;  // the step's `step` argument, else its position in its process
  size_t process = 0;
  bool marker = false;  // a step-category slice (not one named by --step-name)
  uint32_t name = 0;    // the slice's name id in its process
};

struct Window {
  uint64_t start, end;
};
// Per process: the selected steps' windows, sorted by start.
using Windows = std::vector<std::vector<Window>>;

bool InWindows(const std::vector<Window>& w, uint64_t ts);

// The step slices of one host track, as its scan meets them (FindSteps' visitor).
struct StepTrackScan {
  const std::set<uint32_t>* names;  // the process's ids of --step-name annotations
  uint32_t step_key;                // the process's id of the "step" argument key
  size_t process;
  std::vector<Step> found;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s);
};

// FindSteps in two halves, for a caller that scans the host tracks itself (with other
// visitors, model::FanOut): a StepTrackScan per host track (`tracks`, in track order, each to
// be scanned exactly once), then Finish().
class StepScans {
 public:
  StepScans(const model::TraceModel& m, const std::vector<std::string>& step_names);
  StepScans(const StepScans&) = delete;
  StepScans& operator=(const StepScans&) = delete;
  std::vector<StepTrackScan> tracks;
  std::vector<size_t> track_index;  // tracks[i] scans m.tracks[track_index[i]]
  std::vector<Step> Finish();

 private:
  std::vector<std::set<uint32_t>> names_;
};

// Every step of every process, numbered, ordered by process then start.
std::vector<Step> FindSteps(const model::TraceModel& m, const std::vector<std::string>& step_names,
                            unsigned threads);

// True for the steps a selection keeps (skip_warmup counts each process's first steps).
std::vector<bool> SelectSteps(const std::vector<Step>& steps,
                              const std::optional<StepRange>& range, uint64_t skip_warmup);

// The windows of the selected steps. Throws tt::Error when the trace has no steps, or the
// selection keeps none.
Windows SelectWindows(const model::TraceModel& m, const std::vector<Step>& steps,
                      const std::optional<StepRange>& range, uint64_t skip_warmup);

}  // namespace tt::analysis
