// Memory over time: the running bytes in use of each allocator, from MemoryAllocation and
// MemoryDeallocation instants (category allocation), with the peak and the op that was running
// on the allocating thread when the peak was reached. A free is matched to its allocation by
// address (across threads of one process); a free of an unknown address that carries its own
// byte count uses that.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
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
  std::string name;       // the "allocator" argument, else "default"; its process added when
                          // the trace holds several with allocations: "(rank R)" where the
                          // launcher gave it a rank (model::ProcessTags), else "(pid N)"
  std::string allocator;  // the allocator's own name ("default" when the events give none)
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
  uint32_t detail = 0;  // 1 + its index in its track's MemoryTrackScan::details (0: none kept)
  bool is_free = false, has_addr = false;
};

// The input shapes and types of the op an allocation happened in (interned JSON texts,
// "[[64, 256], [256, 512]]" and "[\"float\", \"float\"]"; 0: none), where the allocation
// event has no tensor of its own (PyTorch's).
struct OpInputs {
  uint32_t dims = 0, types = 0;
};

// What else an allocation event says (TensorFlow's BFC allocator writes all of it), kept only
// for the memory command (MemoryScans with details).
struct MemoryDetail {
  int64_t requested = -1;          // bytes the op asked for (requested_bytes)
  int64_t reserved = -1;           // the allocator's bytes reserved after the event
  int64_t allocator_peak = -1;     // the allocator's own peak so far (peak_bytes_in_use)
  int64_t held = -1;               // the allocator's bytes in use after it (bytes_allocated)
  double fragmentation = -1;       // the allocator's fragmentation after it (0..1)
  uint32_t shape = 0, region = 0;  // interned texts ("[16,26,26,16]", "output"); 0: none
  int32_t dtype = -1;              // TensorFlow DataType enum; -1: none
  OpInputs op_inputs;              // where it has no shape of its own
};

// One change of an allocator's bytes in use, as the fold decides it: an allocation, a free
// matched by address (`allocation` is then the allocation it frees), or a free of an unknown
// address that carries its own byte count (`allocation` null). A free that matches nothing and
// has no byte count changes nothing and is not told.
struct MemoryChange {
  const MemoryEvent* event = nullptr;
  const MemoryEvent* allocation = nullptr;
  uint32_t allocator = 0;  // the allocation's allocator (0: "default")
  int64_t delta = 0;
};

// One process's allocation events in time order (a stable sort by time: a thread's own order
// at equal times) and the changes they make, in that order. unmatched: frees that change
// nothing, per allocator id.
void ReplayProcess(std::vector<MemoryEvent>* events,
                   const std::function<void(const MemoryChange&)>& f,
                   std::map<uint32_t, uint64_t>* unmatched);

// The visitor of one host track's scan (model::ScanTrack): the time span of its events and its
// allocation events. A caller that scans the track for other reasons too can drive it.
class MemoryTrackScan {
 public:
  MemoryTrackScan(const model::TraceModel& m, size_t track, const void* keys)
      : m_(&m), track_(track), keys_(keys) {}
  size_t track() const { return track_; }
  void OnBegin(const model::Slice& s);
  void OnSlice(const model::Slice& s);
  void OnPoint(const model::Point& p);
  uint64_t first = UINT64_MAX, last = 0;
  std::vector<MemoryEvent> events;
  std::vector<MemoryDetail> details;  // when keep_details
  bool keep_details = false;

 private:
  const model::TraceModel* m_;
  size_t track_;
  const void* keys_;            // the process's argument keys (memory.cc)
  std::vector<OpInputs> open_;  // by open slice: the innermost input shapes (with details)
};

// ComputeMemory in two halves: a MemoryTrackScan per host track (`tracks`, to be scanned by the
// caller, each exactly once), then Fold() once they all are.
class MemoryScans {
 public:
  // details: keep each event's MemoryDetail too, and each process's events after Fold.
  explicit MemoryScans(const model::TraceModel& m, bool details = false);
  std::vector<MemoryTrackScan> tracks;  // in track order
  MemoryResult Fold(size_t max_points);
  // With details, after Fold: each process's events in time order (empty without any).
  std::vector<std::vector<MemoryEvent>> kept;

 private:
  const model::TraceModel& m_;
  std::vector<std::shared_ptr<const void>> keys_;  // per process
  bool details_;
};

// One streaming pass over the host tracks; memory grows with the number of allocation events
// (about 40 bytes each) until they are folded into the series. The series keep, per time
// bucket, the highest value and the last one, so the peak is exact.
MemoryResult ComputeMemory(const model::TraceModel& m, size_t max_points, unsigned threads,
                           std::vector<Problem>* problems);

}  // namespace tt::analysis
