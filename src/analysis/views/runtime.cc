// The runtime view: what the framework spent around the ops, by name and kind: its runtime
// (dispatch, executor, eager machinery, thread-pool regions), eager ops' dispatch, tracing and
// compilation, the input pipeline, and communication ops (model/meaning.h). None of these is an op of the op view; a
// runtime range nested in an op also counts there as that op's own time.
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

void Finish(Aggregates& a, Result* r) {
  std::map<std::string, Agg> by;
  uint64_t total = 0;
  for (auto& t : a.host)
    for (auto& [id, g] : t.runtime.items()) {
      total += g.self;
      by[std::string(a.m->processes[a.m->tracks[t.track].process].Name(id))].Merge(g);
    }
  for (auto& [n, g] : by) {
    Row row = MakeRow(n, g);
    row.text = {{"kind", model::MeaningName(g.meaning)}};
    r->rows.push_back(std::move(row));
  }
  SetShares(&r->rows, total, r);
  if (r->rows.empty())
    r->notes.push_back("no framework runtime, compilation, input or communication ranges");
}

}  // namespace

extern const ViewDef kRuntimeView = {
    .name = "runtime",
    .help = "the framework's own work around the ops, by name: runtime (dispatch, executor,\n"
            "thread pools), eager (an eager op's dispatch), compile (tracing, XLA/JAX), input\n"
            "(tf.data), communication",
    .fields = {{"kind", ColumnKind::kText}},
    .columns = {"name", "kind", "occurrence", "micros", "self_micros", "avg_micros",
                "median_micros", "min_micros", "max_micros", "share"},
    .needs = {.runtime_samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
