// Statistics of a set of durations: count, total, min, max, mean, stddev (Welford) and an
// exact median (the samples are kept as floats, 4 bytes each).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tt::analysis {

class Summary {
 public:
  void Add(uint64_t ns) {
    if (count_ == 0) shift_ = static_cast<double>(ns);
    ++count_;
    total_ += ns;
    min_ = std::min(min_, ns);
    max_ = std::max(max_, ns);
    // Sums of values shifted by the first one: no division per sample, and no cancellation
    // when the spread is small next to the mean.
    double d = static_cast<double>(ns) - shift_;
    sum_d_ += d;
    sum_d2_ += d * d;
    if (keep_) samples_.push_back(static_cast<float>(ns));
  }
  // Without samples there is no median (saves 4 bytes per instance where none is shown).
  void KeepSamples(bool keep) { keep_ = keep; }
  void Merge(const Summary& o) {
    if (o.count_ == 0) return;
    if (count_ == 0) shift_ = o.shift_;
    // Re-shift the other's sums to this shift: sum(x - a) = sum(x - b) + n (b - a).
    double delta = o.shift_ - shift_, on = static_cast<double>(o.count_);
    sum_d2_ += o.sum_d2_ + 2 * delta * o.sum_d_ + on * delta * delta;
    sum_d_ += o.sum_d_ + on * delta;
    count_ += o.count_;
    total_ += o.total_;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
    samples_.insert(samples_.end(), o.samples_.begin(), o.samples_.end());
  }
  uint64_t count() const { return count_; }
  uint64_t total() const { return total_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? shift_ + sum_d_ / static_cast<double>(count_) : 0; }
  // Population standard deviation.
  double stddev() const {
    if (count_ < 2) return 0;
    double n = static_cast<double>(count_), m = sum_d_ / n;
    return std::sqrt(std::max(0.0, sum_d2_ / n - m * m));
  }
  // Exact for up to 2^24 ns per sample; float rounding beyond (relative error < 1e-7).
  double Median() {
    if (samples_.empty()) return 0;
    size_t mid = samples_.size() / 2;
    std::nth_element(samples_.begin(), samples_.begin() + static_cast<long>(mid), samples_.end());
    double hi = samples_[mid];
    if (samples_.size() % 2) return hi;
    double lo = *std::max_element(samples_.begin(), samples_.begin() + static_cast<long>(mid));
    return (lo + hi) / 2;
  }

 private:
  uint64_t count_ = 0, total_ = 0, min_ = UINT64_MAX, max_ = 0;
  double shift_ = 0, sum_d_ = 0, sum_d2_ = 0;
  bool keep_ = true;
  std::vector<float> samples_;
};

}  // namespace tt::analysis
