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

// One process's launches: correlation id -> the launch's track and start, all that a row
// needs beside the aggregation's link (its API and op). Sized exactly by a counting scan
// first: 12 bytes a launch where the ids are dense (a counter's), 24 where sparse (sorted,
// the later of two launches of one id wins, as in analysis::IdIndex).
class Launches {
 public:
  static constexpr uint64_t kNone = UINT64_MAX;
  Launches(const model::TraceModel& m, const model::Process& p, std::vector<Problem>* problems);
  // The launch of `corr`: (tid, start); found false where none was recorded.
  bool Find(int64_t corr, uint64_t* tid, uint64_t* start) const;

 private:
  struct Sparse {
    uint64_t corr, start;
    uint32_t track;
  };
  template <class F>
  void Scan(const model::TraceModel& m, std::vector<Problem>* problems, F on_launch);
  const model::Process& p_;
  uint64_t base_ = 0;
  std::vector<uint64_t> start_;  // dense: by corr - base_, kNone where none
  std::vector<uint32_t> track_;  // dense: the index into p_.tracks
  std::vector<Sparse> sparse_;
  std::vector<uint64_t> tids_;  // of each of p_.tracks
};

// Calls on_launch(corr, track index, start) for each launch (correlate.h's IsLaunch) of the
// process's host tracks.
template <class F>
void Launches::Scan(const model::TraceModel& m, std::vector<Problem>* problems, F on_launch) {
  struct Visitor {
    analysis::LinkKeys k;
    uint32_t track;
    F* f;
    void OnBegin(const model::Slice&) {}
    void OnPoint(const model::Point&) {}
    void OnSlice(const model::Slice& s) {
      if (s.category != Category::kRuntimeApi) return;
      analysis::LinkIds ids = analysis::IdsOf(k, s.args);
      if (analysis::IsLaunch(s, ids)) (*f)(static_cast<uint64_t>(ids.corr), track, s.start);
    }
  } v{analysis::LinkKeysOf(p_), 0, &on_launch};
  if (!v.k.correlation) return;  // no correlation ids in this process
  for (uint32_t i = 0; i < p_.tracks.size(); ++i) {
    const model::Track& t = m.tracks[p_.tracks[i]];
    if (t.kind == layout::TrackKind::kDevice) continue;
    v.track = i;
    model::ScanTrack(m, t, problems, v);
  }
}

Launches::Launches(const model::TraceModel& m, const model::Process& p,
                   std::vector<Problem>* problems)
    : p_(p) {
  for (size_t ti : p.tracks) tids_.push_back(m.tracks[ti].id);
  uint64_t lo = UINT64_MAX, hi = 0, n = 0;
  Scan(m, problems, [&](uint64_t corr, uint32_t, uint64_t) {
    lo = std::min(lo, corr);
    hi = std::max(hi, corr);
    ++n;
  });
  if (!n) return;
  if (hi - lo < 4 * n + 1024) {  // dense, as analysis::IdIndex decides
    base_ = lo;
    start_.assign(hi - lo + 1, kNone);
    track_.assign(hi - lo + 1, 0);
    Scan(m, nullptr, [&](uint64_t corr, uint32_t track, uint64_t start) {
      start_[corr - lo] = start;
      track_[corr - lo] = track;
    });
    return;
  }
  sparse_.reserve(n);
  Scan(m, nullptr, [&](uint64_t corr, uint32_t track, uint64_t start) {
    sparse_.push_back({corr, start, track});
  });
  std::stable_sort(sparse_.begin(), sparse_.end(),
                   [](const Sparse& a, const Sparse& b) { return a.corr < b.corr; });
}

bool Launches::Find(int64_t corr, uint64_t* tid, uint64_t* start) const {
  if (corr < 0) return false;
  uint64_t id = static_cast<uint64_t>(corr), track = 0;
  if (!start_.empty()) {
    if (id < base_ || id - base_ >= start_.size() || start_[id - base_] == kNone) return false;
    *start = start_[id - base_];
    track = track_[id - base_];
  } else {
    auto it = std::upper_bound(sparse_.begin(), sparse_.end(), id,
                               [](uint64_t x, const Sparse& s) { return x < s.corr; });
    if (it == sparse_.begin() || std::prev(it)->corr != id) return false;
    *start = std::prev(it)->start;
    track = std::prev(it)->track;
  }
  *tid = tids_[track];
  return true;
}

// The number of the step of `steps` (one process's, sorted by start) whose window holds ts.
std::optional<int64_t> StepAt(const std::vector<StepSpan>& v, uint64_t ts) {
  auto it = std::upper_bound(v.begin(), v.end(), ts,
                             [](uint64_t t, const StepSpan& s) { return t < s.start; });
  for (int n = 0; it != v.begin() && n < 4; ++n) {
    --it;
    if (ts < it->end) return it->number;
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
                const Launches& launches, const std::vector<StepSpan>& steps,
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
  const std::vector<StepSpan>& steps_;
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
  uint64_t tid = 0, start = 0;
  l.launched ? o.Text(p_.Name(l.api)) : o.Null();
  bool at = l.launched && launches_.Find(ids.corr, &tid, &start);
  at ? o.Int(static_cast<int64_t>(tid)) : o.Null();
  at ? o.Int(static_cast<int64_t>(start)) : o.Null();
  l.op ? o.Text(p_.Name(l.op)) : o.Null();
  l.op_method == analysis::LinkMethod::kExternalId ? o.Text("external_id")
  : l.op_method == analysis::LinkMethod::kNesting  ? o.Text("launch_in_op")
                                                   : o.Null();
  std::optional<int64_t> step = StepAt(steps_, at ? start : s.start);
  step ? o.Int(*step) : o.Null();
  o.EndRow();
}

}  // namespace

KernelSteps KernelStepsOf(const model::TraceModel& m, const Selection& sel,
                          const std::vector<model::Step>& steps) {
  KernelSteps k;
  k.spans.resize(m.processes.size());
  for (const model::Step& s : steps) k.spans[s.process].push_back({s.start, s.end, s.number});
  for (auto& v : k.spans) {
    v.shrink_to_fit();
    std::stable_sort(v.begin(), v.end(),
                     [](const StepSpan& x, const StepSpan& y) { return x.start < y.start; });
  }
  if (sel.steps || sel.skip_warmup)
    k.windows = analysis::SelectWindows(m, steps, sel.steps, sel.skip_warmup);
  return k;
}

uint64_t WriteKernelTable(const model::TraceModel& m, const KernelSteps& steps,
                          const std::string& root, const std::vector<std::string>& step_names) {
  auto dev = [&](size_t ti) { return m.tracks[ti].kind == layout::TrackKind::kDevice; };
  auto is_dev = [](const model::Track& t) { return t.kind == layout::TrackKind::kDevice; };
  if (std::none_of(m.tracks.begin(), m.tracks.end(), is_dev)) return 0;  // no device ran
  analysis::Needs needs;
  needs.links = true;
  analysis::Selection as;
  as.step_names = step_names;
  std::vector<Problem> again;  // the same damage, met again by this table's scans
  analysis::Aggregates a = analysis::Aggregate(m, needs, as, nullptr, &again);
  uint64_t rows = 0;
  for (size_t pi = 0; pi < m.processes.size(); ++pi) {
    const model::Process& p = m.processes[pi];
    if (std::none_of(p.tracks.begin(), p.tracks.end(), dev)) continue;
    Launches launches(m, p, &again);
    std::string part = std::to_string(p.meta.pid) + "-" + std::to_string(pi);
    ParquetTable out(PartPath(root, "kernels", p.meta.rank, part), "kernels", kKernelColumns);
    const std::vector<analysis::Window>* w = steps.windows.empty() ? nullptr : &steps.windows[pi];
    for (size_t ti : p.tracks) {
      if (!dev(ti)) continue;
      KernelVisitor v(p, m.tracks[ti], a.link_tables[pi], launches, steps.spans[pi], w, &out);
      model::ScanTrack(m, m.tracks[ti], &again, v);
    }
    rows += out.rows();
    out.Close();
  }
  return rows;
}

}  // namespace tt::exporter
