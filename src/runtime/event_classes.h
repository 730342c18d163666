// Event classes on the writing side (layout 3, see format/layout.h): the process-wide table of
// classes and each stream's cache of it. An event whose name, category, argument keys and
// argument encodings match a class is written as the class id and its values only.
#pragma once
#include <cstdint>
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
  // Unrolled (n <= 6) at any optimisation level: the loops' control cost more than their work.
#pragma GCC unroll 6
  for (uint32_t i = 0; i < n; ++i) k.a[i] = ArgWord(args[i], enc[i]);
  ClassCache::Entry* set = &c->e[((name + kind * 53u) * 2) & (ClassCache::kSize - 1)];
  bool hit = set->key.w0 == k.w0;
#pragma GCC unroll 6
  for (uint32_t i = 0; i < n; ++i) hit &= set->key.a[i] == k.a[i];
  if (__builtin_expect(hit, 1)) return set->id;
  return ClassMiss(set, k, n);
}

// What a name's cache entry remembers of the class it was last written with (intern.h): the
// event's kind, category and argument count (the word is never 0), and each argument's word.
TT_HOT uint64_t MemoWord(uint8_t kind, layout::Category cat, uint32_t n) {
  return uint64_t{kind} | uint64_t{static_cast<uint8_t>(cat)} << 8 | uint64_t{n} << 16 |
         uint64_t{1} << 32;
}

// Whether the entry of the event's name remembers this shape (its class is then memo_class).
TT_HOT bool MemoHit(const NameCache::Entry& e, uint64_t w0, const Arg* args, const ArgEnc* enc,
                    uint32_t n) {
  if (n > NameCache::kMemoArgs) return false;
  bool hit = e.memo_w0 == w0;
#pragma GCC unroll 4
  for (uint32_t i = 0; i < n && i < NameCache::kMemoArgs; ++i)
    hit &= e.memo_args[i] == ArgWord(args[i], enc[i]);
  return hit;
}

TT_HOT void Remember(NameCache::Entry& e, uint64_t w0, const Arg* args, const ArgEnc* enc,
                     uint32_t n, uint8_t cls) {
  if (n > NameCache::kMemoArgs) return;
  for (uint32_t i = 0; i < n && i < NameCache::kMemoArgs; ++i)
    e.memo_args[i] = ArgWord(args[i], enc[i]);
  e.memo_class = cls;
  e.memo_w0 = w0;
}

}  // namespace tt::rt
