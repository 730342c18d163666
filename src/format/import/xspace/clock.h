// Converting the XSpace clock (Unix-epoch nanoseconds, CLOCK_REALTIME) to the trace clock
// (CLOCK_MONOTONIC), with the realtime offsets the process recorded at its start and end.
#pragma once
#include <cstdint>
#include <vector>

namespace tt {

class RealtimeToTrace {
 public:
  // realtime - monotonic measured at monotonic time `mono_ns` (a clock_offset event).
  void AddPoint(uint64_t mono_ns, int64_t offset_ns);
  bool empty() const { return points_.empty(); }
  // The offset at monotonic time `mono_ns`: interpolated between the points around it, the
  // nearest point's outside them.
  int64_t OffsetAt(uint64_t mono_ns) const;
  // The trace time of a realtime instant. Non-decreasing in `realtime_ns` (the offset drifts
  // by far less than a nanosecond per nanosecond), so nested events stay nested.
  uint64_t Convert(int64_t realtime_ns) const;

 private:
  struct Point {
    uint64_t mono;
    int64_t offset;
  };
  std::vector<Point> points_;  // sorted by mono
};

}  // namespace tt
