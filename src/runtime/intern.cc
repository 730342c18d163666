#include "runtime/intern.h"

#include <sys/mman.h>

#include <atomic>

#include "runtime/emit.h"

namespace tt::rt {

namespace {

constexpr uint32_t kSlots = 1u << 16;           // power of two
constexpr uint32_t kMaxNames = kSlots / 4 * 3;  // keep probes short
constexpr uint64_t kArenaBytes = 32ull << 20;

struct Slot {
  std::atomic<uint32_t> id;  // 0: empty; published last, with release
  uint32_t len;
  uint64_t hash;
  const char* text;
};

struct Table {
  Slot* slots = nullptr;
  const char** by_id = nullptr;  // id -> text
  char* arena = nullptr;
  uint64_t arena_used = 0;
  uint32_t count = 0;
};
constinit Table g_table;

uint64_t Hash(const char* s, uint32_t* len) {
  uint64_t h = 0xcbf29ce484222325ull;
  uint32_t n = 0;
  for (; s[n] && n < kMaxNameLen; ++n) h = (h ^ static_cast<unsigned char>(s[n])) * 0x100000001b3ull;
  *len = n;
  return h ^ (h >> 29);
}

void* MapAnon(uint64_t bytes) {
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return m == MAP_FAILED ? nullptr : m;
}

// Writes the definition into the process stream (caller holds the lock).
bool WriteDef(uint32_t id, const char* text, uint32_t len) {
  return WriteProcEvent(layout::kStringDef, 4 + len + 1,
                        [&](uint8_t* p) { return PutStr(PutU32(p, id), text, len); });
}

}  // namespace

bool InitInternTable() {
  // After fork the child drops the parent's table (its definitions are in the parent's trace).
  if (g_table.slots) munmap(g_table.slots, sizeof(Slot) * kSlots);
  if (g_table.by_id) munmap(g_table.by_id, sizeof(char*) * (kMaxNames + 1));
  if (g_table.arena) munmap(g_table.arena, kArenaBytes);
  g_table = Table{};
  g_table.slots = static_cast<Slot*>(MapAnon(sizeof(Slot) * kSlots));
  g_table.by_id = static_cast<const char**>(MapAnon(sizeof(char*) * (kMaxNames + 1)));
  g_table.arena = static_cast<char*>(MapAnon(kArenaBytes));
  return g_table.slots && g_table.by_id && g_table.arena;
}

const char* InternedText(uint32_t id) { return g_table.by_id[id]; }

uint32_t Intern(const char* name) {
  if (!g_table.slots) return 0;
  uint32_t len;
  uint64_t h = Hash(name, &len);
  uint32_t i = static_cast<uint32_t>(h) & (kSlots - 1);
  for (;; i = (i + 1) & (kSlots - 1)) {
    Slot& sl = g_table.slots[i];
    uint32_t id = sl.id.load(std::memory_order_acquire);
    if (id == 0) break;
    if (sl.hash == h && sl.len == len && std::memcmp(sl.text, name, len) == 0) return id;
  }
  Lock();
  // Another thread may have inserted it since; continue probing from where we stopped.
  uint32_t result = 0;
  for (;; i = (i + 1) & (kSlots - 1)) {
    Slot& sl = g_table.slots[i];
    uint32_t id = sl.id.load(std::memory_order_acquire);
    if (id != 0) {
      if (sl.hash == h && sl.len == len && std::memcmp(sl.text, name, len) == 0) {
        result = id;
        break;
      }
      continue;
    }
    // Room for the text, its NUL and the bytes the in-place comparison may read past it.
    if (g_table.count >= kMaxNames || g_table.arena_used + len + 1 + kTextSlack > kArenaBytes)
      break;
    uint32_t new_id = g_table.count + 1;
    char* text = g_table.arena + g_table.arena_used;
    std::memcpy(text, name, len);
    text[len] = 0;
    if (!WriteDef(new_id, text, len)) break;
    g_table.arena_used += len + 1;
    g_table.count = new_id;
    g_table.by_id[new_id] = text;
    if (len == kMaxNameLen && name[len] != 0) CountTruncatedName();  // counted in the metadata
    sl.len = len;
    sl.hash = h;
    sl.text = text;
    sl.id.store(new_id, std::memory_order_release);
    result = new_id;
    break;
  }
  Unlock();
  return result;
}

}  // namespace tt::rt
