// Chrome trace-event JSON (the format of chrome://tracing and Perfetto's UI): metadata events
// for process and thread names, complete events for slices, instants, counters, and flow
// events from each CUDA launch to the device work it started.
#pragma once
#include "export/sink.h"
#include "export/walk.h"

namespace tt::exporter {

WalkResult WriteChrome(const model::TraceModel& m, const Selection& sel, Sink& out,
                       std::vector<Problem>* problems, uint64_t* flows);

}  // namespace tt::exporter
