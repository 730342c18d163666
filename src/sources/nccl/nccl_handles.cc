#include "sources/nccl/nccl_handles.h"

namespace tt::nccl {

namespace {

// Enough for thousands of operations in flight (a proxy op per channel, a step per chunk
// slot); a full pool drops events, counted, and never blocks NCCL.
constexpr size_t kHandles = 16384;
constexpr size_t kContexts = 256;
// Slots tried per take before giving up.
constexpr size_t kProbe = 256;

Handle g_handles[kHandles];
Context g_contexts[kContexts];
std::atomic<size_t> g_cursor{0};

template <typename T>
T* InPool(T* pool, size_t n, void* p) {
  auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(pool);
  if (a < b || a >= b + n * sizeof(T) || (a - b) % sizeof(T) != 0) return nullptr;
  T* t = static_cast<T*>(p);
  return t->used.load(std::memory_order_acquire) ? t : nullptr;
}

}  // namespace

Handle* TakeHandle(Kind kind) {
  // Round robin from a shared cursor: a slot given back is reused only after the cursor has
  // gone round, which keeps a late child's parent pointer from naming a new event soon after.
  size_t at = g_cursor.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < kProbe; ++i) {
    Handle& h = g_handles[(at + i) % kHandles];
    uint32_t expect = 0;
    if (h.used.load(std::memory_order_relaxed) ||
        !h.used.compare_exchange_strong(expect, 1, std::memory_order_acquire))
      continue;
    h.kind = kind;
    h.ctx = nullptr;
    h.parent = nullptr;
    h.start = h.host_end = 0;
    h.refs.store(0, std::memory_order_relaxed);
    h.children.store(0, std::memory_order_relaxed);
    h.end.store(0, std::memory_order_relaxed);
    h.func = h.dtype = h.algo = h.proto = nullptr;
    h.seq = h.count = h.bytes = 0;
    h.rank = h.root = h.peer = -1;
    h.steps = h.chunk = h.step = 0;
    h.channels = h.channel = 0;
    h.is_send = false;
    h.net_id = 0;
    return &h;
  }
  return nullptr;
}

void GiveBack(Handle* h) {
  if (h) h->used.store(0, std::memory_order_release);
}

Handle* CheckHandle(void* p) { return InPool(g_handles, kHandles, p); }

Context* TakeContext() {
  for (Context& c : g_contexts) {
    uint32_t expect = 0;
    if (c.used.compare_exchange_strong(expect, 1, std::memory_order_acquire)) return &c;
  }
  return nullptr;
}

void GiveBack(Context* c) {
  if (c) c->used.store(0, std::memory_order_release);
}

Context* CheckContext(void* p) { return InPool(g_contexts, kContexts, p); }

namespace detail {
Handle* Pool(size_t* n) {
  *n = kHandles;
  return g_handles;
}
}  // namespace detail

}  // namespace tt::nccl
