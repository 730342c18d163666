// The host half of the aggregation pass (host_pass.cc), an internal stage of Aggregate.
#pragma once
#include <vector>

#include "analysis/pass/pass_context.h"

namespace tt::analysis {

// Scans every host track once (ops, API calls, primitives, allocations, launches and external
// ids, step intervals) into a->host, then links the primitives and launches that found no op on
// their own track to an op of another track of the same thread.
void ScanHostTracks(const PassContext& c, Aggregates* a, std::vector<Problem>* problems);

}  // namespace tt::analysis
