// The handles the ITT collector gives out: domains, string handles and counters. Each distinct
// name gets one handle, allocated once from fixed pools (thread-safe, bounded, never freed), so
// a caller may cache it for the life of the process, as oneDNN does.
#pragma once
#include <atomic>
#include <cstdint>

#include "format/layout.h"
#include "sources/itt/itt_abi.h"

namespace tt::itt {

// Null when the pool is full (callers skip calls on a null domain).
Domain* CreateDomain(const char* name);
StringHandle* CreateStringHandle(const char* name);
// Our counters have the static part's layout, so a handle from either reads alike. The running
// value that inc/dec move lives in extra2 (reserved to the collector).
CounterInfo* CreateCounter(const char* name, const char* domain, int type);
// String handles by a small integer, for the __itt_event API (0: none).
int StringHandleIndex(const StringHandle* h);
const StringHandle* StringHandleAt(int index);

// Changes in a forked child, so that each process lists the domains it used (ReportDomain).
extern std::atomic<uintptr_t> g_process_generation;

// oneDNN's domains hold primitives; every other domain holds user annotations.
layout::Category DomainCategory(const char* name);

// The category kept in a domain (computed and stored on first use for foreign domains).
inline layout::Category CategoryOf(const Domain* d) {
  // Relaxed atomics: threads the instrumented library synchronises in ways a race detector
  // may not see (an uninstrumented OpenMP runtime) read what one thread wrote.
  int c = __atomic_load_n(&d->extra1, __ATOMIC_RELAXED);
  if (__builtin_expect(c > 0, 1)) return static_cast<layout::Category>(c - 1);
  return DomainCategory(d->nameA);
}
inline int CategoryTag(layout::Category c) { return static_cast<int>(c) + 1; }

}  // namespace tt::itt
