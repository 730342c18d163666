// The device half of the aggregation pass (device_pass.cc), an internal stage of Aggregate.
#pragma once
#include <vector>

#include "analysis/pass/pass_context.h"

namespace tt::analysis {

// Scans every device track once (kernels, copies and sets, communication) into a->device, each
// activity linked to its launch and op (analysis/pass/correlate.h).
void ScanDeviceTracks(const PassContext& c, Aggregates* a, std::vector<Problem>* problems);

}  // namespace tt::analysis
