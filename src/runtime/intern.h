// Interned names: each distinct string gets a process-wide id (1, 2, ...), defined once by a
// string_def event in the process stream before any event uses it. Lookups are lock-free;
// inserting takes the process lock. The table and its strings live in mmap'd memory of fixed
// size, so interning never calls malloc (it may run in a signal handler).
#pragma once
#include <emmintrin.h>

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
// such as ctypes reuse buffers for different names. An entry also remembers the event class the
// name was last written with (event_classes.h), so that a repeated event takes one lookup.
struct NameCache {
  static constexpr uint32_t kSize = 256;
  static constexpr uint32_t kHead = 32;     // texts shorter than this are compared in place
  static constexpr uint32_t kMemoArgs = 4;  // events with more arguments are not remembered
  struct alignas(64) Entry {
    char head[kHead];  // the text's first bytes, zero-padded
    const char* ptr;
    const char* text;
    uint32_t id;
    uint32_t need;  // bits 0..len of an in-place comparison's mask (text and NUL); 0: strcmp
    // The remembered class: the event's shape word (0: none), each argument's key and
    // encoding, the class id (0: written self-described).
    uint64_t memo_w0;
    uint64_t memo_args[kMemoArgs];
    uint8_t memo_class;
  } e[kSize];
};

TT_HOT NameCache::Entry& NameSlot(NameCache* c, const char* name) {
  auto h = reinterpret_cast<uintptr_t>(name);
  return c->e[((h >> 3) ^ (h >> 11)) & (NameCache::kSize - 1)];
}

// Whether the NUL-terminated `name` equals the entry's text. A short text is compared with two
// 16-byte loads from `name` when both stay inside its page: such a load cannot fault, however
// short `name` is, and bytes past its NUL do not count. strcmp (a library call that cost a
// fifth of an instant) is left for long texts, page ends, and the sanitizers, which would take
// those bytes for an overflow.
// GCC names the sanitizers with macros, clang (14) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define TT_SANITIZED 1
#endif
#endif

TT_HOT bool CanCompareInPlace(const NameCache::Entry& e, const char* name) {
#ifdef TT_SANITIZED
  (void)e, (void)name;
  return false;
#else
  return e.need != 0 && (reinterpret_cast<uintptr_t>(name) & 4095) <= 4096 - NameCache::kHead;
#endif
}

// The in-place comparison (only where CanCompareInPlace).
TT_HOT bool SameTextInPlace(const NameCache::Entry& e, const char* name) {
  const char* p = name;
  asm("" : "+r"(p));  // the compiler must not judge the loads by the object `name` is in
  auto load = [](const char* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); };
  auto eq = [&](int at) {
    return static_cast<uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(load(p + at), load(e.head + at))));
  };
  uint32_t same = eq(0) | eq(16) << 16;
  return (same & e.need) == e.need;
}

TT_HOT bool SameText(const NameCache::Entry& e, const char* name) {
  if (CanCompareInPlace(e, name)) return SameTextInPlace(e, name);
  return std::strcmp(e.text, name) == 0;
}

// SameText for a path that must make no call (emit.h): false where it would take strcmp,
// except in the sanitizers' builds, where strcmp is the only way.
TT_HOT bool SameTextNoCall(const NameCache::Entry& e, const char* name) {
#ifdef TT_SANITIZED
  return SameText(e, name);
#else
  return CanCompareInPlace(e, name) && SameTextInPlace(e, name);
#endif
}

TT_HOT uint32_t InternCached(NameCache* c, const char* name) {
  NameCache::Entry& e = NameSlot(c, name);
  if (__builtin_expect(e.ptr == name, 1) && SameText(e, name)) return e.id;
  uint32_t id = Intern(name);
  if (id != 0) {
    extern const char* InternedText(uint32_t id);
    const char* text = InternedText(id);
    size_t len = std::strlen(text);
    std::memset(e.head, 0, sizeof e.head);
    std::memcpy(e.head, text, len < sizeof e.head ? len : sizeof e.head);
    e.ptr = name;
    e.text = text;
    e.id = id;
    // Bytes 0..len (len 31: all 32); a longer text is left to strcmp.
    e.need = len < NameCache::kHead ? (2u << len) - 1 : 0;
    e.memo_w0 = 0;  // the remembered class was another name's
  }
  return id;
}

const char* InternedText(uint32_t id);

}  // namespace tt::rt
