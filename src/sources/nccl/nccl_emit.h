// Writing the NCCL plugin's finished events into the trace (through the runtime's
// tt_nccl_slice_), with the names and arguments docs/trace-format.md gives them.
#pragma once
#include <cstdint>
#include <string_view>

#include "sources/nccl/nccl_handles.h"

namespace tt::nccl {

// Bytes of one element of NCCL's datatype ("ncclFloat32" -> 4); 0 for one we do not know.
uint64_t DtypeSize(std::string_view dtype);

// The bytes a collective moves as nccl-tests count them (its "size"): count elements of its
// datatype, times the ranks for AllGather and ReduceScatter, whose count is per rank.
uint64_t CollectiveBytes(std::string_view func, uint64_t count, uint64_t dtype_size, int n_ranks);

// Writes `h` as a slice ending at `end_ns` (0: now) on the calling thread.
void EmitEvent(const Handle& h, uint64_t end_ns);

}  // namespace tt::nccl
