#include "sources/itt/itt_handles.h"

#include <pthread.h>

#include <cstring>

namespace tt::itt {

std::atomic<uintptr_t> g_process_generation{1};

namespace {

constexpr uint32_t kMaxDomains = 1024;
constexpr uint32_t kMaxStrings = 16384;
constexpr uint32_t kStringSlots = 2 * kMaxStrings;  // open addressing, power of two
constexpr uint32_t kMaxCounters = 1024;
constexpr uint32_t kArenaBytes = 1 << 20;
constexpr size_t kMaxLen = 1024;  // longer names are truncated

// Static storage: no allocation, and handles stay valid until the process ends.
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
Domain g_domains[kMaxDomains];
uint32_t g_ndomains = 0;
StringHandle g_strings[kMaxStrings];
uint32_t g_nstrings = 0;
uint32_t g_string_slots[kStringSlots];  // index + 1, 0 when empty
CounterInfo g_counters[kMaxCounters];
uint32_t g_ncounters = 0;
char g_arena[kArenaBytes];
uint32_t g_arena_used = 0;

struct Locked {
  Locked() { pthread_mutex_lock(&g_lock); }
  ~Locked() { pthread_mutex_unlock(&g_lock); }
};

// fork() while another thread creates a handle must not leave the child's lock held.
void LockForFork() { pthread_mutex_lock(&g_lock); }
void UnlockAfterFork() { pthread_mutex_unlock(&g_lock); }
void ChildAfterFork() {
  pthread_mutex_unlock(&g_lock);
  g_process_generation.fetch_add(1, std::memory_order_relaxed);  // the child reports anew
}
[[maybe_unused]] const int g_atfork = pthread_atfork(LockForFork, UnlockAfterFork, ChildAfterFork);

// A copy of `s` in the arena (truncated to kMaxLen); null when the arena is full.
const char* CopyLocked(const char* s) {
  size_t n = strnlen(s, kMaxLen);
  if (g_arena_used + n + 1 > kArenaBytes) return nullptr;
  char* p = g_arena + g_arena_used;
  std::memcpy(p, s, n);
  p[n] = 0;
  g_arena_used += static_cast<uint32_t>(n + 1);
  return p;
}

bool SameName(const char* a, const char* b) { return std::strncmp(a, b, kMaxLen) == 0; }

uint32_t Hash(const char* s) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < kMaxLen && s[i]; ++i)
    h = (h ^ static_cast<unsigned char>(s[i])) * 16777619u;
  return h;
}

}  // namespace

layout::Category DomainCategory(const char* name) {
  if (!name) return layout::Category::kUser;
  if (std::strncmp(name, "dnnl", 4) == 0 || std::strncmp(name, "oneDNN", 6) == 0 ||
      std::strncmp(name, "onednn", 6) == 0)
    return layout::Category::kPrimitive;
  return layout::Category::kUser;
}

Domain* CreateDomain(const char* name) {
  if (!name) return nullptr;
  Domain* d = nullptr;
  {
    Locked l;
    for (uint32_t i = 0; i < g_ndomains; ++i)
      if (SameName(g_domains[i].nameA, name)) return &g_domains[i];
    if (g_ndomains == kMaxDomains) return nullptr;
    const char* copy = CopyLocked(name);
    if (!copy) return nullptr;
    d = &g_domains[g_ndomains++];
    d->nameA = copy;
    d->extra1 = CategoryTag(DomainCategory(copy));
    d->flags = 1;  // enabled: callers skip every call on a domain with flags 0
  }
  return d;
}

StringHandle* CreateStringHandle(const char* name) {
  if (!name) return nullptr;
  Locked l;
  uint32_t slot = Hash(name) & (kStringSlots - 1);
  for (; g_string_slots[slot] != 0; slot = (slot + 1) & (kStringSlots - 1)) {
    StringHandle* h = &g_strings[g_string_slots[slot] - 1];
    if (SameName(h->strA, name)) return h;
  }
  if (g_nstrings == kMaxStrings) return nullptr;
  const char* copy = CopyLocked(name);
  if (!copy) return nullptr;
  StringHandle* h = &g_strings[g_nstrings++];
  h->strA = copy;
  g_string_slots[slot] = g_nstrings;
  return h;
}

CounterInfo* CreateCounter(const char* name, const char* domain, int type) {
  if (!name) return nullptr;
  Locked l;
  for (uint32_t i = 0; i < g_ncounters; ++i) {
    const CounterInfo& c = g_counters[i];
    bool same_domain = domain ? c.domainA && SameName(c.domainA, domain) : c.domainA == nullptr;
    if (same_domain && SameName(c.nameA, name)) return &g_counters[i];
  }
  if (g_ncounters == kMaxCounters) return nullptr;
  const char* copy = CopyLocked(name);
  const char* dcopy = domain ? CopyLocked(domain) : nullptr;
  if (!copy || (domain && !dcopy)) return nullptr;
  CounterInfo* c = &g_counters[g_ncounters++];
  c->nameA = copy;
  c->domainA = dcopy;
  c->type = type;
  return c;
}

int StringHandleIndex(const StringHandle* h) { return h ? static_cast<int>(h - g_strings) + 1 : 0; }

const StringHandle* StringHandleAt(int index) {
  // Handles are only added, and an index is only known after its handle was written.
  if (index <= 0 || index > static_cast<int>(kMaxStrings)) return nullptr;
  const StringHandle* h = &g_strings[index - 1];
  return h->strA ? h : nullptr;
}

}  // namespace tt::itt
