// Replay's what-ifs (whatif.h): parsing, and the list of what-ifs.
#include "analysis/replay/whatif.h"

#include <cmath>

#include "core/error.h"

namespace tt::analysis::replay {

namespace {

WhatIf ParsePrecision(const std::string& spec,
                      double (*factor)(const std::string& spec, const std::string& text)) {
  WhatIf w;
  w.spec = spec;
  w.kind = WhatIf::Kind::kPrecision;
  std::string rest = spec.substr(10);
  size_t colon = rest.find(':');
  w.pattern = rest.substr(0, colon);
  if (w.pattern != "bf16" && w.pattern != "fp16")
    throw Error("--what-if '" + spec + "': expected precision=bf16 or precision=fp16 (:FACTOR)");
  w.default_factor = colon == std::string::npos;
  w.factor = w.default_factor ? kGpuHalfPrecision : factor(spec, rest.substr(colon + 1));
  return w;
}

}  // namespace

WhatIf ParseWhatIf(const std::string& spec,
                   double (*factor)(const std::string& spec, const std::string& text),
                   uint64_t (*bytes)(const std::string& spec, const std::string& text)) {
  size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw Error("--what-if '" + spec +
                "': expected REGEX=FACTOR, input=FACTOR, comm=FACTOR or overlap=comm");
  WhatIf w;
  w.spec = spec;
  if (spec == "overlap=comm") {
    w.kind = WhatIf::Kind::kOverlap;
    w.pattern = "overlap";
    return w;
  }
  if (spec.rfind("precision=", 0) == 0) return ParsePrecision(spec, factor);
  if (spec.rfind("op-fusion=", 0) == 0 && spec.size() > 10) {
    w.kind = WhatIf::Kind::kOpFusion;
    w.pattern = spec.substr(10);
    return w;
  }
  if (spec.rfind("tensor-fusion=", 0) == 0 && bytes) {
    w.kind = WhatIf::Kind::kTensorFusion;
    w.pattern = "tensor-fusion";
    w.bucket = static_cast<int64_t>(bytes(spec, spec.substr(14)));
    if (w.bucket <= 0) throw Error("--what-if '" + spec + "': the bucket size must be above 0");
    return w;
  }
  w.pattern = spec.substr(0, eq);
  w.factor = factor(spec, spec.substr(eq + 1));
  if (w.pattern == "input") w.kind = WhatIf::Kind::kInput;
  if (w.pattern == "comm") w.kind = WhatIf::Kind::kComm;
  return w;
}

size_t Apply(const WhatIf& w, Graph* g) {
  switch (w.kind) {
    case WhatIf::Kind::kScale:
      return ApplyScale(w, g);
    case WhatIf::Kind::kInput:
      return ApplyInput(w, g);
    case WhatIf::Kind::kComm:
      return ApplyComm(w, g);
    case WhatIf::Kind::kOverlap:
      return ApplyOverlap(g);
    case WhatIf::Kind::kPrecision:
      return ApplyPrecision(w, g);
    case WhatIf::Kind::kTensorFusion:
      return ApplyTensorFusion(w, g);
    case WhatIf::Kind::kOpFusion:
      return ApplyOpFusion(w, g);
  }
  return 0;
}

void ScaleNode(Graph* g, uint32_t v, double factor) {
  Node& n = g->nodes[v];
  n.duration = static_cast<uint64_t>(std::llround(static_cast<double>(n.duration) * factor));
}

void ZeroGapsInto(Graph* g, const std::vector<char>& removed) {
  for (Edge& e : g->edges)
    if (removed[e.to]) e.gap = 0;
}

}  // namespace tt::analysis::replay
