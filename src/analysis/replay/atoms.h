// Replay's pieces of work per track (private to build*.cc): a thread's outermost op-like,
// communication and device slices, and the leaves of its other ranges (runtime, compile,
// Python); step slices are containers, never work.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/replay/graph.h"
#include "model/model.h"

namespace tt::analysis::replay {

struct Atom {
  uint64_t start = 0, end = 0;
  uint32_t name = 0;  // name id in its process
  NodeKind kind = NodeKind::kOp;
};

// Per track of m (indexed like m.tracks): its atoms sorted by start, for the processes in
// `wanted` (others left empty). `step_names`: per process, the name ids of its step slices.
std::vector<std::vector<Atom>> CollectAtoms(const model::TraceModel& m,
                                            const std::vector<bool>& wanted,
                                            const std::vector<std::set<uint32_t>>& step_names,
                                            unsigned threads, std::vector<Problem>* problems);

}  // namespace tt::analysis::replay
