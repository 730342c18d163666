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

std::vector<std::string> ProcessTags(const TraceModel& m, const std::vector<size_t>& shown) {
  std::map<int64_t, size_t> of_rank;
  for (size_t p : shown) of_rank[m.processes[p].meta.rank]++;
  std::vector<std::string> out(m.processes.size());
  for (size_t p : shown) {
    const ProcessMeta& meta = m.processes[p].meta;
    std::string pid = "pid " + std::to_string(meta.pid);
    std::string rank = meta.rank >= 0 ? "rank " + std::to_string(meta.rank) : "";
    out[p] = rank.empty() ? pid : of_rank[meta.rank] > 1 ? rank + ", " + pid : rank;
  }
  return out;
}

}  // namespace tt::model
