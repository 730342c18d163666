// Allocations matched to their frees (a free by keys::IsFreeEvent, the one rule): the bytes each op
// allocated, the most it held at once, and what it still held at the end. A free is matched to
// its allocation by address across the threads of one process.
#pragma once
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tt::analysis {

struct AllocEvent {
  uint64_t ts, addr;
  int64_t bytes;  // > 0 allocation, <= 0 free
  uint32_t op;    // the op's name id (0: none)
};

struct OpMemory {
  int64_t bytes = 0;     // allocated in all
  int64_t peak = 0;      // the most in use at once
  int64_t residual = 0;  // allocated and never freed
};

// Byte counts from a damaged trace may be absurd: add without overflowing.
int64_t SatAdd(int64_t a, int64_t b);

// runs: one process's allocation events, each run in time order (one per track); they are
// merged by time and freed.
std::unordered_map<uint32_t, OpMemory> AttributeAllocations(
    std::vector<std::vector<AllocEvent>*> runs);

}  // namespace tt::analysis
