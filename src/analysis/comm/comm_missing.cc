#include "analysis/comm/comm_missing.h"

#include <algorithm>
#include <map>
#include <set>

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

// The first instance (by first entry) that the rank at v.ranks[r] did not enter though its
// group expected more ranks than entered; r < 0 (a rank with no collective at all, whose
// profile may be lost whole): the last such instance, where the others were left waiting.
const CommInstance* FirstWithout(const CommView& v, int64_t r) {
  if (r < 0) {
    for (auto in = v.instances.rbegin(); in != v.instances.rend(); ++in)
      if (static_cast<int64_t>(in->arrivals.size()) < in->nranks) return &*in;
    return nullptr;
  }
  for (const CommInstance& in : v.instances) {
    if (static_cast<int64_t>(in.arrivals.size()) >= in.nranks) continue;
    bool there = std::any_of(in.arrivals.begin(), in.arrivals.end(), [&](const CommArrival& a) {
      return static_cast<int64_t>(a.rank) == r;
    });
    if (!there) return &in;
  }
  return nullptr;
}

std::string Sentence(int64_t rank, const model::Process* p, const CommInstance* first, bool none) {
  std::string s = "rank " + std::to_string(rank);
  if (!p) return s + " of the job's world is in no recording given";
  s += " (pid " + std::to_string(p->meta.pid) + ")";
  s += none ? " ran no collective the trace holds" : " stopped before the others";
  if (p->meta.end_state == "finalised")
    s += ": it died (killed or crashed: record closed its trace), and what its framework's "
         "profiler had not written went with it";
  if (!first) return s;
  s += none ? "; the last collective the others entered without it: "
            : "; the first collective the others ran without it: ";
  s += first->collective + " #" + std::to_string(first->seq) +
       (first->group.empty() ? "" : " of group " + first->group) + " (they were in it " +
       HumanDuration(static_cast<double>(first->last_exit - first->first_enter)) + ")";
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
      v->missing.push_back(Sentence(rank, proc, FirstWithout(*v, -1), true));
    } else if (proc && proc->meta.end_state == "finalised") {
      const CommInstance* first = FirstWithout(*v, static_cast<int64_t>(at->second));
      if (first) v->missing.push_back(Sentence(rank, proc, first, false));
    }
  }
  v->notes.insert(v->notes.end(), v->missing.begin(), v->missing.end());
}

}  // namespace tt::analysis
