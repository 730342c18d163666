// How much of a rank's communication ran alongside compute on its other threads and device
// streams (comm_overlap.h): the collectives' union, each collective intersected with
// the compute of every track but its own, per step and over the whole run.
#include "analysis/comm/comm_overlap.h"

#include <algorithm>

#include "analysis/comm/comm.h"

namespace tt::analysis {

namespace {

// The compute of every track of `tracks` but `own`, as one sorted set.
SortedIntervals ComputeBesides(const std::vector<std::vector<Interval>>& compute,
                               const std::vector<size_t>& tracks, size_t own) {
  SortedIntervals s;
  for (size_t t : tracks)
    if (t != own && t < compute.size()) s.v.insert(s.v.end(), compute[t].begin(), compute[t].end());
  s.Build();
  return s;
}

}  // namespace

void MeasureOverlap(const std::vector<std::vector<Interval>>& compute,
                    const std::vector<size_t>& tracks, const std::vector<Step>& steps,
                    CommRank* r) {
  SortedIntervals comm, overlapped;
  std::vector<size_t> own;  // the tracks its collectives ran on
  for (const CommEvent& e : r->events) {
    comm.v.push_back({e.start, e.end});
    if (std::find(own.begin(), own.end(), e.track) == own.end()) own.push_back(e.track);
  }
  for (size_t t : own) {
    SortedIntervals besides = ComputeBesides(compute, tracks, t);
    for (const CommEvent& e : r->events)
      if (e.track == t)
        for (const Interval& piece : besides.Merged(e.start, e.end)) overlapped.v.push_back(piece);
  }
  comm.Build();
  overlapped.Build();
  r->overlap_measured = true;
  r->comm = UnionLength(comm, 0, UINT64_MAX);
  r->overlapped = UnionLength(overlapped, 0, UINT64_MAX);
  std::vector<uint64_t> starts;
  for (const CommEvent& e : r->events) starts.push_back(e.start);
  std::sort(starts.begin(), starts.end());
  r->steps.clear();
  for (const Step& s : steps) {
    CommStep cs;
    cs.number = s.number;
    cs.start = s.start;
    cs.end = s.end;
    cs.calls = static_cast<uint64_t>(std::lower_bound(starts.begin(), starts.end(), s.end) -
                                     std::lower_bound(starts.begin(), starts.end(), s.start));
    cs.comm = UnionLength(comm, s.start, s.end);
    cs.overlapped = UnionLength(overlapped, s.start, s.end);
    cs.exposed = cs.comm - std::min(cs.comm, cs.overlapped);
    r->steps.push_back(cs);
  }
}

}  // namespace tt::analysis
