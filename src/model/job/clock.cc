// The aligned job (clock.h): the only place a process's shift is set.
#include "model/job/clock.h"

#include "core/error.h"

namespace tt::model {

TraceModel Aligned(TraceModel m, const JobClock& c) {
  if (c.clocks.empty()) return m;
  if (c.shift_ns.size() != m.processes.size())
    throw Error("the job's clock was solved for another set of processes");
  for (size_t i = 0; i < m.processes.size(); ++i) m.processes[i].shift_ns = c.shift_ns[i];
  m.clocks = c.clocks;
  m.realtime_offset_ns = c.realtime_offset_ns;
  return m;
}

}  // namespace tt::model
