// Interned names: each distinct string gets a process-wide id (1, 2, ...), defined once by a
// string_def event in the process stream before any event uses it. Lookups are lock-free;
// inserting takes the process lock. The table and its strings live in mmap'd memory of fixed
// size, so interning never calls malloc (it may run in a signal handler).
#pragma once
#include <cstdint>
#include <cstring>

#include "core/hot.h"

namespace tt::rt {

inline constexpr uint32_t kMaxNameLen = 4096;

// Resets the table (process start, and in a child after fork). False if memory is short.
bool InitInternTable();

// The id of `name` (truncated to kMaxNameLen), interning it if new; 0 when the table is full
// or the definition could not be written.
uint32_t Intern(const char* name);

// Per-thread cache keyed by the caller's pointer; a hit still compares the text, since callers
// such as ctypes reuse buffers for different names.
struct NameCache {
  static constexpr uint32_t kSize = 256;
  struct Entry {
    const char* ptr;
    const char* text;
    uint32_t id;
  } e[kSize];
};

TT_HOT uint32_t InternCached(NameCache* c, const char* name) {
  auto h = reinterpret_cast<uintptr_t>(name);
  NameCache::Entry& e = c->e[((h >> 3) ^ (h >> 11)) & (NameCache::kSize - 1)];
  if (__builtin_expect(e.ptr == name, 1) && std::strcmp(e.text, name) == 0) return e.id;
  uint32_t id = Intern(name);
  if (id != 0) {
    extern const char* InternedText(uint32_t id);
    e.ptr = name;
    e.text = InternedText(id);
    e.id = id;
  }
  return id;
}

const char* InternedText(uint32_t id);

}  // namespace tt::rt
