// A thread's gaps under a what-if, where a job's threads share a host's cores: the gap before a
// node on a CPU thread (its own Python between two calls, a dispatch, a wake-up) needs a core
// to end. Where the host's other work asked for more cores than it had during a gap, the gap
// ran slower; a what-if that removes or shortens that work gives the gap its core back, as the
// nodes' own work is given it (cpu_share.h; docs/replay.md, "CPU sharing").
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

// `changed` are the `measured` graphs of a job's steps after what-ifs (the same nodes and edges;
// only durations and gaps changed), on graphs whose CPUs are shared (Graph::hosts; else nothing
// changes). Each gap into a node of a CPU thread is work that asked for a core of its host: it
// keeps that work, done at the share of a core the host's measured load left it (the others'
// CPU nodes asking for their cores times their demands, any step's: work begun in one step
// loads the next; and the gap's own ask), and takes the time that work needs at the share their
// load after the what-ifs leaves (each node's ask times its duration left over its measured
// duration, never more than measured). Unchanged graphs keep their gaps; so do all where a
// what-if rebuilt one. `carried` (by graph, by edge; may be empty): the part of a gap its thread
// spent finishing an earlier step's node, not its own time (carry_over.h).
void ShortenCpuWaits(const std::vector<const Graph*>& measured, const std::vector<Graph*>& changed,
                     const std::vector<std::vector<uint64_t>>& carried);

}  // namespace tt::analysis::replay
