// The point-to-point view of a model already on the job's clock: AlignedPointToPoint.
#pragma once
#include "model/model.h"

namespace tt::analysis {

struct P2pView;  // p2p.h

// The socket traffic (unless `sockets` is false) and TensorFlow's rendezvous pairs of a model
// whose times are on the job's clock already (job_clock.h: every recording's offset 0).
P2pView AlignedPointToPoint(const model::TraceModel& m, bool sockets = true);

}  // namespace tt::analysis
