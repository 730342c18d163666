// What-if precision=bf16|fp16[:FACTOR]: matrix products and convolutions (ops by their type,
// GPU kernels by their name: gemm, conv, matmul, dot) x factor. Without a factor, GPU kernels
// only, x kGpuHalfPrecision: how much faster a CPU's ops would be depends on its instructions
// (AMX, AVX-512 BF16 or none), which the trace does not say.
#include <regex>

#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

namespace {

const std::regex& MatrixWork() {
  static const std::regex re(
      "matmul|gemm|conv|dot|einsum|addmm|(^|[^a-z])mm($|[^a-z])|linear|cublas|cudnn",
      std::regex::ECMAScript | std::regex::icase);
  return re;
}

}  // namespace

size_t ApplyPrecision(const WhatIf& w, Graph* g) {
  const LabelTable& t = *g->names;
  std::vector<char> matrix(t.labels.size(), 0);
  for (size_t i = 0; i < t.labels.size(); ++i)
    matrix[i] =
        std::regex_search(t.types[i], MatrixWork()) || std::regex_search(t.labels[i], MatrixWork());
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    const Node& node = g->nodes[v];
    bool device = node.kind == NodeKind::kDevice;
    if (!matrix[node.label] || !(device || (node.kind == NodeKind::kOp && !w.default_factor)))
      continue;
    ScaleNode(g, v, w.factor);
    ++n;
  }
  return n;
}

}  // namespace tt::analysis::replay
