// A shared capacity's share over a measured step (share_curve.h).
#include "analysis/replay/share_curve.h"

#include "analysis/replay/cpu_share.h"

namespace tt::analysis::replay {

ShareCurve::ShareCurve(std::vector<std::pair<uint64_t, double>> changes, uint32_t capacity) {
  std::sort(changes.begin(), changes.end());
  double load = 0;
  double acc = 0;
  for (size_t i = 0; i < changes.size();) {
    uint64_t t = changes[i].first;
    if (!at_.empty()) acc += static_cast<double>(t - at_.back()) * share_.back();
    for (; i < changes.size() && changes[i].first == t; ++i) load += changes[i].second;
    at_.push_back(t);
    integral_.push_back(acc);
    share_.push_back(CoreShare(load, capacity));
  }
}

double ShareCurve::Integral(uint64_t t) const {
  if (at_.empty()) return static_cast<double>(t);  // nothing ran: a share of 1 throughout
  if (t <= at_.front()) return static_cast<double>(t) - static_cast<double>(at_.front());
  auto it = std::upper_bound(at_.begin(), at_.end(), t);
  size_t i = static_cast<size_t>(it - at_.begin()) - 1;
  return integral_[i] + static_cast<double>(t - at_[i]) * share_[i];
}

double ShareCurve::At(uint64_t t) const {
  auto it = std::upper_bound(at_.begin(), at_.end(), t);
  return it == at_.begin() ? 1.0 : share_[static_cast<size_t>(it - at_.begin()) - 1];
}

std::vector<uint64_t> ShareCurve::ChangesWithin(uint64_t a, uint64_t b) const {
  auto from = std::upper_bound(at_.begin(), at_.end(), a);
  auto to = std::lower_bound(from, at_.end(), b);
  return {from, to};
}

}  // namespace tt::analysis::replay
