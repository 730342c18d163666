// Replay's "what would help most" (suggest.h).
#include "analysis/replay/suggest.h"

#include <cstring>

namespace tt::analysis::replay {

std::string RegexQuote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c && std::strchr("\\^$.|?*+()[]{}", c)) out += '\\';
    out += c;
  }
  return out;
}

namespace {

bool Has(const std::vector<StepGraph>& steps, bool (*want)(const Graph&, const Node&)) {
  for (const StepGraph& sg : steps)
    for (const Node& n : sg.graph.nodes)
      if (want(sg.graph, n)) return true;
  return false;
}

WhatIf Make(WhatIf::Kind kind, const std::string& pattern, double factor, const char* text) {
  WhatIf w;
  w.kind = kind;
  w.pattern = pattern;
  w.factor = factor;
  w.spec = pattern + "=" + text;
  return w;
}

}  // namespace

std::vector<WhatIf> Candidates(const Prediction& base, const std::vector<StepGraph>& steps,
                               size_t top) {
  std::vector<WhatIf> out;
  for (const PathItem& it : base.path) {
    if (out.size() >= top) break;
    if (it.kind != NodeKind::kOp && it.kind != NodeKind::kDevice && it.kind != NodeKind::kComm)
      continue;
    out.push_back(Make(WhatIf::Kind::kScale, "^" + RegexQuote(it.label) + "$", 0.5, "0.5"));
  }
  if (Has(steps, [](const Graph&, const Node& n) {
        return n.kind == NodeKind::kInputWait || n.kind == NodeKind::kInput;
      }))
    out.push_back(Make(WhatIf::Kind::kInput, "input", 0, "0"));
  bool comm = Has(steps, [](const Graph&, const Node& n) { return n.kind == NodeKind::kComm; });
  if (comm) out.push_back(Make(WhatIf::Kind::kComm, "comm", 0.5, "0.5"));
  if (Has(steps, [](const Graph& g, const Node& n) { return IsCollectiveTransfer(g, n); })) {
    WhatIf w = Make(WhatIf::Kind::kOverlap, "overlap", 1, "comm");
    out.push_back(w);
  }
  return out;
}

}  // namespace tt::analysis::replay
