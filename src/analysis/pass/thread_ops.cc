#include "analysis/pass/thread_ops.h"

#include <algorithm>

namespace tt::analysis {

void ThreadOps::Take(ThreadOps* other) {
  if (v_.empty()) {
    v_.swap(other->v_);
  } else {
    v_.insert(v_.end(), other->v_.begin(), other->v_.end());
  }
  std::vector<Span>().swap(other->v_);
}

void ThreadOps::Build() {
  // By start, outer first on equal starts: an enclosing span comes before what it holds.
  std::sort(v_.begin(), v_.end(), [](const Span& a, const Span& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<uint32_t> open;  // indices + 1 of the spans enclosing the current one
  for (size_t i = 0; i < v_.size(); ++i) {
    while (!open.empty() && v_[open.back() - 1].end < v_[i].end) open.pop_back();
    v_[i].parent = open.empty() ? 0 : open.back();
    open.push_back(static_cast<uint32_t>(i + 1));
  }
}

uint32_t ThreadOps::Innermost(uint64_t start, uint64_t end) const {
  // The last span starting at or before `start`; every span containing [start, end] encloses
  // it (spans of one thread nest), so the answer is on its chain of parents.
  auto it = std::upper_bound(v_.begin(), v_.end(), start,
                             [](uint64_t s, const Span& x) { return s < x.start; });
  if (it == v_.begin()) return 0;
  uint32_t i = static_cast<uint32_t>(it - v_.begin());  // index + 1
  while (i && v_[i - 1].end < end) i = v_[i - 1].parent;
  return i ? v_[i - 1].op : 0;
}

}  // namespace tt::analysis
