// A lookup from ids (CUPTI correlation ids, external correlation ids) to a 64-bit value, built
// once from (id, value) pairs. Ids handed out by a counter are dense, and then the index is a
// plain array (8 bytes an id); sparse ids fall back to a sorted array and binary search.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tt::analysis {

class IdIndex {
 public:
  static constexpr uint64_t kMissing = UINT64_MAX;

  // Takes the pairs; a later pair for the same id wins.
  void Build(std::vector<std::pair<uint64_t, uint64_t>>&& pairs) {
    dense_.clear();
    sorted_.clear();
    if (pairs.empty()) return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& p : pairs) {
      lo = std::min(lo, p.first);
      hi = std::max(hi, p.first);
    }
    if (hi - lo < 4 * pairs.size() + 1024) {
      base_ = lo;
      dense_.assign(hi - lo + 1, kMissing);
      for (const auto& p : pairs) dense_[p.first - lo] = p.second;
      std::vector<std::pair<uint64_t, uint64_t>>().swap(pairs);
    } else {
      std::stable_sort(pairs.begin(), pairs.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      sorted_ = std::move(pairs);
    }
  }

  uint64_t Find(uint64_t id) const {
    if (!dense_.empty()) return id >= base_ && id - base_ < dense_.size() ? dense_[id - base_] : kMissing;
    auto it = std::upper_bound(sorted_.begin(), sorted_.end(), id,
                               [](uint64_t x, const auto& p) { return x < p.first; });
    if (it == sorted_.begin() || std::prev(it)->first != id) return kMissing;
    return std::prev(it)->second;
  }

 private:
  uint64_t base_ = 0;
  std::vector<uint64_t> dense_;
  std::vector<std::pair<uint64_t, uint64_t>> sorted_;
};

}  // namespace tt::analysis
