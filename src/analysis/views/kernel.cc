// The kernel view: GPU kernels with their launch configuration and the op types (or APIs) that
// launched them.
#include "analysis/pass/op_names.h"
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

// Kernels of every device track by name, with who launched them.
std::map<std::string, Agg> KernelsByName(Aggregates& a) {
  std::map<std::string, Agg> kernels;
  for (auto& t : a.device) {
    const model::Process& proc = a.m->processes[a.m->tracks[t.track].process];
    for (auto& [id, g] : t.kernels.items()) kernels[std::string(proc.Name(id))].Merge(g);
    for (auto& [key, n] : t.kernel_by) {
      uint64_t tag = key.second;
      auto name = [&] { return std::string(proc.Name(static_cast<uint32_t>(tag))); };
      std::string by = tag == kTagNone ? "(unlinked)"
                       : tag & kTagApi ? "(" + name() + ")"
                                       : OpType(name());
      kernels[std::string(proc.Name(key.first))].by[by] += n;
    }
  }
  return kernels;
}

void Finish(Aggregates& a, Result* r) {
  std::map<std::string, Agg> kernels = KernelsByName(a);
  uint64_t total = 0;
  for (auto& [n, g] : kernels) total += g.self;
  for (auto& [n, g] : kernels) {
    Row row = MakeRow(n, g);
    row.accel_ns = g.self;
    row.cpu_ns = 0;
    row.text = {{"grid", g.grid}, {"block", g.block}, {"launched_by", TopBy(g.by, 3)}};
    row.numbers = {{"registers", static_cast<double>(g.registers)},
                   {"static_shared", static_cast<double>(g.shared_static)},
                   {"dynamic_shared", static_cast<double>(g.shared_dynamic)}};
    r->rows.push_back(std::move(row));
  }
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) r->notes.push_back("no GPU kernels in this trace");
}

}  // namespace

extern const ViewDef kKernelView = {
    .name = "kernel",
    .help =
        "GPU kernels: instances, times, share of GPU time, grid/block, registers, shared\n"
        "memory, and the op types that launched them",
    .fields = {{"grid", ColumnKind::kText},
               {"block", ColumnKind::kText},
               {"registers", ColumnKind::kCount},
               {"static_shared", ColumnKind::kCount},
               {"dynamic_shared", ColumnKind::kCount},
               {"launched_by", ColumnKind::kText}},
    .columns = {"name", "occurrence", "micros", "avg_micros", "median_micros", "min_micros",
                "max_micros", "stddev_micros", "share", "grid", "block", "registers",
                "static_shared", "dynamic_shared", "launched_by"},
    .needs = {.dev_samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
