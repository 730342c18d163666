// The ranks a job's collectives miss (issue 39: a rank killed mid-run): each rank of the
// launcher's world that ran no collective in the trace, or that died (record finalised its
// trace) before the others' last collectives, named with how it ended and the last collective
// the others entered without it (the one it never reached), with how many before that its
// profile lacks (the framework profiler's unwritten window).
#pragma once
#include "analysis/comm/comm.h"
#include "model/model.h"

namespace tt::analysis {

// Adds a sentence per such rank to v->missing (and to v->notes).
void NoteMissingRanks(const model::TraceModel& m, CommView* v);

}  // namespace tt::analysis
