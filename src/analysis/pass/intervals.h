// Interval algebra over [start, end) nanosecond spans: the union's length within a window and
// the length of two sets' overlap, each in one sweep over spans sorted by start.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace tt::analysis {

struct Interval {
  uint64_t start, end;
};

// Intervals sorted by start, with the running maximum of their ends: the first one that can
// reach into a window is found by binary search (a scan from the front for every step made the
// step view quadratic in the number of steps).
struct SortedIntervals {
  std::vector<Interval> v;
  std::vector<uint64_t> reach;  // reach[i]: the latest end among v[0..i]
  void Build();
  // Intervals before this index all end at or before lo.
  size_t From(uint64_t lo) const {
    return static_cast<size_t>(std::upper_bound(reach.begin(), reach.end(), lo) - reach.begin());
  }
  // The intervals clipped to [lo, hi) and merged where they touch, in order.
  std::vector<Interval> Merged(uint64_t lo, uint64_t hi) const;
};

// Length of the union of the intervals within [lo, hi).
uint64_t UnionLength(const SortedIntervals& iv, uint64_t lo, uint64_t hi);

// Length of (a ∩ b) within [lo, hi).
uint64_t OverlapLength(const SortedIntervals& a, const SortedIntervals& b, uint64_t lo,
                       uint64_t hi);

}  // namespace tt::analysis
