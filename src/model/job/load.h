// Loading a job: one or several trace directories (one recording per rank or host) read as
// one, narrowed to some processes (--pid) before anything reads them. The clock that puts the
// recordings on one time base is applied afterwards (clock.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "format/reader.h"
#include "model/inventory.h"
#include "model/model.h"

namespace tt::model {

// The trace directories `dirs` opened as one (their processes together, the path "A + B"),
// keeping only the processes (every exec image) of `pids`, all of them when `pids` is empty.
// Throws tt::Error with one line for a directory given twice, one holding a process image
// another one holds (the same recording), or a pid the job does not hold (listing those it
// holds).
TraceDir OpenJob(const std::vector<std::string>& dirs, const std::vector<int64_t>& pids);

// The model of OpenJob(dirs, pids), with its inventory when asked (not yet aligned).
TraceModel LoadJobModel(const std::vector<std::string>& dirs, const std::vector<int64_t>& pids,
                        TraceSummary* inventory = nullptr);

}  // namespace tt::model
