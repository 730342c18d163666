#include "analysis/comm/comm_missing.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/human.h"

namespace tt::analysis {

namespace {

// The newest image of each launcher rank of the job.
std::map<int64_t, const model::Process*> ProcessOfRank(const model::TraceModel& m) {
  std::map<int64_t, const model::Process*> out;
  for (const model::Process& p : m.processes)
    if (p.meta.rank >= 0) out[p.meta.rank] = &p;  // later images come later
  return out;
}

// The instances that the rank at v.ranks[r] did not enter though their group expected more
// ranks than entered (all such instances where r < 0: a rank with no collective at all, whose
// profile may be lost whole), by first entry.
std::vector<const CommInstance*> Without(const CommView& v, int64_t r) {
  std::vector<const CommInstance*> out;
  for (const CommInstance& in : v.instances) {
    if (static_cast<int64_t>(in.arrivals.size()) >= in.nranks) continue;
    bool there = std::any_of(in.arrivals.begin(), in.arrivals.end(), [&](const CommArrival& a) {
      return static_cast<int64_t>(a.rank) == r;
    });
    if (!there) out.push_back(&in);
  }
  return out;
}

// `without`: the instances the others entered without it; the last is where they were left
// (the one it never reached: its profile may lack earlier ones, those of the framework
// profiler's window it died in).
std::string Sentence(int64_t rank, const model::Process* p,
                     const std::vector<const CommInstance*>& without, bool none) {
  std::string s = "rank " + std::to_string(rank);
  if (!p) return s + " of the job's world is in no recording given";
  s += " (pid " + std::to_string(p->meta.pid) + ")";
  s += none ? " ran no collective the trace holds" : " stopped before the others";
  if (p->meta.end_state == "finalised")
    s += ": it died (killed or crashed: record closed its trace), and what its framework's "
         "profiler had not written went with it";
  if (without.empty()) return s;
  const CommInstance* last = without.back();
  s += "; the last collective the others entered without it: " + last->collective + " #" +
       std::to_string(last->seq) + (last->group.empty() ? "" : " of group " + last->group) +
       " (they were in it " +
       HumanDuration(static_cast<double>(last->last_exit - last->first_enter)) + ")";
  if (!none && without.size() > 1)
    s += "; its profile lacks the " + std::to_string(without.size() - 1) + " before it, from " +
         without.front()->collective + " #" + std::to_string(without.front()->seq) +
         " (unwritten when it died)";
  return s;
}

}  // namespace

void NoteMissingRanks(const model::TraceModel& m, CommView* v) {
  int64_t world = 0;
  for (const model::Process& p : m.processes) world = std::max(world, p.meta.world_size);
  std::map<int64_t, const model::Process*> of_rank = ProcessOfRank(m);
  std::map<int64_t, size_t> index;  // launcher rank -> v->ranks index
  for (size_t i = 0; i < v->ranks.size(); ++i)
    if (v->ranks[i].rank >= 0) index.emplace(v->ranks[i].rank, i);
  for (int64_t rank = 0; rank < world; ++rank) {
    auto p = of_rank.find(rank);
    const model::Process* proc = p == of_rank.end() ? nullptr : p->second;
    auto at = index.find(rank);
    if (at == index.end()) {
      auto all = Without(*v, -1);
      if (all.size() > 1) all.erase(all.begin(), all.end() - 1);
      v->missing.push_back(Sentence(rank, proc, all, true));
    } else if (proc && proc->meta.end_state == "finalised") {
      auto without = Without(*v, static_cast<int64_t>(at->second));
      if (!without.empty()) v->missing.push_back(Sentence(rank, proc, without, false));
    }
  }
  v->notes.insert(v->notes.end(), v->missing.begin(), v->missing.end());
}

}  // namespace tt::analysis
