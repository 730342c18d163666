// Event classes on the writing side (layout 3, see format/layout.h): the process-wide table of
// classes and each stream's cache of it. An event whose name, category, argument keys and
// argument encodings match a class is written as the class id and its values only.
#pragma once
#include <cstdint>
#include <iterator>
#include <vector>

#include "core/hot.h"
#include "format/args.h"
#include "format/event_class.h"
#include "runtime/intern.h"

namespace tt::rt {

// What identifies a class: word 0 packs name, kind, category and argument count; each argument
// word its key and encoding.
struct ClassKey {
  uint64_t w0;
  uint64_t a[layout::kMaxClassArgs];
};

// Per-stream, two ways per set. The set comes from the name id and the kind alone (ids are
// dense, so few names share one), which spares the hot path a hash of the arguments; way 0
// holds the set's latest key. An entry remembers a class id, or 0 for "no class" (the table is
// full), so a miss reaches the process table once per key and set.
struct ClassCache {
  static constexpr uint32_t kSize = 256;
  struct Entry {
    ClassKey key;  // key.w0 == 0: empty
    uint8_t id;
  } e[kSize];
};
// Resets the table (process start, and in a child after fork).
void InitClassTable();

// The class of `key` (n arguments), which way 0 of `set` does not hold: from way 1, else from
// the process table, defining it if new (under the process lock). Leaves it in way 0. 0 when
// the table is full or the definition could not be written.
uint8_t ClassMiss(ClassCache::Entry* set, const ClassKey& key, uint32_t n);

// The classes defined so far, for the metadata (under the process lock).
void ListClasses(std::vector<EventClass>* out);

// An argument's word in a class key: its key and encoding.
TT_HOT uint64_t ArgWord(const Arg& a, ArgEnc e) {
  return a.key | uint64_t{static_cast<uint8_t>(e.wire)} << 32;
}

// The class of an event whose arguments are encoded as `enc`; 0: write the event
// self-described. Events with more than kMaxClassArgs arguments have no class.
TT_HOT uint8_t ClassOf(ClassCache* c, uint8_t kind, uint32_t name, layout::Category cat,
                       const Arg* args, const ArgEnc* enc, uint32_t n) {
  if (n > layout::kMaxClassArgs) return 0;
  ClassKey k;
  k.w0 =
      name | uint64_t{kind} << 32 | uint64_t{static_cast<uint8_t>(cat)} << 40 | uint64_t{n} << 48;
  // Unrolled (n <= 6) in every optimised build: the loops' control cost more than their work.
  TT_UNROLL(6)
  for (uint32_t i = 0; i < n; ++i) k.a[i] = ArgWord(args[i], enc[i]);
  ClassCache::Entry* set = &c->e[((name + kind * 53u) * 2) & (ClassCache::kSize - 1)];
  bool hit = set->key.w0 == k.w0;
  TT_UNROLL(6)
  for (uint32_t i = 0; i < n; ++i) hit &= set->key.a[i] == k.a[i];
  if (__builtin_expect(hit, 1)) return set->id;
  return ClassMiss(set, k, n);
}

// What a name's cache entry remembers of the class it was last written with (intern.h): the
// event's kind, category and argument count (the word is never 0).
TT_HOT uint64_t MemoWord(uint8_t kind, layout::Category cat, uint32_t n) {
  return uint64_t{kind} | uint64_t{static_cast<uint8_t>(cat)} << 8 | uint64_t{n} << 16 |
         uint64_t{1} << 32;
}

// The values each encoding holds, as those v (the argument's 8 bytes) with v - lo <= span,
// unsigned. F32's are found by converting (its span is unused).
struct WireRange {
  uint64_t lo, span;
};
inline constexpr WireRange kWireRanges[] = {
    {0, ~uint64_t{0}},                               // kI64
    {0, ~uint64_t{0}},                               // kU64
    {0, ~uint64_t{0}},                               // kF64
    {0, UINT32_MAX},                                 // kStr: an id, zero-extended
    {static_cast<uint64_t>(INT8_MIN), UINT8_MAX},    // kI8
    {static_cast<uint64_t>(INT16_MIN), UINT16_MAX},  // kI16
    {static_cast<uint64_t>(INT32_MIN), UINT32_MAX},  // kI32
    {0, UINT32_MAX},                                 // kU32
    {0, 0},                                          // kF32
};
static_assert(std::size(kWireRanges) == static_cast<size_t>(layout::ArgWire::kCount));

// The class the entry remembers, if the event has the remembered shape `w0` (MemoWord) and
// each argument the remembered key and type and a value that the remembered encoding holds
// exactly (`bits`: the 8 bytes to store for each); 0 if not. The encoding need not be the
// narrowest: a value that fits keeps the class (a miss encodes at the narrowest again).
TT_HOT uint8_t MemoClass(const NameCache::Entry& e, uint64_t w0, const Arg* args, uint32_t n,
                         uint64_t* bits) {
  if (n > NameCache::kMemoArgs || e.memo_w0 != w0) return 0;
  TT_UNROLL(4)
  for (uint32_t i = 0; i < n && i < NameCache::kMemoArgs; ++i) {
    // Key and type compared apart: the caller has just stored them, with two stores that
    // could not be forwarded to one wider load (it would wait for them to reach the cache).
    if (args[i].key != e.memo_key[i] || static_cast<uint8_t>(args[i].type) != e.memo_type[i])
      return 0;
    uint64_t v = args[i].v.u;
    if (e.memo_f32[i]) {
      // Converted as EncodeArg does, each result into its source's register (no dependency
      // on another register's upper bits).
      __m128d d = _mm_castsi128_pd(_mm_cvtsi64_si128(static_cast<int64_t>(v)));
      __m128 f = _mm_cvtsd_ss(_mm_castpd_ps(d), d);
      bits[i] = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_castps_si128(f)));
      __m128d back = _mm_cvtss_sd(_mm_castps_pd(f), f);
      if (static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_castpd_si128(back))) != v) return 0;
    } else {
      if (v - e.memo_lo[i] > e.memo_span[i]) return 0;
      bits[i] = v;
    }
  }
  return e.memo_class;
}

// Remembers class `cls` of an event of shape `w0` whose arguments were encoded as `enc`;
// forgets instead where the fast path could not use it (no class, too many arguments).
inline void Remember(NameCache::Entry& e, uint64_t w0, const Arg* args, const ArgEnc* enc,
                     uint32_t n, uint8_t cls) {
  if (n > NameCache::kMemoArgs || cls == 0) {
    e.memo_w0 = 0;
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    auto w = static_cast<uint8_t>(enc[i].wire);
    e.memo_key[i] = args[i].key;
    e.memo_type[i] = static_cast<uint8_t>(args[i].type);
    e.memo_lo[i] = kWireRanges[w].lo;
    e.memo_span[i] = kWireRanges[w].span;
    e.memo_f32[i] = enc[i].wire == layout::ArgWire::kF32;
    e.memo_size[i] = layout::ArgWireSize(enc[i].wire);
  }
  e.memo_class = cls;
  e.memo_w0 = w0;
}

}  // namespace tt::rt
