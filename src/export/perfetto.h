// Perfetto's native trace format (a protobuf Trace of TracePackets, schema subset in
// proto/perfetto_trace.proto): opens in ui.perfetto.dev and trace_processor. One track per
// process, thread, GPU stream and counter; slices with their arguments as debug annotations,
// instants, counters; a counter of allocator memory in use per process; flows from each launch
// to the device work it started and from each framework op to its device work. Streams: each
// packet goes to the sink as soon as it is complete.
#pragma once
#include "export/sink.h"
#include "export/walk.h"

namespace tt::exporter {

struct PerfettoCounts {
  uint64_t flows = 0;           // flow arrows ended on device work (launch and op flows)
  uint64_t memory_samples = 0;  // samples of the memory-in-use counters
};

WalkResult WritePerfetto(const model::TraceModel& m, const Selection& sel, Sink& out,
                         std::vector<Problem>* problems, PerfettoCounts* counts);

}  // namespace tt::exporter
