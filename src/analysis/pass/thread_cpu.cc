// A thread's CPU time over time (thread_cpu.h).
#include "analysis/pass/thread_cpu.h"

#include <algorithm>

namespace tt::analysis {

void ThreadCpu::Add(uint64_t at, uint64_t since, int64_t cpu_ns) {
  double cpu = static_cast<double>(cpu_ns);
  if (!reads_.empty() && (at <= reads_.back().first || cpu < reads_.back().second)) return;
  if (!reads_.empty() && since > reads_.back().first && since < at)
    reads_.emplace_back(since, reads_.back().second);  // no CPU used until the previous look
  reads_.emplace_back(at, cpu);
}

template <typename F>
double ThreadCpu::Sum(uint64_t start, uint64_t end, F part) const {
  if (reads_.size() < 2 || end < start || start < reads_.front().first || end > reads_.back().first)
    return -1;
  auto it = std::upper_bound(
      reads_.begin(), reads_.end(), start,
      [](uint64_t x, const std::pair<uint64_t, double>& r) { return x < r.first; });
  if (it == reads_.begin()) ++it;
  double used = 0;
  for (; it != reads_.end() && std::prev(it)->first < end; ++it) {
    uint64_t a = std::max(start, std::prev(it)->first), b = std::min(end, it->first);
    double overlap = b > a ? static_cast<double>(b - a) : 0;
    used += part(it->second - std::prev(it)->second, overlap,
                 static_cast<double>(it->first - std::prev(it)->first));
  }
  return used;
}

double ThreadCpu::During(uint64_t start, uint64_t end) const {
  return Sum(start, end,
             [](double amount, double overlap, double) { return std::min(amount, overlap); });
}

double ThreadCpu::Spread(uint64_t start, uint64_t end) const {
  return Sum(start, end, [](double amount, double overlap, double len) {
    return len > 0 ? amount * overlap / len : 0.0;
  });
}

}  // namespace tt::analysis
