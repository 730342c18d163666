// Replay's "what would help most": what-ifs worth trying on a job, from its replay: each of the
// labels that weigh most on the critical path twice as fast, the input pipeline gone, the
// collectives' transfers twice as fast and fully overlapped (those the job has).
#pragma once
#include <string>
#include <vector>

#include "analysis/replay/predict.h"

namespace tt::analysis::replay {

// The candidates: each what-if kind's own, in the table's order (whatif_kind.h): the `top`
// heaviest op, device or communication labels of base's critical path (`^label$=0.5`, the
// label's regular-expression characters escaped), then input=0, comm=0.5 and overlap=comm where
// the graphs have what they change.
std::vector<WhatIf> Candidates(const Prediction& base, const std::vector<StepGraph>& steps,
                               size_t top);

// Whether a node of some step's graph is one `want` wants.
bool AnyNode(const std::vector<StepGraph>& steps, bool (*want)(const Graph&, const Node&));

// `text` as an ECMAScript regular expression that matches it exactly.
std::string RegexQuote(const std::string& text);

}  // namespace tt::analysis::replay
