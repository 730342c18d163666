// Memory over time: the running bytes in use of each allocator, from MemoryAllocation and
// MemoryDeallocation instants (category allocation), with the peak and the op that was running
// on the allocating thread when the peak was reached. A free is matched to its allocation by
// address (across threads of one process); a free of an unknown address that carries its own
// byte count uses that.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

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

// One streaming pass over the host tracks; memory grows with the number of allocation events
// (about 40 bytes each) until they are folded into the series. The series keep, per time
// bucket, the highest value and the last one, so the peak is exact.
MemoryResult ComputeMemory(const model::TraceModel& m, size_t max_points, unsigned threads,
                           std::vector<Problem>* problems);

}  // namespace tt::analysis
