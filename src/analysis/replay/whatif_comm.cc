// What-if comm=FACTOR: each collective's transfer (from the last rank's arrival; a collective
// not matched across ranks: its whole range), duration x factor: 0.5 is twice the bandwidth.
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

namespace {

size_t ApplyComm(const WhatIf& w, Graph* g) {
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    if (g->nodes[v].kind != NodeKind::kComm) continue;
    ScaleNode(g, v, w.factor);
    ++n;
  }
  return n;
}

}  // namespace

namespace {

bool ParseComm(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  return ParseNamedFactor("comm", spec, numbers, w);
}

std::string NoComm(const WhatIf&) { return "no communication"; }

}  // namespace

const WhatIfKind& CommWhatIf() {
  static const WhatIfKind k{
      .name = "comm",
      .syntax = "comm=FACTOR",
      .help = "collectives' and point-to-point transfer time x FACTOR\n(0.5: twice the bandwidth)",
      .parse = ParseComm,
      .apply = ApplyComm,
      .nothing = NoComm,
  };
  return k;
}

}  // namespace tt::analysis::replay
