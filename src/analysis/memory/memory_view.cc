#include "analysis/memory/memory_view.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "analysis/pass/allocations.h"
#include "core/parallel.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

constexpr int kBins = 21;  // BFC's 21 bins: 256 B << 0..20

int BinOf(int64_t bytes) {
  int i = 0;
  while (i + 1 < kBins && bytes >= (int64_t{256} << (i + 1))) ++i;
  return i;
}

// One allocator of one process while its events are replayed.
struct State {
  int64_t cur = 0, peak = 0;
  uint64_t changes = 0, peak_change = 0;  // ordinal of the change that first reached the peak
  const MemoryDetail* peak_detail = nullptr;
  std::unordered_map<uint32_t, MemoryOpRow> ops;  // by op name id (0: none)
  std::unordered_map<uint32_t, int64_t> op_in_use;
  MemoryBin bins[kBins];
  AllocatorReport report;
  std::unordered_map<const MemoryEvent*, bool> live;  // allocations not yet freed
};

class ProcessReplay {
 public:
  ProcessReplay(const model::TraceModel& m, size_t p, const MemoryScans& scans,
                const std::vector<int>& scan_of_track)
      : proc_(m.processes[p]), scans_(scans), scan_of_track_(scan_of_track) {}

  // The first replay: peaks, ops, bins, the allocator's own numbers, what was never freed.
  void Totals(std::vector<MemoryEvent>* ev) {
    std::map<uint32_t, uint64_t> unmatched;
    ReplayProcess(
        ev, [&](const MemoryChange& c) { Total(c); }, &unmatched);
  }
  // The second replay: what each allocator held when it first reached its peak.
  void LiveAtPeak(std::vector<MemoryEvent>* ev) {
    for (auto& [id, s] : states_) s.changes = 0, s.live.clear();
    std::map<uint32_t, uint64_t> unmatched;
    ReplayProcess(
        ev,
        [&](const MemoryChange& c) {
          State& s = StateOf(c.allocator);
          if (s.changes++ >= s.peak_change) return;
          if (c.event->is_free)
            s.live.erase(c.allocation);
          else
            s.live[c.allocation] = true;
        },
        &unmatched);
  }
  void Finish(AllocatorView* v);
  // By the allocator's name, as the fold keys them (one text may have several ids).
  std::map<std::string, State> states_;

 private:
  State& StateOf(uint32_t allocator) {
    auto [it, fresh] = by_id_.try_emplace(allocator, nullptr);
    if (fresh) it->second = &states_[allocator ? std::string(proc_.Name(allocator)) : "default"];
    return *it->second;
  }
  const MemoryDetail* DetailOf(const MemoryEvent& e) const {
    if (!e.detail) return nullptr;
    const auto& t = scans_.tracks[static_cast<size_t>(scan_of_track_[e.track])];
    return &t.details[e.detail - 1];
  }
  std::string OpOf(const MemoryEvent* e) const {
    return e && e->op ? std::string(proc_.Name(e->op)) : "(no op)";
  }
  void Total(const MemoryChange& c) {
    State& s = StateOf(c.allocator);
    s.changes++;
    s.cur = SatAdd(s.cur, c.delta);
    const MemoryDetail* d = DetailOf(*c.event);
    if (s.cur > s.peak) {
      s.peak = s.cur;
      s.peak_change = s.changes;
      s.peak_detail = d;
    }
    if (d) Report(*c.event, *d, &s.report);
    uint32_t op = c.allocation ? c.allocation->op : 0;
    if (!c.event->is_free) {
      MemoryOpRow& r = s.ops[op];
      r.allocations++;
      r.bytes = SatAdd(r.bytes, c.delta);
      int64_t& use = s.op_in_use[op];
      use = SatAdd(use, c.delta);
      r.peak = std::max(r.peak, use);
      MemoryBin& b = s.bins[BinOf(c.delta)];
      b.allocations++;
      b.bytes = SatAdd(b.bytes, c.delta);
      s.live[c.allocation] = true;
    } else if (c.allocation) {
      int64_t& use = s.op_in_use[op];
      use = SatAdd(use, c.delta);
      s.live.erase(c.allocation);
    }
  }
  static void Report(const MemoryEvent& e, const MemoryDetail& d, AllocatorReport* r) {
    if (d.allocator_peak >= 0 || d.reserved >= 0 || d.fragmentation >= 0) r->reported = true;
    r->peak = std::max(r->peak, d.allocator_peak);
    r->reserved_max = std::max(r->reserved_max, d.reserved);
    r->fragmentation_max = std::max(r->fragmentation_max, d.fragmentation);
    if (!e.is_free && d.requested >= 0 && e.bytes > 0) {
      r->requested = SatAdd(r->requested, d.requested);
      r->allocated = SatAdd(r->allocated, e.bytes);
    }
  }
  void AddLive(const MemoryEvent& e, std::map<std::string, MemoryLive>* by,
               std::map<std::pair<std::string, std::vector<std::string>>, MemoryTensor>* tensors,
               MemoryBin* bins) const {
    std::string op = OpOf(&e);
    MemoryLive& l = (*by)[op];
    l.op = op;
    l.allocations++;
    l.bytes = SatAdd(l.bytes, e.bytes);
    MemoryBin& b = bins[BinOf(e.bytes)];
    b.live_at_peak++;
    b.live_bytes_at_peak = SatAdd(b.live_bytes_at_peak, e.bytes);
    MemoryTensor t;
    if (const MemoryDetail* d = DetailOf(e)) {
      if (d->dtype > 0) t.dtype = TfDataTypeName(d->dtype);  // 0: DT_INVALID, not a tensor
      if (d->shape) t.shape = proc_.Name(d->shape);
      if (d->region) t.region = proc_.Name(d->region);
      if (d->op_inputs.dims)
        t.op_inputs = OpInputsText(proc_.Name(d->op_inputs.dims),
                                   d->op_inputs.types ? proc_.Name(d->op_inputs.types) : "");
    }
    MemoryTensor& g = (*tensors)[{op, {t.dtype, t.shape, t.region, t.op_inputs}}];
    if (!g.count) g = t;
    g.count++;
    g.bytes = SatAdd(g.bytes, e.bytes);
  }

  const model::Process& proc_;
  std::unordered_map<uint32_t, State*> by_id_;
  const MemoryScans& scans_;
  const std::vector<int>& scan_of_track_;
};

template <typename T>
void BiggestFirst(std::vector<T>* v) {
  std::stable_sort(v->begin(), v->end(), [](const T& a, const T& b) { return a.bytes > b.bytes; });
}

void ProcessReplay::Finish(AllocatorView* v) {
  auto it = states_.find(v->memory.allocator);
  if (it == states_.end()) return;
  State& s = it->second;
  std::map<std::string, MemoryLive> by;
  std::map<std::pair<std::string, std::vector<std::string>>, MemoryTensor> tensors;
  for (const auto& [e, yes] : s.live) AddLive(*e, &by, &tensors, s.bins);
  for (auto& [key, t] : tensors) by[key.first].tensors.push_back(t);
  for (auto& [op, l] : by) {
    BiggestFirst(&l.tensors);
    if (l.tensors.size() > 5) l.tensors.resize(5);
    v->live.push_back(std::move(l));
  }
  BiggestFirst(&v->live);
  for (auto& [op, r] : s.ops) {
    r.op = op ? std::string(proc_.Name(op)) : "(no op)";
    v->ops.push_back(r);
  }
  std::stable_sort(v->ops.begin(), v->ops.end(), [](const MemoryOpRow& a, const MemoryOpRow& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.op < b.op;
  });
  for (int i = 0; i < kBins; ++i) {
    s.bins[i].index = i;
    s.bins[i].min_bytes = int64_t{256} << i;
    if (s.bins[i].allocations) v->bins.push_back(s.bins[i]);
  }
  v->report = s.report;
  if (s.peak_detail) v->report.fragmentation_at_peak = s.peak_detail->fragmentation;
}

// What was never freed, by op: the first replay's live allocations at its end.
void Residuals(const std::map<std::string, State>& states, const model::Process& proc,
               AllocatorView* v) {
  auto it = states.find(v->memory.allocator);
  if (it == states.end()) return;
  std::map<std::string, std::pair<uint64_t, int64_t>> by;
  for (const auto& [e, yes] : it->second.live) {
    auto& r = by[e->op ? std::string(proc.Name(e->op)) : "(no op)"];
    r.first++;
    r.second = SatAdd(r.second, e->bytes);
    v->residual_allocations++;
    v->residual = SatAdd(v->residual, e->bytes);
  }
  for (auto& row : v->ops) {
    auto r = by.find(row.op);
    if (r == by.end()) continue;
    row.residual_allocations = r->second.first;
    row.residual = r->second.second;
  }
}

}  // namespace

namespace {

// The elements of a JSON array's text, each as its text ("[1, 2]", "\"float\""), at depth 1.
std::vector<std::string_view> Elements(std::string_view a) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quoted = false;
  size_t from = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '[' && ++depth == 1) {
      from = i + 1;
    } else if ((c == ',' && depth == 1) || (c == ']' && depth-- == 1)) {
      std::string_view e = a.substr(from, i - from);
      while (!e.empty() && e.front() == ' ') e.remove_prefix(1);
      if (!e.empty() || c == ',') out.push_back(e);
      from = i + 1;
    }
  }
  return out;
}

}  // namespace

std::string OpInputsText(std::string_view dims, std::string_view types) {
  std::vector<std::string_view> d = Elements(dims), t = Elements(types);
  std::string out;
  for (size_t i = 0; i < d.size(); ++i) {
    std::string shape;
    for (std::string_view n : Elements(d[i])) shape += (shape.empty() ? "" : ",") + std::string(n);
    if (shape.empty()) continue;  // a scalar or no tensor
    std::string_view type = i < t.size() ? t[i] : "";
    if (type.size() >= 2 && type.front() == '"') type = type.substr(1, type.size() - 2);
    out += (out.empty() ? "" : ", ") + std::string(type) + "[" + shape + "]";
  }
  return out;
}

std::string TfDataTypeName(int32_t dtype) {
  // tensorflow/core/framework/types.proto, DataType.
  static const char* const kNames[] = {
      "invalid",   "float32", "float64",    "int32",   "uint8",    "int16",   "int8",     "string",
      "complex64", "int64",   "bool",       "qint8",   "quint8",   "qint32",  "bfloat16", "qint16",
      "quint16",   "uint16",  "complex128", "float16", "resource", "variant", "uint32",   "uint64"};
  if (dtype >= 0 && dtype < static_cast<int32_t>(std::size(kNames))) return kNames[dtype];
  return "dtype " + std::to_string(dtype);
}

MemoryView ComputeMemoryView(const model::TraceModel& m, size_t max_points, unsigned threads,
                             std::vector<Problem>* problems) {
  MemoryScans scans(m, true);
  std::vector<std::vector<Problem>> probs(scans.tracks.size());
  ParallelFor(scans.tracks.size(), DefaultThreads(threads), [&](size_t i) {
    model::ScanTrack(m, m.tracks[scans.tracks[i].track()], &probs[i], scans.tracks[i]);
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  MemoryResult r = scans.Fold(max_points);
  std::vector<int> scan_of_track(m.tracks.size(), -1);
  for (size_t i = 0; i < scans.tracks.size(); ++i)
    scan_of_track[scans.tracks[i].track()] = static_cast<int>(i);
  MemoryView v;
  v.first = r.first;
  v.last = r.last;
  v.events = r.events;
  for (auto& a : r.allocators) {
    AllocatorView av;
    av.pid = m.processes[a.process].meta.pid;
    av.rank = m.processes[a.process].meta.rank;
    av.memory = std::move(a);
    v.allocators.push_back(std::move(av));
  }
  for (size_t p = 0; p < scans.kept.size(); ++p) {
    if (scans.kept[p].empty()) continue;
    ProcessReplay replay(m, p, scans, scan_of_track);
    replay.Totals(&scans.kept[p]);
    std::map<std::string, State> totals_live;  // the first replay's live sets: never freed
    for (auto& [id, s] : replay.states_) totals_live[id].live = s.live;
    replay.LiveAtPeak(&scans.kept[p]);
    for (auto& av : v.allocators) {
      if (av.memory.process != p) continue;
      replay.Finish(&av);
      Residuals(totals_live, m.processes[p], &av);
    }
  }
  return v;
}

}  // namespace tt::analysis
