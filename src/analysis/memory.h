// Memory over time: the running bytes in use of each allocator, from MemoryAllocation and
// MemoryDeallocation instants (category allocation), with the peak and the op that was running
// on the allocating thread when the peak was reached. A free is matched to its allocation by
// address (across threads of one process); a free of an unknown address that carries its own
// byte count uses that.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/scan.h"

namespace tt::analysis {

struct MemorySample {
  uint64_t ts = 0;
  int64_t bytes = 0;  // in use after the event(s) at ts
};

struct AllocatorMemory {
  std::string name;  // the "allocator" argument, else "default"; "(pid N)" added when the
                     // trace holds several processes with allocations
  size_t process = 0;
  std::vector<MemorySample> series;  // in time order, at most about 2 * max_points samples
  int64_t peak = 0;
  uint64_t peak_ts = 0;
  std::string peak_op;      // innermost framework op (or user range) on the thread at the peak
  std::string peak_thread;  // that thread's name, else its tid
  uint64_t allocations = 0, frees = 0, unmatched_frees = 0;
  int64_t final_bytes = 0;  // still in use at the end of the trace
};

struct MemoryResult {
  std::vector<AllocatorMemory> allocators;  // by name
  uint64_t first = 0, last = 0;             // time span of the trace's events
  uint64_t events = 0;                      // allocation and free instants seen
};

// One allocation or free instant, as read from its track.
struct MemoryEvent {
  uint64_t ts = 0, addr = 0;
  int64_t bytes = 0;               // -1: not given
  uint32_t allocator = 0, op = 0;  // interned ids of the event's process (0: none)
  uint32_t track = 0;
  bool is_free = false, has_addr = false;
};

// The visitor of one host track's scan (model::ScanTrack): the time span of its events and its
// allocation events. A caller that scans the track for other reasons too can drive it.
class MemoryTrackScan {
 public:
  MemoryTrackScan(const model::TraceModel& m, size_t track, const void* keys)
      : m_(&m), track_(track), keys_(keys) {}
  size_t track() const { return track_; }
  void OnBegin(const model::Slice&) {}
  void OnSlice(const model::Slice& s);
  void OnPoint(const model::Point& p);
  uint64_t first = UINT64_MAX, last = 0;
  std::vector<MemoryEvent> events;

 private:
  const model::TraceModel* m_;
  size_t track_;
  const void* keys_;  // the process's argument keys (memory.cc)
};

// ComputeMemory in two halves: a MemoryTrackScan per host track (`tracks`, to be scanned by the
// caller, each exactly once), then Fold() once they all are.
class MemoryScans {
 public:
  explicit MemoryScans(const model::TraceModel& m);
  std::vector<MemoryTrackScan> tracks;  // in track order
  MemoryResult Fold(size_t max_points);

 private:
  const model::TraceModel& m_;
  std::vector<std::shared_ptr<const void>> keys_;  // per process
};

// One streaming pass over the host tracks; memory grows with the number of allocation events
// (about 40 bytes each) until they are folded into the series. The series keep, per time
// bucket, the highest value and the last one, so the peak is exact.
MemoryResult ComputeMemory(const model::TraceModel& m, size_t max_points, unsigned threads,
                           std::vector<Problem>* problems);

}  // namespace tt::analysis
