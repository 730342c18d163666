#include "analysis/stats.h"

#include "analysis/id_index.h"
#include "analysis/parallel.h"
#include "analysis/steps.h"
#include "analysis/thread_ops.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <set>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "model/scan.h"

namespace tt::analysis {

using namespace layout;
using model::Point;
using model::Slice;
using model::TraceModel;
using model::Track;

namespace {

const char* const kViewNames[] = {"op",        "name", "scope", "kernel", "api",
                                  "memcpy",    "primitive", "step", "thread"};

struct NameKeys {
  // Interned ids of the argument keys the analysis reads, per process (0 if never interned).
  uint32_t correlation = 0, external = 0, bytes = 0, addr = 0, kind = 0, op = 0,
           grid = 0, block = 0, registers = 0, shared_static = 0, shared_dynamic = 0;
  std::set<uint32_t> step_names;
};

NameKeys KeysOf(const model::Process& p, const Options& o) {
  NameKeys k;
  for (uint32_t i = 1; i < p.names.size(); ++i) {
    const std::string& n = p.names[i];
    if (n.empty()) continue;  // ids never defined (a damaged trace)
    if (n == "correlation_id") k.correlation = i;
    else if (n == "external_id") k.external = i;
    else if (n == "bytes") k.bytes = i;
    else if (n == "addr") k.addr = i;
    else if (n == "kind") k.kind = i;
    else if (n == "op") k.op = i;
    else if (n == "grid") k.grid = i;
    else if (n == "block") k.block = i;
    else if (n == "registers") k.registers = i;
    else if (n == "static_shared") k.shared_static = i;
    else if (n == "dynamic_shared") k.shared_dynamic = i;
    if (std::find(o.step_names.begin(), o.step_names.end(), n) != o.step_names.end())
      k.step_names.insert(i);
  }
  return k;
}

int64_t ArgInt(const model::ArgsView& a, uint32_t key, int64_t dflt) {
  Arg x;
  if (!key || !a.Find(key, &x) || x.type == ArgType::kString) return dflt;
  if (x.type != ArgType::kFloat) return x.v.i;
  // Only a float that an int64 can hold converts (NaN and huge values are no integer).
  if (!(x.v.f >= -9.2e18 && x.v.f <= 9.2e18)) return dflt;
  return static_cast<int64_t>(x.v.f);
}

// Byte counts from a damaged trace may be absurd: add without overflowing.
int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

uint32_t ArgStr(const model::ArgsView& a, uint32_t key) {
  Arg x;
  return key && a.Find(key, &x) && x.type == ArgType::kString ? x.v.str : 0;
}

bool IsStep(const Slice& s, const NameKeys& k) {
  return s.category == Category::kStep || k.step_names.count(s.name);
}

// ---------------------------------------------------------------------------------------------
// Per-track aggregation, keyed by the process's interned ids

struct Agg {
  Summary incl;
  uint64_t self = 0, cpu = 0, accel = 0;
  int64_t bytes = 0, peak = 0, residual = 0;
  uint64_t payload = 0;  // memcpy bytes
  std::map<std::string, uint64_t> by;  // who launched / ran it -> count
  std::string grid, block;
  int64_t registers = -1, shared_static = -1, shared_dynamic = -1;
  void Merge(Agg&& o) {
    incl.Merge(o.incl);
    self += o.self;
    cpu += o.cpu;
    accel += o.accel;
    bytes += o.bytes;
    peak = std::max(peak, o.peak);
    residual += o.residual;
    payload += o.payload;
    for (auto& [k, v] : o.by) by[k] += v;
    if (grid.empty()) grid = o.grid;
    if (block.empty()) block = o.block;
    if (registers < 0) registers = o.registers;
    if (shared_static < 0) shared_static = o.shared_static;
    if (shared_dynamic < 0) shared_dynamic = o.shared_dynamic;
  }
};

struct AllocEvent {
  uint64_t ts, addr;
  int64_t bytes;  // > 0 allocation, <= 0 free
  uint32_t op;
};

struct Interval {
  uint64_t start, end;
};

// Aggregates keyed by a process's interned ids, which are small and dense: a slot per id.
class DenseAggs {
 public:
  Agg& Get(uint32_t id, bool samples) {
    // Ids past what any name table holds (a damaged trace) share one slot: no resize to 2^32.
    if (id > model::kMaxNameId) id = model::kMaxNameId;
    if (id >= slot_.size())
      slot_.resize(std::max<size_t>(size_t{id} + 1, slot_.size() * 2), -1);
    int32_t& s = slot_[id];
    if (s < 0) {
      s = static_cast<int32_t>(items_.size());
      items_.emplace_back(id, Agg{});
      items_.back().second.incl.KeepSamples(samples);
    }
    return items_[static_cast<size_t>(s)].second;
  }
  std::vector<std::pair<uint32_t, Agg>>& items() { return items_; }

 private:
  std::vector<int32_t> slot_;
  std::vector<std::pair<uint32_t, Agg>> items_;
};

// A primitive or launch with no op on its own track, linked once every track of its thread has
// been read.
struct Pending {
  uint64_t start, end, self;
  uint32_t name;
  uint64_t corr;  // launches: their correlation id
};

struct TrackAgg {
  size_t track = 0;
  ThreadOps op_spans;  // only on threads with several tracks
  std::vector<Pending> pending_prims, pending_launches;
  uint64_t prims_in_op = 0;
  DenseAggs ops, apis, kernels;
  std::map<std::pair<uint32_t, uint32_t>, Agg> prims;  // (primitive, op)
  std::unordered_map<std::string, Agg> copies;           // kind -> agg
  std::vector<std::pair<uint64_t, uint64_t>> launches;   // correlation id -> api << 32 | op
  std::vector<std::pair<uint64_t, uint64_t>> externals;  // external id -> op
  // Device pass: what each activity was linked to.
  std::unordered_map<uint32_t, uint64_t> accel_by_op;
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> kernel_by;  // (kernel, tag) -> count
  uint64_t linked_corr = 0, linked_ext = 0, linked_nesting = 0, unlinked = 0, activities = 0;
  std::vector<AllocEvent> allocs;
  std::vector<Interval> host, comm, device, copy;  // the step view's intervals
  uint64_t busy = 0, events = 0, first = UINT64_MAX, last = 0;
  std::string thread_name;
};

// Tags of kernel_by: an op id, or the API that launched it, or nothing.
constexpr uint64_t kTagApi = uint64_t{1} << 32, kTagNone = uint64_t{2} << 32;

struct Ctx {
  const TraceModel& m;
  const Options& o;
  std::vector<NameKeys> keys;  // per process
  Windows windows;
  bool want_intervals = false;
  std::vector<IdIndex> launches, externals;  // per process, built after the host pass
  // Per track: whether another host track has the same (process, tid) (an imported stream).
  std::vector<char> shared_thread;
  // Which groups keep per-instance samples (for medians): only the view's own.
  bool samples_ops = false, samples_api = false, samples_prim = false, samples_dev = false;
};



void AddPrimitive(const Ctx& c, TrackAgg* a, uint32_t name, uint32_t op, uint64_t d,
                  uint64_t self) {
  auto [it, fresh] = a->prims.try_emplace({name, op});
  if (fresh) it->second.incl.KeepSamples(c.samples_prim);
  Agg& g = it->second;
  g.incl.Add(d);
  g.self += self;
  g.cpu += d;
  if (op) a->prims_in_op++;
}

// Links the primitives and launches that found no op on their own track to the innermost
// framework op of any track of the same (process, tid): the XSpace import writes TensorFlow's
// ops of thread T into an imported stream of T, the runtime writes T's primitives and launches
// into T's own stream.
void LinkAcrossTracks(const Ctx& c, std::vector<TrackAgg>* hagg) {
  std::map<std::pair<size_t, uint64_t>, ThreadOps> threads;
  for (auto& a : *hagg) {
    if (a.op_spans.empty()) continue;
    const Track& t = c.m.tracks[a.track];
    threads[{t.process, t.id}].Take(&a.op_spans);
  }
  for (auto& [key, ops] : threads) ops.Build();
  for (auto& a : *hagg) {
    if (a.pending_prims.empty() && a.pending_launches.empty()) continue;
    const Track& t = c.m.tracks[a.track];
    auto it = threads.find({t.process, t.id});
    auto op_of = [&](const Pending& p) -> uint32_t {
      return it == threads.end() ? 0 : it->second.Innermost(p.start, p.end);
    };
    for (const Pending& p : a.pending_prims)
      AddPrimitive(c, &a, p.name, op_of(p), p.end - p.start, p.self);
    for (const Pending& p : a.pending_launches)
      a.launches.push_back({p.corr, uint64_t{p.name} << 32 | op_of(p)});
    std::vector<Pending>().swap(a.pending_prims);
    std::vector<Pending>().swap(a.pending_launches);
  }
}

class HostVisitor {
 public:
  HostVisitor(const Ctx& c, const Track& t, TrackAgg* a)
      : c_(c), k_(c.keys[t.process]), w_(c.windows.empty() ? nullptr : &c.windows[t.process]),
        a_(a), t_(t), shared_(c.shared_thread[static_cast<size_t>(&t - c.m.tracks.data())]) {}
  void OnBegin(const Slice&) {}
  void OnThreadName(std::string_view n) { a_->thread_name = std::string(n); }
  void OnSlice(const Slice& s) {
    Touch(s.start, s.end);
    if (IsStep(s, k_)) return;  // steps are found by FindSteps
    if (s.depth == 0) a_->busy += s.Duration();
    if (shared_ && s.category == Category::kFrameworkOp) a_->op_spans.Add(s.start, s.end, s.name);
    if (w_ && !w_->empty() && !InWindows(*w_, s.start)) return;
    uint64_t d = s.Duration();
    bool under_step = s.parent_category == Category::kStep || k_.step_names.count(s.parent);
    if (c_.want_intervals && (s.depth == 0 || under_step) &&
        (model::IsOpCategory(s.category) || s.category == Category::kPython ||
         s.category == Category::kPrimitive))
      a_->host.push_back({s.start, s.end});
    switch (s.category) {
      case Category::kFrameworkOp:
      case Category::kUser: {
        Agg& g = a_->ops.Get(s.name, c_.samples_ops);
        g.incl.Add(d);
        g.self += s.Self();
        g.cpu += d;
        if (int64_t ext = ArgInt(s.args, k_.external, -1); ext >= 0)
          a_->externals.push_back({static_cast<uint64_t>(ext), s.name});
        break;
      }
      case Category::kRuntimeApi: {
        Agg& g = a_->apis.Get(s.name, c_.samples_api);
        g.incl.Add(d);
        g.self += s.Self();
        g.cpu += d;
        if (int64_t corr = ArgInt(s.args, k_.correlation, -1); corr < 0) {
        } else if (!s.op && shared_) {
          a_->pending_launches.push_back({s.start, s.end, 0, s.name, static_cast<uint64_t>(corr)});
        } else {
          a_->launches.push_back({static_cast<uint64_t>(corr), uint64_t{s.name} << 32 | s.op});
        }
        break;
      }
      case Category::kPrimitive:
        if (!s.op && shared_) {
          a_->pending_prims.push_back({s.start, s.end, s.Self(), s.name, 0});
        } else {
          AddPrimitive(c_, a_, s.name, s.op, d, s.Self());
        }
        break;
      case Category::kCommunication:
        if (c_.want_intervals) a_->comm.push_back({s.start, s.end});
        break;
      default:
        break;
    }
  }
  void OnPoint(const Point& p) {
    Touch(p.ts, p.ts);
    if (!c_.samples_ops || p.category != Category::kAllocation || p.counter) return;
    int64_t bytes = ArgInt(p.args, k_.bytes, 0);
    uint64_t addr = static_cast<uint64_t>(ArgInt(p.args, k_.addr, 0));
    uint32_t op = ArgStr(p.args, k_.op);
    if (!op) op = p.op;
    bool is_free = c_.m.processes[t_.process].Name(p.name).find("Deallocation") !=
                       std::string_view::npos ||
                   c_.m.processes[t_.process].Name(p.name) == "free";
    a_->allocs.push_back({p.ts, addr, is_free ? 0 : bytes, op});
  }

 private:
  void Touch(uint64_t a, uint64_t b) {
    ++a_->events;
    a_->first = std::min(a_->first, a);
    a_->last = std::max(a_->last, b);
  }
  const Ctx& c_;
  const NameKeys& k_;
  const std::vector<Window>* w_;
  TrackAgg* a_;
  const Track& t_;
  bool shared_;
};

class DeviceVisitor {
 public:
  DeviceVisitor(const Ctx& c, const Track& t, TrackAgg* a)
      : c_(c), k_(c.keys[t.process]), w_(c.windows.empty() ? nullptr : &c.windows[t.process]),
        a_(a), process_(t.process) {}
  void OnBegin(const Slice&) {}
  void OnPoint(const Point&) { ++a_->events; }
  void OnSlice(const Slice& s) {
    ++a_->events;
    a_->first = std::min(a_->first, s.start);
    a_->last = std::max(a_->last, s.end);
    if (w_ && !w_->empty() && !InWindows(*w_, s.start)) return;
    uint64_t d = s.Duration();
    a_->busy += d;
    switch (s.category) {
      case Category::kGpuKernel: {
        Agg& g = a_->kernels.Get(s.name, c_.samples_dev);
        g.incl.Add(d);
        g.self += d;
        if (g.grid.empty() && k_.grid) g.grid = Text(ArgStr(s.args, k_.grid), s);
        if (g.block.empty() && k_.block) g.block = Text(ArgStr(s.args, k_.block), s);
        if (g.registers < 0) g.registers = ArgInt(s.args, k_.registers, -1);
        if (g.shared_static < 0) g.shared_static = ArgInt(s.args, k_.shared_static, -1);
        if (g.shared_dynamic < 0) g.shared_dynamic = ArgInt(s.args, k_.shared_dynamic, -1);
        if (c_.want_intervals) a_->device.push_back({s.start, s.end});
        break;
      }
      case Category::kMemcpy:
      case Category::kMemset: {
        std::string kind = "memset";
        if (s.category == Category::kMemcpy) {
          uint32_t kid = ArgStr(s.args, k_.kind);
          kind = kid ? Text(kid, s) : "memcpy";
        }
        auto [it, fresh] = a_->copies.try_emplace(kind);
        if (fresh) it->second.incl.KeepSamples(c_.samples_dev);
        Agg& g = it->second;
        g.incl.Add(d);
        g.payload += static_cast<uint64_t>(std::max<int64_t>(0, ArgInt(s.args, k_.bytes, 0)));
        if (c_.want_intervals) a_->copy.push_back({s.start, s.end});
        break;
      }
      case Category::kCommunication:
        if (c_.want_intervals) a_->comm.push_back({s.start, s.end});
        break;
      default:
        break;
    }
    if (s.category == Category::kGpuKernel || s.category == Category::kMemcpy ||
        s.category == Category::kMemset)
      Link(s, d);
  }

 private:
  // Device work -> launch (correlation id) -> op; or -> op directly (external id).
  void Link(const Slice& s, uint64_t d) {
    int64_t corr = ArgInt(s.args, k_.correlation, -1), ext = ArgInt(s.args, k_.external, -1);
    uint64_t launch = corr >= 0 ? c_.launches[process_].Find(static_cast<uint64_t>(corr))
                                : IdIndex::kMissing;
    uint64_t by_ext = ext >= 0 ? c_.externals[process_].Find(static_cast<uint64_t>(ext))
                               : IdIndex::kMissing;
    bool launched = launch != IdIndex::kMissing;
    uint32_t op = 0;
    a_->activities++;
    if (launched) a_->linked_corr++;
    if (by_ext != IdIndex::kMissing) {
      op = static_cast<uint32_t>(by_ext);
      a_->linked_ext++;
    } else if (launched && static_cast<uint32_t>(launch)) {
      op = static_cast<uint32_t>(launch);
      a_->linked_nesting++;
    }
    if (!launched && !op) a_->unlinked++;
    if (op) a_->accel_by_op[op] += d;
    if (s.category == Category::kGpuKernel) {
      uint64_t tag = op ? op : launched ? kTagApi | (launch >> 32) : kTagNone;
      a_->kernel_by[{s.name, tag}]++;
    }
  }

  std::string Text(uint32_t id, const Slice&) const {
    return std::string(c_.m.processes[process_].Name(id));
  }
  const Ctx& c_;
  const NameKeys& k_;
  const std::vector<Window>* w_;
  TrackAgg* a_;
  size_t process_;
};

// Intervals sorted by start, with the running maximum of their ends: the first one that can
// reach into a window is found by binary search (a scan from the front for every step made the
// step view quadratic in the number of steps).
struct SortedIntervals {
  std::vector<Interval> v;
  std::vector<uint64_t> reach;  // reach[i]: the latest end among v[0..i]
  void Build() {
    std::sort(v.begin(), v.end(),
              [](const Interval& x, const Interval& y) { return x.start < y.start; });
    reach.resize(v.size());
    uint64_t r = 0;
    for (size_t i = 0; i < v.size(); ++i) reach[i] = r = std::max(r, v[i].end);
  }
  // Intervals before this index all end at or before lo.
  size_t From(uint64_t lo) const {
    return static_cast<size_t>(std::upper_bound(reach.begin(), reach.end(), lo) - reach.begin());
  }
};

uint64_t UnionLength(const SortedIntervals& iv, uint64_t lo, uint64_t hi) {
  uint64_t total = 0, cur_s = 0, cur_e = 0;
  bool open = false;
  for (size_t i = iv.From(lo); i < iv.v.size(); ++i) {
    const Interval& x = iv.v[i];
    if (x.start >= hi) break;
    uint64_t s = std::max(x.start, lo), e = std::min(x.end, hi);
    if (e <= s) continue;
    if (open && s <= cur_e) {
      cur_e = std::max(cur_e, e);
    } else {
      if (open) total += cur_e - cur_s;
      cur_s = s;
      cur_e = e;
      open = true;
    }
  }
  if (open) total += cur_e - cur_s;
  return total;
}

// Length of (a ∩ b) within [lo, hi).
uint64_t OverlapLength(const SortedIntervals& a, const SortedIntervals& b, uint64_t lo,
                       uint64_t hi) {
  auto merged = [&](const SortedIntervals& iv) {
    std::vector<Interval> out;
    for (size_t i = iv.From(lo); i < iv.v.size(); ++i) {
      const Interval& x = iv.v[i];
      if (x.start >= hi) break;
      uint64_t s = std::max(x.start, lo), e = std::min(x.end, hi);
      if (e <= s) continue;
      if (!out.empty() && s <= out.back().end) out.back().end = std::max(out.back().end, e);
      else out.push_back({s, e});
    }
    return out;
  };
  auto ma = merged(a), mb = merged(b);
  uint64_t total = 0;
  size_t i = 0, j = 0;
  while (i < ma.size() && j < mb.size()) {
    uint64_t s = std::max(ma[i].start, mb[j].start), e = std::min(ma[i].end, mb[j].end);
    if (e > s) total += e - s;
    (ma[i].end < mb[j].end ? i : j)++;
  }
  return total;
}

// Moves *from to the end of *to, freeing *from (no copy when *to is empty).
template <typename T>
void Append(std::vector<T>* to, std::vector<T>* from) {
  if (to->empty()) {
    to->swap(*from);
  } else {
    to->insert(to->end(), from->begin(), from->end());
  }
  std::vector<T>().swap(*from);
}

Row MakeRow(const std::string& name, Agg& g) {
  Row r;
  r.name = name;
  r.incl = std::move(g.incl);
  r.self_ns = g.self;
  r.cpu_ns = g.cpu;
  r.accel_ns = g.accel;
  r.bytes = g.bytes;
  r.peak_bytes = g.peak;
  r.residual_bytes = g.residual;
  return r;
}

std::string TopBy(const std::map<std::string, uint64_t>& by, size_t n) {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const auto& [k, c] : by) v.push_back({c, k});
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  std::string out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out += (i ? ", " : "") + v[i].second;
  if (v.size() > n) out += ", +" + std::to_string(v.size() - n);
  return out;
}

void InsertScope(std::vector<Row>* level, const std::vector<std::string>& path, size_t i,
                 const Row& leaf) {
  if (i >= path.size()) return;
  auto it = std::find_if(level->begin(), level->end(),
                         [&](const Row& r) { return r.name == path[i]; });
  if (it == level->end()) {
    level->push_back(Row{});
    it = level->end() - 1;
    it->name = path[i];
  }
  // Every node sums its subtree (tfprof's scope view accounts children into parents).
  Summary s = leaf.incl;
  it->incl.Merge(s);
  it->self_ns += leaf.self_ns;
  it->cpu_ns += leaf.cpu_ns;
  it->accel_ns += leaf.accel_ns;
  it->bytes += leaf.bytes;
  it->peak_bytes = std::max(it->peak_bytes, leaf.peak_bytes);
  it->residual_bytes += leaf.residual_bytes;
  InsertScope(&it->children, path, i + 1, leaf);
}

}  // namespace

bool ParseView(const std::string& s, View* v) {
  for (size_t i = 0; i < sizeof kViewNames / sizeof kViewNames[0]; ++i)
    if (s == kViewNames[i]) {
      *v = static_cast<View>(i);
      return true;
    }
  return false;
}

const char* ViewName(View v) { return kViewNames[static_cast<size_t>(v)]; }

std::string ViewList() {
  std::string s;
  for (const char* n : kViewNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::string OpType(const std::string& name) {
  std::string n = name.substr(0, name.find('#'));
  size_t c = n.rfind(':');
  if (c == std::string::npos || c + 1 >= n.size()) return n;
  return n.substr(c + 1);
}

// Scope trees deeper than this are cut (the rest of the path stays in the last component), so
// that no recursion over the tree runs out of stack.
constexpr size_t kMaxScopeDepth = 64;

std::vector<std::string> ScopePath(const std::string& name) {
  std::string n = name.substr(0, name.find('#'));
  size_t c = n.rfind(':');
  if (c != std::string::npos && c > 0) n = n.substr(0, c);
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= n.size()) {
    size_t slash = n.find('/', start);
    if (slash == std::string::npos) slash = n.size();
    if (slash > start) parts.push_back(n.substr(start, slash - start));
    start = slash + 1;
  }
  if (parts.empty()) parts.push_back(name);
  if (parts.size() > kMaxScopeDepth) {
    for (size_t i = kMaxScopeDepth; i < parts.size(); ++i) parts[kMaxScopeDepth - 1] += "/" + parts[i];
    parts.resize(kMaxScopeDepth);
  }
  return parts;
}

Result Compute(const TraceModel& m, const Options& o, std::vector<Problem>* problems) {
  Ctx c{m, o, {}, {}, false};
  for (const auto& p : m.processes) c.keys.push_back(KeysOf(p, o));
  unsigned threads = DefaultThreads(o.threads);
  bool select = o.steps.has_value() || o.skip_warmup > 0;
  c.want_intervals = o.view == View::kStep;
  c.samples_ops = o.view == View::kOp || o.view == View::kName || o.view == View::kScope;
  c.samples_api = o.view == View::kApi;
  c.samples_prim = o.view == View::kPrimitive;
  c.samples_dev = o.view == View::kKernel || o.view == View::kMemcpy;

  std::vector<size_t> host, device;
  for (size_t i = 0; i < m.tracks.size(); ++i)
    (m.tracks[i].kind == TrackKind::kDevice ? device : host).push_back(i);
  {
    std::map<std::pair<size_t, uint64_t>, size_t> per_thread;
    auto is_thread = [&](size_t i) {
      return m.tracks[i].kind == TrackKind::kThread || m.tracks[i].kind == TrackKind::kImported;
    };
    for (size_t i : host)
      if (is_thread(i)) per_thread[{m.tracks[i].process, m.tracks[i].id}]++;
    c.shared_thread.assign(m.tracks.size(), 0);
    for (size_t i : host)
      if (is_thread(i)) c.shared_thread[i] = per_thread[{m.tracks[i].process, m.tracks[i].id}] > 1;
  }

  Result r;
  r.view = o.view;
  std::vector<TrackAgg> hagg(host.size()), dagg(device.size());
  std::vector<std::vector<Problem>> hprob(host.size()), dprob(device.size());

  // Steps first when they select what is counted, or are the view.
  std::vector<Step> steps;
  if (select || o.view == View::kStep) steps = FindSteps(m, o.step_names, threads);
  if (select) c.windows = SelectWindows(m, steps, o.steps, o.skip_warmup);

  ParallelFor(host.size(), threads, [&](size_t i) {
    const Track& t = m.tracks[host[i]];
    hagg[i].track = host[i];
    hagg[i].thread_name = t.name;
    HostVisitor v(c, t, &hagg[i]);
    model::ScanTrack(m, t, &hprob[i], v);
  });
  LinkAcrossTracks(c, &hagg);
  size_t np = m.processes.size();
  // Per process: ops from every host track (the device pass adds their device time).
  std::vector<std::unordered_map<uint32_t, Agg>> ops(np);
  for (auto& a : hagg) {
    size_t p = m.tracks[a.track].process;
    for (auto& [id, g] : a.ops.items()) {
      auto [it, fresh] = ops[p].try_emplace(id);
      if (fresh) it->second.incl.KeepSamples(c.samples_ops);
      it->second.Merge(std::move(g));
    }
  }
  // Allocations (done and freed before the device pass, to keep the peak low): attribute bytes to ops, follow frees by address across threads.
  for (size_t p = 0; p < np; ++p) {
    // Each track's allocations are in time order: merge the runs.
    std::vector<AllocEvent> all;
    auto by_ts = [](const AllocEvent& a, const AllocEvent& b) { return a.ts < b.ts; };
    for (auto& a : hagg) {
      if (m.tracks[a.track].process != p || a.allocs.empty()) continue;
      size_t mid = all.size();
      Append(&all, &a.allocs);
      std::inplace_merge(all.begin(), all.begin() + static_cast<long>(mid), all.end(), by_ts);
    }
    std::unordered_map<uint64_t, std::pair<uint32_t, int64_t>> live;
    std::unordered_map<uint32_t, int64_t> in_use;
    for (const auto& e : all) {
      if (e.bytes > 0) {
        if (!e.op) continue;
        Agg& g = ops[p][e.op];
        g.bytes = SatAdd(g.bytes, e.bytes);
        live[e.addr] = {e.op, e.bytes};
        int64_t& use = in_use[e.op];
        use = SatAdd(use, e.bytes);
        g.peak = std::max(g.peak, use);
      } else if (auto it = live.find(e.addr); it != live.end()) {
        int64_t& use = in_use[it->second.first];
        use = SatAdd(use, -it->second.second);
        live.erase(it);
      }
    }
    for (const auto& [addr, ob] : live) {
      int64_t& res = ops[p][ob.first].residual;
      res = SatAdd(res, ob.second);
    }
  }

  // Launches and external ids of each process, for the device pass.
  {
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> l(np), e(np);
    for (auto& a : hagg) {
      size_t p = m.tracks[a.track].process;
      Append(&l[p], &a.launches);
      Append(&e[p], &a.externals);
    }
    c.launches.resize(np);
    c.externals.resize(np);
    for (size_t p = 0; p < np; ++p) {
      c.launches[p].Build(std::move(l[p]));
      c.externals[p].Build(std::move(e[p]));
    }
  }
  ParallelFor(device.size(), threads, [&](size_t i) {
    const Track& t = m.tracks[device[i]];
    dagg[i].track = device[i];
    DeviceVisitor v(c, t, &dagg[i]);
    model::ScanTrack(m, t, &dprob[i], v);
  });
  for (auto& p : hprob) problems->insert(problems->end(), p.begin(), p.end());
  for (auto& p : dprob) problems->insert(problems->end(), p.begin(), p.end());
  for (auto& a : hagg) r.events += a.events;
  for (auto& a : dagg) r.events += a.events;

  std::map<std::string, Agg> kernels;
  for (auto& a : dagg) {
    size_t p = m.tracks[a.track].process;
    const model::Process& proc = m.processes[p];
    for (auto& [id, g] : a.kernels.items()) kernels[std::string(proc.Name(id))].Merge(std::move(g));
    for (auto& [op, ns] : a.accel_by_op) ops[p][op].accel += ns;
    for (auto& [key, n] : a.kernel_by) {
      uint64_t tag = key.second;
      std::string by = tag == kTagNone ? "(unlinked)"
                       : tag & kTagApi ? "(" + std::string(proc.Name(static_cast<uint32_t>(tag))) + ")"
                                       : OpType(std::string(proc.Name(static_cast<uint32_t>(tag))));
      kernels[std::string(proc.Name(key.first))].by[by] += n;
    }
    if (a.linked_corr) r.links["launch->device: correlation_id"] += a.linked_corr;
    if (a.linked_ext) r.links["op->device: external_id"] += a.linked_ext;
    if (a.linked_nesting) r.links["op->device: launch inside op on its thread"] += a.linked_nesting;
    r.unlinked += a.unlinked;
    r.device_activities += a.activities;
  }

  // Rows of the requested view.
  auto finish = [&](std::vector<Row>& rows, uint64_t total) {
    r.total_ns = total;
    for (auto& row : rows) row.share = total ? static_cast<double>(row.self_ns) / total : 0;
  };
  switch (o.view) {
    case View::kOp:
    case View::kName:
    case View::kScope: {
      std::map<std::string, Agg> by;
      uint64_t total = 0;
      for (size_t p = 0; p < np; ++p)
        for (auto& [id, g] : ops[p]) {
          if (g.incl.count() == 0 && g.accel == 0 && g.bytes == 0) continue;
          std::string name(m.processes[p].Name(id));
          total += g.self;
          by[o.view == View::kOp ? OpType(name) : name].Merge(std::move(g));
        }
      std::vector<Row> rows;
      for (auto& [name, g] : by) rows.push_back(MakeRow(name, g));
      finish(rows, total);
      if (o.view == View::kScope) {
        std::vector<Row> tree;
        for (const auto& row : rows) InsertScope(&tree, ScopePath(row.name), 0, row);
        rows = std::move(tree);
        std::function<void(std::vector<Row>&)> shares = [&](std::vector<Row>& v) {
          for (auto& x : v) {
            x.share = total ? static_cast<double>(x.self_ns) / total : 0;
            shares(x.children);
          }
        };
        shares(rows);
      }
      r.rows = std::move(rows);
      if (r.rows.empty()) r.notes.push_back("no framework ops or annotated ranges in this trace");
      break;
    }
    case View::kKernel: {
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
        r.rows.push_back(std::move(row));
      }
      finish(r.rows, total);
      if (r.rows.empty()) r.notes.push_back("no GPU kernels in this trace");
      break;
    }
    case View::kApi: {
      std::map<std::string, Agg> by;
      uint64_t total = 0;
      for (auto& a : hagg)
        for (auto& [id, g] : a.apis.items()) {
          total += g.self;
          by[std::string(m.processes[m.tracks[a.track].process].Name(id))].Merge(std::move(g));
        }
      for (auto& [n, g] : by) r.rows.push_back(MakeRow(n, g));
      finish(r.rows, total);
      if (r.rows.empty()) r.notes.push_back("no runtime or driver API calls in this trace");
      break;
    }
    case View::kMemcpy: {
      std::map<std::string, Agg> by;
      uint64_t total = 0;
      for (auto& a : dagg)
        for (auto& [kind, g] : a.copies) by[kind].Merge(std::move(g));
      for (auto& [n, g] : by) total += g.incl.total();
      for (auto& [n, g] : by) {
        Row row = MakeRow(n, g);
        row.self_ns = row.incl.total();
        row.accel_ns = row.incl.total();
        row.cpu_ns = 0;
        row.bytes = static_cast<int64_t>(g.payload);
        double secs = static_cast<double>(row.incl.total()) / 1e9;
        row.numbers = {{"bandwidth_gbps", secs > 0 ? static_cast<double>(g.payload) / secs / 1e9 : 0}};
        r.rows.push_back(std::move(row));
      }
      finish(r.rows, total);
      if (r.rows.empty()) r.notes.push_back("no memory copies or sets in this trace");
      break;
    }
    case View::kPrimitive: {
      std::map<std::string, Agg> by;
      uint64_t total = 0;
      for (auto& a : hagg) {
        const model::Process& proc = m.processes[m.tracks[a.track].process];
        if (a.prims_in_op) r.links["primitive->op: nesting on its thread"] += a.prims_in_op;
        for (auto& [key, g] : a.prims) {
          total += g.self;
          std::string op = key.second ? OpType(std::string(proc.Name(key.second))) : "(no op)";
          Agg& dst = by[std::string(proc.Name(key.first))];
          dst.by[op] += g.incl.count();
          dst.Merge(std::move(g));
        }
      }
      for (auto& [n, g] : by) {
        Row row = MakeRow(n, g);
        row.text = {{"ops", TopBy(g.by, 5)}};
        r.rows.push_back(std::move(row));
      }
      finish(r.rows, total);
      if (r.rows.empty()) r.notes.push_back("no oneDNN primitives in this trace");
      break;
    }
    case View::kThread: {
      for (auto& a : hagg) {
        const Track& t = m.tracks[a.track];
        Row row;
        row.name = std::to_string(m.processes[t.process].meta.pid) + "/" + std::to_string(t.id) +
                   (a.thread_name.empty() ? "" : " " + a.thread_name);
        row.self_ns = a.busy;
        row.cpu_ns = a.busy;
        uint64_t span = a.last > a.first && a.first != UINT64_MAX ? a.last - a.first : 0;
        row.numbers = {{"events", static_cast<double>(a.events)},
                       {"span_micros", static_cast<double>(span) / 1e3},
                       {"busy_share", span ? static_cast<double>(a.busy) / span : 0}};
        r.rows.push_back(std::move(row));
      }
      for (auto& a : dagg) {
        const Track& t = m.tracks[a.track];
        Row row;
        row.name = std::to_string(m.processes[t.process].meta.pid) + "/" + t.name;
        row.self_ns = a.busy;
        row.accel_ns = a.busy;
        uint64_t span = a.last > a.first && a.first != UINT64_MAX ? a.last - a.first : 0;
        row.numbers = {{"events", static_cast<double>(a.events)},
                       {"span_micros", static_cast<double>(span) / 1e3},
                       {"busy_share", span ? static_cast<double>(a.busy) / span : 0}};
        r.rows.push_back(std::move(row));
      }
      uint64_t total = 0;
      for (auto& row : r.rows) total += row.self_ns;
      finish(r.rows, total);
      if (r.rows.empty()) r.notes.push_back("no threads with events in this trace");
      break;
    }
    case View::kStep: {
      std::vector<SortedIntervals> hostv(np), commv(np), devv(np), copyv(np), busyv(np);
      for (auto& a : hagg) {
        size_t p = m.tracks[a.track].process;
        hostv[p].v.insert(hostv[p].v.end(), a.host.begin(), a.host.end());
        commv[p].v.insert(commv[p].v.end(), a.comm.begin(), a.comm.end());
      }
      std::vector<bool> has_device(np, false);
      for (auto& a : dagg) {
        size_t p = m.tracks[a.track].process;
        has_device[p] = true;
        devv[p].v.insert(devv[p].v.end(), a.device.begin(), a.device.end());
        copyv[p].v.insert(copyv[p].v.end(), a.copy.begin(), a.copy.end());
        commv[p].v.insert(commv[p].v.end(), a.comm.begin(), a.comm.end());
      }
      for (size_t p = 0; p < np; ++p) {
        // The device is busy with kernels, copies or communication (built once per process).
        if (has_device[p]) {
          busyv[p].v = devv[p].v;
          busyv[p].v.insert(busyv[p].v.end(), copyv[p].v.begin(), copyv[p].v.end());
          busyv[p].v.insert(busyv[p].v.end(), commv[p].v.begin(), commv[p].v.end());
        }
        for (auto* v : {&hostv[p], &commv[p], &devv[p], &copyv[p], &busyv[p]}) v->Build();
      }
      std::vector<bool> keep = SelectSteps(steps, o.steps, o.skip_warmup);
      for (size_t si = 0; si < steps.size(); ++si) {
        if (!keep[si]) continue;
        const Step& s = steps[si];
        StepBreakdown b;
        b.number = s.number;
        b.process = s.process;
        b.start = s.start;
        b.end = s.end;
        size_t p = s.process;
        b.host_compute = UnionLength(hostv[p], s.start, s.end);
        b.device_compute = UnionLength(devv[p], s.start, s.end);
        b.copies = UnionLength(copyv[p], s.start, s.end);
        b.communication = UnionLength(commv[p], s.start, s.end);
        b.has_device = has_device[p];
        if (b.has_device) {
          uint64_t dev_busy = UnionLength(busyv[p], s.start, s.end);
          uint64_t idle = (s.end - s.start) - dev_busy;
          uint64_t busy_and_host = OverlapLength(busyv[p], hostv[p], s.start, s.end);
          uint64_t host_during_idle = b.host_compute - std::min(b.host_compute, busy_and_host);
          b.device_idle_host_bound = std::min(idle, host_during_idle);
          b.device_idle_waiting = idle - b.device_idle_host_bound;
        }
        r.steps.push_back(b);
      }
      if (r.steps.empty())
        r.notes.push_back(steps.empty() ? "no steps in this trace (name the annotation that marks "
                                        "a step with --step-name NAME)"
                                      : "no step matches the selection");
      break;
    }
  }
  return r;
}

}  // namespace tt::analysis
