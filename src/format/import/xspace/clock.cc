#include "format/import/xspace/clock.h"

#include <algorithm>

namespace tt {

void RealtimeToTrace::AddPoint(uint64_t mono_ns, int64_t offset_ns) {
  Point p{mono_ns, offset_ns};
  auto it = std::upper_bound(points_.begin(), points_.end(), p,
                             [](const Point& a, const Point& b) { return a.mono < b.mono; });
  points_.insert(it, p);
}

int64_t RealtimeToTrace::OffsetAt(uint64_t mono_ns) const {
  if (points_.empty()) return 0;
  if (mono_ns <= points_.front().mono) return points_.front().offset;
  if (mono_ns >= points_.back().mono) return points_.back().offset;
  auto it = std::upper_bound(points_.begin(), points_.end(), mono_ns,
                             [](uint64_t t, const Point& p) { return t < p.mono; });
  const Point& b = *it;
  const Point& a = *(it - 1);
  if (b.mono == a.mono) return b.offset;
  // Integer arithmetic keeps the conversion monotonic (no double rounding).
  __int128 num = static_cast<__int128>(b.offset - a.offset) * (mono_ns - a.mono);
  return a.offset + static_cast<int64_t>(num / static_cast<__int128>(b.mono - a.mono));
}

uint64_t RealtimeToTrace::Convert(int64_t realtime_ns) const {
  if (points_.empty()) return realtime_ns > 0 ? static_cast<uint64_t>(realtime_ns) : 0;
  // Estimate the monotonic time with the first offset, then use the offset there.
  __int128 guess = static_cast<__int128>(realtime_ns) - points_.front().offset;
  __int128 mono =
      static_cast<__int128>(realtime_ns) -
      OffsetAt(guess > 0 ? static_cast<uint64_t>(std::min<__int128>(guess, INT64_MAX)) : 0);
  return mono > 0 ? static_cast<uint64_t>(std::min<__int128>(mono, INT64_MAX)) : 0;
}

}  // namespace tt
