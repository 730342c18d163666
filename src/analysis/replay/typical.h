// Replay of a typical step (dPRO's way): one graph, that of the step whose measured time is the
// median, with each node's duration the mean of its label's nodes on its rank over every
// selected step, each edge's gap the mean of the edges between the same labels, and each rank's
// start (relative to the first rank's) the mean of its starts. Its
// prediction is compared with the mean measured step, so the error measures the model (means
// in, a mean out), not the replay of each step's own durations.
#pragma once
#include <vector>

#include "analysis/replay/build.h"

namespace tt::analysis::replay {

// One graph (empty when `steps` is); each rank's measured time is its mean over the steps.
std::vector<StepGraph> Typical(const std::vector<StepGraph>& steps);

}  // namespace tt::analysis::replay
