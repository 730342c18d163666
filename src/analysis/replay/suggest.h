// Replay's "what would help most": changes a user can make, each replayed, with its predicted
// gain, the gain's uncertainty and how to make it. Each what-if kind offers its own (its
// table entry's suggest, whatif_kind.h): the input pipeline (input=0) where steps wait for
// input, the hottest lines of the program's own files (line:FILE:LINE=0), a straggler made like
// the other ranks (rank=R:like=0), the gradient bucket size (tensor-fusion=) where collectives
// give their bytes, mixed precision where the recording host has BF16 or FP16 (hardware.json),
// element-wise ops fused (op-fusion=auto), twice the batch where ops give their shapes
// (batch=2, compared per sample); an op twice as fast only where none of those helps.
#pragma once
#include <string>
#include <vector>

#include "analysis/replay/predict.h"

namespace tt::analysis::replay {

struct Suggestion {
  std::string change;  // the kind of change (WhatIfKind::change): input, line, straggler, ...
  WhatIf what_if;
  std::string how;         // how to make it
  Prediction p;            // the replay with it
  double gain = 0;         // the mean predicted step's, ns (base - with it)
  double uncertainty = 0;  // ns: half the interquartile range of the steps' gains, or the gap
                           // between their mean and median, whichever is larger
  // The samples of its step over the measured step's (batch=2: 2; else 1). gain and
  // uncertainty are per the measured step's samples: the measured step's time against
  // Predicted(), its predicted step over `samples`.
  double samples = 1;
  double Predicted() const { return p.predicted / samples; }
};

// The n changes with the largest predicted gain, largest first: each kind's candidates
// replayed, the best of each kind kept (line: up to 3), those that shorten the step by at
// least 0.5%; "op" (an op twice as fast) only when no other change does; a larger batch
// (compared per sample) after those that keep the step's samples.
std::vector<Suggestion> Suggest(const Prediction& base, const std::vector<StepGraph>& steps,
                                const Hardware& hw, size_t n);

// The candidates before they are replayed (every kind's suggest, in the table's order).
std::vector<WhatIf> Candidates(const Prediction& base, const std::vector<StepGraph>& steps,
                               const Hardware& hw, size_t top);

// Whether a node of some step's graph is one `want` wants.
bool AnyNode(const std::vector<StepGraph>& steps, bool (*want)(const Graph&, const Node&));

// `text` as an ECMAScript regular expression that matches it exactly.
std::string RegexQuote(const std::string& text);

// The job's framework as its op names say: "tensorflow", "pytorch", "jax" or "".
std::string FrameworkOf(const std::vector<StepGraph>& steps);

}  // namespace tt::analysis::replay
