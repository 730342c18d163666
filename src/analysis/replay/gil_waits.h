// A Python thread's gaps under a what-if: the time between its nodes is its own Python (the
// interpreter between two framework calls: a training loop's, Keras's), which runs only while
// it holds the GIL. Where other threads of its process held the lock during a gap (tf.data's
// py_function calls, another map), the gap waited for them; a what-if that removes or shortens
// that work gives the wait back (docs/replay.md, "The GIL").
#pragma once
#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

// `changed` is `measured` after what-ifs (the same nodes and edges; only durations and gaps
// changed). Each gap into a node of a thread that held the GIL (a node with Node::gil > 0)
// loses the lock time the other threads' nodes of its rank held during the gap, as measured
// (their GIL time over their measured time, at most the whole lock), less what they still hold
// after the what-if (in proportion to their duration left). An unchanged graph keeps its gaps.
void ShortenGilWaits(const Graph& measured, Graph* changed);

}  // namespace tt::analysis::replay
