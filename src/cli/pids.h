// `--pid P` (repeatable) of stats, memory, report and export: the trace narrowed to those
// processes before anything reads it, so every analysis and export sees only them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cli/args.h"
#include "format/reader.h"
#include "model/inventory.h"
#include "model/model.h"

namespace tt::cli {

// The help line of the option, for each command's --help.
extern const char kPidHelp[];

// Consumes `--pid P` if it is next (P a whole number); throws tt::Error on a bad value.
bool ParsePidOption(ArgReader& a, std::vector<int64_t>* pids);

// Opens the trace in `dir` keeping only the processes (every exec image) of `pids`; all of
// them when `pids` is empty. A pid the trace does not hold throws tt::Error with one line that
// lists the pids it does hold.
TraceDir OpenTraceOfPids(const std::string& dir, const std::vector<int64_t>& pids);

// The same over several trace directories read as one job (one recording per rank or host):
// their processes together, the path "A + B". A directory given twice, or holding a process
// image another one holds (the same trace), throws tt::Error with one line.
TraceDir OpenTracesOfPids(const std::vector<std::string>& dirs, const std::vector<int64_t>& pids);

// The model of OpenTracesOfPids(dirs, pids) (with its inventory when asked), several
// recordings put on one clock (analysis/job/job_clock.h).
model::TraceModel LoadJob(const std::vector<std::string>& dirs, const std::vector<int64_t>& pids,
                          model::TraceSummary* inventory = nullptr);

// The directories of a command: `first`, then `more`.
std::vector<std::string> DirList(const std::string& first, const std::vector<std::string>& more);

}  // namespace tt::cli
