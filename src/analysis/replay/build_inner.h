// What a node keeps of what ran inside it (private to build*.cc): its inner slices (the ops
// nested in the outermost op that is the node, at any depth), and for it and each of them the
// nn.Module path and the Python stack behind it, which the what-ifs by op, scope and line
// match.
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/replay/build_step.h"

namespace tt::analysis::replay {

class InnerPlacer {
 public:
  InnerPlacer(const RankInput& r, Graph* g) : r_(r), g_(*g) {
    if (r.code && !r.code->Empty()) stacks_.emplace(*r.code, r.m->processes[r.process]);
  }
  // Node v is atom `at` of track `track`: its scope and stack, and its inner slices.
  void Place(const Atom& at, size_t track, uint32_t v);
  // The innermost inner slice of node v that began before t and holds it (what ran a launch
  // at t), kNoIndex: none.
  uint32_t InnerAt(uint32_t v, uint64_t t) const;
  // Links each backward op (its node, its sequence number) to the forward op that made it.
  void LinkBackwards(const std::vector<std::pair<uint32_t, int64_t>>& backwards);

 private:
  uint32_t Label(uint32_t name);
  uint32_t Dims(uint32_t name);  // an input_dims text's index in LabelTable::dims
  uint32_t Stack(uint32_t name, size_t track, uint64_t start, uint64_t end);
  const RankInput& r_;
  Graph& g_;
  std::optional<OpStacks> stacks_;
  std::vector<uint32_t> labels_;  // name id -> label
  // Each placed node's inner slices: [first, last) of g_.inner->slices and their starts.
  struct Span {
    uint32_t first = 0, last = 0;
    const InnerSlice* slices = nullptr;  // the track's, from at.inner_begin
    uint32_t begin = 0;                  // at.inner_begin (InnerSlice::parent counts from 0)
  };
  std::unordered_map<uint32_t, Span> spans_;
  // By sequence number: the last forward op placed with it (its start, node, inner slice).
  struct Made {
    uint64_t start = 0;
    uint32_t node = 0, inner = kNoIndex;
  };
  std::unordered_map<int64_t, Made> forwards_;
  void AddForward(int64_t seq, uint64_t start, uint32_t node, uint32_t inner);
};

// One core's FP32 peak of m's recording host (hardware.json: its peak over its cores), FLOPs a
// nanosecond; 0 where none says (LabelTable::core_flops_per_ns).
double CoreFlopsPerNs(const model::TraceModel& m);

// The index of each of a process's Python stacks in `names`'s stacks (interned).
std::vector<uint32_t> InternStacks(const ProcessCode& pc, LabelTable* names);

}  // namespace tt::analysis::replay
