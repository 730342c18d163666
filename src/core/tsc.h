// The time-stamp counter as a fast source of CLOCK_MONOTONIC nanoseconds.
#pragma once
#include <cstdint>

namespace tt {

// True when the CPU's TSC ticks at a constant rate in every power state (so it can stand in
// for CLOCK_MONOTONIC between re-anchorings).
bool TscUsable();

// Nanoseconds per TSC tick in 32.32 fixed point, measured against CLOCK_MONOTONIC over
// about `window_ms`. Returns 0 if the TSC is unusable.
uint64_t CalibrateTsc(int window_ms);

}  // namespace tt
