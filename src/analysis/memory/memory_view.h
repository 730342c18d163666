// The memory command's analysis: per allocator, bytes in use over time (the series the report
// draws), the peak and its time, what was live at the peak (by op, with the tensors' dtype,
// shape and role where the events carry them), the bytes each op allocated and what it never
// freed, the chunks by BFC bin, and what the allocator itself reported (its own peak, bytes
// reserved, fragmentation). Built on memory.h's scans and its one matching rule (ReplayProcess),
// so its series, peak and counts equal the report's.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/memory/memory.h"
#include "model/model.h"

namespace tt::analysis {

// One op's allocations in one allocator. op: the op open on the allocating thread (its
// "node:Type" name), else the event's own op argument; "(no op)" when neither.
struct MemoryOpRow {
  std::string op;
  uint64_t allocations = 0;
  int64_t bytes = 0;     // allocated in all
  int64_t peak = 0;      // the most it held at once
  int64_t residual = 0;  // allocated and never freed
  uint64_t residual_allocations = 0;
};

// Tensors of one kind held by an op at the peak: "float32", "[16,26,26,16]", "output".
struct MemoryTensor {
  std::string dtype, shape, region;  // empty when the events do not say
  // Where the allocation has none of those (PyTorch): the tensor inputs of the op it happened
  // in, "float[64,256], float[256,512]" (empty: not recorded; record_shapes)
  std::string op_inputs;
  uint64_t count = 0;
  int64_t bytes = 0;
};

// What one op held at the allocator's peak.
struct MemoryLive {
  std::string op;
  uint64_t allocations = 0;
  int64_t bytes = 0;
  std::vector<MemoryTensor> tensors;  // biggest first, at most 5
};

// BFC's size classes: bin i holds chunks of at least 256 << i bytes (bin 20 and up: the rest).
struct MemoryBin {
  int index = 0;
  int64_t min_bytes = 0;
  uint64_t allocations = 0;
  int64_t bytes = 0;
  uint64_t live_at_peak = 0;
  int64_t live_bytes_at_peak = 0;
};

// What the allocator itself reported in its events (TensorFlow's BFC allocators); reported is
// false when none carried these numbers.
struct AllocatorReport {
  bool reported = false;
  int64_t peak = -1;                  // its own peak bytes in use, the highest seen
  int64_t reserved_max = -1;          // bytes reserved, the highest seen
  double fragmentation_at_peak = -1;  // after the event that made the peak
  double fragmentation_max = -1;
  // Over allocations that give both: what the ops asked for and the chunks they got.
  int64_t requested = 0, allocated = 0;
};

struct AllocatorView {
  AllocatorMemory memory;        // name, series, peak and its time, counts, final bytes
  int64_t pid = 0;               // of its process
  int64_t rank = -1;             // of its process, as its launcher gave it (-1: none)
  std::vector<MemoryLive> live;  // at the peak, by op, biggest first
  std::vector<MemoryOpRow> ops;  // by bytes allocated, biggest first
  std::vector<MemoryBin> bins;   // bins with allocations, in bin order
  AllocatorReport report;
  int64_t residual = 0;  // allocated and never freed
  uint64_t residual_allocations = 0;
};

struct MemoryView {
  std::vector<AllocatorView> allocators;  // biggest peak first
  uint64_t first = 0, last = 0;           // time span of the trace's events
  uint64_t events = 0;                    // allocation and free instants
};

// One streaming pass over the host tracks, then one replay of each process's allocation events
// (kept in memory: about 100 bytes each). max_points bounds each series (about 2 * max_points
// samples; the peak is always kept).
MemoryView ComputeMemoryView(const model::TraceModel& m, size_t max_points, unsigned threads,
                             std::vector<Problem>* problems);

// PyTorch's recorded input shapes and types (Kineto's "Input Dims" and "Input type", as JSON
// texts) as "float[64,256], float[256,512]": the inputs that have a shape, in order.
std::string OpInputsText(std::string_view dims, std::string_view types);

// TensorFlow's DataType number as its name ("float32" for 1); "dtype N" when unknown.
std::string TfDataTypeName(int32_t dtype);

}  // namespace tt::analysis
