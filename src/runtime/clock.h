// The runtime's clock: CLOCK_MONOTONIC nanoseconds, produced from the TSC when it is usable.
// Each thread keeps its own anchor (a paired TSC and clock_gettime reading) and re-anchors
// every few milliseconds, so the calibration error never accumulates.
#pragma once
#include <x86intrin.h>

#include <cstdint>

#include "core/hot.h"
#include "core/time.h"

namespace tt::rt {

struct ClockConfig {
  uint64_t mult = 0;            // ns per tick, 32.32 fixed point; 0: use clock_gettime
  uint64_t reanchor_ticks = 0;  // ticks between re-anchorings; 0 without a TSC clock
  uint64_t pair_ticks = 0;      // an anchor's two TSC reads this close are read once only
  // Tests only (TENSORTRACE_TEST_CLOCK_SHIFT_NS): added to every time the process records, as
  // if its clock were off by that much; its recorded CLOCK_REALTIME offsets are not shifted.
  uint64_t test_shift_ns = 0;
};
extern ClockConfig g_clock;

struct Anchor {
  uint64_t tsc = 0;
  uint64_t ns = 0;
};

// Sets up the clock from TENSORTRACE_TSC (a calibration passed down by `record`), or
// calibrates briefly itself.
void InitClock();

// The clock's slow cases: re-anchoring, or clock_gettime where there is no TSC clock.
uint64_t SlowNowNs(Anchor* a);

// Without a TSC clock reanchor_ticks is 0, so one comparison sends both slow cases out of line.
TT_HOT bool TscNowNs(const Anchor* a, uint64_t* ns) {
  uint64_t d = __rdtsc() - a->tsc;
  if (__builtin_expect(d >= g_clock.reanchor_ticks, 0)) return false;
  *ns = a->ns + static_cast<uint64_t>((static_cast<unsigned __int128>(d) * g_clock.mult) >> 32);
  return true;
}

TT_HOT uint64_t NowNs(Anchor* a) {
  uint64_t ns;
  return TscNowNs(a, &ns) ? ns : SlowNowNs(a);
}

}  // namespace tt::rt
