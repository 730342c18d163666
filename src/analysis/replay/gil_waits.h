// A Python thread's gaps under a what-if: the time between its nodes is its own Python (the
// interpreter between two framework calls: a training loop's, Keras's), which runs only while
// it holds the GIL. Where other threads of its process held the lock during a gap (tf.data's
// py_function calls, another map), the gap waited for them; a what-if that removes or shortens
// that work gives the wait back (docs/replay.md, "The GIL").
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

// `changed` are the `measured` graphs of a job's steps after what-ifs (the same nodes and edges;
// only durations and gaps changed). Each gap of a thread that held the GIL (a node with
// Node::gil > 0) that was its own time (after its previous node or its step's start, or its
// wake-up after another thread's node) loses the lock time the other threads' nodes of its rank
// held during the gap, as measured (their GIL time over their measured time, at most the whole
// lock; any step's nodes: a py_function begun in one step holds the lock in the next), less
// what they still hold after the what-ifs (in proportion to their duration left). Unchanged
// graphs keep their gaps; so do all where a what-if rebuilt one. `carried` (by graph, by edge;
// may be empty): the part of a gap its thread spent finishing an earlier step's node, not its
// own time (carry_over.h).
void ShortenGilWaits(const std::vector<const Graph*>& measured, const std::vector<Graph*>& changed,
                     const std::vector<std::vector<uint64_t>>& carried);

}  // namespace tt::analysis::replay
