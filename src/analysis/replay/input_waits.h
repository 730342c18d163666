// A step's wait for its input under a what-if: the input pipeline makes the batch the step
// waits for, so work of the pipeline that a what-if removed or shortened (a py_function named by
// REGEX=, a map's line by line:) shortens the waits it ran beside (docs/replay.md, (e)).
#pragma once
#include <vector>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

// The steps' waits for their input (each graph's kInputWait nodes that the what-ifs left as
// they were), each shortened by the time that input pipeline work the what-ifs removed or
// shortened (`after` against `before`, the job's graphs in order, any step's: the pipeline
// makes the next batch across step boundaries) ran while it waited, each instant counted by
// the largest share gone of the work then: a wait beside a removed py_function's whole call is
// gone, one beside work half as long loses half of that time.
void ShortenInputWaits(const std::vector<const Graph*>& before, const std::vector<Graph*>& after);

// The time (ns) the steps' waits for their input lost under the what-ifs, over all of `before`
// against `after` (the same graphs changed; 0 where a what-if rebuilt them).
double InputWaitGone(const std::vector<const Graph*>& before,
                     const std::vector<const Graph*>& after);

}  // namespace tt::analysis::replay
