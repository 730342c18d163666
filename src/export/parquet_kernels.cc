#include "export/parquet_kernels.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "analysis/pass/aggregate.h"
#include "export/parquet_slices.h"
#include "export/parquet_table.h"
#include "format/keys.h"
#include "model/scan.h"

namespace tt::exporter {

namespace {

using layout::Category;

const std::vector<ColumnDef> kKernelColumns = {
    {"pid", ColType::kInt},         {"device", ColType::kInt},
    {"stream", ColType::kInt},      {"kind", ColType::kText},
    {"meaning", ColType::kText},    {"name", ColType::kText},
    {"copy_kind", ColType::kText},  {"start_ns", ColType::kInt},
    {"end_ns", ColType::kInt},      {"dur_ns", ColType::kInt},
    {"bytes", ColType::kInt},       {"grid", ColType::kText},
    {"block", ColType::kText},      {"correlation_id", ColType::kInt},
    {"external_id", ColType::kInt}, {"launch", ColType::kText},
    {"launch_tid", ColType::kInt},  {"launch_start_ns", ColType::kInt},
    {"op", ColType::kText},         {"op_link", ColType::kText},
    {"step", ColType::kInt}};

bool IsDeviceWork(Category c) {
  return c == Category::kGpuKernel || c == Category::kMemcpy || c == Category::kMemset;
}

// One process's launches: correlation id -> index into `at` (thread and start of each).
struct Launches {
  analysis::IdIndex index;
  std::vector<std::pair<uint64_t, uint64_t>> at;  // (tid, start)
};

// Collects the launches (correlate.h's IsLaunch) of one host track.
struct LaunchVisitor {
  analysis::LinkKeys k;
  uint64_t tid;
  Launches* out;
  std::vector<std::pair<uint64_t, uint64_t>>* pairs;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s) {
    analysis::LinkIds ids = analysis::IdsOf(k, s.args);
    if (!analysis::IsLaunch(s, ids)) return;
    pairs->emplace_back(static_cast<uint64_t>(ids.corr), out->at.size());
    out->at.emplace_back(tid, s.start);
  }
};

Launches LaunchesOf(const model::TraceModel& m, const model::Process& p,
                    std::vector<Problem>* problems) {
  Launches l;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  LaunchVisitor v{analysis::LinkKeysOf(p), 0, &l, &pairs};
  for (size_t ti : p.tracks) {
    const model::Track& t = m.tracks[ti];
    if (t.kind == layout::TrackKind::kDevice) continue;
    v.tid = t.id;
    model::ScanTrack(m, t, problems, v);
  }
  l.index.Build(std::move(pairs));
  return l;
}

// The step whose window holds ts on process `process` (steps sorted by start).
std::optional<int64_t> StepAt(const std::vector<const model::Step*>& v, uint64_t ts) {
  auto it = std::upper_bound(v.begin(), v.end(), ts,
                             [](uint64_t t, const model::Step* s) { return t < s->start; });
  for (int n = 0; it != v.begin() && n < 4; ++n) {
    --it;
    if (ts < (*it)->end) return (*it)->number;
  }
  return std::nullopt;
}

uint32_t KeyOf(const model::Process& p, std::string_view key) {
  for (uint32_t i = 1; i < p.names.size(); ++i)
    if (p.names[i] == key) return i;
  return 0;
}

// Writes one device track's work.
class KernelVisitor {
 public:
  KernelVisitor(const model::Process& p, const model::Track& t, const analysis::LinkTables& links,
                const Launches& launches, const std::vector<const model::Step*>& steps,
                const std::vector<analysis::Window>* window, ParquetTable* out)
      : p_(p),
        t_(t),
        links_(links),
        launches_(launches),
        steps_(steps),
        window_(window),
        out_(out),
        k_(analysis::LinkKeysOf(p)) {
    for (auto [key, id] :
         {std::pair{keys::kBytes, &bytes_}, {"kind", &kind_}, {"grid", &grid_}, {"block", &block_}})
      *id = KeyOf(p, key);
  }
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s);

 private:
  void ArgCell(const model::Slice& s, uint32_t key, bool text);
  const model::Process& p_;
  const model::Track& t_;
  const analysis::LinkTables& links_;
  const Launches& launches_;
  const std::vector<const model::Step*>& steps_;
  const std::vector<analysis::Window>* window_;
  ParquetTable* out_;
  analysis::LinkKeys k_;
  uint32_t bytes_ = 0, kind_ = 0, grid_ = 0, block_ = 0;
};

// The argument `key` of s as text or integer; null where absent.
void KernelVisitor::ArgCell(const model::Slice& s, uint32_t key, bool text) {
  Arg a;
  if (!key || !s.args.count || !s.args.Find(key, &a)) {
    out_->Null();
  } else if (text) {
    a.type == layout::ArgType::kString ? out_->Text(p_.Name(a.v.str)) : out_->Null();
  } else {
    int64_t v = a.type == layout::ArgType::kUint  ? static_cast<int64_t>(a.v.u)
                : a.type == layout::ArgType::kInt ? a.v.i
                                                  : -1;
    v >= 0 ? out_->Int(v) : out_->Null();
  }
}

void KernelVisitor::OnSlice(const model::Slice& s) {
  if (!IsDeviceWork(s.category)) return;
  if (window_ && !analysis::InWindows(*window_, s.start)) return;
  analysis::LinkIds ids = analysis::IdsOf(k_, s.args);
  analysis::DeviceLink l = analysis::LinkDevice(links_, ids);
  ParquetTable& o = *out_;
  o.Int(p_.meta.pid)
      .Int(static_cast<int64_t>(t_.id >> 32))
      .Int(static_cast<int64_t>(t_.id & 0xffffffff));
  o.Text(s.category == Category::kGpuKernel ? "kernel"
         : s.category == Category::kMemcpy  ? "memcpy"
                                            : "memset");
  o.Text(model::MeaningName(p_.MeaningOf(s.category, s.name))).Text(p_.Name(s.name));
  s.category == Category::kGpuKernel ? o.Null() : (ArgCell(s, kind_, true), o);
  o.Int(static_cast<int64_t>(s.start)).Int(static_cast<int64_t>(s.end));
  o.Int(static_cast<int64_t>(s.Duration()));
  ArgCell(s, bytes_, false);
  ArgCell(s, grid_, true);
  ArgCell(s, block_, true);
  ids.corr >= 0 ? o.Int(ids.corr) : o.Null();
  ids.ext >= 0 ? o.Int(ids.ext) : o.Null();
  uint64_t li = ids.corr >= 0 ? launches_.index.Find(static_cast<uint64_t>(ids.corr))
                              : analysis::IdIndex::kMissing;
  l.launched ? o.Text(p_.Name(l.api)) : o.Null();
  bool at = l.launched && li != analysis::IdIndex::kMissing;
  at ? o.Int(static_cast<int64_t>(launches_.at[li].first)) : o.Null();
  at ? o.Int(static_cast<int64_t>(launches_.at[li].second)) : o.Null();
  l.op ? o.Text(p_.Name(l.op)) : o.Null();
  l.op_method == analysis::LinkMethod::kExternalId ? o.Text("external_id")
  : l.op_method == analysis::LinkMethod::kNesting  ? o.Text("launch_in_op")
                                                   : o.Null();
  std::optional<int64_t> step = StepAt(steps_, at ? launches_.at[li].second : s.start);
  step ? o.Int(*step) : o.Null();
  o.EndRow();
}

}  // namespace

uint64_t WriteKernelTable(const model::TraceModel& m, const Selection& sel,
                          const std::vector<model::Step>& steps, const std::string& root,
                          std::vector<Problem>* problems) {
  auto dev = [&](size_t ti) { return m.tracks[ti].kind == layout::TrackKind::kDevice; };
  auto is_dev = [](const model::Track& t) { return t.kind == layout::TrackKind::kDevice; };
  if (std::none_of(m.tracks.begin(), m.tracks.end(), is_dev)) return 0;  // no device ran
  analysis::Needs needs;
  needs.links = true;
  analysis::Selection as;
  as.step_names = sel.step_names;
  std::vector<Problem> again;  // the same damage, met again by this table's scans
  analysis::Aggregates a = analysis::Aggregate(m, needs, as, &steps, &again);
  analysis::Windows windows;
  if (sel.steps || sel.skip_warmup)
    windows = analysis::SelectWindows(m, steps, sel.steps, sel.skip_warmup);
  std::vector<std::vector<const model::Step*>> by(m.processes.size());
  for (const model::Step& s : steps) by[s.process].push_back(&s);
  uint64_t rows = 0;
  for (size_t pi = 0; pi < m.processes.size(); ++pi) {
    const model::Process& p = m.processes[pi];
    if (std::none_of(p.tracks.begin(), p.tracks.end(), dev)) continue;
    std::sort(by[pi].begin(), by[pi].end(), [](auto* x, auto* y) { return x->start < y->start; });
    Launches launches = LaunchesOf(m, p, &again);
    std::string part = std::to_string(p.meta.pid) + "-" + std::to_string(pi);
    ParquetTable out(PartPath(root, "kernels", p.meta.rank, part), "kernels", kKernelColumns);
    const std::vector<analysis::Window>* w = windows.empty() ? nullptr : &windows[pi];
    for (size_t ti : p.tracks) {
      if (!dev(ti)) continue;
      KernelVisitor v(p, m.tracks[ti], a.link_tables[pi], launches, by[pi], w, &out);
      model::ScanTrack(m, m.tracks[ti], &again, v);
    }
    rows += out.rows();
    out.Close();
  }
  (void)problems;
  return rows;
}

}  // namespace tt::exporter
