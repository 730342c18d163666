// The primitive view: oneDNN primitives (or any ITT task of a oneDNN domain) and the op types
// that ran them. An execution is counted once: the pool threads' tasks of the same execution
// are its `pool_tasks` (primitives.h says how they are told apart).
#include "analysis/pass/op_names.h"
#include "analysis/pass/primitives.h"
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

// What the ITT domain says the tasks are: oneDNN names its one domain
// "dnnl::primitive::execute"; a domain naming creation marks creation.
std::string Phase(const std::set<std::string>& domains) {
  std::set<std::string> phases;
  for (const auto& d : domains)
    phases.insert(d.find("execute") != std::string::npos  ? "execute"
                  : d.find("create") != std::string::npos ? "create"
                                                          : d);
  std::string out;
  for (const auto& p : phases) out += (out.empty() ? "" : ",") + p;
  return out.empty() ? "(domain not recorded)" : out;
}

struct Pool {
  uint64_t tasks = 0, ns = 0;
};

void Finish(Aggregates& a, Result* r) {
  std::map<std::string, Agg> by;
  std::map<std::string, Pool> pool;
  std::map<std::string, std::set<std::string>> domains;
  uint64_t total = 0, executions = 0, linked = 0;
  for (auto& t : a.host) {
    const model::Process& proc = a.m->processes[a.m->tracks[t.track].process];
    if (t.prims_in_op) r->links[kLinkPrimitiveNesting] += t.prims_in_op;
    if (t.pool_linked) r->links[kLinkPrimitivePool] += t.pool_linked;
    linked += t.prims_in_op;
    for (auto& [key, g] : t.prims) {
      total += g.self;
      executions += g.incl.count();
      std::string op = key.second ? OpType(std::string(proc.Name(key.second))) : "(no op)";
      Agg& dst = by[std::string(proc.Name(key.first))];
      dst.by[op] += g.incl.count();
      dst.Merge(g);
    }
    for (auto& [key, p] : t.prim_pool) {
      Pool& dst = pool[std::string(proc.Name(key.first))];
      dst.tasks += p.first;
      dst.ns += p.second;
    }
    for (auto& [name, ids] : t.prim_domains)
      for (uint32_t id : ids)
        domains[std::string(proc.Name(name))].insert(std::string(proc.Name(id)));
  }
  for (auto& [n, g] : by) {
    Row row = MakeRow(n, g);
    row.text = {{"ops", TopBy(g.by, 5)}, {"phase", Phase(domains[n])}};
    row.numbers = {{"pool_tasks", static_cast<double>(pool[n].tasks)},
                   {"pool_micros", static_cast<double>(pool[n].ns) / 1e3}};
    r->rows.push_back(std::move(row));
  }
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) {
    r->notes.push_back("no oneDNN primitives in this trace");
    return;
  }
  uint64_t tasks = 0;
  for (const auto& [n, p] : pool) tasks += p.tasks;
  r->notes.push_back(std::to_string(linked) + " of " + std::to_string(executions) +
                     " primitive executions linked to their op; " + std::to_string(tasks) +
                     " pool-thread tasks counted in their executions, not as executions");
}

}  // namespace

extern const ViewDef kPrimitiveView = {
    .name = "primitive",
    .help =
        "oneDNN primitive executions (each once, its pool threads' tasks folded in) and the "
        "ops that ran them",
    .fields = {{"ops", ColumnKind::kText},
               {"phase", ColumnKind::kText},
               {"pool_tasks", ColumnKind::kCount},
               {"pool_micros", ColumnKind::kMicros}},
    .columns = {"name", "occurrence", "micros", "self_micros", "avg_micros", "median_micros",
                "min_micros", "max_micros", "share", "pool_tasks", "phase", "ops"},
    .needs = {.prim_samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
