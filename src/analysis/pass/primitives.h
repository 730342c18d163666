// oneDNN primitives (ITT tasks) counted once per execution and linked to their op, after every
// host track has been read (the aggregation pass's last host stage).
//
// With ONEDNN_ITT_TASK_LEVEL=2 oneDNN opens the primitive's task on the thread that executes it
// and again on each pool thread that runs a share of its parallel work (a thread may run
// several shares, one after the other), each nested in time in the execution. So, per process,
// in start order: a task that has no op on its own thread and starts while an execution of the
// same primitive runs on another thread (or within 1 us of its end: threads' clocks differ a
// little) is that execution's pool share (its op is the execution's op); every other task is an
// execution. An execution's op is the innermost op open
// on its thread, on any of the thread's tracks (the XSpace import writes TensorFlow's ops of
// thread T into an imported stream of T, the runtime writes T's primitives into T's own).
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "analysis/pass/aggregate.h"
#include "analysis/pass/thread_ops.h"

namespace tt::analysis {

struct PassContext;

// Link methods of the primitive view ("links"), besides kLinkPrimitiveNesting.
inline constexpr const char kLinkPrimitivePool[] = "primitive->op: pool thread of an execution";

// threads: the ops of each (process, tid) that has several tracks, built. Fills each TrackAgg's
// prims, prim_pool, prim_domains and link counts from its prim_spans (then freed).
void ResolvePrimitives(const PassContext& c,
                       const std::map<std::pair<size_t, uint64_t>, ThreadOps>& threads,
                       std::vector<TrackAgg>* hagg);

}  // namespace tt::analysis
