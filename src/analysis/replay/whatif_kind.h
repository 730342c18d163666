// The what-if table: one entry per kind of what-if, each defined in its own file
// (whatif_*.cc) and listed by one line in whatif_table.cc. An entry carries everything about
// its kind: how a spec is parsed, how it changes a step's graph, its help, what a step lacks
// when it matched nothing, and what `replay --suggest` and `optimize` try of it. A new what-if
// is one new file and one table line; replay, suggest, optimize and the help read the table.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analysis/replay/predict.h"
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

// What a kind's suggestions are made from (suggest.h): the unchanged replay, the steps' graphs,
// the recording host's hardware, and how many of its own a kind may give.
struct SuggestInput {
  const Prediction& base;
  const std::vector<StepGraph>& steps;
  const Hardware& hw;
  size_t top = 3;
};

struct WhatIfKind {
  const char* name;    // the word before '=' ("input"); "" for REGEX=FACTOR
  const char* syntax;  // as the help shows it ("input=FACTOR")
  const char* help;    // what it changes, wrapped by the help ('\n' between lines)
  // Fills w when `spec` is of this kind (true); false to let the next entry try. Throws
  // tt::Error when it is of this kind but malformed.
  bool (*parse)(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w);
  size_t (*apply)(const WhatIf& w, Graph* g);
  // What the replayed steps lack when w matched nothing ("no communication").
  std::string (*nothing)(const WhatIf& w);
  // Optional: set from the measured graphs before applying (tensor-fusion's cost model).
  void (*prepare)(const std::vector<const Graph*>& measured, WhatIf* w) = nullptr;
  // Optional: the changes of this kind a user can make that replay's suggestions try
  // (suggest.h), given the unchanged replay; `change` names them ("input", "line",
  // "straggler", "bucket", "precision", "fusion", "op") and `how` says how to make one.
  std::vector<WhatIf> (*suggest)(const SuggestInput& in) = nullptr;
  const char* change = "";
  std::string (*how)(const WhatIf& w, const SuggestInput& in) = nullptr;
  // Optional: the settings `optimize` tries, each a what-if, and how a user applies one.
  std::vector<WhatIf> (*settings)() = nullptr;
  std::string (*setting_of)(const WhatIf& w) = nullptr;
  // Its change puts FACTOR times the samples in a step (batch=): a suggestion of it is
  // compared per sample (suggest.h: Suggestion::samples).
  bool per_sample = false;
};

// The table, in the order the help lists it (whatif_table.cc).
const std::vector<const WhatIfKind*>& WhatIfKinds();
// The entry called `name`; throws std::logic_error for a name the table lacks.
const WhatIfKind& WhatIfNamed(std::string_view name);
// A what-if of kind `name` with its spec and fields, as a parse of `spec` would give.
WhatIf MakeWhatIf(std::string_view name, const std::string& spec, const std::string& pattern,
                  double factor = 1);
// The parse of a what-if written NAME=FACTOR (input=, comm=): true, with w's pattern and factor
// set, when the text before spec's last '=' is `name`.
bool ParseNamedFactor(const char* name, const std::string& spec, const WhatIfNumbers& numbers,
                      WhatIf* w);
// The help's lines for the table: "SYNTAX   text", aligned; `indent` spaces before each.
std::string WhatIfHelp(size_t indent);

}  // namespace tt::analysis::replay
