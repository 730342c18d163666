#include "runtime/clock.h"

#include <cstdlib>

#include "core/tsc.h"

namespace tt::rt {

constinit ClockConfig g_clock;

// A (TSC, clock_gettime) pair read within this many ns is good enough to anchor on: a
// clock_gettime through the vDSO takes some 20-50 ns.
constexpr uint64_t kNarrowPairNs = 2000;

void InitClock() {
  g_clock.mult = 0;
  g_clock.reanchor_ticks = 0;
  const char* shift = std::getenv("TENSORTRACE_TEST_CLOCK_SHIFT_NS");
  g_clock.test_shift_ns = shift ? std::strtoull(shift, nullptr, 10) : 0;
  const char* env = std::getenv("TENSORTRACE_TSC");
  if (env && env[0] == '0' && env[1] == '\0') return;  // forced off: clock_gettime
  uint64_t mult = env ? std::strtoull(env, nullptr, 10) : 0;
  if (mult == 0) mult = CalibrateTsc(5);
  if (mult == 0) return;
  g_clock.mult = mult;
  // Re-anchor every 10 ms: a calibration error of 1e-4 then costs at most 1 us.
  g_clock.reanchor_ticks = static_cast<uint64_t>((10000000ull << 32) / mult);
  g_clock.pair_ticks = static_cast<uint64_t>((kNarrowPairNs << 32) / mult);
}

// A pair is only as good as the gap between its two TSC reads: a thread preempted between them
// (a loaded machine) would anchor up to half a time slice off for the next 10 ms, and its
// events would seem to start before, or end after, those of other threads they nest in. So a
// wide pair is read again (a few times at most); the narrowest one anchors.
uint64_t SlowNowNs(Anchor* a) {
  if (g_clock.mult == 0) return ReadClockNs(CLOCK_MONOTONIC) + g_clock.test_shift_ns;
  uint64_t best = UINT64_MAX, ns = 0;
  for (int i = 0; i < 4 && best > g_clock.pair_ticks; ++i) {
    uint64_t t0 = __rdtsc();
    uint64_t n = ReadClockNs(CLOCK_MONOTONIC);
    uint64_t t1 = __rdtsc();
    if (t1 - t0 >= best) continue;
    best = t1 - t0;
    a->tsc = t0 + best / 2;
    a->ns = ns = n + g_clock.test_shift_ns;  // the shift: tests only; 0 otherwise
  }
  return ns;
}

}  // namespace tt::rt
