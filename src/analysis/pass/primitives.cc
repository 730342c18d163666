#include "analysis/pass/primitives.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/pass/pass_context.h"

namespace tt::analysis {

namespace {

// Threads' clocks may disagree by a little (a virtual machine's CPUs' TSCs differ by up to a few
// hundred ns): a pool share of a short primitive can seem to start just after its execution
// ended. A share may start this long after its execution's recorded end.
constexpr uint64_t kSkewNs = 1000;

// One task while a process's tasks are resolved.
struct Task {
  PrimSpan* s;
  TrackAgg* a;
  uint64_t tid;
};

// An execution that may still have pool shares starting.
struct Running {
  uint64_t end, tid;
  uint32_t op;
  TrackAgg* a;
};

void AddExecution(const PassContext& c, const Task& t) {
  const PrimSpan& s = *t.s;
  auto [it, fresh] = t.a->prims.try_emplace({s.name, s.op});
  if (fresh) it->second.incl.KeepSamples(c.needs.prim_samples);
  Agg& g = it->second;
  g.incl.Add(s.end - s.start);
  g.self += s.self;
  g.cpu += s.end - s.start;
  if (s.op) t.a->prims_in_op++;
}

// One process's tasks, in start order (an execution starts before its pool shares).
void ResolveProcess(const PassContext& c, std::vector<Task>& tasks) {
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& x, const Task& y) { return x.s->start < y.s->start; });
  std::unordered_map<uint32_t, std::vector<Running>> running;  // by primitive name
  for (const Task& t : tasks) {
    const PrimSpan& s = *t.s;
    if (s.domain) t.a->prim_domains[s.name].insert(s.domain);
    std::vector<Running>& r = running[s.name];
    std::erase_if(r, [&](const Running& e) { return e.end + kSkewNs < s.start; });
    auto owner = std::find_if(r.begin(), r.end(), [&](const Running& e) { return e.tid != t.tid; });
    if (!s.op && owner != r.end()) {
      auto& pool = owner->a->prim_pool[{s.name, owner->op}];
      pool.first++;
      pool.second += s.end - s.start;
      owner->a->pool_tasks++;
      if (owner->op) owner->a->pool_linked++;
      continue;
    }
    AddExecution(c, t);
    r.push_back({s.end, t.tid, s.op, t.a});
  }
}

}  // namespace

void ResolvePrimitives(const PassContext& c,
                       const std::map<std::pair<size_t, uint64_t>, ThreadOps>& threads,
                       std::vector<TrackAgg>* hagg) {
  std::vector<std::vector<Task>> by_process(c.m.processes.size());
  for (auto& a : *hagg) {
    if (a.prim_spans.empty()) continue;
    const model::Track& t = c.m.tracks[a.track];
    auto it = threads.find({t.process, t.id});
    for (PrimSpan& s : a.prim_spans) {
      if (!s.op && it != threads.end()) s.op = it->second.Innermost(s.start, s.end);
      by_process[t.process].push_back({&s, &a, t.id});
    }
  }
  for (auto& tasks : by_process) ResolveProcess(c, tasks);
  for (auto& a : *hagg) std::vector<PrimSpan>().swap(a.prim_spans);
}

}  // namespace tt::analysis
