// A shared capacity's share over a measured step (replay's CPU and GIL sharing, cpu_share.h):
// built from the asks of the work that ran on it (+ at a start, - at an end), the share each ask
// got at each time (CoreShare: capacity over the load, where the load exceeds it), and its
// integral over any interval.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tt::analysis::replay {

class ShareCurve {
 public:
  ShareCurve() = default;
  // changes: (time, capacity asked for: + at a start, - at an end); `capacity`: cores.
  ShareCurve(std::vector<std::pair<uint64_t, double>> changes, uint32_t capacity);
  // The integral of the share over [a, b] (both times of changes, or outside them).
  double Over(uint64_t a, uint64_t b) const { return Integral(b) - Integral(a); }
  // The share from time t on (1 before the first change and after the last).
  double At(uint64_t t) const;
  // The times the share changes within (a, b), in order.
  std::vector<uint64_t> ChangesWithin(uint64_t a, uint64_t b) const;

 private:
  double Integral(uint64_t t) const;
  std::vector<uint64_t> at_;
  std::vector<double> integral_;  // from the first change to at_[i]
  std::vector<double> share_;     // from at_[i] to at_[i + 1]
};

// The integral over [a, b] of f(x(t), y(t)) for two curves' shares x and y, f evaluated on
// each piece where both are constant.
template <typename F>
double IntegrateBoth(const ShareCurve& x, const ShareCurve& y, uint64_t a, uint64_t b, F f) {
  std::vector<uint64_t> cuts = x.ChangesWithin(a, b);
  std::vector<uint64_t> more = y.ChangesWithin(a, b);
  cuts.insert(cuts.end(), more.begin(), more.end());
  cuts.push_back(b);
  std::sort(cuts.begin(), cuts.end());
  double sum = 0;
  uint64_t from = a;
  for (uint64_t t : cuts) {
    if (t <= from) continue;
    sum += static_cast<double>(t - from) * f(x.At(from), y.At(from));
    from = t;
  }
  return sum;
}

}  // namespace tt::analysis::replay
