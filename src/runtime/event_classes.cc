#include "runtime/event_classes.h"

#include <atomic>
#include <bit>
#include <utility>

#include "runtime/emit.h"
#include "runtime/loss_page.h"

namespace tt::rt {

namespace {

constexpr uint32_t kMaxClasses = layout::kLastClassId - layout::kFirstClassId + 1;
constexpr uint32_t kSlots = 512;  // power of two, over twice kMaxClasses: short probes

struct Table {
  ClassKey keys[kMaxClasses];
  std::atomic<uint16_t> slots[kSlots];  // 0: empty, else index + 1; published last
  uint32_t count;
  std::atomic<bool> full;
};
constinit Table g_table{};

bool Same(const ClassKey& a, const ClassKey& b, uint32_t n) {
  if (a.w0 != b.w0) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (a.a[i] != b.a[i]) return false;
  return true;
}

// Probes from *i for `key`: its id, or 0 with *i at the first empty slot.
uint8_t Probe(const ClassKey& key, uint32_t n, uint32_t* i) {
  for (;; *i = (*i + 1) & (kSlots - 1)) {
    uint16_t s = g_table.slots[*i].load(std::memory_order_acquire);
    if (s == 0) return 0;
    if (Same(g_table.keys[s - 1], key, n)) return static_cast<uint8_t>(layout::kFirstClassId + s - 1);
  }
}

// Each argument's key and encoding, as event_class_def and EventClass hold them.
void ShapeOf(const ClassKey& key, uint32_t n, uint8_t* shape) {
  for (uint32_t i = 0; i < n && i < layout::kMaxClassArgs; ++i) {
    Store(shape + i * layout::kArgHeadSize, static_cast<uint32_t>(key.a[i]));
    shape[i * layout::kArgHeadSize + 4] = static_cast<uint8_t>(key.a[i] >> 32);
  }
}

// The event_class_def in the process stream (caller holds the lock).
bool WriteClassDef(uint8_t id, const ClassKey& key, uint32_t n) {
  uint8_t shape[layout::kMaxClassArgs * layout::kArgHeadSize];
  ShapeOf(key, n, shape);
  return WriteProcEvent(layout::kEventClassDef, 9 + n * layout::kArgHeadSize, [&](uint8_t* p) {
    return PutClassDef(p, id, static_cast<uint8_t>(key.w0 >> 32), static_cast<uint32_t>(key.w0),
                       static_cast<layout::Category>(key.w0 >> 40), static_cast<uint8_t>(n),
                       shape);
  });
}

}  // namespace

void InitClassTable() {
  for (auto& s : g_table.slots) s.store(0, std::memory_order_relaxed);
  g_table.count = 0;
  g_table.full.store(false, std::memory_order_relaxed);
}

uint8_t ClassMiss(ClassCache::Entry* set, const ClassKey& key, uint32_t n) {
  if (set[1].key.w0 && Same(set[1].key, key, n)) {
    std::swap(set[0], set[1]);
    return set[0].id;
  }
  uint64_t h = key.w0;
  for (uint32_t k = 0; k < n; ++k) h ^= std::rotl(key.a[k], static_cast<int>(7 * k + 11));
  h *= 0x9e3779b97f4a7c15ull;
  uint32_t i = static_cast<uint32_t>(h >> 20) & (kSlots - 1);
  uint8_t id = Probe(key, n, &i);
  // Once `record` has finished it has declared the classes defined so far in the metadata of a
  // process still running (CutRunningProcess): later events are written self-described.
  if (id == 0 && !g_table.full.load(std::memory_order_relaxed) && !RecordingEnded()) {
    Lock();
    id = Probe(key, n, &i);  // another thread may have defined it meanwhile
    if (id == 0 && g_table.count < kMaxClasses) {
      auto new_id = static_cast<uint8_t>(layout::kFirstClassId + g_table.count);
      if (WriteClassDef(new_id, key, n)) {
        g_table.keys[g_table.count] = key;
        g_table.count++;
        g_table.slots[i].store(static_cast<uint16_t>(g_table.count), std::memory_order_release);
        id = new_id;
      }
    }
    if (g_table.count >= kMaxClasses) g_table.full.store(true, std::memory_order_relaxed);
    Unlock();
  }
  set[1] = set[0];
  set[0].key = key;
  set[0].id = id;
  return id;
}

void ListClasses(std::vector<EventClass>* out) {
  for (uint32_t k = 0; k < g_table.count; ++k) {
    const ClassKey& key = g_table.keys[k];
    EventClass c;
    c.id = static_cast<uint16_t>(layout::kFirstClassId + k);
    c.kind = static_cast<uint8_t>(key.w0 >> 32);
    c.name = static_cast<uint32_t>(key.w0);
    c.category = static_cast<layout::Category>(key.w0 >> 40);
    c.nargs = static_cast<uint8_t>(key.w0 >> 48);
    c.name_text = InternedText(c.name);
    ShapeOf(key, c.nargs, c.shape);
    for (uint32_t i = 0; i < c.nargs; ++i)
      c.key_texts.emplace_back(InternedText(static_cast<uint32_t>(key.a[i])));
    out->push_back(std::move(c));
  }
}

}  // namespace tt::rt
