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
    ++count_;
    total_ += ns;
    min_ = std::min(min_, ns);
    max_ = std::max(max_, ns);
    double x = static_cast<double>(ns), d = x - mean_;
    mean_ += d / static_cast<double>(count_);
    m2_ += d * (x - mean_);
    samples_.push_back(static_cast<float>(ns));
  }
  void Merge(const Summary& o) {
    if (o.count_ == 0) return;
    uint64_t n = count_ + o.count_;
    double d = o.mean_ - mean_;
    m2_ += o.m2_ + d * d * static_cast<double>(count_) * static_cast<double>(o.count_) /
                       static_cast<double>(n);
    mean_ += d * static_cast<double>(o.count_) / static_cast<double>(n);
    count_ = n;
    total_ += o.total_;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
    samples_.insert(samples_.end(), o.samples_.begin(), o.samples_.end());
  }
  uint64_t count() const { return count_; }
  uint64_t total() const { return total_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return mean_; }
  double stddev() const { return count_ > 1 ? std::sqrt(m2_ / static_cast<double>(count_)) : 0; }
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
  double mean_ = 0, m2_ = 0;
  std::vector<float> samples_;
};

}  // namespace tt::analysis
