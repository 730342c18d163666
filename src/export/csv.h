// CSV: one row per slice, instant and counter sample, with every field.
#pragma once
#include "export/sink.h"
#include "export/walk.h"

namespace tt::exporter {

WalkResult WriteCsv(const model::TraceModel& m, const Selection& sel, Sink& out,
                    std::vector<Problem>* problems);

}  // namespace tt::exporter
