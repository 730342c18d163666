// What-if overlap=comm: communication overlaps the rest of the step fully. Each transfer of a
// collective that joined ranks still starts when the last rank arrived and takes its time, but
// no rank waits for it: each rank's rest of the call follows its own arrival, and only the
// rank's step end waits for the transfer.
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

namespace {

size_t ApplyOverlap(const WhatIf&, Graph* g) {
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

}  // namespace

namespace {

bool ParseOverlap(const std::string& spec, const WhatIfNumbers&, WhatIf* w) {
  if (spec != "overlap=comm") return false;
  w->pattern = "overlap";
  return true;
}

std::string NoOverlap(const WhatIf&) { return "no collective joining ranks"; }

}  // namespace

const WhatIfKind& OverlapWhatIf() {
  static const WhatIfKind k{
      .name = "overlap",
      .syntax = "overlap=comm",
      .help =
          "no rank waits for a collective's transfer, only its\nstep's end does "
          "(communication fully overlapped)",
      .parse = ParseOverlap,
      .apply = ApplyOverlap,
      .nothing = NoOverlap,
  };
  return k;
}

}  // namespace tt::analysis::replay
