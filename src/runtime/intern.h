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

// What an empty cache entry's pointer is: no caller's, so a null name matches no entry.
inline constexpr char kNoName[1] = {0};

// Per-thread cache keyed by the caller's pointer; a hit still compares the text, since callers
// such as ctypes reuse buffers for different names. An entry also remembers the event class the
// name was last written with (event_classes.h), so that a repeated event takes one lookup.
struct NameCache {
  static constexpr uint32_t kSize = 256;
  static constexpr uint32_t kHead = 32;     // bytes of the text the entry holds itself
  static constexpr uint32_t kMemoArgs = 4;  // events with more arguments are not remembered
  // 256 bytes: the hot path then finds an entry with one shift.
  struct alignas(256) Entry {
    char head[kHead];           // the text's first bytes, zero-padded
    const char* ptr = kNoName;  // the caller's pointer
    const char* text;
    uint32_t id;
    // The in-place comparison's mask of the head's bytes: bits 0..len (text and NUL) for a
    // text under 32 bytes, all 32 for a longer one (whose rest is compared with `text`).
    uint32_t need;
    uint32_t len;        // the text's length
    uint32_t tail_need;  // a text of 32 bytes or more: the mask of its last block's bytes
    // The comparison loads `name` up to byte len | 15 (the end of the 16-byte block that holds
    // the NUL; 31 at least past 15), which must lie in the page that holds `name`: its offset
    // in the page must not exceed 4095 - (len | 15) (negative: never compared in place).
    int32_t page_limit;
    // The class this name's last event had, for the fast path (event_classes.h, MemoClass):
    // the event's shape word (0: nothing remembered; never a self-described event), then per
    // argument its key, its type, the values its encoding holds (those v with v - lo <= span,
    // unsigned; a float's encoding is tested by converting), and its width.
    uint64_t memo_w0;
    uint32_t memo_key[kMemoArgs];
    uint64_t memo_lo[kMemoArgs];
    uint64_t memo_span[kMemoArgs];
    uint8_t memo_type[kMemoArgs];
    uint8_t memo_f32[kMemoArgs];
    uint8_t memo_size[kMemoArgs];
    uint8_t memo_class;
  } e[kSize];
  static_assert(sizeof(Entry) == 256);
};

// The entry for a name pointer: the top 8 bits of the pointer times an odd constant (2^64 / the
// golden ratio), which spread pointers that differ in any bit; three instructions.
TT_HOT NameCache::Entry& NameSlot(NameCache* c, const char* name) {
  static_assert(NameCache::kSize == 256);
  auto h = reinterpret_cast<uintptr_t>(name) * 0x9e3779b97f4a7c15ull;
  return c->e[h >> 56];
}

// Whether the NUL-terminated `name` equals the entry's text. It is compared 16 bytes at a time
// where the loads from `name` stay inside its page: such a load cannot fault, however short
// `name` is, and bytes past its NUL do not count. The first 32 bytes are compared with the
// entry's head, the rest of a longer text 16 bytes at a time with the interned text (readable
// 16 bytes past its NUL, intern.cc). strcmp (a library call that cost a fifth of an instant) is
// left for loads that would cross a page, and for the sanitizers, which would take the bytes
// past the NUL for an overflow.
// GCC names the sanitizers with macros, clang (14) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define TT_SANITIZED 1
#endif
#endif

inline constexpr uint32_t kTextSlack = 16;  // readable bytes past an interned text's NUL

// Which of the 16 bytes at a and b are equal, as a bit mask.
TT_HOT uint32_t Same16(const char* a, const char* b) {
  auto load = [](const char* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); };
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(load(a), load(b))));
}

// The same for 32 bytes.
TT_HOT uint32_t Same32(const char* a, const char* b) {
  return Same16(a, b) | Same16(a + 16, b + 16) << 16;
}

// The in-place comparison: 1 equal, 0 different, -1 cannot tell here (strcmp must).
TT_HOT int CompareInPlace(const NameCache::Entry& e, const char* name) {
  const char* p = name;
  asm("" : "+r"(p));  // the compiler must not judge the loads by the object `name` is in
  if (static_cast<int32_t>(reinterpret_cast<uintptr_t>(p) & 4095) > e.page_limit) return -1;
  if (e.need <= 0xffff) return (Same16(p, e.head) & e.need) == e.need;  // under 16 bytes
  if ((Same32(p, e.head) & e.need) != e.need) return 0;
  const uint32_t len = e.len;
  if (len < NameCache::kHead) return 1;
  // Bytes 32..len: whole blocks, then the block that holds the NUL.
  const uint32_t last = len & ~15u;
  for (uint32_t off = NameCache::kHead; off < last; off += 16)
    if (Same16(p + off, e.text + off) != 0xffff) return 0;
  return (Same16(p + last, e.text + last) & e.tail_need) == e.tail_need;
}

TT_HOT bool SameText(const NameCache::Entry& e, const char* name) {
#ifndef TT_SANITIZED
  int r = CompareInPlace(e, name);
  if (r >= 0) return r == 1;
#endif
  // No entry holds a null pointer (kNoName), so a null name never gets here; the test is for
  // the compiler, which cannot tell and would see strcmp called with null.
  return name != nullptr && std::strcmp(e.text, name) == 0;
}

// SameText for a path that must make no call (emit.h): false where it would take strcmp,
// except in the sanitizers' builds, where strcmp is the only way.
TT_HOT bool SameTextNoCall(const NameCache::Entry& e, const char* name) {
#ifdef TT_SANITIZED
  return SameText(e, name);
#else
  return CompareInPlace(e, name) == 1;
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
    // Bytes 0..len (len 31: all 32); a longer text: all 32, the rest compared with `text`.
    e.need = len < NameCache::kHead ? (2u << len) - 1 : ~0u;
    e.len = static_cast<uint32_t>(len);
    e.tail_need = (2u << (len & 15)) - 1;  // bytes len & ~15 .. len
    e.page_limit = 4095 - static_cast<int32_t>(len | 15);
    e.memo_w0 = 0;  // the remembered class was another name's
  }
  return id;
}

const char* InternedText(uint32_t id);

}  // namespace tt::rt
