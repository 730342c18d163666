// The job's clock: several recordings put on one time base. The offsets are solved elsewhere
// (analysis/job/job_clock.h: recorded offsets refined by collectives and send/receive pairs);
// here they are applied, once, by making the aligned job: the model is never changed in place.
#pragma once
#include <cstdint>
#include <vector>

#include "model/model.h"

namespace tt::model {

struct JobClock {
  std::vector<RecordingClock> clocks;  // the reference first; empty: one recording, as is
  std::vector<int64_t> shift_ns;       // per process of the model it was solved for
  int64_t realtime_offset_ns = 0;      // CLOCK_REALTIME minus the job's time
};

// `m` on the clock `c` solved for it: each process's times shifted, the clocks noted.
TraceModel Aligned(TraceModel m, const JobClock& c);

}  // namespace tt::model
