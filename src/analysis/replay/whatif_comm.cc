// What-if comm=FACTOR: each collective's transfer (from the last rank's arrival; a collective
// not matched across ranks: its whole range), duration x factor: 0.5 is twice the bandwidth.
#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

size_t ApplyComm(const WhatIf& w, Graph* g) {
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    if (g->nodes[v].kind != NodeKind::kComm) continue;
    ScaleNode(g, v, w.factor);
    ++n;
  }
  return n;
}

}  // namespace tt::analysis::replay
