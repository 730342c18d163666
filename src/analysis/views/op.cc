// The op view (tfprof's op view): framework ops and annotated ranges by op type.
#include "analysis/pass/op_names.h"
#include "analysis/views/op_rows.h"

namespace tt::analysis {

void FinishOpRows(Aggregates& a, Result* r, std::string (*key)(const std::string&)) {
  std::map<std::string, Agg> by;
  uint64_t total = 0;
  for (size_t p = 0; p < a.ops.size(); ++p)
    for (auto& [id, g] : a.ops[p]) {
      if (g.incl.count() == 0 && g.accel == 0 && g.bytes == 0) continue;
      std::string name(a.m->processes[p].Name(id));
      total += g.self;
      by[key(name)].Merge(g);
    }
  for (auto& [name, g] : by) r->rows.push_back(MakeRow(name, g));
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) r->notes.push_back("no framework ops or annotated ranges in this trace");
}

namespace {
void Finish(Aggregates& a, Result* r) { FinishOpRows(a, r, OpType); }
}  // namespace

extern const ViewDef kOpView =
    OpLikeView("op",
               "compute ops (and the program's annotated ranges) by op type (\"node:OpType\" ->\n"
               "OpType); the framework's runtime, compile and input ranges are in `runtime`",
               Finish);

}  // namespace tt::analysis
