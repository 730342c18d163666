#include "cli/pids.h"

#include <iostream>

#include "analysis/job/job_clock.h"
#include "model/job/clock.h"
#include "model/job/load.h"

namespace tt::cli {

std::vector<std::string> DirList(const std::string& first, const std::vector<std::string>& more) {
  std::vector<std::string> dirs{first};
  dirs.insert(dirs.end(), more.begin(), more.end());
  return dirs;
}

model::TraceModel LoadJob(const std::vector<std::string>& dirs, const model::ProcessChoice& chosen,
                          model::TraceSummary* inventory) {
  model::TraceModel m = model::LoadJobModel(dirs, chosen, inventory);
  std::string note = chosen.Empty() ? model::MissingRanksNote(m) : "";  // --pid: left out
  if (!note.empty()) std::cerr << "tensortrace: note: " << note << "\n";
  model::JobClock clock = analysis::SolveJobClock(m, 0);
  return model::Aligned(std::move(m), clock);
}

}  // namespace tt::cli
