// The primitive view: oneDNN primitives (or any ITT task) and the op types that ran them.
#include "analysis/op_names.h"
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

void Finish(Aggregates& a, Result* r) {
  std::map<std::string, Agg> by;
  uint64_t total = 0;
  for (auto& t : a.host) {
    const model::Process& proc = a.m->processes[a.m->tracks[t.track].process];
    if (t.prims_in_op) r->links[kLinkPrimitiveNesting] += t.prims_in_op;
    for (auto& [key, g] : t.prims) {
      total += g.self;
      std::string op = key.second ? OpType(std::string(proc.Name(key.second))) : "(no op)";
      Agg& dst = by[std::string(proc.Name(key.first))];
      dst.by[op] += g.incl.count();
      dst.Merge(g);
    }
  }
  for (auto& [n, g] : by) {
    Row row = MakeRow(n, g);
    row.text = {{"ops", TopBy(g.by, 5)}};
    r->rows.push_back(std::move(row));
  }
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) r->notes.push_back("no oneDNN primitives in this trace");
}

}  // namespace

extern const ViewDef kPrimitiveView = {
    .name = "primitive",
    .help = "oneDNN primitives and the ops that ran them",
    .fields = {{"ops", ColumnKind::kText}},
    .columns = {"name", "occurrence", "micros", "self_micros", "avg_micros", "median_micros",
                "min_micros", "max_micros", "share", "ops"},
    .needs = {.prim_samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
