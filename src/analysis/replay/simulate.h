// Replay's discrete-event simulation: one queue per resource; a node is ready when each of its
// predecessors has ended (plus the edge's gap) and its release time has come, and starts when
// its resource is free (queued in order of readiness). Also the critical path that set a rank's
// step time, with each label's share, and each resource's utilisation.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

inline constexpr uint32_t kNone = UINT32_MAX;

struct Schedule {
  std::vector<uint64_t> start, end;  // by node
  // The node whose end (plus the edge's gap) set this node's start: a predecessor, or the
  // resource's previous node when the node waited in its queue; kNone: its release did.
  std::vector<uint32_t> binding;
  std::vector<uint64_t> binding_gap;     // the gap on that edge
  std::vector<char> binding_from_start;  // that edge ran from the binding node's start
  std::vector<uint64_t> predicted;       // by rank: sink's end less source's release (ns)
};

// Replays g. Throws tt::Error when the graph has a cycle (no schedule exists).
Schedule Simulate(const Graph& g);

// One label's time on a critical path.
struct PathShare {
  uint32_t label = 0;
  uint64_t ns = 0;
  uint64_t count = 0;  // its nodes on the path
};

struct CriticalPath {
  std::vector<uint32_t> nodes;    // source to sink
  uint64_t length = 0;            // ns: the rank's predicted step time
  uint64_t gaps = 0;              // ns of edge gaps (dispatch delays, waits) on it
  std::vector<PathShare> shares;  // by label, longest first
};

// The chain of binding nodes from rank r's sink back to its source.
CriticalPath CriticalPathOf(const Graph& g, const Schedule& s, size_t rank);

// Per resource: the time its nodes ran over the longest predicted step of the ranks it serves
// (0..1; a shared resource: over the longest of all).
std::vector<double> Utilisation(const Graph& g, const Schedule& s);

}  // namespace tt::analysis::replay
