// Time units: every timestamp in tensortrace is CLOCK_MONOTONIC nanoseconds (uint64).
#pragma once
#include <cstdint>
#include <ctime>

namespace tt {

using TimeNs = uint64_t;

inline constexpr uint64_t kNsPerSec = 1000000000ull;

inline TimeNs ReadClockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerSec + static_cast<TimeNs>(ts.tv_nsec);
}

// Realtime minus monotonic, taken from the tightest of a few paired readings.
int64_t MeasureRealtimeOffsetNs();

}  // namespace tt
