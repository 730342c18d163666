// What-if REGEX=FACTOR: the ops whose name or type matches, durations x factor (0 removes).
#include <regex>

#include "analysis/replay/whatif.h"
#include "core/error.h"

namespace tt::analysis::replay {

size_t ApplyScale(const WhatIf& w, Graph* g) {
  std::regex re;
  try {
    re = std::regex(w.pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Error("--what-if '" + w.spec + "': '" + w.pattern + "' is not a regular expression");
  }
  std::vector<char> match(g->labels.size(), 0);
  for (size_t i = 0; i < g->labels.size(); ++i)
    match[i] = std::regex_search(g->labels[i], re) || std::regex_search(g->types[i], re);
  std::vector<char> changed(g->nodes.size(), 0);
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    const Node& node = g->nodes[v];
    if (node.kind == NodeKind::kMarker || !match[node.label]) continue;
    ScaleNode(g, v, w.factor);
    changed[v] = 1;
    ++n;
  }
  if (w.factor == 0) ZeroGapsInto(g, changed);
  return n;
}

}  // namespace tt::analysis::replay
