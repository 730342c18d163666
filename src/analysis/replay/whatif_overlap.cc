// What-if overlap=comm: communication overlaps the rest of the step fully. Each transfer of a
// collective that joined ranks still starts when the last rank arrived and takes its time, but
// no rank waits for it: each rank's rest of the call follows its own arrival, and only the
// rank's step end waits for the transfer.
#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

size_t ApplyOverlap(Graph* g) {
  size_t n = 0;
  for (Edge& e : g->edges) {
    const Node& from = g->nodes[e.from];
    if (e.kind != EdgeKind::kCollective || from.kind != NodeKind::kComm) continue;
    int32_t rank = g->resources[g->nodes[e.to].resource].rank;
    if (g->resources[from.resource].rank >= 0 || rank < 0) continue;  // not a transfer's exit
    e.to = g->ranks[static_cast<size_t>(rank)].sink;
    ++n;
  }
  return n;
}

}  // namespace tt::analysis::replay
