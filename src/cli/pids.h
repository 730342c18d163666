// The job a command reads: its directories, narrowed to the processes of --pid and --rank (parsed
// with the selection group, option_groups.h) before anything reads it, so that every analysis
// and export sees only them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cli/args.h"
#include "format/reader.h"
#include "model/inventory.h"
#include "model/job/load.h"
#include "model/model.h"

namespace tt::cli {

// The model of model::OpenJob(dirs, chosen) (with its inventory when asked), several
// recordings put on one clock (solved by analysis/job/job_clock.h, applied by model::Aligned).
// The ranks of the job's world that no recording holds are named on stderr, as a note.
// (Not when some processes are chosen: those left out are not missing.)
model::TraceModel LoadJob(const std::vector<std::string>& dirs, const model::ProcessChoice& chosen,
                          model::TraceSummary* inventory = nullptr);

// The directories of a command: `first`, then `more`.
std::vector<std::string> DirList(const std::string& first, const std::vector<std::string>& more);

}  // namespace tt::cli
