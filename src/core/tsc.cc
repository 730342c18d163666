#include "core/tsc.h"

#include <x86intrin.h>

#include <cstdio>
#include <cstring>

#include "core/time.h"

namespace tt {

bool TscUsable() {
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return false;
  char line[8192];
  bool constant = false, nonstop = false;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    constant = std::strstr(line, " constant_tsc") != nullptr;
    nonstop = std::strstr(line, " nonstop_tsc") != nullptr;
    break;
  }
  std::fclose(f);
  return constant && nonstop;
}

// One (tsc, ns) pair, taken where the two reads are closest together.
static void Pair(uint64_t* tsc, uint64_t* ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    uint64_t t0 = __rdtsc();
    uint64_t n = ReadClockNs(CLOCK_MONOTONIC);
    uint64_t t1 = __rdtsc();
    if (t1 - t0 < best) {
      best = t1 - t0;
      *tsc = t0 + (t1 - t0) / 2;
      *ns = n;
    }
  }
}

uint64_t CalibrateTsc(int window_ms) {
  if (!TscUsable()) return 0;
  uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
  Pair(&t0, &n0);
  uint64_t until = n0 + static_cast<uint64_t>(window_ms) * 1000000;
  while (ReadClockNs(CLOCK_MONOTONIC) < until) {
  }
  Pair(&t1, &n1);
  if (t1 <= t0 || n1 <= n0) return 0;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(n1 - n0) << 32) / (t1 - t0));
}

}  // namespace tt
