// Work that runs across steps' boundaries under a what-if: a thread busy at a step's start with
// a node begun in an earlier step (a tf.data thread's py_function, called for the next batch
// while the step before ran) starts its first node of the step only after it; the edge from the
// step's start to that node holds the rest of the earlier node as a gap. A what-if that removes
// or shortens the earlier node (in its own step's graph) frees the thread that much sooner.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

// By graph, by edge: the part of the gap of each edge from a step's start into a thread's node
// that the thread spent finishing a node of an earlier step (the job's graphs in order, on the
// trace's clock; the same thread by its resource's name), and how much of that part the
// what-ifs took off (the part times the share of the node gone). 0 where none; empty where a
// what-if rebuilt a graph.
struct CarriedOver {
  std::vector<std::vector<uint64_t>> part;
  std::vector<std::vector<double>> gone;
};
CarriedOver CarriedOverOf(const std::vector<const Graph*>& measured,
                          const std::vector<Graph*>& changed);

// Each such edge's gap less what the what-ifs took off its carried part.
void ShortenCarriedOver(const CarriedOver& carried, const std::vector<Graph*>& changed);

}  // namespace tt::analysis::replay
