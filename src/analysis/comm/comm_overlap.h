// The overlap of a rank's collectives with compute on its process's other tracks.
#pragma once
#include <cstddef>
#include <vector>

#include "analysis/job/steps.h"
#include "analysis/pass/intervals.h"

namespace tt::analysis {

struct CommRank;  // comm.h

// The overlap of one rank's collectives (r->events, each with its track) with `compute`
// (compute intervals by track of its model, each sorted by start and merged), on the other
// tracks of its process (`tracks`); per step of `steps` (its process's, in start order).
void MeasureOverlap(const std::vector<std::vector<Interval>>& compute,
                    const std::vector<size_t>& tracks, const std::vector<Step>& steps, CommRank* r);

}  // namespace tt::analysis
