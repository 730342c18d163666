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
  };
  Kind kind = Kind::kScale;
  std::string spec;     // as given
  std::string pattern;  // kScale: an ECMAScript regular expression, searched in name and type
  double factor = 1;    // >= 0; 0 removes the work (and the dispatch gaps before it)
  bool default_factor = false;  // kPrecision: none given
  // kScale: whether a label matches, decided once per label text for every step's graph.
  bool Matches(const std::string& label, const std::string& type) const;
  struct Matcher {
    std::regex re;
    std::unordered_map<std::string, bool> seen;
  };
  mutable std::shared_ptr<Matcher> matcher;  // compiled at the first Matches
};

// Parses "REGEX=FACTOR", "input=FACTOR", "comm=FACTOR" (the factor after the last '='),
// "overlap=comm", "precision=bf16|fp16[:FACTOR]".
// `factor` parses and checks the number (the command line's parser). Throws tt::Error.
WhatIf ParseWhatIf(const std::string& spec,
                   double (*factor)(const std::string& spec, const std::string& text));

// Changes g; returns how many nodes changed (0: the what-if matched nothing in g).
size_t Apply(const WhatIf& w, Graph* g);
size_t ApplyScale(const WhatIf& w, Graph* g);      // whatif_scale.cc
size_t ApplyInput(const WhatIf& w, Graph* g);      // whatif_input.cc
size_t ApplyComm(const WhatIf& w, Graph* g);       // whatif_comm.cc
size_t ApplyOverlap(Graph* g);                     // whatif_overlap.cc
size_t ApplyPrecision(const WhatIf& w, Graph* g);  // whatif_precision.cc

// precision='s default on GPU kernels: the dense tensor-core throughput of BF16/FP16 is twice
// that of TF32 on NVIDIA's A100 and H100 data sheets (312 against 156, 989 against 495 TFLOPS).
inline constexpr double kGpuHalfPrecision = 0.5;

// Sets node v's duration to its duration x factor; factor 0 also zeroes the gaps of the edges
// into v (its dispatch is gone with it, ZeroGapsInto: for each node marked in `removed`).
void ScaleNode(Graph* g, uint32_t v, double factor);
void ZeroGapsInto(Graph* g, const std::vector<char>& removed);

}  // namespace tt::analysis::replay
