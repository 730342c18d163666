#include "runtime/clock.h"

#include <cstdlib>

#include "core/tsc.h"

namespace tt::rt {

constinit ClockConfig g_clock;

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
}

uint64_t SlowNowNs(Anchor* a) {
  if (g_clock.mult == 0) return ReadClockNs(CLOCK_MONOTONIC) + g_clock.test_shift_ns;
  uint64_t t0 = __rdtsc();
  uint64_t ns = ReadClockNs(CLOCK_MONOTONIC);
  uint64_t t1 = __rdtsc();
  ns += g_clock.test_shift_ns;  // tests only; 0 otherwise
  a->tsc = t0 + (t1 - t0) / 2;
  a->ns = ns;
  return ns;
}

}  // namespace tt::rt
