#include "cli/pids.h"

#include <algorithm>
#include <set>

namespace tt::cli {

const char kPidHelp[] =
    "  --pid P          only process P (each of its exec images); repeat for several\n";

bool ParsePidOption(ArgReader& a, std::vector<int64_t>* pids) {
  std::string v;
  if (!a.Option("--pid", &v)) return false;
  pids->push_back(static_cast<int64_t>(ParseUint("--pid", v, INT32_MAX)));
  return true;
}

TraceDir OpenTraceOfPids(const std::string& dir, const std::vector<int64_t>& pids) {
  TraceDir t = OpenTrace(dir);
  if (pids.empty()) return t;
  std::set<int64_t> held;
  for (const auto& p : t.processes) held.insert(p.meta.pid);
  for (int64_t pid : pids) {
    if (held.count(pid)) continue;
    std::string list;
    for (int64_t h : held) list += (list.empty() ? "" : ", ") + std::to_string(h);
    throw Error("--pid " + std::to_string(pid) + ": " + dir + " holds no process " +
                std::to_string(pid) + " (its processes: " + (list.empty() ? "none" : list) +
                "; `tensortrace info " + dir + "` lists them)");
  }
  std::erase_if(t.processes, [&](const ProcessTrace& p) {
    return std::find(pids.begin(), pids.end(), p.meta.pid) == pids.end();
  });
  return t;
}

}  // namespace tt::cli
