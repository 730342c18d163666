// What-if input=FACTOR: the step's waits for its data and the input pipeline's own work,
// durations x factor (0: the data is there when asked for).
#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

size_t ApplyInput(const WhatIf& w, Graph* g) {
  std::vector<char> changed(g->nodes.size(), 0);
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    NodeKind k = g->nodes[v].kind;
    if (k != NodeKind::kInputWait && k != NodeKind::kInput) continue;
    ScaleNode(g, v, w.factor);
    changed[v] = 1;
    ++n;
  }
  if (w.factor == 0) ZeroGapsInto(g, changed);
  return n;
}

}  // namespace tt::analysis::replay
