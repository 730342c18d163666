// Reading each process's collectives from its tracks: CommScans and CollectCollectives.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "analysis/job/steps.h"
#include "model/model.h"
#include "model/scan.h"

namespace tt::analysis {

struct CommRank;  // comm.h

// CollectCollectives of one trace in two halves, for a caller that scans the tracks itself
// (with other visitors): OnSlice(track, slice) and OnPoint(track, point) for every slice and
// point of each track (indexed like m.tracks; one thread per track at a time), then Finish().
// With `overlap`, compute ops are gathered too, and Finish(steps) measures each rank's overlap
// (whole run, and per step of `steps`, FindSteps' of the same model).
class CommScans {
 public:
  explicit CommScans(const model::TraceModel& m, bool overlap = false);
  ~CommScans();
  CommScans(const CommScans&) = delete;
  CommScans& operator=(const CommScans&) = delete;
  void OnSlice(size_t track, const model::Slice& s);
  void OnPoint(size_t track, const model::Point& p);  // TensorFlow's collective ops' bytes
  // The processes that ran collectives (once).
  std::vector<CommRank> Finish(const std::vector<Step>* steps = nullptr);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Reads every process's collectives from each trace (one scan of each track); with `overlap`,
// measures their overlap with compute too (and finds the steps: one more scan of the host
// tracks).
std::vector<CommRank> CollectCollectives(const std::vector<const model::TraceModel*>& traces,
                                         unsigned threads, std::vector<Problem>* problems,
                                         bool overlap = false);

}  // namespace tt::analysis
