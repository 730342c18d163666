#include "model/job/process_names.h"

#include <map>
#include <set>

namespace tt::model {

std::vector<int64_t> ExportPids(const TraceModel& m) {
  std::map<std::string, int64_t> recording;  // in order of first appearance
  std::map<int64_t, std::set<std::string>> held;
  for (const Process& p : m.processes) {
    recording.emplace(p.recording, static_cast<int64_t>(recording.size()));
    held[p.meta.pid].insert(p.recording);
  }
  std::vector<int64_t> out;
  for (const Process& p : m.processes) {
    bool shared = held[p.meta.pid].size() > 1;
    out.push_back(shared ? ((recording[p.recording] + 1) << 22) + p.meta.pid : p.meta.pid);
  }
  return out;
}

std::string ProcessLabel(const Process& p) {
  std::string label = p.meta.cmdline + " (" + p.meta.hostname + ")";
  return p.meta.rank >= 0 ? "rank " + std::to_string(p.meta.rank) + ": " + label : label;
}

}  // namespace tt::model
