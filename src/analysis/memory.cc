#include "analysis/memory.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/parallel.h"
#include "format/keys.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

using layout::Category;

namespace {

struct Keys {
  uint32_t bytes = 0, bytes_allocated = 0, addr = 0, allocator = 0, allocator_name = 0, op = 0;
};

Keys KeysOf(const model::Process& p) {
  auto [bytes, bytes_allocated, addr, allocator, allocator_name, op] =
      model::KeyIds(p, {keys::kBytes, keys::kBytesAllocated, keys::kAddr, keys::kAllocator,
                        keys::kAllocatorName, keys::kOp});
  return {bytes, bytes_allocated, addr, allocator, allocator_name, op};
}

bool Int(const model::ArgsView& a, uint32_t key, int64_t* out) {
  std::optional<int64_t> v = model::ArgInt(a, key);
  if (v) *out = *v;
  return v.has_value();
}

struct Event {
  uint64_t ts = 0, addr = 0;
  int64_t bytes = 0;               // -1: not given
  uint32_t allocator = 0, op = 0;  // interned ids of the event's process (0: none)
  uint32_t track = 0;
  bool is_free = false, has_addr = false;
};

struct Visitor {
  const model::Process& proc;
  const Keys& k;
  uint32_t track;
  std::vector<Event>* out;
  uint64_t first = UINT64_MAX, last = 0;
  void OnBegin(const model::Slice&) {}
  void OnSlice(const model::Slice& s) {
    first = std::min(first, s.start);
    last = std::max(last, s.end);
  }
  void OnPoint(const model::Point& p) {
    first = std::min(first, p.ts);
    last = std::max(last, p.ts);
    if (p.category != Category::kAllocation || p.counter) return;
    Event e;
    e.ts = p.ts;
    e.track = track;
    std::string_view name = proc.Name(p.name);
    e.is_free = keys::IsFreeEvent(name);
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
    out->push_back(e);
  }
};

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
};

}  // namespace

MemoryResult ComputeMemory(const model::TraceModel& m, size_t max_points, unsigned threads,
                           std::vector<Problem>* problems) {
  MemoryResult r;
  max_points = std::max<size_t>(max_points, 1);
  std::vector<Keys> keys;
  for (const auto& p : m.processes) keys.push_back(KeysOf(p));
  std::vector<size_t> host;
  for (size_t i = 0; i < m.tracks.size(); ++i)
    if (m.tracks[i].kind != layout::TrackKind::kDevice) host.push_back(i);
  std::vector<std::vector<Event>> found(host.size());
  std::vector<std::vector<Problem>> probs(host.size());
  std::vector<uint64_t> firsts(host.size(), UINT64_MAX), lasts(host.size(), 0);
  ParallelFor(host.size(), DefaultThreads(threads), [&](size_t i) {
    const model::Track& t = m.tracks[host[i]];
    Visitor v{m.processes[t.process], keys[t.process], static_cast<uint32_t>(host[i]), &found[i]};
    model::ScanTrack(m, t, &probs[i], v);
    firsts[i] = v.first;
    lasts[i] = v.last;
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    first = std::min(first, firsts[i]);
    last = std::max(last, lasts[i]);
  }
  if (first == UINT64_MAX) first = last = 0;
  r.first = first;
  r.last = last;
  uint64_t span = std::max<uint64_t>(last - first, 1);

  std::map<std::pair<size_t, std::string>, Running> by;  // (process, allocator)
  size_t processes_with_allocs = 0;
  for (size_t p = 0; p < m.processes.size(); ++p) {
    std::vector<Event> ev;
    for (size_t i = 0; i < host.size(); ++i) {
      if (m.tracks[host[i]].process != p || found[i].empty()) continue;
      ev.insert(ev.end(), found[i].begin(), found[i].end());
      std::vector<Event>().swap(found[i]);
    }
    if (ev.empty()) continue;
    ++processes_with_allocs;
    // Each track is in time order; a stable sort keeps a thread's own order at equal times.
    std::stable_sort(ev.begin(), ev.end(),
                     [](const Event& a, const Event& b) { return a.ts < b.ts; });
    const model::Process& proc = m.processes[p];
    std::unordered_map<uint64_t, std::pair<Running*, int64_t>> live;  // addr -> (alloc, bytes)
    for (const Event& e : ev) {
      r.events++;
      Running* run = nullptr;
      int64_t delta = 0;
      if (!e.is_free) {
        if (e.bytes <= 0) continue;
        std::string name = e.allocator ? std::string(proc.Name(e.allocator)) : "default";
        run = &by[{p, name}];
        run->a.allocations++;
        delta = e.bytes;
        if (e.has_addr) live[e.addr] = {run, e.bytes};
      } else {
        auto it = e.has_addr ? live.find(e.addr) : live.end();
        if (it != live.end()) {
          run = it->second.first;
          delta = -it->second.second;
          live.erase(it);
        } else if (e.bytes > 0) {
          std::string name = e.allocator ? std::string(proc.Name(e.allocator)) : "default";
          run = &by[{p, name}];
          delta = -e.bytes;
        } else {
          std::string name = e.allocator ? std::string(proc.Name(e.allocator)) : "default";
          by[{p, name}].a.unmatched_frees++;
          continue;
        }
        run->a.frees++;
      }
      Running& x = *run;
      x.cur += delta;
      if (x.cur > x.a.peak) {
        x.a.peak = x.cur;
        x.a.peak_ts = e.ts;
        x.a.peak_op = e.op ? std::string(proc.Name(e.op)) : "";
        const model::Track& t = m.tracks[e.track];
        x.a.peak_thread = t.name.empty() ? "tid " + std::to_string(t.id) : t.name;
      }
      uint64_t off = e.ts > first ? e.ts - first : 0;
      int64_t b = static_cast<int64_t>(std::min<uint64_t>(
          max_points - 1, static_cast<uint64_t>(static_cast<double>(off) / span * max_points)));
      MemorySample s{e.ts, x.cur};
      if (b != x.bucket) {
        x.Flush();
        x.bucket = b;
        x.bucket_max = s;
      } else if (s.bytes > x.bucket_max.bytes) {
        x.bucket_max = s;
      }
      x.bucket_last = s;
    }
  }
  for (auto& [key, x] : by) {
    x.Flush();
    x.a.process = key.first;
    x.a.name = key.second;
    if (processes_with_allocs > 1)
      x.a.name += " (pid " + std::to_string(m.processes[key.first].meta.pid) + ")";
    x.a.final_bytes = x.cur;
    r.allocators.push_back(std::move(x.a));
  }
  std::sort(r.allocators.begin(), r.allocators.end(),
            [](const AllocatorMemory& a, const AllocatorMemory& b) { return a.peak > b.peak; });
  return r;
}

}  // namespace tt::analysis
