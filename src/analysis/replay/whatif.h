// Replay's what-ifs: each changes a step's graph before it is replayed; one file each
// (whatif_*.cc), listed in Apply (whatif.cc).
#pragma once
#include <cstddef>
#include <memory>
#include <regex>
#include <string>
#include <unordered_map>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

struct WhatIf {
  enum class Kind : uint8_t {
    kScale,    // REGEX=FACTOR: ops whose name or type matches the pattern, durations x factor
    kInput,    // input=FACTOR: input waits and the input pipeline's work x factor
    kComm,     // comm=FACTOR: collectives' transfers x factor (0.5: twice the bandwidth)
    kOverlap,  // overlap=comm: no rank waits for a transfer; only its step's end does
    // precision=bf16|fp16[:FACTOR]: matrix products and convolutions x factor (default: GPU
    // kernels x kGpuHalfPrecision; no default for CPU ops)
    kPrecision,
    // tensor-fusion=BYTES: the collectives' transfers grouped in buckets of up to BYTES (larger
    // ones split), each costing alpha + beta x its bytes (fitted on the job's transfers)
    kTensorFusion,
    // op-fusion=REGEX|auto: chains of element-wise ops on one resource fused into one
    kOpFusion,
  };
  Kind kind = Kind::kScale;
  std::string spec;     // as given
  std::string pattern;  // kScale: an ECMAScript regular expression, searched in name and type
  double factor = 1;    // >= 0; 0 removes the work (and the dispatch gaps before it)
  bool default_factor = false;  // kPrecision: none given
  // kTensorFusion: the bucket size, and the cost model (set by Changed before applying).
  int64_t bucket = 0;
  double alpha = 0, beta = 0;
  // kScale: whether a label matches, decided once per label text for every step's graph.
  bool Matches(const std::string& label, const std::string& type) const;
  struct Matcher {
    std::regex re;
    std::unordered_map<std::string, bool> seen;
  };
  mutable std::shared_ptr<Matcher> matcher;  // compiled at the first Matches
};

// Parses "REGEX=FACTOR", "input=FACTOR", "comm=FACTOR" (the factor after the last '='),
// "overlap=comm", "precision=bf16|fp16[:FACTOR]", "tensor-fusion=BYTES" (`bytes` parses the
// size), "op-fusion=REGEX|auto".
// `factor` parses and checks the number (the command line's parser). Throws tt::Error.
WhatIf ParseWhatIf(const std::string& spec,
                   double (*factor)(const std::string& spec, const std::string& text),
                   uint64_t (*bytes)(const std::string& spec, const std::string& text) = nullptr);

// Changes g; returns how many nodes changed (0: the what-if matched nothing in g).
size_t Apply(const WhatIf& w, Graph* g);
size_t ApplyScale(const WhatIf& w, Graph* g);         // whatif_scale.cc
size_t ApplyInput(const WhatIf& w, Graph* g);         // whatif_input.cc
size_t ApplyComm(const WhatIf& w, Graph* g);          // whatif_comm.cc
size_t ApplyOverlap(Graph* g);                        // whatif_overlap.cc
size_t ApplyPrecision(const WhatIf& w, Graph* g);     // whatif_precision.cc
size_t ApplyTensorFusion(const WhatIf& w, Graph* g);  // whatif_tensor_fusion.cc
size_t ApplyOpFusion(const WhatIf& w, Graph* g);      // whatif_op_fusion.cc
// An op or device node of an element-wise type (what op-fusion=auto fuses).
bool IsElementWise(const Graph& g, const Node& n);
// The alpha + beta x bytes fit of the transfers of `graphs` that give their bytes (least
// squares; alpha, beta >= 0; both 0 when none does).
void FitTransfers(const std::vector<const Graph*>& graphs, double* alpha, double* beta);

// precision='s default on GPU kernels: the dense tensor-core throughput of BF16/FP16 is twice
// that of TF32 on NVIDIA's A100 and H100 data sheets (312 against 156, 989 against 495 TFLOPS).
inline constexpr double kGpuHalfPrecision = 0.5;

// Sets node v's duration to its duration x factor; factor 0 also zeroes the gaps of the edges
// into v (its dispatch is gone with it, ZeroGapsInto: for each node marked in `removed`).
void ScaleNode(Graph* g, uint32_t v, double factor);
void ZeroGapsInto(Graph* g, const std::vector<char>& removed);

}  // namespace tt::analysis::replay
