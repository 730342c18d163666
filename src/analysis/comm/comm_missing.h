// The ranks a job's collectives miss (issue 39: a rank killed mid-run): each rank of the
// launcher's world that ran no collective in the trace, or that died (record finalised its
// trace) before the others' last collectives, named with how it ended and the first collective
// the others ran without it.
#pragma once
#include "analysis/comm/comm.h"
#include "model/model.h"

namespace tt::analysis {

// Adds a sentence per such rank to v->missing (and to v->notes).
void NoteMissingRanks(const model::TraceModel& m, CommView* v);

}  // namespace tt::analysis
