// What a what-if that names work (an op's name, a scope, a Python line) matched in a graph, at
// any depth: nodes whole, and inner slices (the ops nested in a node, graph.h); and the change
// they make. Shared by REGEX=FACTOR, scope: and line:.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

struct Matched {
  std::vector<char> nodes, inner;  // by node, by inner slice
};

// What `pred` says yes to: each node but the markers, and each inner slice, by its label,
// scope and stack (kNoIndex where it has none).
Matched MatchBy(const Graph& g,
                const std::function<bool(uint32_t label, uint32_t scope, uint32_t stack)>& pred);

// Changes g by `factor` for what matched: a matched node whole, with the device work it
// launched and the time from its start to each launch (0 removes it and its dispatch gap); a
// node not matched, by the share of it its matched inner slices held, each counted once (one
// inside another matched one is in it already), with the device work launched inside them.
// Returns how many nodes changed (0: nothing matched).
size_t ScaleMatched(const Matched& m, double factor, Graph* g);

}  // namespace tt::analysis::replay
