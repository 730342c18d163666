// How the processes of a job are told apart where several recordings meet: by rank, their
// pids only a property. Recordings made in containers with pid namespaces of their own all run
// the same pids ("pid 3" on every rank), which exports must not merge into one process.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace tt::model {

// The pid each process shows in an export (indexed like m.processes): its own, unless a
// process of another recording of the job has the same pid; then (the recording's position
// among the job's recordings + 1) * 2^22 + pid, beyond any real pid (pid_max is at most 2^22).
std::vector<int64_t> ExportPids(const TraceModel& m);

// "rank 2: CMDLINE (HOST)" where the launcher gave a rank, else "CMDLINE (HOST)".
std::string ProcessLabel(const Process& p);

// How each of `shown` (indices in m.processes) is named where a table lists them side by side
// ("allocator cpu (rank 2)"): "rank R" where its launcher gave it a rank no other of them has,
// "rank R, pid P" where two share the rank (a rank's worker processes), else "pid P". Indexed
// like m.processes; "" for those not shown.
std::vector<std::string> ProcessTags(const TraceModel& m, const std::vector<size_t>& shown);

}  // namespace tt::model
