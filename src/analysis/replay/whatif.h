// Replay's what-ifs: each changes a step's graph before it is replayed. One file each
// (whatif_*.cc) holds its parse, its change, its help and its no-match message, and one line
// of the table (whatif_table.cc) lists it (whatif_kind.h).
#pragma once
#include <cstddef>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

struct WhatIfKind;  // what a what-if is: its entry in the table (whatif_kind.h)

struct WhatIf {
  const WhatIfKind* kind = nullptr;  // ParseWhatIf or the kind's own suggestions set it
  std::string spec;                  // as given
  std::string pattern;  // REGEX=FACTOR: an ECMAScript regular expression, searched in name and
                        // type; otherwise what the kind keeps of its value
  double factor = 1;    // >= 0; 0 removes the work (and the dispatch gaps before it)
  bool default_factor = false;  // precision=: none given
  // tensor-fusion=: the bucket size, and the cost model (set by Changed before applying).
  int64_t bucket = 0;
  double alpha = 0, beta = 0;
  int64_t first = 0, last = 0;  // line:: the lines of `pattern` (a file), inclusive
  // rank=R:SPEC: the rank (as its launcher numbered it) and SPEC's what-if (none for like=0).
  int64_t rank = -1;
  std::shared_ptr<const WhatIf> inner;
  // What the graphs held near a what-if that matched nothing (line:: the lines known in the
  // file), for its no-match message; set by its apply.
  mutable std::shared_ptr<std::string> near;
  // Whether this is the what-if of the table's entry `name` ("input", "" for REGEX=FACTOR).
  bool Is(std::string_view name) const;
  // REGEX=FACTOR: whether a label matches, decided once per label text for every step's graph.
  bool Matches(const std::string& label, const std::string& type) const;
  struct Matcher {
    std::regex re;
    std::unordered_map<std::string, bool> seen;
  };
  mutable std::shared_ptr<Matcher> matcher;  // compiled at the first Matches
};

// The command line's parsers of a what-if's numbers: each throws tt::Error naming the spec.
struct WhatIfNumbers {
  double (*factor)(const std::string& spec, const std::string& text) = nullptr;
  uint64_t (*bytes)(const std::string& spec, const std::string& text) = nullptr;
};

// Parses a what-if: the first entry of the table that claims the spec, REGEX=FACTOR the last.
// Throws tt::Error.
WhatIf ParseWhatIf(const std::string& spec, const WhatIfNumbers& numbers);
WhatIf ParseWhatIf(const std::string& spec,
                   double (*factor)(const std::string& spec, const std::string& text),
                   uint64_t (*bytes)(const std::string& spec, const std::string& text) = nullptr);

// Changes g; returns how many nodes changed (0: the what-if matched nothing in g).
size_t Apply(const WhatIf& w, Graph* g);
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
