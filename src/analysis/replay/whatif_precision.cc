// What-if precision=bf16|fp16[:FACTOR]: matrix products and convolutions (ops by their type,
// GPU kernels by their name: gemm, conv, matmul, dot) x factor. Without a factor, GPU kernels
// only, x kGpuHalfPrecision: how much faster a CPU's ops would be depends on its instructions
// (AMX, AVX-512 BF16 or none), which the trace does not say. Each op changed takes no less than
// the roofline allows (roofline.h): its FLOPs at the hardware's BF16 peak, or on a GPU half its
// bytes over the memory bandwidth.
#include <cstdio>
#include <regex>

#include "analysis/replay/roofline.h"
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

const std::regex& MatrixWork() {
  static const std::regex re(
      "matmul|gemm|conv|dot|einsum|addmm|bmm|(^|[^a-z])mm($|[^a-z])|linear|cublas|cudnn",
      std::regex::ECMAScript | std::regex::icase);
  return re;
}

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
    uint64_t before = node.duration;
    ScaleNode(g, v, w.factor);
    // BF16/FP16 at its hardware's half-precision peak, its tensors half the bytes of FP32's
    BoundByRoof(g, v, before, true, 0.5);
    ++n;
  }
  return n;
}

}  // namespace

namespace {

bool ParsePrecision(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  if (spec.rfind("precision=", 0) != 0) return false;
  std::string rest = spec.substr(10);
  size_t colon = rest.find(':');
  w->pattern = rest.substr(0, colon);
  if (w->pattern != "bf16" && w->pattern != "fp16")
    throw Error("--what-if '" + spec + "': expected precision=bf16 or precision=fp16 (:FACTOR)");
  w->default_factor = colon == std::string::npos;
  w->factor = w->default_factor ? kGpuHalfPrecision : numbers.factor(spec, rest.substr(colon + 1));
  return true;
}

std::string NoMatrixWork(const WhatIf& w) {
  return w.default_factor ? "no matrix product or convolution on a GPU (for ops on the CPU, "
                            "give the factor: precision=" +
                                w.pattern + ":FACTOR)"
                          : "no matrix product or convolution";
}

// BF16 where the recording host has it: a GPU's tensor cores (its kernels x 0.5), else a
// CPU's BF16 instructions (its ops x the FP32 peak over BF16's, at most twice as fast).
std::vector<WhatIf> SuggestPrecision(const SuggestInput& in) {
  if (in.hw.gpu_half) {
    WhatIf w = MakeWhatIf("precision", "precision=bf16", "bf16", kGpuHalfPrecision);
    w.default_factor = true;  // GPU kernels only
    return {w};
  }
  if (in.hw.cpu_half <= 0) return {};
  char f[16];
  std::snprintf(f, sizeof f, "%.2g", in.hw.cpu_half);
  return {MakeWhatIf("precision", std::string("precision=bf16:") + f, "bf16", in.hw.cpu_half)};
}

std::string HowPrecision(const WhatIf&, const SuggestInput& in) {
  std::string f = FrameworkOf(in.steps), why = " (" + in.hw.source + ")";
  if (f == "pytorch")
    return "mixed precision: with torch.autocast(device_type=..., dtype=torch.bfloat16) around "
           "the forward pass" +
           why;
  if (f == "tensorflow")
    return "mixed precision: tf.keras.mixed_precision.set_global_policy('mixed_bfloat16')" + why;
  if (f == "jax") return "mixed precision: parameters and inputs as jnp.bfloat16" + why;
  return "mixed precision (BF16) for matrix products and convolutions" + why;
}

}  // namespace

const WhatIfKind& PrecisionWhatIf() {
  static const WhatIfKind k{
      .name = "precision",
      .syntax = "precision=bf16|fp16[:FACTOR]",
      .help =
          "matrix products and convolutions x\nFACTOR; without one, GPU kernels x 0.5 "
          "(BF16/FP16 against\nTF32 on A100 and H100 data sheets), CPU ops unchanged;\neach no "
          "faster than its FLOPs at the BF16 peak (the\nroofline: hardware.json)",
      .parse = ParsePrecision,
      .apply = ApplyPrecision,
      .nothing = NoMatrixWork,
      .suggest = SuggestPrecision,
      .change = "precision",
      .how = HowPrecision,
  };
  return k;
}

}  // namespace tt::analysis::replay
