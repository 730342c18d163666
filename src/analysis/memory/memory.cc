#include "analysis/memory/memory.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/parallel.h"
#include "format/keys.h"
#include "model/args.h"
#include "model/job/process_names.h"
#include "model/scan.h"

namespace tt::analysis {

using layout::Category;

namespace {

struct Keys {
  uint32_t bytes = 0, bytes_allocated = 0, addr = 0, allocator = 0, allocator_name = 0, op = 0;
  // The memory command's details (TensorFlow's allocation stats).
  uint32_t requested = 0, reserved = 0, peak = 0, fragmentation = 0, shape = 0, region = 0,
           dtype = 0;
  uint32_t input_dims = 0, input_types = 0;  // the ops' (PyTorch's record_shapes)
};

Keys KeysOf(const model::Process& p) {
  namespace x = keys::xstat;
  auto [bytes, bytes_allocated, addr, allocator, allocator_name, op] =
      model::KeyIds(p, {keys::kBytes, keys::kBytesAllocated, keys::kAddr, keys::kAllocator,
                        keys::kAllocatorName, keys::kOp});
  auto [requested, reserved, peak, fragmentation, shape, region, dtype] =
      model::KeyIds(p, {x::kRequestedBytes, x::kBytesReserved, x::kPeakBytesInUse,
                        x::kFragmentation, x::kShape, x::kRegionType, x::kDataType});
  auto [input_dims, input_types] = model::KeyIds(p, {keys::kInputDims, keys::kInputTypes});
  return {bytes, bytes_allocated, addr,  allocator, allocator_name, op,         requested,
          reserved, peak, fragmentation, shape, region, dtype, input_dims, input_types};
}

bool Int(const model::ArgsView& a, uint32_t key, int64_t* out) {
  std::optional<int64_t> v = model::ArgInt(a, key);
  if (v) *out = *v;
  return v.has_value();
}

using Event = MemoryEvent;

// Per allocator while folding: the running value and the bucketed series.
struct Running {
  AllocatorMemory a;
  int64_t cur = 0;
  int64_t bucket = -1;
  MemorySample bucket_max, bucket_last;
  void Flush() {
    if (bucket < 0) return;
    a.series.push_back(bucket_max);
    if (bucket_last.ts != bucket_max.ts) a.series.push_back(bucket_last);
  }
  // One event's change of the bytes in use: the peak, and the sample in its time bucket.
  void Add(const model::TraceModel& m, const model::Process& proc, const Event& e, int64_t delta,
           uint64_t first, uint64_t span, size_t max_points) {
    cur += delta;
    if (cur > a.peak) {
      a.peak = cur;
      a.peak_ts = e.ts;
      a.peak_op = e.op ? std::string(proc.Name(e.op)) : "";
      const model::Track& t = m.tracks[e.track];
      a.peak_thread = t.name.empty() ? "tid " + std::to_string(t.id) : t.name;
    }
    uint64_t off = e.ts > first ? e.ts - first : 0;
    int64_t b = static_cast<int64_t>(std::min<uint64_t>(
        max_points - 1, static_cast<uint64_t>(static_cast<double>(off) / span * max_points)));
    MemorySample s{e.ts, cur};
    if (b != bucket) {
      Flush();
      bucket = b;
      bucket_max = s;
    } else if (s.bytes > bucket_max.bytes) {
      bucket_max = s;
    }
    bucket_last = s;
  }
};

// One process's allocation events folded into its allocators' series.
void FoldProcess(const model::TraceModel& m, size_t p, std::vector<Event>& ev, uint64_t first,
                 uint64_t span, size_t max_points, MemoryResult* r,
                 std::map<std::pair<size_t, std::string>, Running>* by) {
  const model::Process& proc = m.processes[p];
  auto running = [&](uint32_t allocator) -> Running& {
    return (*by)[{p, allocator ? std::string(proc.Name(allocator)) : "default"}];
  };
  r->events += ev.size();
  std::map<uint32_t, uint64_t> unmatched;
  ReplayProcess(
      &ev,
      [&](const MemoryChange& c) {
        Running& run = running(c.allocator);
        if (c.event->is_free)
          run.a.frees++;
        else
          run.a.allocations++;
        run.Add(m, proc, *c.event, c.delta, first, span, max_points);
      },
      &unmatched);
  for (const auto& [allocator, n] : unmatched) running(allocator).a.unmatched_frees += n;
}

}  // namespace

void ReplayProcess(std::vector<MemoryEvent>* events,
                   const std::function<void(const MemoryChange&)>& f,
                   std::map<uint32_t, uint64_t>* unmatched) {
  std::vector<Event>& ev = *events;
  // Each track is in time order; a stable sort keeps a thread's own order at equal times.
  std::stable_sort(ev.begin(), ev.end(),
                   [](const Event& a, const Event& b) { return a.ts < b.ts; });
  std::unordered_map<uint64_t, const Event*> live;  // addr -> its allocation
  for (const Event& e : ev) {
    MemoryChange c;
    c.event = &e;
    if (!e.is_free) {
      if (e.bytes <= 0) continue;
      c.allocation = &e;
      c.allocator = e.allocator;
      c.delta = e.bytes;
      if (e.has_addr) live[e.addr] = &e;
    } else {
      auto it = e.has_addr ? live.find(e.addr) : live.end();
      if (it != live.end()) {
        c.allocation = it->second;
        c.allocator = it->second->allocator;
        c.delta = -it->second->bytes;
        live.erase(it);
      } else if (e.bytes > 0) {
        c.allocator = e.allocator;
        c.delta = -e.bytes;
      } else {
        (*unmatched)[e.allocator]++;
        continue;
      }
    }
    f(c);
  }
}

void MemoryTrackScan::OnBegin(const model::Slice& s) {
  if (!keep_details) return;
  const Keys& k = *static_cast<const Keys*>(keys_);
  OpInputs in{model::ArgStr(s.args, k.input_dims), model::ArgStr(s.args, k.input_types)};
  open_.push_back(in.dims || open_.empty() ? in : open_.back());  // the innermost that has them
}

void MemoryTrackScan::OnSlice(const model::Slice& s) {
  first = std::min(first, s.start);
  last = std::max(last, s.end);
  if (keep_details && !open_.empty()) open_.pop_back();
}

void MemoryTrackScan::OnPoint(const model::Point& p) {
  first = std::min(first, p.ts);
  last = std::max(last, p.ts);
  if (p.category != Category::kAllocation || p.counter) return;
  const model::Process& proc = m_->processes[m_->tracks[track_].process];
  const Keys& k = *static_cast<const Keys*>(keys_);
  MemoryEvent e;
  e.ts = p.ts;
  e.track = static_cast<uint32_t>(track_);
  e.is_free = keys::IsFreeEvent(proc.Name(p.name));
  int64_t v = -1;
  if (!Int(p.args, k.bytes, &v)) Int(p.args, k.bytes_allocated, &v);
  e.bytes = v;
  int64_t addr = 0;
  e.has_addr = Int(p.args, k.addr, &addr);
  e.addr = static_cast<uint64_t>(addr);
  e.allocator = model::ArgStr(p.args, k.allocator);
  if (!e.allocator) e.allocator = model::ArgStr(p.args, k.allocator_name);
  // The innermost op slice open on this thread; an "op" argument only when none is open.
  e.op = p.op ? p.op : model::ArgStr(p.args, k.op);
  if (keep_details) {
    MemoryDetail d;
    Int(p.args, k.requested, &d.requested);
    Int(p.args, k.reserved, &d.reserved);
    Int(p.args, k.peak, &d.allocator_peak);
    Int(p.args, k.bytes_allocated, &d.held);
    Arg x;
    if (model::ArgNumber(p.args, k.fragmentation, &x))
      d.fragmentation = x.type == layout::ArgType::kFloat ? x.v.f : static_cast<double>(x.v.i);
    if (!(d.fragmentation >= 0 && d.fragmentation <= 1)) d.fragmentation = -1;  // NaN: 0/0
    d.shape = model::ArgStr(p.args, k.shape);
    d.region = model::ArgStr(p.args, k.region);
    int64_t dtype = -1;
    if (Int(p.args, k.dtype, &dtype) && dtype >= 0 && dtype < 1000)
      d.dtype = static_cast<int32_t>(dtype);
    if (!d.shape && !open_.empty()) d.op_inputs = open_.back();
    details.push_back(d);
    e.detail = static_cast<uint32_t>(details.size());
  }
  events.push_back(e);
}

MemoryScans::MemoryScans(const model::TraceModel& m, bool details) : m_(m), details_(details) {
  for (const auto& p : m.processes) keys_.push_back(std::make_shared<Keys>(KeysOf(p)));
  for (size_t i = 0; i < m.tracks.size(); ++i)
    if (m.tracks[i].kind != layout::TrackKind::kDevice) {
      tracks.emplace_back(m, i, keys_[m.tracks[i].process].get());
      tracks.back().keep_details = details;
    }
  if (details) kept.resize(m.processes.size());
}

MemoryResult MemoryScans::Fold(size_t max_points) {
  MemoryResult r;
  max_points = std::max<size_t>(max_points, 1);
  uint64_t first = UINT64_MAX, last = 0;
  for (const auto& t : tracks) {
    first = std::min(first, t.first);
    last = std::max(last, t.last);
  }
  if (first == UINT64_MAX) first = last = 0;
  r.first = first;
  r.last = last;
  uint64_t span = std::max<uint64_t>(last - first, 1);
  std::map<std::pair<size_t, std::string>, Running> by;  // (process, allocator)
  size_t processes_with_allocs = 0;
  for (size_t p = 0; p < m_.processes.size(); ++p) {
    std::vector<Event> ev;
    for (auto& t : tracks) {
      if (m_.tracks[t.track()].process != p || t.events.empty()) continue;
      ev.insert(ev.end(), t.events.begin(), t.events.end());
      std::vector<Event>().swap(t.events);
    }
    if (ev.empty()) continue;
    ++processes_with_allocs;
    FoldProcess(m_, p, ev, first, span, max_points, &r, &by);
    if (details_) kept[p] = std::move(ev);
  }
  std::vector<size_t> allocating;
  for (const auto& [key, x] : by)
    if (allocating.empty() || allocating.back() != key.first) allocating.push_back(key.first);
  std::vector<std::string> tags = model::ProcessTags(m_, allocating);
  for (auto& [key, x] : by) {
    x.Flush();
    x.a.process = key.first;
    x.a.name = x.a.allocator = key.second;
    if (processes_with_allocs > 1) x.a.name += " (" + tags[key.first] + ")";
    x.a.final_bytes = x.cur;
    r.allocators.push_back(std::move(x.a));
  }
  std::sort(r.allocators.begin(), r.allocators.end(),
            [](const AllocatorMemory& a, const AllocatorMemory& b) { return a.peak > b.peak; });
  return r;
}

MemoryResult ComputeMemory(const model::TraceModel& m, size_t max_points, unsigned threads,
                           std::vector<Problem>* problems) {
  MemoryScans scans(m);
  std::vector<std::vector<Problem>> probs(scans.tracks.size());
  ParallelFor(scans.tracks.size(), DefaultThreads(threads), [&](size_t i) {
    model::ScanTrack(m, m.tracks[scans.tracks[i].track()], &probs[i], scans.tracks[i]);
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  return scans.Fold(max_points);
}

}  // namespace tt::analysis
