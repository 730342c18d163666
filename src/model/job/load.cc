// Loading a job (load.h).
#include "model/job/load.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "core/error.h"
#include "core/ids.h"

namespace tt::model {

namespace {

// `t` with the processes of `more` added; a process image both hold throws.
void Merge(TraceDir* t, TraceDir more) {
  std::set<std::string> held;
  for (const auto& p : t->processes) held.insert(UuidToString(p.meta.trace_uuid));
  for (auto& p : more.processes)
    if (!held.insert(UuidToString(p.meta.trace_uuid)).second)
      throw Error(more.path + ": holds process " + std::to_string(p.meta.pid) + " of " + t->path +
                  " too (the same recording given twice?)");
  std::move(more.processes.begin(), more.processes.end(), std::back_inserter(t->processes));
  std::move(more.problems.begin(), more.problems.end(), std::back_inserter(t->problems));
  t->path += " + " + more.path;
}

}  // namespace

TraceDir OpenJob(const std::vector<std::string>& dirs, const std::vector<int64_t>& pids) {
  std::set<std::string> seen;
  for (const auto& d : dirs)
    if (!seen.insert(d).second) throw Error(d + ": given twice");
  TraceDir t = OpenTrace(dirs.at(0));
  for (size_t i = 1; i < dirs.size(); ++i) Merge(&t, OpenTrace(dirs[i]));
  if (pids.empty()) return t;
  std::set<int64_t> held;
  for (const auto& p : t.processes) held.insert(p.meta.pid);
  for (int64_t pid : pids) {
    if (held.count(pid)) continue;
    std::string list;
    for (int64_t h : held) list += (list.empty() ? "" : ", ") + std::to_string(h);
    throw Error("--pid " + std::to_string(pid) + ": " + t.path + " holds no process " +
                std::to_string(pid) + " (its processes: " + (list.empty() ? "none" : list) +
                "; `tensortrace info " + dirs[0] + "` lists them)");
  }
  std::erase_if(t.processes, [&](const ProcessTrace& p) {
    return std::find(pids.begin(), pids.end(), p.meta.pid) == pids.end();
  });
  return t;
}

TraceModel LoadJobModel(const std::vector<std::string>& dirs, const std::vector<int64_t>& pids,
                        TraceSummary* inventory) {
  return LoadModel(OpenJob(dirs, pids), inventory);
}

}  // namespace tt::model
