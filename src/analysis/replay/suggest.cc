// Replay's "what would help most" (suggest.h).
#include "analysis/replay/suggest.h"

#include <cstring>

#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

std::string RegexQuote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c && std::strchr("\\^$.|?*+()[]{}", c)) out += '\\';
    out += c;
  }
  return out;
}

bool AnyNode(const std::vector<StepGraph>& steps, bool (*want)(const Graph&, const Node&)) {
  for (const StepGraph& sg : steps)
    for (const Node& n : sg.graph.nodes)
      if (want(sg.graph, n)) return true;
  return false;
}

std::vector<WhatIf> Candidates(const Prediction& base, const std::vector<StepGraph>& steps,
                               size_t top) {
  std::vector<WhatIf> out;
  for (const WhatIfKind* k : WhatIfKinds()) {
    if (!k->suggest) continue;
    for (WhatIf& w : k->suggest(base, steps, top)) out.push_back(std::move(w));
  }
  return out;
}

}  // namespace tt::analysis::replay
