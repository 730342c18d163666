// What-if input=FACTOR: the step's waits for its data and the input pipeline's own work,
// durations x factor (0: the data is there when asked for).
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

namespace {

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

}  // namespace

namespace {

bool ParseInput(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  return ParseNamedFactor("input", spec, numbers, w);
}

std::string NoInput(const WhatIf&) { return "no input wait or input pipeline work"; }

std::vector<WhatIf> SuggestInput(const Prediction&, const std::vector<StepGraph>& steps, size_t) {
  if (!AnyNode(steps, [](const Graph&, const Node& n) {
        return n.kind == NodeKind::kInputWait || n.kind == NodeKind::kInput;
      }))
    return {};
  return {MakeWhatIf("input", "input=0", "input", 0)};
}

}  // namespace

const WhatIfKind& InputWhatIf() {
  static const WhatIfKind k{
      .name = "input",
      .syntax = "input=FACTOR",
      .help = "input waits and input pipeline work x FACTOR",
      .parse = ParseInput,
      .apply = ApplyInput,
      .nothing = NoInput,
      .suggest = SuggestInput,
  };
  return k;
}

}  // namespace tt::analysis::replay
