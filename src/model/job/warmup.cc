#include "model/job/warmup.h"

#include <algorithm>

namespace tt::model {

namespace {

// The first window of `v` (sorted, merged; half-open [start, end)) that ends after `t`.
std::vector<Window>::const_iterator EndingAfter(const std::vector<Window>& v, uint64_t t) {
  return std::upper_bound(v.begin(), v.end(), t,
                          [](uint64_t x, const Window& w) { return x < w.end; });
}

// The length of [from, to) that `v` (sorted, merged) covers.
uint64_t Covered(const std::vector<Window>& v, uint64_t from, uint64_t to) {
  uint64_t n = 0;
  for (auto it = EndingAfter(v, from); it != v.end() && it->start < to; ++it)
    n += std::min(to, it->end) - std::max(from, it->start);
  return n;
}

// True when some compilation in [from, to) is not also an input wait.
bool CompilesWithin(const WarmupIntervals& w, uint64_t from, uint64_t to) {
  for (auto it = EndingAfter(w.compile, from); it != w.compile.end() && it->start < to; ++it) {
    uint64_t a = std::max(from, it->start), b = std::min(to, it->end);
    if (b > a && Covered(w.input, a, b) < b - a) return true;
  }
  return false;
}

}  // namespace

void MarkWarmup(std::vector<WarmupIntervals> per_process, std::vector<Step>* steps) {
  for (WarmupIntervals& w : per_process) {
    SortAndMerge(&w.compile);
    SortAndMerge(&w.input);
  }
  for (Step& s : *steps) {
    if (s.process >= per_process.size()) continue;
    for (const Window& part : StepParts(s))
      s.warmup = s.warmup || CompilesWithin(per_process[s.process], part.start, part.end);
  }
}

}  // namespace tt::model
