#include "analysis/pass/intervals.h"

namespace tt::analysis {

void SortedIntervals::Build() {
  std::sort(v.begin(), v.end(),
            [](const Interval& x, const Interval& y) { return x.start < y.start; });
  reach.resize(v.size());
  uint64_t r = 0;
  for (size_t i = 0; i < v.size(); ++i) reach[i] = r = std::max(r, v[i].end);
}

std::vector<Interval> SortedIntervals::Merged(uint64_t lo, uint64_t hi) const {
  std::vector<Interval> out;
  for (size_t i = From(lo); i < v.size(); ++i) {
    const Interval& x = v[i];
    if (x.start >= hi) break;
    uint64_t s = std::max(x.start, lo), e = std::min(x.end, hi);
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().end)
      out.back().end = std::max(out.back().end, e);
    else
      out.push_back({s, e});
  }
  return out;
}

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

uint64_t OverlapLength(const SortedIntervals& a, const SortedIntervals& b, uint64_t lo,
                       uint64_t hi) {
  std::vector<Interval> ma = a.Merged(lo, hi), mb = b.Merged(lo, hi);
  uint64_t total = 0;
  size_t i = 0, j = 0;
  while (i < ma.size() && j < mb.size()) {
    uint64_t s = std::max(ma[i].start, mb[j].start), e = std::min(ma[i].end, mb[j].end);
    if (e > s) total += e - s;
    (ma[i].end < mb[j].end ? i : j)++;
  }
  return total;
}

}  // namespace tt::analysis
