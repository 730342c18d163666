// The memcpy view: device copies by kind, and sets, with bytes and achieved bandwidth.
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

void Finish(Aggregates& a, Result* r) {
  std::map<std::string, Agg> by;
  uint64_t total = 0;
  for (auto& t : a.device)
    for (auto& [kind, g] : t.copies) by[kind].Merge(g);
  for (auto& [n, g] : by) total += g.incl.total();
  for (auto& [n, g] : by) {
    Row row = MakeRow(n, g);
    row.self_ns = row.incl.total();
    row.accel_ns = row.incl.total();
    row.cpu_ns = 0;
    row.bytes = static_cast<int64_t>(g.payload);
    double secs = static_cast<double>(row.incl.total()) / 1e9;
    row.numbers = {{"bandwidth_gbps", secs > 0 ? static_cast<double>(g.payload) / secs / 1e9 : 0}};
    r->rows.push_back(std::move(row));
  }
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) r->notes.push_back("no memory copies or sets in this trace");
}

}  // namespace

extern const ViewDef kMemcpyView = {
    .name = "memcpy",
    .help = "copies by kind, and sets, with bytes and achieved bandwidth",
    .fields = {{"bandwidth_gbps", ColumnKind::kNumber}},
    .columns = {"name", "occurrence", "bytes", "micros", "avg_micros", "bandwidth_gbps", "share"},
    .needs = {.dev_samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
