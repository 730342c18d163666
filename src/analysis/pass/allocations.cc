#include "analysis/pass/allocations.h"

#include <algorithm>

namespace tt::analysis {

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

std::unordered_map<uint32_t, OpMemory> AttributeAllocations(
    std::vector<std::vector<AllocEvent>*> runs) {
  std::vector<AllocEvent> all;
  auto by_ts = [](const AllocEvent& a, const AllocEvent& b) { return a.ts < b.ts; };
  for (auto* run : runs) {
    size_t mid = all.size();
    all.insert(all.end(), run->begin(), run->end());
    std::vector<AllocEvent>().swap(*run);
    std::inplace_merge(all.begin(), all.begin() + static_cast<long>(mid), all.end(), by_ts);
  }
  std::unordered_map<uint32_t, OpMemory> ops;
  std::unordered_map<uint64_t, std::pair<uint32_t, int64_t>> live;  // addr -> (op, bytes)
  std::unordered_map<uint32_t, int64_t> in_use;
  for (const auto& e : all) {
    if (e.bytes > 0) {
      if (!e.op) continue;
      OpMemory& g = ops[e.op];
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
    int64_t& res = ops[ob.first].residual;
    res = SatAdd(res, ob.second);
  }
  return ops;
}

}  // namespace tt::analysis
